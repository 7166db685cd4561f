"""System tables that are reads of the data: ``$audit_log``, ``$binlog``, ``$ro``,
``$row_tracking``.

* ``$audit_log``: ``rowkind`` (``+I``, ``+U``, ...) then the table's columns: the latest
  snapshot's rows with the kind of their merged record (append tables: all ``+I``).
* ``$binlog``: ``rowkind`` then each column as ``ARRAY<type>`` holding the row's value (a batch
  read has no ``-U``/``+U`` pairs to pack, so each array has one element).
* ``$ro`` (read-optimized): primary-key tables read only their top-level files (no merge, what
  the last full compaction wrote); other tables read as they are.
* ``$row_tracking``: the table's columns then each row's ``_ROW_ID`` and ``_SEQUENCE_NUMBER``
  (row-tracking append tables only; others are refused by name, as Java refuses them).
Each yields Arrow tables split by split, so a large table is never held whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.data.system_columns import ROW_ID, SEQ, kind_text
from paimon_core.data.types import ArrayType, DataField, parse_type
from paimon_core.errors import InvalidInput
from paimon_core.metadata.live_files import expiry_checked

if TYPE_CHECKING:
    from paimon_core.table import FileStoreTable

ROWKIND = DataField(-1, "rowkind", parse_type("STRING"))  # nullable, as Java's ROW_KIND field


def audit_log_fields(table: FileStoreTable) -> tuple[DataField, ...]:
    return (ROWKIND, *table.schema.fields)


def binlog_fields(table: FileStoreTable) -> tuple[DataField, ...]:
    wrapped = tuple(
        DataField(f.id, f.name, ArrayType(element=f.type.with_nullable(True)), f.description)
        for f in table.schema.fields
    )
    return (ROWKIND, *wrapped)


def _kinds(data: pa.Table, kinds: pa.Array | None) -> pa.Array:
    if kinds is None:
        return pa.array(["+I"] * data.num_rows, pa.string())
    return kind_text(kinds)


def audit_log(table: FileStoreTable) -> Iterator[pa.Table]:
    snap = table.snapshots.latest()
    reader = table.new_read()
    with expiry_checked(table, snap):
        for split in table.plan(snap):
            data, kinds = reader.read_split_with_kinds(split)
            if data.num_rows:
                yield data.add_column(0, pa.field("rowkind", pa.string()), _kinds(data, kinds))


def binlog(table: FileStoreTable) -> Iterator[pa.Table]:
    for t in audit_log(table):
        cols = [t.column(0)]
        for name in t.column_names[1:]:
            arr = t.column(name).combine_chunks()
            offsets = pa.array(range(len(arr) + 1), pa.int32())
            cols.append(pa.ListArray.from_arrays(offsets, arr))
        yield pa.Table.from_arrays(cols, names=t.column_names)


def read_optimized(table: FileStoreTable) -> Iterator[pa.Table]:
    snap = table.snapshots.latest()
    reader = table.new_read()
    top = table.schema.core_options.num_levels - 1
    with expiry_checked(table, snap):
        for split in table.plan(snap):
            if table.is_primary_key_table:
                split = replace(split, files=tuple(f for f in split.files if f.level == top))
                if not split.files:
                    continue
            data = reader.read_split(split)
            if data.num_rows:
                yield data


def row_tracking_fields(table: FileStoreTable) -> tuple[DataField, ...]:
    from paimon_core.fileformat.field_ids import SYSTEM_IDS
    from paimon_core.metadata.row_ids import row_tracking

    if table.is_primary_key_table or not row_tracking(table.schema):
        raise InvalidInput(
            f"table {table.identifier} does not track rows: $row_tracking needs an append table "
            "with 'row-tracking.enabled' = 'true'"
        )
    tracking = (DataField(SYSTEM_IDS[c], c, parse_type("BIGINT NOT NULL")) for c in (ROW_ID, SEQ))
    return (*table.schema.fields, *tracking)


def row_tracking_rows(table: FileStoreTable) -> Iterator[pa.Table]:
    snap = table.snapshots.latest()
    reader = table.new_read([*table.schema.field_names, ROW_ID, SEQ])
    with expiry_checked(table, snap):
        for split in table.plan(snap):
            data = reader.read_split(split)
            if data.num_rows:
                yield data
