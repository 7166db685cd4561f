"""Bucket assignment: MurmurHash3 (x86_32, seed 42) over the BinaryRow of the bucket key.

``bucket = abs(hash % num_buckets)`` with Java remainder semantics (docs/format.md section 8). The
hash runs vectorised over Arrow columns for keys whose BinaryRow has a fixed length (numbers,
dates, timestamps, short decimals); keys with strings or bytes are hashed row by row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.binary_row import encode_row, null_bits_size
from paimon_core.data.types import AtomicType, DataType

if TYPE_CHECKING:
    from collections.abc import Sequence

SEED = 42
_C1, _C2 = 0xCC9E2D51, 0x1B873593
_M32 = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M32


def murmur_words(data: bytes) -> int:
    """Java ``MurmurHashUtils.hashBytesByWords`` on a multiple-of-4 byte string, as a signed int32."""
    h = SEED
    for (k,) in _words(data):
        k = (k * _C1) & _M32
        k = _rotl(k, 15)
        k = (k * _C2) & _M32
        h ^= k
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & _M32
    return _fmix(h, len(data))


def _words(data: bytes):
    import struct

    return struct.iter_unpack("<I", data)


def _fmix(h: int, length: int) -> int:
    h ^= length
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _M32
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def hash_row(values: Sequence, types: Sequence[DataType]) -> int:
    return murmur_words(encode_row(values, types))


def bucket_of_hash(h, num_buckets: int):
    """Java's ``Math.abs(hash % n)``; works on ints and numpy arrays."""
    if isinstance(h, np.ndarray):
        return (np.abs(h.astype(np.int64)) % num_buckets).astype(np.int32)
    return abs(h) % num_buckets


# ----------------------------------------------------------------------------------------------
# Vectorised hashing


def _fixed_layout(t: AtomicType) -> bool:
    if t.root in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
        return False
    if t.root == "DECIMAL" and t.declared_precision > 18:
        return False
    return True


