"""Canonical JSON row encoding shared by Java Paimon, pypaimon and paimon-cli in interop tests.

This module needs only pyarrow and the standard library: the pypaimon driver imports it by path
inside its own venv. Encoding (README.md has the table): ints and floats as JSON numbers (FLOAT
widened exactly to double; NaN/Infinity/-Infinity as strings), DECIMAL as an exact string with
`scale` fraction digits, DATE "YYYY-MM-DD", TIME "HH:MM:SS.fff" (always milliseconds),
TIMESTAMP(p) "YYYY-MM-DDTHH:MM:SS[.f*p]", TIMESTAMP_LTZ the same in UTC plus "Z", strings as
strings, binaries as lowercase hex, ARRAY as list, MAP as object keyed by the key's canonical
text, ROW as object, NULL as null. Rows are dicts column -> value, plus optional "_row_kind".
"""

from __future__ import annotations

import collections
import datetime as _dt
import decimal
import json
import math
import re
from collections.abc import Iterable
from typing import Any

import pyarrow as pa

ROW_KIND = "_row_kind"
_UNIT_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_UNIT_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_EPOCH = _dt.datetime(1970, 1, 1)
_TS_PRECISION = re.compile(r"^\s*TIMESTAMP(?:_LTZ)?\s*\(\s*(\d+)\s*\)", re.IGNORECASE)
_LTZ = re.compile(r"TIMESTAMP_LTZ|WITH\s+LOCAL\s+TIME\s+ZONE", re.IGNORECASE)

__all__ = [
    "ROW_KIND",
    "rows_from_arrow",
    "canonical_value",
    "map_key_text",
    "sort_rows",
    "assert_same_rows",
    "timestamp_precision",
    "value_from_canonical",
    "arrow_from_rows",
]


def timestamp_precision(paimon_type: str | None) -> int | None:
    """Precision p of a "TIMESTAMP(p)" / "TIMESTAMP_LTZ(p)" / "TIMESTAMP(p) WITH LOCAL TIME ZONE" string."""
    if not paimon_type:
        return None
    m = _TS_PRECISION.match(paimon_type)
    if m:
        return int(m.group(1))
    if re.match(r"^\s*TIMESTAMP", paimon_type, re.IGNORECASE):
        return 6
    return None


def map_key_text(key: Any) -> str:
    """MAP keys become object keys: strings as-is, anything else as its canonical JSON text."""
    return key if isinstance(key, str) else json.dumps(key, separators=(",", ":"), ensure_ascii=False)


def _float(v: float) -> Any:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return float(v)


def _ts_text(count: int, unit: str, precision: int) -> str:
    per = _UNIT_PER_SECOND[unit]
    secs, frac = divmod(count, per)
    text = (_EPOCH + _dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
    if len(text) < 19:  # years < 1000: strftime does not zero-pad %Y everywhere
        text = text.zfill(19)
    if precision > 0:
        nanos = frac * (1_000_000_000 // per)
        text += "." + f"{nanos:09d}"[:precision]
    return text


def _time_text(count: int, unit: str) -> str:
    ms = count * 1000 // _UNIT_PER_SECOND[unit]
    secs, milli = divmod(ms, 1000)
    return f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}.{milli:03d}"


def _intified(t: pa.DataType) -> pa.DataType:
    """The same type with every timestamp/time replaced by its storage integer (raw counts)."""
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return pa.int64()
    if pa.types.is_time32(t):
        return pa.int32()
    if pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, _intified(t.value_type), t.value_field.nullable))
    if pa.types.is_large_list(t):
        return pa.large_list(pa.field(t.value_field.name, _intified(t.value_type), t.value_field.nullable))
    if pa.types.is_map(t):
        return pa.map_(
            pa.field(t.key_field.name, _intified(t.key_type), False),
            pa.field(t.item_field.name, _intified(t.item_type), t.item_field.nullable),
        )
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _intified(f.type), f.nullable) for f in t])
    return t


