"""Byte keys that compare equal exactly when two values are equal, for any Arrow type.

``equality_keys(arr)`` turns every value (nested ones included) into one binary string, so that
equality, grouping and de-duplication of ARRAY, MAP and ROW values can use Arrow's hash kernels,
which have no kernels for nested types. Vectorised, no per-row Python.

Invariants: a NULL is ``b"\\x00"``, a non-null value ``b"\\x01" + payload``. Payloads:
fixed-width values (integers, dates, times, timestamps, decimals) are their little-endian bytes;
BOOLEAN one byte; FLOAT/DOUBLE their bits with every NaN made the canonical NaN (so NaN equals
NaN and -0.0 differs from 0.0, as Java's ``Float.equals``); strings and binaries their bytes;
an ARRAY the concatenation of its elements' keys, each prefixed by its 4-byte length; a MAP the
same over (key, value) entries in stored order; a ROW the concatenation of its fields' keys,
each length-prefixed. Length prefixes make the concatenations unambiguous.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_NULL = b"\x00"
_VALID = b"\x01"


def _combined(arr) -> pa.Array:
    return arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr


def _fixed_bytes(values: np.ndarray) -> pa.Array:
    """Each element of a 1-d numpy array as a binary value of its raw bytes."""
    width = values.dtype.itemsize
    raw = np.ascontiguousarray(values).view(np.uint8)
    fixed = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(width), len(values), [None, pa.py_buffer(raw.tobytes())]
    )
    return fixed.cast(pa.binary())


def _payload(arr: pa.Array) -> pa.Array:
    """Binary payload of every slot (slots that are null get some payload; callers mask them)."""
    t = arr.type
    n = len(arr)
    if pa.types.is_boolean(t):
        return _fixed_bytes(pc.fill_null(arr, False).cast(pa.int8()).to_numpy(zero_copy_only=False))
    if pa.types.is_floating(t):
        vals = pc.fill_null(arr, 0).to_numpy(zero_copy_only=False).copy()
        vals[np.isnan(vals)] = np.nan  # one canonical NaN
        return _fixed_bytes(vals)
    if pa.types.is_integer(t):
        return _fixed_bytes(pc.fill_null(arr, 0).to_numpy(zero_copy_only=False))
    if pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t):
        width = t.bit_width
        ints = arr.view(pa.int32() if width == 32 else pa.int64())
        return _fixed_bytes(pc.fill_null(ints, 0).to_numpy(zero_copy_only=False))
    if pa.types.is_decimal(t):
        return arr.view(pa.binary(t.byte_width)).cast(pa.binary())
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr.cast(pa.binary())
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return arr.cast(pa.binary())
    if pa.types.is_map(t):
        entries = pa.list_(
            pa.struct([pa.field("key", t.key_type, nullable=False), pa.field("value", t.item_type)])
        )
        return _payload(arr.cast(entries))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        child = length_prefixed(equality_keys(arr.flatten()))
        lengths = pc.fill_null(pc.list_value_length(arr), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        offsets = pa.array(np.r_[0, np.cumsum(lengths)].astype(np.int32))
        grouped = pa.ListArray.from_arrays(offsets, child)
        return pc.binary_join(grouped, b"")
    if pa.types.is_struct(t):
        if t.num_fields == 0:
            return pa.array([b""] * n, pa.binary())
        fields = [length_prefixed(equality_keys(f)) for f in arr.flatten()]
        return pc.binary_join_element_wise(*fields, b"")
    if pa.types.is_null(t):
        return pa.array([b""] * n, pa.binary())
    raise TypeError(f"no equality key for Arrow type {t}")


def length_prefixed(keys: pa.Array) -> pa.Array:
    """Each key behind its 4-byte big-endian length: a concatenation of such keys is unambiguous."""
    lengths = pc.binary_length(keys).to_numpy(zero_copy_only=False).astype(">u4")
    return pc.binary_join_element_wise(_fixed_bytes(lengths), keys, b"")


def equality_keys(arr) -> pa.Array:
    """One binary key per value of ``arr`` (an Array or ChunkedArray of any type); two keys are
    equal exactly when the values are (see the module docstring). Never null."""
    arr = _combined(arr)
    if len(arr) == 0:
        return pa.array([], pa.binary())
    payload = pc.binary_join_element_wise(pa.scalar(_VALID), _payload(arr), b"")
    if arr.null_count == 0:
        return payload
    return pc.if_else(pc.is_valid(arr), payload, pa.scalar(_NULL))
