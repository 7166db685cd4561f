"""Row orders for sort compaction: by columns, Z-order and Hilbert curve, vectorised.

Each column becomes 8 bytes per row as Paimon's ``ZIndexer`` makes them (integers, dates, times
and timestamp milliseconds as big-endian longs with the sign bit flipped, floats by Paimon's bit
trick, strings and binaries as their first 8 bytes zero-filled, decimals as the first 8 bytes of
the unscaled value, booleans 0x81/0x00 in the first byte, NULL as zeros). Z-order interleaves
the columns' bits from the most significant down; Hilbert order interleaves the transposed
Hilbert coordinates of the same 64-bit values (Skilling's algorithm). Every function returns
row indices in the new order; the sort is stable.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.errors import InvalidInput

WIDTH = 8  # bytes per column (Paimon's zorder.var-length-contribution default)
_SIGN = np.uint64(1 << 63)


def column_order(table: pa.Table, columns: list[str]) -> np.ndarray:
    """Indices sorting by ``columns`` ascending, NULLs first (Java's sort order)."""
    return pc.sort_indices(table, sort_keys=[(c, "ascending", "at_start") for c in columns]).to_numpy()


def zorder(table: pa.Table, columns: list[str]) -> np.ndarray:
    words = np.stack([_as_words(table.column(c)) for c in columns], axis=1)
    return _order(_interleave(words))


def hilbert(table: pa.Table, columns: list[str]) -> np.ndarray:
    words = np.stack([_as_words(table.column(c)) for c in columns], axis=1)
    if words.shape[1] > 1:
        words = _hilbert_transpose(words)
    return _order(_interleave(words))


def _order(keys: np.ndarray) -> np.ndarray:
    """Stable lexicographic order of the rows of a (rows, words) uint64 matrix."""
    return np.lexsort(tuple(keys[:, i] for i in range(keys.shape[1] - 1, -1, -1)))


def _interleave(words: np.ndarray) -> np.ndarray:
    """Bit interleaving of k 64-bit words per row, most significant bits first: (rows, k) words."""
    n, k = words.shape
    bits = np.unpackbits(words.astype(">u8").view(np.uint8).reshape(n, k, WIDTH), axis=2)  # (n, k, 64)
    mixed = np.packbits(bits.transpose(0, 2, 1).reshape(n, 64 * k), axis=1)  # (n, 8k) bytes
    return mixed.view(">u8").astype(np.uint64).reshape(n, k)


def _hilbert_transpose(x: np.ndarray) -> np.ndarray:
    """Coordinates (rows, k) -> the transposed Hilbert index (Skilling, 'Programming the Hilbert
    curve', 2004), 64 bits per coordinate."""
    x = x.copy()
    k = x.shape[1]
    q = np.uint64(1 << 63)
    while q > 1:
        p = q - np.uint64(1)
        for i in range(k):
            high = (x[:, i] & q) != 0
            x[high, 0] ^= p
            low = ~high
            t = (x[low, 0] ^ x[low, i]) & p
            x[low, 0] ^= t
            x[low, i] ^= t
        q >>= np.uint64(1)
    for i in range(1, k):
        x[:, i] ^= x[:, i - 1]
    t = np.zeros(len(x), dtype=np.uint64)
    q = np.uint64(1 << 63)
    while q > 1:
        t[(x[:, k - 1] & q) != 0] ^= q - np.uint64(1)
        q >>= np.uint64(1)
    return x ^ t[:, None]


def _as_words(col: pa.ChunkedArray) -> np.ndarray:
    """One column as the 8 bytes Paimon's ZIndexer gives each value, read as a big-endian uint64."""
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    t = arr.type
    valid = pc.is_valid(arr).to_numpy(zero_copy_only=False)
    if pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_time(t):
        v = pc.fill_null(arr.cast(pa.int64(), safe=False), 0).to_numpy().view(np.uint64) ^ _SIGN
    elif pa.types.is_timestamp(t):
        ms = arr.cast(pa.timestamp("ms", tz=t.tz), safe=False).cast(pa.int64())
        v = pc.fill_null(ms, 0).to_numpy().view(np.uint64) ^ _SIGN
    elif pa.types.is_floating(t):
        bits = pc.fill_null(arr.cast(pa.float64()), 0.0).to_numpy().view(np.int64)
        v = (bits ^ ((bits >> np.int64(31)) | np.int64(-(1 << 63)))).view(np.uint64)
    elif pa.types.is_boolean(t):
        v = np.where(
            pc.fill_null(arr, False).to_numpy(zero_copy_only=False), np.uint64(0x81 << 56), np.uint64(0)
        )
    elif (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_fixed_size_binary(t)
    ):
        v = _prefix_words(arr.cast(pa.binary()) if not pa.types.is_binary(t) else arr)
    elif pa.types.is_decimal(t):
        v = _prefix_words(pa.array([_unscaled(x) for x in arr.to_pylist()], pa.binary()))
    else:
        raise InvalidInput(
            f"cannot sort by a column of type {t}: numbers, text, binary, dates and times only"
        )
    return np.where(valid, v, np.uint64(0))


def _prefix_words(arr: pa.Array) -> np.ndarray:
    """The first 8 bytes of each value, zero-filled, as big-endian uint64 (NULL: 0)."""
    zeros = pa.scalar(b"\0" * WIDTH)
    head = pc.binary_slice(
        pc.binary_join_element_wise(pc.binary_slice(arr, 0, WIDTH), zeros, pa.scalar(b"")), 0, WIDTH
    )
    fixed = pc.fill_null(head, zeros).cast(pa.binary(WIDTH))
    raw = np.frombuffer(fixed.buffers()[1], dtype=np.uint8)[
        fixed.offset * WIDTH : (fixed.offset + len(fixed)) * WIDTH
    ]
    return raw.view(">u8").astype(np.uint64)


def _unscaled(value) -> bytes | None:
    """Java's BigInteger.toByteArray of the unscaled decimal (minimal two's complement)."""
    if value is None:
        return None
    sign, digits, exp = value.as_tuple()
    n = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    return n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True)