def canonical_value(
    v: Any, arrow_type: pa.DataType, precision: int | None = None, ltz: bool | None = None
) -> Any:
    """Canonical JSON value of one Python value as produced by `to_pylist()` of `arrow_type`
    (timestamps/times may also be given as raw integer counts in the type's unit)."""
    if v is None:
        return None
    t = arrow_type
    if pa.types.is_boolean(t):
        return bool(v)
    if pa.types.is_integer(t):
        return int(v)
    if pa.types.is_floating(t):
        return _float(float(v))
    if pa.types.is_decimal(t):
        return f"{decimal.Decimal(v):.{t.scale}f}"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return str(v)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return bytes(v).hex()
    if pa.types.is_date(t):
        return (
            v.isoformat()
            if isinstance(v, _dt.date)
            else (_EPOCH.date() + _dt.timedelta(days=int(v))).isoformat()
        )
    if pa.types.is_time(t):
        if isinstance(v, _dt.time):
            return f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}.{v.microsecond // 1000:03d}"
        return _time_text(int(v), t.unit)
    if pa.types.is_timestamp(t):
        p = _UNIT_DIGITS[t.unit] if precision is None else precision
        if isinstance(v, _dt.datetime):  # fallback path (cast to raw ints failed)
            if v.tzinfo is not None:
                v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            delta = v - _EPOCH
            count = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
            count = count * 1000 + int(getattr(v, "nanosecond", 0))
            text = _ts_text(count, "ns", p)
        else:
            text = _ts_text(int(v), t.unit, p)
        is_ltz = (t.tz is not None) if ltz is None else ltz
        return text + "Z" if is_ltz else text
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [canonical_value(x, t.value_type) for x in v]
    if pa.types.is_map(t):
        items = v.items() if isinstance(v, dict) else v
        return {
            map_key_text(canonical_value(k, t.key_type)): canonical_value(x, t.item_type) for k, x in items
        }
    if pa.types.is_struct(t):
        return {f.name: canonical_value(v.get(f.name), f.type) for f in t}
    if pa.types.is_null(t):
        return None
    raise TypeError(f"no canonical encoding for Arrow type {t}")


def _column_values(col: pa.ChunkedArray | pa.Array) -> list[Any]:
    t = col.type
    raw_t = _intified(t)
    if raw_t != t:
        try:
            return col.cast(raw_t).to_pylist()
        except (pa.ArrowException, NotImplementedError):
            pass
    return col.to_pylist()


def rows_from_arrow(
    table: pa.Table | pa.RecordBatch, paimon_types: dict[str, str] | None = None
) -> list[dict]:
    """Arrow table -> canonical rows. `paimon_types` (column -> Paimon type string) gives the
    TIMESTAMP precision (Arrow only knows s/ms/us/ns, whose digits 0/3/6/9 are the default) and
    marks LTZ columns. A string column named "_row_kind" is kept as the row kind."""
    paimon_types = paimon_types or {}
    names = list(table.schema.names)
    columns = []
    for i, name in enumerate(names):
        col = table.column(i)
        if name == ROW_KIND:
            columns.append(col.to_pylist())
            continue
        ptype = paimon_types.get(name)
        prec = timestamp_precision(ptype) if pa.types.is_timestamp(col.type) else None
        ltz = bool(_LTZ.search(ptype)) if (ptype and pa.types.is_timestamp(col.type)) else None
        columns.append([canonical_value(v, col.type, prec, ltz) for v in _column_values(col)])
    return [dict(zip(names, vals, strict=True)) for vals in zip(*columns, strict=True)] if columns else []


# ------------------------------------------------------------------ canonical JSON -> Arrow


def _parse_float(v: Any) -> float:
    if isinstance(v, str):
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(v, v))
    return float(v)


def _count_from_text(text: str, unit: str) -> int:
    """ "YYYY-MM-DDTHH:MM:SS[.f*]"[Z] -> integer count of `unit` since the epoch (exact)."""
    text = text.replace(" ", "T").rstrip("Z")
    base, _, frac = text.partition(".")
    delta = _dt.datetime.fromisoformat(base) - _EPOCH
    secs = delta.days * 86400 + delta.seconds
    nanos = int((frac + "000000000")[:9]) if frac else 0
    per = _UNIT_PER_SECOND[unit]
    return secs * per + nanos // (1_000_000_000 // per)


