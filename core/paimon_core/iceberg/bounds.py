"""Iceberg's single-value binary form of column bounds and partition summaries (Iceberg spec,
Appendix D), from the internal values a BinaryRow decodes to (:mod:`paimon_core.data.binary_row`).

Invariant: the bytes equal Java Paimon's ``IcebergConversions.toByteBuffer`` for the same value:
little-endian ints (TINYINT/SMALLINT/INT/DATE as 4 bytes), longs and doubles; UTF-8 strings; the
unscaled big-endian two's complement of a decimal; timestamps as microseconds."""

from __future__ import annotations

import struct
from decimal import Decimal

from paimon_core.data.types import AtomicType, DataType


def to_bytes(t: DataType, value) -> bytes:
    """The bound bytes of ``value`` (not None) of type ``t``."""
    assert isinstance(t, AtomicType), t
    root = t.root
    if root == "BOOLEAN":
        return b"\x01" if value else b"\x00"
    if root in ("TINYINT", "SMALLINT", "INT", "DATE"):
        return struct.pack("<i", int(value))
    if root == "BIGINT":
        return struct.pack("<q", int(value))
    if root == "FLOAT":
        return struct.pack("<f", float(value))
    if root == "DOUBLE":
        return struct.pack("<d", float(value))
    if root in ("CHAR", "VARCHAR"):
        return str(value).encode("utf-8")
    if root in ("BINARY", "VARBINARY"):
        return bytes(value)
    if root == "DECIMAL":
        unscaled = int(Decimal(value).scaleb(t.declared_scale))
        bits = (unscaled if unscaled >= 0 else ~unscaled).bit_length()
        return unscaled.to_bytes(bits // 8 + 1, "big", signed=True)  # Java's minimal toByteArray
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):  # decoded as nanoseconds since the epoch
        return struct.pack("<q", int(value) // 1000)
    raise ValueError(f"no Iceberg bound for {t}")


__all__ = ["to_bytes"]
