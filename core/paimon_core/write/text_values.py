"""Values written as text, decoded to a table's types: CSV fields, JSON strings, and exactly what
``paimon read -o json`` / ``-o csv`` / ``--out`` print, so that ingest reads the tool's own output.

Spellings accepted (each is also what the tool writes):
DATE ``YYYY-MM-DD``; TIME ``HH:MM:SS[.fraction]``; TIMESTAMP(p) ``YYYY-MM-DD[T| ]HH:MM:SS[.fraction]``
without a zone; TIMESTAMP_LTZ the same with a zone (``Z`` or ``+hh:mm``), converted to UTC;
DECIMAL an exact decimal string; BINARY/BYTES hex; BOOLEAN ``true``/``false``; numbers as
digits; ARRAY, MAP, MULTISET and ROW their JSON text (a MAP or MULTISET as a JSON object keyed by
the key's text, a MULTISET's values being counts).

Invariant: a value is never rounded. Fraction digits beyond what a column stores must be zeros,
a DECIMAL that does not fit its scale is refused; a refusal is an ``InputRowError`` naming the
column, the first bad value and its row (counted from 0 in ``arr``).
"""

from __future__ import annotations

import datetime
import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.types import (
    ArrayType,
    AtomicType,
    DataType,
    MapType,
    MultisetType,
    RowType,
    timestamp_unit,
    to_arrow_type,
)
from paimon_core.write.input_errors import InputRowError
from paimon_core.write.input_notes import NUMBERS_AS_TEXT, ZONED_TO_UTC, converted

_TIMESTAMP = (
    r"^(?P<base>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?)"
    r"(?:\.(?P<frac>\d{1,9}))?(?P<zone>Z|[+-]\d{2}(?::?\d{2})?)?$"
)
_TIME = r"^(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?(?:\.(?P<frac>\d{1,9}))?$"
_NUMBERS = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE")
_EPOCH = datetime.date(1970, 1, 1)
_NANOS_PER_UNIT = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def _bad(arr: pa.Array, ok: pa.Array, name: str, dst: DataType, why: str = "") -> None:
    """Raise for the first non-null value of ``arr`` where ``ok`` is false (or null)."""
    bad = pc.and_(pc.is_valid(arr), pc.invert(pc.fill_null(ok, False)))
    if pc.any(bad).as_py():
        row = pc.index(bad, True).as_py()
        raise InputRowError(
            f"column '{name}' has '{arr[row].as_py()}', not a valid {dst.with_nullable(True)}{why}", row
        )


def _first_failing(arr: pa.Array, convert) -> int:
    """The first row whose value ``convert`` (an Arrow cast of a slice) refuses; ``convert`` of
    the whole array failed. Bisects over slices (the error path only)."""
    lo, hi = 0, len(arr)  # the first failing row is in [lo, hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            convert(arr.slice(lo, mid - lo))
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
            hi = mid
    return lo


def _cast_checked(arr: pa.Array, target: pa.DataType, name: str, dst: DataType) -> pa.Array:
    def convert(a):
        return pc.cast(a, target, safe=True)

    try:
        return convert(arr)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        row = _first_failing(arr, convert)
        raise InputRowError(
            f"column '{name}' has '{arr[row].as_py()}', not a valid {dst.with_nullable(True)}", row
        ) from None


def _fraction_nanos(frac: pa.Array) -> pa.Array:
    """Fraction digits (possibly empty) as nanoseconds."""
    return pc.cast(pc.utf8_rpad(pc.if_else(pc.is_null(frac), "", frac), 9, "0"), pa.int64())


def _keep_nulls(arr: pa.Array, part: pa.Array) -> pa.Array:
    """A regex group of ``arr``'s values, null where the value is null."""
    return pc.if_else(pc.is_valid(arr), part, pa.scalar(None, part.type))


def _multiple_of(values: pa.Array, step: int) -> pa.Array:
    return pc.equal(pc.subtract(values, pc.multiply(pc.divide(values, step), step)), 0)


