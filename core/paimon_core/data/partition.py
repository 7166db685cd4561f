"""Partitions: the BinaryRow stored in manifests and the ``k=v/`` directory names Java derives
from it (docs/format.md section 1.1; legacy naming, Paimon's default)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from paimon_core.data.binary_row import deserialize_row, serialize_row
from paimon_core.data.types import AtomicType, DataType
from paimon_core.data.values import internal_to_python, java_double_string, java_local_datetime_string

if TYPE_CHECKING:
    from collections.abc import Iterable

_ESCAPE = set("\"#%'*/:=?\\{}[]^")


def escape_path_name(s: str) -> str:
    out = []
    for ch in s:
        if ord(ch) < 0x20 or ch == "\x7f" or ch in _ESCAPE:
            out.append(f"%{ord(ch):02X}")
        else:
            out.append(ch)
    return "".join(out)


def unescape_path_name(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        if (
            s[i] == "%"
            and i + 2 < len(s) + 0
            and all(c in "0123456789abcdefABCDEF" for c in s[i + 1 : i + 3])
        ):
            out.append(chr(int(s[i + 1 : i + 3], 16)))
            i += 3
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def value_to_path_string(v: Any, t: DataType) -> str | None:
    """The legacy partition string of an internal value (None for null/blank)."""
    if v is None:
        return None
    root = t.root if isinstance(t, AtomicType) else ""
    if root in ("CHAR", "VARCHAR"):
        return v if v.strip() else None
    if root == "BOOLEAN":
        return "true" if v else "false"
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return java_local_datetime_string(v)
    if root == "DOUBLE":
        return java_double_string(v)
    if root == "FLOAT":
        return java_double_string(v, single=True)
    if root == "DECIMAL":
        d = v if isinstance(v, Decimal) else Decimal(v)
        assert isinstance(t, AtomicType)  # root is only set for atomic types
        return f"{d.quantize(Decimal(1).scaleb(-t.declared_scale)):f}"
    if root in ("BINARY", "VARBINARY"):
        return bytes(v).decode("utf-8", errors="replace") or None
    return str(v)  # ints; DATE is days since epoch and TIME millis of day in legacy naming


class PartitionCodec:
    """Turns partition values (internal form, in partition-key order) into bytes and paths."""

    def __init__(self, keys: list[str], types: list[DataType], default_name: str = "__DEFAULT_PARTITION__"):
        self.keys = list(keys)
        self.types = list(types)
        self.default_name = default_name

    def to_bytes(self, values: Iterable) -> bytes:
        return serialize_row(list(values), self.types)

    def from_bytes(self, data: bytes) -> tuple:
        return tuple(deserialize_row(data, self.types))

    def path(self, values: Iterable) -> str:
        """Relative directory, e.g. ``dt=2024-01-01/hr=3`` ('' when unpartitioned)."""
        parts = []
        for k, v, t in zip(self.keys, values, self.types):
            s = value_to_path_string(v, t)
            parts.append(
                f"{escape_path_name(k)}={escape_path_name(s) if s is not None else self.default_name}"
            )
        return "/".join(parts)

    def spec(self, values: Iterable) -> dict:
        return dict(zip(self.keys, values))

    def display(self, spec: dict) -> str:
        """``dt=2024-01-01,hr=3`` for messages, from {key: internal value} (a whole partition or
        part of one): values as the directory names read, dates and times in ISO form."""
        types = dict(zip(self.keys, self.types))
        return ",".join(f"{k}={display_value(v, types[k], self.default_name)}" for k, v in spec.items())


def display_value(v: Any, t: DataType, default_name: str = "__DEFAULT_PARTITION__") -> str:
    if isinstance(t, AtomicType) and t.root in ("DATE", "TIME") and v is not None:
        return internal_to_python(v, t).isoformat()
    s = value_to_path_string(v, t)
    return default_name if s is None else s
