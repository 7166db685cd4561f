"""Conversions between Arrow values and the internal values BinaryRows hold.

Internal form: DATE = days since epoch, TIME = millis of day, TIMESTAMP(_LTZ) = epoch nanos
(TIMESTAMP as wall clock read as UTC), DECIMAL = ``decimal.Decimal``; everything else as Python.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pyarrow as pa

from paimon_core.data.types import AtomicType, DataType, to_arrow_type

EPOCH = dt.datetime(1970, 1, 1)
EPOCH_DATE = dt.date(1970, 1, 1)


def internal_values(arr: pa.Array | pa.ChunkedArray, t: DataType) -> list:
    """Internal values of a column (None for nulls)."""
    root = t.root if isinstance(t, AtomicType) else None
    if root == "DATE":
        return arr.cast(pa.date32()).cast(pa.int32()).to_pylist()
    if root == "TIME":
        return arr.cast(pa.time32("ms")).cast(pa.int32()).to_pylist()
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        tz = "UTC" if root == "TIMESTAMP_LTZ" else None
        if not pa.types.is_timestamp(arr.type):
            arr = arr.cast(to_arrow_type(t))
        return (
            arr.cast(pa.timestamp(arr.type.unit, tz)).cast(pa.int64()).to_pylist()
            if arr.type.unit == "ns"
            else [
                None if v is None else v * {"s": 10**9, "ms": 10**6, "us": 10**3}[arr.type.unit]
                for v in arr.cast(pa.int64()).to_pylist()
            ]
        )
    return arr.to_pylist()


def internal_from_scalar(s: pa.Scalar, t: DataType) -> Any:
    return internal_values(pa.array([s], type=s.type), t)[0]


def internal_to_python(v: Any, t: DataType) -> Any:
    """Internal value to a user-facing Python value (date, time, datetime, Decimal...)."""
    if v is None or not isinstance(t, AtomicType):
        return v
    if t.root == "DATE":
        return EPOCH_DATE + dt.timedelta(days=v)
    if t.root == "TIME":
        return (dt.datetime.min + dt.timedelta(milliseconds=v)).time()
    if t.root == "TIMESTAMP":
        return EPOCH + dt.timedelta(microseconds=v // 1000)
    if t.root == "TIMESTAMP_LTZ":
        return (EPOCH + dt.timedelta(microseconds=v // 1000)).replace(tzinfo=dt.timezone.utc)
    return v


def python_to_internal(v: Any, t: DataType) -> Any:
    """User value (already of the right Python kind) to the internal value."""
    if v is None or not isinstance(t, AtomicType):
        return v
    if t.root == "DATE":
        return (v - EPOCH_DATE).days if isinstance(v, dt.date) else int(v)
    if t.root == "TIME":
        if isinstance(v, dt.time):
            return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000
        return int(v)
    if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if isinstance(v, dt.datetime):
            if v.tzinfo is not None:
                v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
            delta = v - EPOCH
            return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
        return int(v)
    if t.root == "DECIMAL":
        return v if isinstance(v, Decimal) else Decimal(str(v))
    return v


def java_local_datetime_string(nanos: int) -> str:
    """``LocalDateTime.toString()``: seconds dropped when zero with no fraction; the fraction has
    3, 6 or 9 digits, the fewest that hold it."""
    secs, nano = divmod(nanos, 10**9)
    d = EPOCH + dt.timedelta(seconds=secs)
    out = d.strftime("%Y-%m-%dT%H:%M")
    if d.second or nano:
        out += f":{d.second:02d}"
    if nano:
        if nano % 1_000_000 == 0:
            out += f".{nano // 1_000_000:03d}"
        elif nano % 1000 == 0:
            out += f".{nano // 1000:06d}"
        else:
            out += f".{nano:09d}"
    return out


def java_double_string(v: float, single: bool = False) -> str:
    """Java ``Double.toString``/``Float.toString`` (shortest repr; scientific outside 1e-3..1e7)."""
    import math

    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if math.copysign(1, v) < 0 else "0.0"
    if single:
        import numpy as np

        r = repr(np.float32(v)).replace("np.float32(", "").rstrip(")")
    else:
        r = repr(float(v))
    a = abs(v)
    if 1e-3 <= a < 1e7:
        if "e" in r:
            r = f"{Decimal(r):f}"
        return r if "." in r else r + ".0"
    mant, _, exp = f"{Decimal(r):E}".partition("E")
    mant = mant.rstrip("0")
    if mant.endswith("."):
        mant += "0"
    if "." not in mant:
        mant += ".0"
    return f"{mant}E{int(exp)}"


_FIXED_WIDTH = {"TINYINT": "<b", "SMALLINT": "<h", "INT": "<i", "BIGINT": "<q", "DATE": "<i"}


def one_value_array(v: Any, t: DataType) -> pa.Array:
    """A one-element Arrow array of type ``t`` (BOOLEAN, an integer type or DATE) holding the
    internal value ``v`` (None: null), built from its buffers: ``pa.array`` imports pandas to
    check for pandas objects (about 0.3 s), which answers from metadata must not pay."""
    import struct

    target = to_arrow_type(t)
    if v is None:
        return pa.nulls(1, target)
    root = t.root if isinstance(t, AtomicType) else None
    if root == "BOOLEAN":
        return pa.Array.from_buffers(target, 1, [None, pa.py_buffer(bytes([1 if v else 0]))])
    if root not in _FIXED_WIDTH:
        raise TypeError(f"one_value_array takes BOOLEAN, integer types and DATE, not {t}")
    return pa.Array.from_buffers(target, 1, [None, pa.py_buffer(struct.pack(_FIXED_WIDTH[root], v))])
