"""Plain values: what every output format can print (JSON-native types only).

Kept free of pyarrow so that metadata commands start fast; Arrow columns are converted to
plain values in ``convert.py``.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal


def plain_value(v):
    """Best-effort plain form of a Python value (for rows built from metadata)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (dt.date, dt.time, dt.datetime)):
        return v.isoformat()
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, dict):
        return {str(k): plain_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain_value(x) for x in v]
    return str(v)


def json_safe(v):
    """Replace NaN/Infinity (not valid JSON) with their names as strings."""
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, list):
        return [json_safe(x) for x in v]
    if isinstance(v, dict):
        return {k: json_safe(x) for k, x in v.items()}
    return v