def _decode_timestamp(arr: pa.Array, name: str, dst: AtomicType) -> pa.Array:
    ltz = dst.root == "TIMESTAMP_LTZ"
    _bad(arr, pc.match_substring_regex(arr, _TIMESTAMP), name, dst)
    parts = pc.extract_regex(arr, _TIMESTAMP)
    base, frac, zone = (_keep_nulls(arr, parts.field(k)) for k in ("base", "frac", "zone"))
    has_zone = pc.greater(pc.utf8_length(zone), 0)
    shift = None  # seconds to subtract: a zoned value going into a TIMESTAMP is stored as UTC
    if ltz:
        _bad(arr, has_zone, name, dst, " (a TIMESTAMP WITH LOCAL TIME ZONE needs a zone: Z or +hh:mm)")
        base = pc.binary_join_element_wise(base, zone, "")
    elif pc.any(has_zone).as_py():
        shift = pa.array([_zone_seconds(z) for z in zone.to_pylist()], pa.int64())
        converted(name, ZONED_TO_UTC)
    seconds_type = pa.timestamp("s", tz="UTC") if ltz else pa.timestamp("s")
    seconds = pc.cast(_cast_checked(base, seconds_type, name, dst), pa.int64())
    if shift is not None:
        seconds = pc.subtract(seconds, shift)
    nanos = _fraction_nanos(frac)
    precision = dst.declared_precision
    step = 10 ** (9 - precision)  # digits beyond the column's precision must be zeros
    _bad(arr, _multiple_of(nanos, step), name, dst, f" (more than {precision} fraction digits)")
    unit = timestamp_unit(precision)
    per = _NANOS_PER_UNIT[unit]
    limit = (2**63 - 1) // (1_000_000_000 // per) - 1  # seconds the column's Arrow unit can hold
    _bad(arr, pc.less(pc.abs(seconds), limit), name, dst, f" (out of range for {unit} precision)")
    ticks = pc.add(pc.multiply(seconds, 1_000_000_000 // per), pc.divide(nanos, per))
    return pc.cast(ticks, pa.timestamp(unit, tz="UTC" if ltz else None))


def _zone_seconds(zone: str | None) -> int:
    """``Z``, ``+hh``, ``+hhmm`` or ``+hh:mm`` as seconds east of UTC (none: 0)."""
    if not zone or zone == "Z":
        return 0
    digits = zone[1:].replace(":", "")
    seconds = int(digits[:2]) * 3600 + (int(digits[2:4]) * 60 if len(digits) > 2 else 0)
    return -seconds if zone[0] == "-" else seconds


def _decode_time(arr: pa.Array, name: str, dst: AtomicType) -> pa.Array:
    _bad(arr, pc.match_substring_regex(arr, _TIME), name, dst)
    parts = pc.extract_regex(arr, _TIME)

    def num(field: str) -> pa.Array:
        text = _keep_nulls(arr, parts.field(field))
        return pc.cast(pc.if_else(pc.equal(pc.utf8_length(text), 0), "0", text), pa.int64())

    h, m, s = num("h"), num("m"), num("s")
    nanos = _fraction_nanos(parts.field("frac"))
    _bad(arr, pc.and_(pc.less(h, 24), pc.and_(pc.less(m, 60), pc.less(s, 60))), name, dst)
    # TIME is stored as milliseconds of the day, whatever its precision
    _bad(arr, _multiple_of(nanos, 1_000_000), name, dst, " (TIME keeps milliseconds)")
    seconds = pc.add(pc.multiply(pc.add(pc.multiply(h, 60), m), 60), s)
    millis = pc.add(pc.multiply(seconds, 1000), pc.divide(nanos, 1_000_000))
    return pc.cast(pc.cast(millis, pa.int32()), pa.time32("ms"))


def _each(arr: pa.Array, parse, name: str, what: str) -> list:
    """``parse`` of each non-null value; the first ValueError names the row and value."""
    out = []
    for i, v in enumerate(arr.to_pylist()):
        try:
            out.append(None if v is None else parse(v))
        except ValueError:
            raise InputRowError(f"column '{name}' has '{str(v)[:60]}', {what}", i) from None
    return out


def _decode_hex(arr: pa.Array, name: str, dst: AtomicType) -> pa.Array:
    what = f"not hex for a {dst.with_nullable(True)} (bytes are read as hex)"
    return pa.array(_each(arr, bytes.fromhex, name, what), pa.binary())


def decode_text(arr: pa.Array, name: str, dst: DataType) -> pa.Array:
    """``arr`` (strings) as ``dst``'s Arrow type, per the spellings in the module docstring."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    arr = pc.cast(arr, pa.string())
    if not isinstance(dst, AtomicType):
        return from_json_values(_json_texts(arr, name, dst), name, dst)
    root = dst.root
    if root in ("CHAR", "VARCHAR"):
        return arr
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _decode_timestamp(arr, name, dst)
    if root == "TIME":
        return _decode_time(arr, name, dst)
    if root in ("BINARY", "VARBINARY", "BLOB"):
        return _decode_hex(arr, name, dst)
    if root == "BOOLEAN":
        lowered = pc.utf8_lower(pc.utf8_trim_whitespace(arr))
        _bad(arr, pc.is_in(lowered, pa.array(["true", "false"])), name, dst)
        return pc.equal(lowered, "true")
    if root == "DATE":
        _bad(arr, pc.match_substring_regex(arr, r"^\d{4}-\d{2}-\d{2}$"), name, dst, " (dates are YYYY-MM-DD)")
    return _cast_checked(pc.utf8_trim_whitespace(arr), to_arrow_type(dst), name, dst)


def _json_texts(arr: pa.Array, name: str, dst: DataType) -> list:
    return _each(arr, json.loads, name, f"not the JSON text of a {dst.with_nullable(True)}")


def _scalar_text(v) -> str | None:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)


def _parent_rows(offsets: list[int]):
    """Maps a row of a flattened child to its parent's row (error messages name the parent)."""
    starts = np.asarray(offsets[:-1])

    def parent(child_row: int) -> int:
        return int(np.searchsorted(starts, child_row, side="right") - 1)

    return parent


def from_json_values(values: list, name: str, dst: DataType) -> pa.Array:
    """Parsed JSON values (None, numbers, strings, lists, dicts) of one column as ``dst``: nested
    types built level by level, atomic leaves decoded as text (numbers as their digits, except
    for a DATE, where a number is days since 1970 as Paimon stores it)."""
    target = to_arrow_type(dst)
    mask = pa.array([v is None for v in values], pa.bool_())
    if isinstance(dst, RowType):
        _expect(values, dict, name, dst)
        known = {f.name for f in dst.fields}
        for i, v in enumerate(values):
            extra = next((k for k in v or () if k not in known), None)
            if extra is not None:
                raise InputRowError(
                    f"column '{name}': field '{extra}' is not in {dst.with_nullable(True)}", i
                )
        children = []
        for f in dst.fields:
            col = [v.get(f.name) if isinstance(v, dict) else None for v in values]
            children.append(from_json_values(col, f"{name}.{f.name}", f.type))
        return pa.StructArray.from_arrays(children, fields=list(target), mask=mask)
    if isinstance(dst, ArrayType):
        _expect(values, list, name, dst)
        offsets, flat = _flatten(values, lambda v: v)
        try:
            items = from_json_values(flat, f"{name}[]", dst.element)
        except InputRowError as e:
            raise InputRowError(e.what, _parent_rows(offsets)(e.row)) from None
        return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), items, type=target, mask=mask)
    if isinstance(dst, (MapType, MultisetType)):
        _expect(values, dict, name, dst)
        offsets, pairs = _flatten(values, lambda v: list(v.items()))
        key_type = dst.key if isinstance(dst, MapType) else dst.element
        value_type = dst.value if isinstance(dst, MapType) else AtomicType(root="INT", nullable=False)
        parent = _parent_rows(offsets)
        try:
            keys = decode_text(pa.array([k for k, _ in pairs], pa.string()), f"{name} key", key_type)
            items = from_json_values([x for _, x in pairs], f"{name} value", value_type)
        except InputRowError as e:
            raise InputRowError(e.what, parent(e.row)) from None
        if isinstance(dst, MultisetType) and items.null_count:
            row = parent(pc.index(pc.is_null(items), True).as_py())
            raise InputRowError(f"column '{name}': a MULTISET count is null", row)
        return pa.MapArray.from_arrays(
            pa.array(offsets, pa.int32()), keys, pc.cast(items, target.item_type), type=target, mask=mask
        )
    assert isinstance(dst, AtomicType)
    if dst.root == "DATE":
        values = [_days_text(v) for v in values]
    elif dst.root in _NUMBERS and all(_is_number(v) for v in values):
        return _cast_checked(pa.array(values), target, name, dst)
    if (
        isinstance(dst, AtomicType)
        and dst.root in ("CHAR", "VARCHAR")
        and any(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    ):
        converted(name, NUMBERS_AS_TEXT)
    return decode_text(pa.array([_scalar_text(v) for v in values], pa.string()), name, dst)


def _is_number(v) -> bool:
    return v is None or isinstance(v, (int, float)) and not isinstance(v, bool)


def _days_text(v):
    """A DATE given as a JSON number is days since 1970 (as Paimon stores it)."""
    if isinstance(v, int) and not isinstance(v, bool) and -719162 <= v <= 2932896:
        return (_EPOCH + datetime.timedelta(days=v)).isoformat()
    return v


def _expect(values: list, kind: type, name: str, dst: DataType) -> None:
    for i, v in enumerate(values):
        if v is not None and not isinstance(v, kind):
            shown = json.dumps(v)[:60]
            raise InputRowError(f"column '{name}' has {shown}, not a {dst.with_nullable(True)}", i)


def _flatten(values: list, items) -> tuple[list[int], list]:
    offsets, flat = [0], []
    for v in values:
        if v is not None:
            flat.extend(items(v))
        offsets.append(len(flat))
    return offsets, flat


__all__ = ["decode_text", "from_json_values"]