def value_from_canonical(v: Any, t: pa.DataType) -> Any:
    """Canonical JSON value -> a Python value `pa.array(..., type=_intified(t))` accepts
    (timestamps and times as integer counts of the type's unit). Inverse of `canonical_value`."""
    if v is None:
        return None
    if pa.types.is_boolean(t):
        return bool(v)
    if pa.types.is_integer(t):
        return int(v)
    if pa.types.is_floating(t):
        return _parse_float(v)
    if pa.types.is_decimal(t):
        return decimal.Decimal(str(v))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return str(v)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return bytes.fromhex(v)
    if pa.types.is_date(t):
        return _dt.date.fromisoformat(v)
    if pa.types.is_time(t):
        hh, mm, rest = v.split(":")
        s, _, frac = rest.partition(".")
        nanos = ((int(hh) * 60 + int(mm)) * 60 + int(s)) * 1_000_000_000 + int((frac + "000000000")[:9])
        return nanos // (1_000_000_000 // _UNIT_PER_SECOND[t.unit])
    if pa.types.is_timestamp(t):
        return _count_from_text(v, t.unit)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [value_from_canonical(x, t.value_type) for x in v]
    if pa.types.is_map(t):
        kt = t.key_type
        is_str = pa.types.is_string(kt) or pa.types.is_large_string(kt)
        return [
            (value_from_canonical(k if is_str else json.loads(k), kt), value_from_canonical(x, t.item_type))
            for k, x in v.items()
        ]
    if pa.types.is_struct(t):
        return {f.name: value_from_canonical(v.get(f.name), f.type) for f in t}
    raise TypeError(f"cannot build a value of Arrow type {t}")


def arrow_from_rows(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """Canonical rows -> an Arrow table of `schema` (columns missing from a row are null;
    `_row_kind` is dropped)."""
    cols = []
    for f in schema:
        raw_t = _intified(f.type)
        arr = pa.array([value_from_canonical(r.get(f.name), f.type) for r in rows], type=raw_t)
        cols.append(arr.cast(f.type) if raw_t != f.type else arr)
    return pa.Table.from_arrays(cols, schema=schema)


# ------------------------------------------------------------------ comparison


def _norm(v: Any) -> Any:
    if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:  # exact; keeps 1e308 readable
        return int(v)
    if isinstance(v, list):
        return [_norm(x) for x in v]
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    return v


def _key(row: dict, keys: Iterable[str] | None = None, ignore_kind: bool = False) -> str:
    if keys is not None:
        row = {k: row.get(k) for k in keys}
    elif ignore_kind:
        row = {k: v for k, v in row.items() if k != ROW_KIND}
    return json.dumps(_norm(row), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sort_rows(rows: Iterable[dict], keys: Iterable[str] | None = None) -> list[dict]:
    """Rows sorted by their canonical JSON text (of `keys` only, when given); stable."""
    keys = list(keys) if keys is not None else None
    return sorted(rows, key=lambda r: _key(r, keys))


def assert_same_rows(
    actual: Iterable[dict],
    expected: Iterable[dict],
    ignore_kind: bool = True,
    label_a: str = "actual",
    label_b: str = "expected",
    max_diff: int = 10,
) -> None:
    """Multiset comparison of canonical rows (number formatting ignored: 1.0 == 1).
    `_row_kind` is ignored unless ignore_kind=False. Raises AssertionError with a readable diff."""
    a = collections.Counter(_key(r, ignore_kind=ignore_kind) for r in actual)
    b = collections.Counter(_key(r, ignore_kind=ignore_kind) for r in expected)
    if a == b:
        return
    only_a = sorted((a - b).elements())
    only_b = sorted((b - a).elements())
    lines = [
        f"rows differ: {label_a} has {sum(a.values())} rows, {label_b} has {sum(b.values())}; "
        f"{len(only_a)} only in {label_a}, {len(only_b)} only in {label_b}"
    ]
    for x in only_a[:max_diff]:
        lines.append(f"  only in {label_a}: {x[:400]}")
    if len(only_a) > max_diff:
        lines.append(f"  ... {len(only_a) - max_diff} more only in {label_a}")
    for x in only_b[:max_diff]:
        lines.append(f"  only in {label_b}: {x[:400]}")
    if len(only_b) > max_diff:
        lines.append(f"  ... {len(only_b) - max_diff} more only in {label_b}")
    raise AssertionError("\n".join(lines))
