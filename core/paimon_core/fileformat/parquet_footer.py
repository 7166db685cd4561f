"""Timestamp annotations patched into a Parquet footer, and the sink that patches it while streaming.

A data file with a TIMESTAMP(7..9) column stores that column as INT96 (Java 0.9 reads nanoseconds
from INT96 only), and pyarrow's INT96 switch holds for every timestamp of a file. So the
TIMESTAMP(0..6) columns of such a file are handed to pyarrow as plain INT64 (their epoch values in
the Arrow unit of their precision: milliseconds for p <= 3, microseconds for 4..6), and this module
then gives those columns, in the footer, the annotation Java Paimon writes for them: logical type
TIMESTAMP(MILLIS or MICROS, isAdjustedToUTC = false for TIMESTAMP, true for TIMESTAMP_LTZ) and the
converted type TIMESTAMP_MILLIS / TIMESTAMP_MICROS (Java writes both, whatever the UTC flag). The
``ARROW:schema`` key-value entry gets the timestamp types back too, so pyarrow restores the columns
the table was written with.

Nested timestamps of precision <= 6 (``ARRAY<TIMESTAMP(3)>``, a ROW's TIMESTAMP(6) field...) get the same
INT64 layout on their leaf columns, as Java writes them.

Invariants: only the INT64 leaf schema elements of the named columns and the ``ARROW:schema`` entry
change; column chunks, offsets, statistics (INT64 min/max keep their signed order) and every other
footer field stay byte for byte; the footer sits after all data, so no offset moves.
"""

from __future__ import annotations

import base64
import struct

import pyarrow as pa

from paimon_core.data.arrow_nesting import leaf_types
from paimon_core.fileformat import thrift_compact as tc

MAGIC = b"PAR1"
_ARROW_SCHEMA = b"ARROW:schema"
# parquet.thrift: FileMetaData.schema = 2, key_value_metadata = 5; SchemaElement.type = 1,
# name = 4, num_children = 5, converted_type = 6, logicalType = 10; KeyValue.key = 1, value = 2;
# LogicalType.TIMESTAMP = 8; TimestampType.isAdjustedToUTC = 1, unit = 2; TimeUnit.MILLIS = 1,
# MICROS = 2; Type.INT64 = 2; ConvertedType.TIMESTAMP_MILLIS = 9, TIMESTAMP_MICROS = 10
_FMD_SCHEMA, _FMD_KV = 2, 5
_SE_TYPE, _SE_NAME, _SE_CHILDREN, _SE_CONVERTED, _SE_LOGICAL = 1, 4, 5, 6, 10
_INT64 = 2
_UNITS = {"ms": (1, 9), "us": (2, 10)}  # Arrow unit -> (TimeUnit field, ConvertedType)


class FooterError(ValueError):
    """A Parquet footer this module cannot patch (it names the reason)."""


def _timestamp_logical_type(unit_field: int, utc: bool) -> tc.Struct:
    unit = tc.Struct([(unit_field, tc.STRUCT, tc.Struct())])
    ts = tc.Struct([(1, tc.bool_type(utc), utc), (2, tc.STRUCT, unit)])
    return tc.Struct([(8, tc.STRUCT, ts)])


def _children(el: tc.Struct) -> int:
    n = el.get(_SE_CHILDREN)
    return n if isinstance(n, int) else 0


def _name(el: tc.Struct) -> str:
    n = el.get(_SE_NAME)
    return n.decode() if isinstance(n, bytes) else ""


def _top_level(elements: list[tc.Struct]) -> list[list[tc.Struct]]:
    """The root's direct children in the flattened (depth-first) schema element list, each with
    its subtree (the child first)."""
    out, i = [], 1
    while i < len(elements):
        start = i
        pending = _children(elements[i])
        i += 1
        while pending:  # walk the subtree
            if i >= len(elements):
                raise FooterError("the Parquet footer's schema ends inside a group")
            pending += _children(elements[i]) - 1
            i += 1
        out.append(elements[start:i])
    return out


def _arrow_schema_with(value: bytes, types: dict[str, pa.DataType]) -> bytes:
    """The base64 ``ARROW:schema`` value with the named fields' types replaced (metadata kept)."""
    schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(value)))
    fields = [f.with_type(types[f.name]) if f.name in types else f for f in schema]
    patched = pa.schema(fields, metadata=schema.metadata)
    return base64.b64encode(patched.serialize().to_pybytes())


