"""Arrow columns -> the text forms the tool prints, a whole column at a time (Arrow compute).

``text_column(arr)`` is a value's text in CSV and tables: booleans ``true``/``false``, integers
as digits, floats as Python's ``repr`` (NaN/Infinity/-Infinity by name), decimals exact with
their scale, DATE ``YYYY-MM-DD``, TIME and TIMESTAMP ISO (``T`` between date and time, a
fraction only when not zero, six digits for micro- and milliseconds, nine for nanoseconds; a
TIMESTAMP_LTZ ends in ``+00:00``), bytes as lowercase hex, strings as they are and ARRAY / MAP /
MULTISET / ROW as compact JSON text. ``json_column(arr, style)`` is a value as JSON (``null``
for NULL; floats as numbers, NaN/Infinity and every non-number above as JSON strings; a MAP a
JSON object keyed by its keys' text).

Invariant: each form equals, character for character, what converting each value to a plain
Python value and ``json.dumps(..., ensure_ascii=False)`` gives (``paimon_cli.convert`` +
``paimon_cli.output``), and what ``paimon_core.write.text_values`` reads back exactly; NULL
stays NULL in ``text_column`` (the caller decides its spelling).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class JsonStyle:
    """Separators between items and between a key and its value (``json.dumps``'s)."""

    item: str = ", "
    key: str = ": "


COMPACT = JsonStyle(",", ":")  # nested values in CSV
SPACED = JsonStyle()  # JSON lines

_HEX = np.frombuffer(b"0123456789abcdef", np.uint8)
_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _plain(arr) -> pa.Array:
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def renders(t: pa.DataType) -> bool:
    """Whether every value of type ``t`` has its text form here (the Paimon types and what
    holds them; not durations, intervals, dictionaries or the null type)."""
    if pa.types.is_map(t):
        return renders(t.key_type) and renders(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return renders(t.value_type)
    if pa.types.is_struct(t):
        return all(renders(t.field(i).type) for i in range(t.num_fields))
    return any(
        check(t)
        for check in (
            pa.types.is_boolean,
            pa.types.is_integer,
            pa.types.is_floating,
            pa.types.is_decimal,
            pa.types.is_string,
            pa.types.is_large_string,
            pa.types.is_binary,
            pa.types.is_large_binary,
            pa.types.is_fixed_size_binary,
            pa.types.is_date,
            pa.types.is_time,
            pa.types.is_timestamp,
        )
    )


def text_column(arr) -> pa.Array:
    """Each value's text (a string array of the same length; NULL stays NULL)."""
    arr = _plain(arr)
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr.cast(pa.string())
    if pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_date(t):
        return pc.cast(arr, pa.string())
    if pa.types.is_decimal(t):
        return _decimal_text(arr)
    if pa.types.is_floating(t):
        return _float_text(arr)
    if pa.types.is_timestamp(t) or pa.types.is_time(t):
        return _time_text(arr)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return _hex(arr)
    if pa.types.is_nested(t):
        return _keep_nulls(arr, json_column(arr, COMPACT))
    return pa.array([None if v is None else str(v) for v in arr.to_pylist()], pa.string())


def json_column(arr, style: JsonStyle = SPACED) -> pa.Array:
    """Each value as JSON text (``null`` for NULL; never NULL itself)."""
    arr = _plain(arr)
    t = arr.type
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        out = pc.cast(arr, pa.string())
    elif pa.types.is_floating(t):
        text = _float_text(arr)
        named = pc.is_in(text, pa.array(list(_NON_FINITE.values())))
        out = pc.if_else(named, _quoted(text), text)
    elif pa.types.is_map(t):
        out = _json_map(arr, style)
    elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        out = _json_list(arr, style)
    elif pa.types.is_struct(t):
        out = _json_struct(arr, style)
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        out = json_string(arr)
    else:  # every other form is text without characters JSON escapes
        out = _quoted(text_column(arr))
    return pc.fill_null(out, "null")


def json_string(arr) -> pa.Array:
    """Strings as JSON string literals (``json.dumps(s, ensure_ascii=False)``); NULL stays NULL."""
    arr = _plain(arr).cast(pa.string())
    escape = pc.fill_null(pc.match_substring_regex(arr, r'[\\"\x00-\x1f]'), False)
    if not pc.any(escape).as_py():
        return _quoted(arr)
    return pc.replace_with_mask(_quoted(arr), escape, _escaped(arr.filter(escape)))


def _escaped(arr: pa.Array) -> pa.Array:
    s = arr
    for raw, escaped in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")):
        s = pc.replace_substring(s, raw, escaped)
    out = _quoted(s)
    rare = pc.fill_null(pc.match_substring_regex(arr, r"[\x00-\x08\x0b\x0c\x0e-\x1f]"), False)
    if pc.any(rare).as_py():  # \b, \f and \u00XX escapes: json.dumps for those values
        fixed = [json.dumps(v, ensure_ascii=False) for v in arr.filter(rare).to_pylist()]
        out = pc.replace_with_mask(out, rare, pa.array(fixed, pa.string()))
    return out


def _quoted(text: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise('"', text, '"', "")


def _keep_nulls(arr: pa.Array, text: pa.Array) -> pa.Array:
    return pc.if_else(pc.is_valid(arr), text, pa.scalar(None, pa.string())) if arr.null_count else text


def _float_text(arr: pa.Array) -> pa.Array:
    """Python's ``repr`` of each value as a double (a FLOAT widened first), NaN/Infinity named.

    Arrow prints the same shortest digits as Python, laid out by other rules: fixed notation for
    decimal exponents -6..9 (Python: -4..15), integers without ``.0`` and one-digit exponents
    without a leading zero. The exponent is known from the magnitude (the powers of ten that
    bound the classes are exact doubles, or the doubles whose repr is that power), so each
    class is re-laid out on its own rows, with one pattern per exponent."""
    arr = arr.cast(pa.float64())
    text = pc.cast(arr, pa.string())
    values = pc.fill_null(arr, 0.0).to_numpy(zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        mag = np.abs(values)
        finite = np.isfinite(values)
        groups = [
            (finite & (mag < 1e10) & (values == np.floor(values)), _point),
            (finite & (mag >= 1e-9) & (mag < 1e-6), _pad),  # Arrow 1e-7, Python 1e-07
            (~finite, _named),
        ]
        odd = np.flatnonzero((mag < 1e-4) | (mag >= 1e10))  # most data has none of these
        if len(odd):
            small = np.zeros(len(values), np.intp)
            large = np.zeros(len(values), np.intp)
            small[odd] = np.searchsorted(_SMALL, mag[odd], side="right")  # 1: e-06, 2: e-05
            large[odd] = np.searchsorted(_LARGE, mag[odd], side="right")  # 1..6: e+10..e+15
            groups += [(small == i, partial(_small, -7 + i)) for i in (1, 2)]
            groups += [(large == i, partial(_large, 9 + i)) for i in range(1, 7)]
    valid = np.asarray(pc.is_valid(arr)) if arr.null_count else None
    picked, fixed = [], []
    for mask, fix in groups:
        if valid is not None:
            mask = mask & valid
        if mask.any():
            idx = np.flatnonzero(mask)
            picked.append(idx)
            fixed.append(fix(text.take(pa.array(idx))))
    if not picked:
        return text
    idx = np.concatenate(picked)
    order = np.argsort(idx, kind="stable")
    mask = np.zeros(len(arr), bool)
    mask[idx] = True
    return pc.replace_with_mask(text, pa.array(mask), pa.concat_arrays(fixed).take(pa.array(order)))


_SMALL = np.array([1e-6, 1e-5, 1e-4])
_LARGE = np.array([10.0**e for e in range(10, 17)])


def _point(text: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(text, ".0", "")


def _pad(text: pa.Array) -> pa.Array:
    return pc.replace_substring_regex(text, r"e-(\d)$", r"e-0\1")


def _small(e: int, text: pa.Array) -> pa.Array:
    """0.0000dddd (e = -5) / 0.00000dddd (e = -6) -> d.ddde-05."""
    zeros = "0" * (-e - 1)
    text = pc.replace_substring_regex(text, rf"^(-?)0\.{zeros}([1-9])(\d+)$", rf"\1\2.\3e-0{-e}")
    return pc.replace_substring_regex(text, rf"^(-?)0\.{zeros}([1-9])$", rf"\1\2e-0{-e}")


def _large(e: int, text: pa.Array) -> pa.Array:
    """d.ddde+1X -> the digits with the point moved X places (zeros added), ``.0`` if none after."""
    zeros = "0" * e
    text = pc.replace_substring_regex(text, rf"^(-?\d)(?:\.(\d*))?e\+{e}$", rf"\1.\2{zeros}@")
    text = pc.replace_substring_regex(text, rf"^(-?\d)\.(\d{{{e}}})(\d*?)0*@$", r"\1\2.\3")
    return pc.replace_substring_regex(text, r"\.$", ".0")


def _named(text: pa.Array) -> pa.Array:
    return pc.replace_substring_regex(pc.replace_substring(text, "inf", "Infinity"), "^nan$", "NaN")


def _decimal_text(arr: pa.Array) -> pa.Array:
    """Plain decimal digits with the column's scale (``format(Decimal, "f")``). Arrow writes
    values below 1e-6 in scientific notation (``0E-9``, ``-9.5E-8``): those are printed as
    ``|v| + 1`` (``1.000000095``) with the leading 1 made 0 and the sign put back."""
    text = pc.cast(arr, pa.string())
    if arr.type.scale <= 6:  # Arrow's notation turns scientific below an adjusted exponent of -6
        return text
    sci = pc.fill_null(pc.match_substring(text, "E"), False)
    if not pc.any(sci).as_py():
        return text
    t = arr.type
    wide = pa.decimal256(t.precision + 1, t.scale)
    shifted = pc.add(pc.abs(arr.cast(wide)), pa.scalar(1, pa.decimal256(1, 0)).cast(pa.decimal256(2, 0)))
    plain = pc.replace_substring_regex(pc.cast(shifted, pa.string()), "^1", "0")
    signed = pc.if_else(pc.less(arr, pa.scalar(0, pa.decimal256(1, 0)).cast(t)), _prefix("-", plain), plain)
    return pc.if_else(sci, signed, text)


def _prefix(p: str, text: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(p, text, "")


def _time_text(arr: pa.Array) -> pa.Array:
    """ISO TIME / TIMESTAMP as Python's ``isoformat`` writes it (nanoseconds: all nine digits)."""
    t = arr.type
    text = pc.cast(arr, pa.string())
    if pa.types.is_timestamp(t):
        text = _date_time_separator(text)
    if t.unit == "ns":
        return text  # Python's datetime cannot hold them: Arrow's form, as before
    if t.unit in ("ms", "us"):
        per_second = 1000 if t.unit == "ms" else 1_000_000
        ticks = arr.view(pa.int32() if t.bit_width == 32 else pa.int64())
        fraction = np.mod(pc.fill_null(ticks, 0).to_numpy(zero_copy_only=False), per_second)
        text = _drop_zero_fraction(text, fraction == 0, ".000" if t.unit == "ms" else ".000000")
        if t.unit == "ms":  # Python writes microseconds: .123 -> .123000
            some = (fraction != 0) & np.asarray(pc.is_valid(arr))
            if some.any():
                longer = _suffix(text.filter(pa.array(some)), "000", before="Z")
                text = pc.replace_with_mask(text, pa.array(some), longer)
    if pa.types.is_timestamp(t) and t.tz is not None:
        text = pc.replace_substring(text, "Z", "+00:00")
    return text


def _drop_zero_fraction(text: pa.Array, zero: np.ndarray, spelled: str) -> pa.Array:
    """``spelled`` (the fraction of zeros, which only such a fraction reads like) removed from
    the rows ``zero`` marks, the other rows untouched (most rows of real data)."""
    if zero.all():
        return pc.replace_substring(text, spelled, "")
    if not zero.any():
        return text
    mask = pa.array(zero)
    return pc.replace_with_mask(text, mask, pc.replace_substring(text.filter(mask), spelled, ""))


def _suffix(text: pa.Array, tail: str, before: str) -> pa.Array:
    """``tail`` appended to each text, ahead of a final ``before`` where there is one."""
    ends = pc.ends_with(text, before)
    if not pc.any(ends).as_py():
        return pc.binary_join_element_wise(text, tail, "")
    return pc.replace_substring_regex(text, f"({before})?$", tail + r"\1")


def _date_time_separator(text: pa.Array) -> pa.Array:
    """``YYYY-MM-DD HH:...`` -> ``YYYY-MM-DDTHH:...``: the 11th byte of every value when all
    start with a four-digit year (patched in a copy of the buffer), else a text replacement."""
    if len(text) == 0:
        return text
    offsets = np.frombuffer(text.buffers()[1], np.int32)[text.offset : text.offset + len(text) + 1]
    data = np.frombuffer(text.buffers()[2], np.uint8)
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    valid = np.asarray(pc.is_valid(text)) if text.null_count else np.ones(len(text), bool)
    starts, lengths = starts[valid], lengths[valid]
    if (
        len(starts) == 0
        or lengths.min() < 11
        or not (data[starts + 10] == 0x20).all()
        or (data[starts + 4] != 0x2D).any()
    ):
        return pc.replace_substring(text, " ", "T", max_replacements=1)
    patched = data.copy()
    patched[starts + 10] = ord("T")
    return pa.Array.from_buffers(
        pa.string(),
        len(text),
        [text.buffers()[0], text.buffers()[1], pa.py_buffer(patched)],
        offset=text.offset,
    )


def _hex(arr: pa.Array) -> pa.Array:
    """Bytes as lowercase hex (two characters a byte), built on the Arrow buffers directly."""
    if pa.types.is_fixed_size_binary(arr.type):
        width = arr.type.byte_width
        arr = arr.cast(pa.binary()) if width else pa.array([b""] * len(arr), pa.binary())
    arr = arr.cast(pa.large_binary())
    offsets = np.frombuffer(arr.buffers()[1], np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = (
        np.frombuffer(arr.buffers()[2], np.uint8) if arr.buffers()[2] is not None else np.zeros(0, np.uint8)
    )
    data = data[offsets[0] : offsets[-1]]
    out = np.empty(2 * len(data), np.uint8)
    out[0::2] = _HEX[data >> 4]
    out[1::2] = _HEX[data & 15]
    new_offsets = (offsets - offsets[0]) * 2
    validity = pc.is_valid(arr) if arr.null_count else None
    hexed = pa.Array.from_buffers(
        pa.large_string(), len(arr), [None, pa.py_buffer(new_offsets), pa.py_buffer(out)]
    )
    if validity is not None:
        hexed = pc.if_else(validity, hexed, pa.scalar(None, pa.large_string()))
    return hexed.cast(pa.string())


def _joined(offsets: pa.Array, items: pa.Array, valid: pa.Array | None, sep: str) -> pa.Array:
    """Per row: its items (``offsets`` into ``items``) joined by ``sep``; NULL where not valid."""
    lists = pa.ListArray.from_arrays(offsets, items)
    out = pc.binary_join(lists, sep)
    return out if valid is None else pc.if_else(valid, out, pa.scalar(None, pa.string()))


def _list_parts(arr: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array | None]:
    """(int32 offsets from 0, the flattened items, validity or None) of a list or map array."""
    if pa.types.is_map(arr.type):
        t = arr.type
        arr = arr.cast(pa.list_(pa.struct([t.key_field, t.item_field])))
    lengths = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False)
    offsets = np.zeros(len(arr) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    items = pc.list_flatten(arr)
    valid = pc.is_valid(arr) if arr.null_count else None
    return pa.array(offsets.astype(np.int32)), items, valid


def _wrap(open_: str, text: pa.Array, close: str) -> pa.Array:
    return pc.binary_join_element_wise(open_, text, close, "")


def _json_list(arr: pa.Array, style: JsonStyle) -> pa.Array:
    offsets, items, valid = _list_parts(arr)
    return _wrap("[", _joined(offsets, json_column(items, style), valid, style.item), "]")


def _json_map(arr: pa.Array, style: JsonStyle) -> pa.Array:
    offsets, entries, valid = _list_parts(arr)
    keys = pc.struct_field(entries, [0])
    key_text = text_column(keys)
    if pa.types.is_boolean(keys.type):  # a key is named by Python's str(): True / False
        key_text = pc.if_else(keys, "True", "False")
    pairs = pc.binary_join_element_wise(
        json_string(key_text), json_column(pc.struct_field(entries, [1]), style), style.key
    )
    return _wrap("{", _joined(offsets, pairs, valid, style.item), "}")


def _json_struct(arr: pa.Array, style: JsonStyle) -> pa.Array:
    t = arr.type
    if t.num_fields == 0:
        fields = pa.array([""] * len(arr), pa.string())
    else:
        parts = [
            pc.binary_join_element_wise(
                json.dumps(t.field(i).name, ensure_ascii=False) + style.key,
                json_column(pc.struct_field(arr, [i]), style),
                "",
            )
            for i in range(t.num_fields)
        ]
        fields = pc.binary_join_element_wise(*parts, style.item)
    return _keep_nulls(arr, _wrap("{", fields, "}"))
