"""Row tracking and data evolution on read (Paimon 1.3+, unaware-bucket append tables).

Row tracking (``row-tracking.enabled``) gives every row a ``_ROW_ID``: the committer sets each
new file's ``_FIRST_ROW_ID`` from the snapshot's ``nextRowId``, and a row's id is that plus its
position in the file, unless the file stores a ``_ROW_ID`` column (compactions write it) whose
value is not null. Its ``_SEQUENCE_NUMBER`` is the file's stored value, else the file's maximum
sequence number.

Data evolution (``data-evolution.enabled``) lets a writer add files that hold only some columns
(``_WRITE_COLS``, names in the file's own schema) for rows that already exist: such a file has
the same ``_FIRST_ROW_ID`` and row count as the rows it updates. A reader groups the files whose
row-id ranges overlap and reads each column from the newest file (highest maximum sequence
number) that holds it, as Java's ``DataEvolutionFileReader`` does; a column no file of the group
holds is NULL; the group's ``_SEQUENCE_NUMBER`` is its files' maximum. A group whose files cover
different ranges, or whose rows a deletion vector removes, is refused by name (not implemented).

BLOB columns (Paimon 1.4) live in ``.blob`` files of one column each (``fileformat/blob.py``),
which roll on their own size: a group's blob files of one column together cover its data file's
rows, each file at its own ``_FIRST_ROW_ID``. They take no part in the data files' range check;
per column the newest file wins where two cover the same rows (Java's ``SpecialFieldBunch``), and
a gap between them is refused by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import CorruptMetadata, UnsupportedFeature
from paimon_core.fileformat.blob import is_blob_file
from paimon_core.metadata.row_ids import data_evolution, row_tracking

if TYPE_CHECKING:
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.table_context import TableContext


__all__ = [
    "blob_sources",
    "column_sources",
    "data_evolution",
    "held_field_ids",
    "row_groups",
    "row_tracking",
]


def row_groups(files: list[DataFileMeta]) -> list[list[DataFileMeta]]:
    """``files`` grouped by overlapping row-id ranges ``[first_row_id, first_row_id + rows)``,
    in row-id order; files without a first row id each form their own group, last."""
    tracked = sorted((f for f in files if f.first_row_id is not None), key=lambda f: f.first_row_id or 0)
    groups: list[list[DataFileMeta]] = []
    end = -1
    for f in tracked:
        start = f.first_row_id or 0
        if groups and start < end:
            groups[-1].append(f)
            end = max(end, start + f.row_count)
        else:
            groups.append([f])
            end = start + f.row_count
    return groups + [[f] for f in files if f.first_row_id is None]


def held_field_ids(table: TableContext, f: DataFileMeta) -> set[int]:
    """Ids of the columns ``f`` holds: its ``_WRITE_COLS`` (names in its own schema), else every
    column of its schema."""
    schema = table.schema_for(f.schema_id)
    names = schema.field_names if f.write_cols is None else list(f.write_cols)
    by_name = {fld.name: fld.id for fld in schema.fields}
    return {by_name[n] for n in names if n in by_name}


def column_sources(
    table: TableContext, group: list[DataFileMeta], field_ids: list[int]
) -> dict[int, DataFileMeta]:
    """For each field id, the newest data file of ``group`` (``.blob`` files aside) that holds it
    (absent: no file does). Refuses a group whose data files do not cover the same rows."""
    group = [f for f in group if not is_blob_file(f.file_name)]
    if not group:
        return {}
    first = group[0]
    for f in group[1:]:
        if (f.first_row_id, f.row_count) != (first.first_row_id, first.row_count):
            raise UnsupportedFeature(
                f"data files {first.file_name} and {f.file_name} cover overlapping but different "
                "row-id ranges (data evolution): reading them is not supported"
            )
    newest_first = sorted(group, key=lambda f: f.max_sequence_number, reverse=True)
    held = {f.file_name: held_field_ids(table, f) for f in group}
    out: dict[int, DataFileMeta] = {}
    for fid in field_ids:
        for f in newest_first:
            if fid in held[f.file_name]:
                out[fid] = f
                break
    return out


def blob_sources(
    table: TableContext, group: list[DataFileMeta], field_ids: list[int]
) -> dict[int, list[DataFileMeta]]:
    """For each BLOB field id among ``field_ids``, the ``.blob`` files of ``group`` that give its
    values, in row-id order: per first row id the newest file, a file overlapping the previous
    one's rows only when newer (then the older one's later rows stay hidden, as Java reads), and
    no gap between them."""
    by_field: dict[int, list[DataFileMeta]] = {}
    for f in sorted(
        (g for g in group if is_blob_file(g.file_name)),
        key=lambda g: (g.first_row_id or 0, -g.max_sequence_number),
    ):
        ids = held_field_ids(table, f)
        if len(ids) != 1:
            raise CorruptMetadata(f"blob file {f.file_name} does not name one column in _WRITE_COLS")
        (fid,) = ids
        if fid not in field_ids:
            continue
        chain = by_field.setdefault(fid, [])
        start = f.first_row_id or 0
        if chain:
            last = chain[-1]
            end = (last.first_row_id or 0) + last.row_count
            if start == last.first_row_id:
                continue  # an older file of rows a newer one already gives
            if start < end:
                if f.max_sequence_number >= last.max_sequence_number:
                    raise UnsupportedFeature(
                        f"blob files {last.file_name} and {f.file_name} overlap with the newer one "
                        "starting later: reading them is not supported"
                    )
                continue
            if start > end:
                raise UnsupportedFeature(
                    f"blob files {last.file_name} and {f.file_name} leave rows {end}..{start - 1} "
                    "without values: reading them is not supported"
                )
        chain.append(f)
    return by_field