def annotate_timestamps(footer: bytes, columns: dict[str, pa.DataType]) -> bytes:
    """``footer`` (a Thrift-compact FileMetaData) with the timestamps of precision <= 6 in each
    top-level column named in ``columns`` (its type as the table has it: a timestamp, or a
    nested type holding timestamps) annotated on their INT64 leaves as the timestamp type
    (unit ``ms`` or ``us``; a time zone means adjusted to UTC)."""
    fmd = tc.decode(footer)
    elements = fmd.get(_FMD_SCHEMA)
    if not isinstance(elements, tc.ThriftList) or not elements.items:
        raise FooterError("the Parquet footer has no schema")
    found = set()
    for subtree in _top_level(elements.items):
        name = _name(subtree[0])
        t = columns.get(name)
        if t is None:
            continue
        leaves = [el for el in subtree if not _children(el)]
        types = list(leaf_types(t))
        if len(leaves) != len(types):
            raise FooterError(f"column {name} has {len(leaves)} leaf columns, its type {len(types)}")
        for el, leaf in zip(leaves, types):
            if not (pa.types.is_timestamp(leaf) and leaf.unit != "ns"):
                continue
            if el.get(_SE_TYPE) != _INT64:
                raise FooterError(f"column {name} is not stored as INT64")
            if leaf.unit not in _UNITS:
                raise FooterError(f"column {name}: no INT64 timestamp annotation for unit {leaf.unit}")
            unit_field, converted = _UNITS[leaf.unit]
            el.set(_SE_CONVERTED, tc.I32, converted)
            el.set(_SE_LOGICAL, tc.STRUCT, _timestamp_logical_type(unit_field, leaf.tz is not None))
        found.add(name)
    if found != set(columns):
        raise FooterError(f"columns not in the Parquet footer: {sorted(set(columns) - found)}")
    kv = fmd.get(_FMD_KV)
    for entry in kv.items if isinstance(kv, tc.ThriftList) else []:
        if entry.get(1) == _ARROW_SCHEMA:
            entry.set(2, tc.BINARY, _arrow_schema_with(entry.get(2), dict(columns)))
    return tc.encode(fmd)


def split_tail(tail: bytes) -> tuple[bytes, bytes]:
    """``tail`` (the last bytes of a Parquet file, ending in its footer, length and magic) as the
    bytes before the footer and the footer."""
    if len(tail) < 8 or tail[-4:] != MAGIC:
        raise FooterError("the Parquet file does not end in its magic bytes")
    (n,) = struct.unpack("<i", tail[-8:-4])
    if n < 0 or n > len(tail) - 8:
        raise FooterError("the Parquet footer length is out of range")
    return tail[: len(tail) - 8 - n], tail[len(tail) - 8 - n : -8]


def with_footer(footer: bytes) -> bytes:
    """``footer`` followed by its length and the closing magic bytes."""
    return footer + struct.pack("<i", len(footer)) + MAGIC


class FooterPatchingSink:
    """A file-like sink for ``pq.ParquetWriter`` that passes every byte through to ``inner`` until
    :meth:`hold` (called just before the writer closes), then keeps what the writer writes while
    closing (the rest of the last row group and the footer: bytes pyarrow held in memory anyway)
    and, on :meth:`finish`, writes it with the footer annotated by :func:`annotate_timestamps`.
    It never closes ``inner``."""

    def __init__(self, inner, columns: dict[str, pa.DataType]):
        self._inner = inner
        self._columns = columns
        self._tail: bytearray | None = None
        self.closed = False

    def hold(self) -> None:
        self._tail = bytearray()

    def write(self, data) -> int:
        if self._tail is not None:
            self._tail += data
        else:
            self._inner.write(data)
        return len(data)

    def tell(self) -> int:
        return self._inner.tell() + (len(self._tail) if self._tail is not None else 0)

    def flush(self) -> None:
        if self._tail is None:
            self._inner.flush()

    def writable(self) -> bool:
        return True

    def close(self) -> None:  # pyarrow may close what it was given: the data goes on at finish
        self.closed = True

    def finish(self) -> None:
        if self._tail is None:
            raise FooterError("finish() before hold()")
        before, footer = split_tail(bytes(self._tail))
        self._inner.write(before)
        self._inner.write(with_footer(annotate_timestamps(footer, self._columns)))
        self._tail = None