def _slot_words(arr: pa.Array, t: AtomicType) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The 8-byte slot of each row as uint64 (nulls zero), for non-compact timestamps the
    8-byte variable chunk (epoch millis) that follows the fixed part, and the validity mask."""
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    root = t.root
    var = None
    if root == "BOOLEAN":
        slot = arr.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint64)
    elif root in ("TINYINT", "SMALLINT", "INT", "DATE", "TIME"):
        width = {"TINYINT": np.uint8, "SMALLINT": np.uint16}.get(root, np.uint32)
        signed = {"TINYINT": pa.int8(), "SMALLINT": pa.int16()}.get(root, pa.int32())
        raw = arr.cast(signed) if not pa.types.is_integer(arr.type) or arr.type != signed else arr
        if root == "TIME":
            raw = arr.cast(pa.time32("ms")).cast(pa.int32())
        if root == "DATE":
            raw = arr.cast(pa.date32()).cast(pa.int32())
        slot = raw.fill_null(0).to_numpy(zero_copy_only=False).view(width).astype(np.uint64)
    elif root == "BIGINT":
        slot = arr.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False).view(np.uint64)
    elif root == "FLOAT":
        slot = (
            arr.cast(pa.float32())
            .fill_null(0)
            .to_numpy(zero_copy_only=False)
            .view(np.uint32)
            .astype(np.uint64)
        )
    elif root == "DOUBLE":
        slot = arr.cast(pa.float64()).fill_null(0).to_numpy(zero_copy_only=False).view(np.uint64)
    elif root == "DECIMAL":
        dec = arr.cast(pa.decimal128(t.declared_precision, t.declared_scale))
        raw = np.frombuffer(dec.buffers()[1], dtype=np.int64)[2 * dec.offset : 2 * (dec.offset + len(dec))]
        slot = raw[0::2].copy().view(np.uint64)
    elif root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if not pa.types.is_timestamp(arr.type):
            arr = arr.cast(pa.timestamp("us", "UTC" if root == "TIMESTAMP_LTZ" else None))
        raw = arr.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
        per_milli = {"s": None, "ms": 1, "us": 1000, "ns": 1_000_000}[arr.type.unit]
        if per_milli is None:
            millis, nano_of_milli = raw * 1000, np.zeros_like(raw)
        else:  # stay in the array's unit: far dates overflow nanoseconds
            millis, rest = np.divmod(raw, per_milli)
            nano_of_milli = rest * (1_000_000 // per_milli)
        if t.declared_precision <= 3:
            slot = millis.view(np.uint64)
        else:
            slot = nano_of_milli.astype(np.uint64)  # the offset is filled in by the caller
            var = millis.astype(np.int64).view(np.uint64)
    else:
        raise ValueError(root)
    slot = np.where(valid, slot, np.uint64(0)).astype(np.uint64)
    if var is not None:
        var = np.where(valid, var, np.uint64(0)).astype(np.uint64)
    return slot, var, valid


def hash_columns(columns: list[pa.Array], types: list[DataType]) -> np.ndarray:
    """Signed int32 BinaryRow hash of each row of the given key columns."""
    n = len(columns[0]) if columns else 0
    atomic = [t for t in types if isinstance(t, AtomicType)]
    if len(atomic) < len(types) or not all(_fixed_layout(t) for t in atomic):
        return _hash_rowwise(columns, types)
    arity = len(types)
    header = null_bits_size(arity)
    fixed_len = header + 8 * arity
    header_words = np.zeros((n, header // 8), dtype=np.uint64)
    slots, vars_ = [], []
    var_offset = fixed_len
    for i, (arr, t) in enumerate(zip(columns, atomic)):
        if isinstance(arr, pa.ChunkedArray):
            arr = arr.combine_chunks()
        slot, var, valid = _slot_words(arr, t)
        bit = i + 8
        header_words[:, bit // 64] |= np.where(valid, np.uint64(0), np.uint64(1) << np.uint64(bit % 64))
        if var is not None:  # non-compact timestamp: 8 var bytes, reserved for nulls too
            slot = slot | (np.uint64(var_offset) << np.uint64(32))
            vars_.append(var)
            var_offset += 8
        slots.append(slot)
    mat = np.column_stack([header_words] + slots + vars_) if n else np.zeros((0, 1), np.uint64)
    words = np.ascontiguousarray(mat).view(np.uint32)  # little-endian: low word first
    return _murmur_matrix(words)


def _murmur_matrix(words: np.ndarray) -> np.ndarray:
    n, w = words.shape
    h = np.full(n, SEED, dtype=np.uint32)
    c1, c2 = np.uint32(_C1), np.uint32(_C2)
    for j in range(w):
        k = words[:, j] * c1
        k = (k << np.uint32(15)) | (k >> np.uint32(17))
        k = k * c2
        h ^= k
        h = (h << np.uint32(13)) | (h >> np.uint32(19))
        h = h * np.uint32(5) + np.uint32(0xE6546B64)
    h ^= np.uint32(w * 4)
    h ^= h >> np.uint32(16)
    h = h * np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h = h * np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h.view(np.int32)


def _hash_rowwise(columns, types) -> np.ndarray:
    from paimon_core.data.values import internal_values

    cols = [internal_values(c, t) for c, t in zip(columns, types)]
    n = len(columns[0]) if columns else 0
    out = np.empty(n, dtype=np.int32)
    for r in range(n):
        out[r] = hash_row([c[r] for c in cols], types)
    return out


def assign_buckets(
    table: pa.Table, key_names: list[str], key_types: list[DataType], num_buckets: int
) -> np.ndarray:
    """Bucket of each row of ``table`` for a fixed-bucket table."""
    cols = [table.column(k) for k in key_names]
    cols = [c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c for c in cols]
    return bucket_of_hash(hash_columns(cols, key_types), num_buckets)


__all__ = ["assign_buckets", "bucket_of_hash", "hash_columns", "hash_row", "murmur_words", "pc"]
