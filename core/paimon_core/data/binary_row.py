"""Paimon's BinaryRow: the byte layout of partitions, keys and stats in manifests, and the bucket hash.

Layout (docs/format.md section 6): an 8-byte-aligned header whose byte 0 is the row kind and whose
bit ``i + 8`` flags field i as null; one 8-byte little-endian slot per field; then a variable
part of 8-byte-padded chunks addressed from the start of the row. In manifests the row is
prefixed by its arity as a big-endian int32.

Values use the *internal* representation: bool, int, float, ``decimal.Decimal``, str, bytes;
DATE as days since the epoch, TIME as milliseconds of the day, TIMESTAMP/TIMESTAMP_LTZ as
nanoseconds since the epoch (wall clock as if UTC for TIMESTAMP).
"""

from __future__ import annotations

import struct
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import TYPE_CHECKING

from paimon_core.data.types import AtomicType, DataType

if TYPE_CHECKING:
    from collections.abc import Sequence

_INT64 = struct.Struct("<q")
_DEC = Context(prec=80)  # wider than DECIMAL(38): the default 28 digits would round
_UINT64 = struct.Struct("<Q")


def null_bits_size(arity: int) -> int:
    return ((arity + 63 + 8) // 64) * 8


def is_compact_decimal(t: AtomicType) -> bool:
    return t.declared_precision <= 18


def is_compact_timestamp(t: AtomicType) -> bool:
    return t.declared_precision <= 3


def _pad8(n: int) -> int:
    return (n + 7) & ~7


def decimal_unscaled(value: object, scale: int) -> int:
    """Unscaled integer of a decimal at the column's scale (rounding half-up if it has more digits)."""
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    return int(d.scaleb(scale, context=_DEC).to_integral_value(rounding=ROUND_HALF_UP, context=_DEC))


def encode_row(values: Sequence, types: Sequence[DataType]) -> bytes:
    """The raw BinaryRow bytes (no arity prefix) as Java's BinaryRowWriter lays them out."""
    arity = len(types)
    header = null_bits_size(arity)
    fixed = bytearray(header + 8 * arity)
    var = bytearray()
    base = len(fixed)

    def put_var(data: bytes, reserve: int | None = None) -> int:
        offset = base + len(var)
        size = _pad8(reserve if reserve is not None else len(data))
        chunk = bytearray(size)
        chunk[: len(data)] = data
        var.extend(chunk)
        return offset

    for i, (v, t) in enumerate(zip(values, types)):
        slot = header + 8 * i
        if not isinstance(t, AtomicType):
            if v is not None:
                raise ValueError(f"a BinaryRow field of type {t} is not supported here")
            fixed[(i + 8) >> 3] |= 1 << ((i + 8) & 7)
            continue
        root = t.root
        if v is None:
            fixed[(i + 8) >> 3] |= 1 << ((i + 8) & 7)
            # Java reserves the variable bytes of non-compact decimals/timestamps even for null.
            if root == "DECIMAL" and not is_compact_decimal(t):
                off = put_var(b"", 16)
                fixed[slot : slot + 8] = _UINT64.pack(off << 32)
            elif root in ("TIMESTAMP", "TIMESTAMP_LTZ") and not is_compact_timestamp(t):
                off = put_var(b"", 8)
                fixed[slot : slot + 8] = _UINT64.pack(off << 32)
            continue
        if root == "BOOLEAN":
            fixed[slot] = 1 if v else 0
        elif root == "TINYINT":
            fixed[slot] = v & 0xFF
        elif root == "SMALLINT":
            fixed[slot : slot + 2] = struct.pack("<h", v)
        elif root in ("INT", "DATE", "TIME"):
            fixed[slot : slot + 4] = struct.pack("<i", v)
        elif root == "BIGINT":
            fixed[slot : slot + 8] = _INT64.pack(v)
        elif root == "FLOAT":
            fixed[slot : slot + 4] = struct.pack("<f", v)
        elif root == "DOUBLE":
            fixed[slot : slot + 8] = struct.pack("<d", v)
        elif root in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
            data = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            if len(data) <= 7:
                fixed[slot : slot + len(data)] = data
                fixed[slot + 7] = 0x80 | len(data)
            else:
                off = put_var(data)
                fixed[slot : slot + 8] = _UINT64.pack((off << 32) | len(data))
        elif root == "DECIMAL":
            unscaled = decimal_unscaled(v, t.declared_scale)
            if is_compact_decimal(t):
                fixed[slot : slot + 8] = _INT64.pack(unscaled)
            else:
                data = unscaled.to_bytes((unscaled.bit_length() + 8) // 8 or 1, "big", signed=True)
                off = put_var(data, 16)
                fixed[slot : slot + 8] = _UINT64.pack((off << 32) | len(data))
        elif root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            millis, nano_of_milli = divmod(int(v), 1_000_000)
            if is_compact_timestamp(t):
                fixed[slot : slot + 8] = _INT64.pack(millis)
            else:
                off = put_var(_INT64.pack(millis))
                fixed[slot : slot + 8] = _UINT64.pack((off << 32) | nano_of_milli)
        else:
            raise ValueError(f"cannot encode {root} in a BinaryRow")
    return bytes(fixed) + bytes(var)


def serialize_row(values: Sequence, types: Sequence[DataType]) -> bytes:
    """Arity-prefixed BinaryRow, as stored in manifest fields (``_PARTITION``, ``_MIN_KEY``, stats)."""
    return struct.pack(">i", len(types)) + encode_row(values, types)


EMPTY_ROW = serialize_row([], [])


def deserialize_row(data: bytes, types: list[DataType]) -> list:
    """Decode an arity-prefixed BinaryRow into internal values (see module docstring)."""
    (arity,) = struct.unpack_from(">i", data, 0)
    if arity != len(types):
        raise ValueError(f"BinaryRow has arity {arity}, expected {len(types)}")
    return decode_row(memoryview(data)[4:], types)


def decode_row(row: bytes | memoryview, types: Sequence[DataType]) -> list:
    arity = len(types)
    header = null_bits_size(arity)
    out = []
    for i, t in enumerate(types):
        if row[(i + 8) >> 3] & (1 << ((i + 8) & 7)):
            out.append(None)
            continue
        slot = header + 8 * i
        if not isinstance(t, AtomicType):
            raise ValueError(f"cannot decode {t} from a BinaryRow")
        root = t.root
        if root == "BOOLEAN":
            out.append(row[slot] != 0)
        elif root == "TINYINT":
            out.append(struct.unpack_from("<b", row, slot)[0])
        elif root == "SMALLINT":
            out.append(struct.unpack_from("<h", row, slot)[0])
        elif root in ("INT", "DATE", "TIME"):
            out.append(struct.unpack_from("<i", row, slot)[0])
        elif root == "BIGINT":
            out.append(_INT64.unpack_from(row, slot)[0])
        elif root == "FLOAT":
            out.append(struct.unpack_from("<f", row, slot)[0])
        elif root == "DOUBLE":
            out.append(struct.unpack_from("<d", row, slot)[0])
        elif root in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
            word = _UINT64.unpack_from(row, slot)[0]
            if word & (0x80 << 56):
                n = (word >> 56) & 0x7F
                data = bytes(row[slot : slot + n])
            else:
                off, n = word >> 32, word & 0xFFFFFFFF
                data = bytes(row[off : off + n])
            out.append(data.decode("utf-8") if root in ("CHAR", "VARCHAR") else data)
        elif root == "DECIMAL":
            if is_compact_decimal(t):
                unscaled = _INT64.unpack_from(row, slot)[0]
            else:
                word = _UINT64.unpack_from(row, slot)[0]
                off, n = word >> 32, word & 0xFFFFFFFF
                unscaled = int.from_bytes(bytes(row[off : off + n]), "big", signed=True)
            out.append(Decimal(unscaled).scaleb(-t.declared_scale, context=_DEC))
        elif root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            if is_compact_timestamp(t):
                out.append(_INT64.unpack_from(row, slot)[0] * 1_000_000)
            else:
                word = _UINT64.unpack_from(row, slot)[0]
                off, nano = word >> 32, word & 0xFFFFFFFF
                out.append(_INT64.unpack_from(row, off)[0] * 1_000_000 + nano)
        else:
            raise ValueError(f"cannot decode {root} from a BinaryRow")
    return out
