"""Changes between two snapshots: rows with a row kind (+I/-U/+U/-D), A exclusive, B inclusive.

Modes:
* ``changelog``: the changelog files of the snapshots in (A, B] (needs a changelog producer);
* ``delta``: the rows of the data files added by APPEND snapshots in (A, B], with their kinds;
* ``diff``: the table state at A against the state at B, key by key (any table);
* ``auto``: changelog when the table has a producer, else diff.

Every change of every snapshot is returned (Java 0.9 merges per key over a range and loses
records; this does not). ``per_snapshot`` tags each change with the snapshot it belongs to.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from paimon_core.data.no_rows import no_rows
from paimon_core.data.system_columns import KIND, kind_text
from paimon_core.errors import InvalidInput, SnapshotNotFound
from paimon_core.metadata.changelog import changelog_manager, changelog_or_snapshot
from paimon_core.metadata.live_files import merge_entries
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.read.scan import DataSplit
from paimon_core.read.state_diff import state_changes
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

ROW_KIND = "_row_kind"
SNAPSHOT = "_snapshot"
MODES = ("auto", "changelog", "delta", "diff")


def range_error(start: int, end: int) -> InvalidInput:
    """The error for a range whose start snapshot comes after its end (hint "range")."""
    return InvalidInput(f"the start snapshot {start} is after the end snapshot {end}").with_hint(
        "range", start=start, end=end
    )


def check_range(table: TableContext, start: int, end: int, need_all: bool, changelogs: bool = False) -> None:
    """Refuse a range whose snapshots do not exist; with ``changelogs`` the long-lived changelogs
    of expired snapshots count as existing (their changes are still readable)."""
    if start > end:
        raise range_error(start, end)
    sm = table.snapshots
    ids = sm.list_ids()
    if changelogs:
        ids = sorted(set(ids) | set(changelog_manager(table).list_ids()))
    if not ids:
        raise SnapshotNotFound("the table has no snapshots")
    if end not in ids:
        raise SnapshotNotFound(f"snapshot {end} does not exist (snapshots {ids[0]}..{ids[-1]} exist)")
    if start != 0 and start not in ids and (not need_all or start < ids[0] - 1):
        raise SnapshotNotFound(
            f"snapshot {start} does not exist or has expired (snapshots {ids[0]}..{ids[-1]} exist)"
        )
    if need_all and start + 1 < ids[0]:
        raise SnapshotNotFound(
            f"snapshots {start + 1}..{ids[0] - 1} have expired; the changes since {start} are gone "
            f"(earliest is {ids[0]})"
        ).with_hint("mode_diff")


def _changelogs_readable(mode: str, producer: str) -> bool:
    """Whether a long-lived changelog answers ``mode``: its changelog files always stay, its delta
    list only without a changelog producer (Java's SnapshotDeletion)."""
    return mode == "changelog" or (mode == "delta" and producer == "none")


def with_row_kind(t: pa.Table, kinds: pa.Array | pa.ChunkedArray) -> pa.Table:
    """``t`` (made nullable) with a first column ``_row_kind`` (+I/-U/+U/-D) from byte kinds 0..3."""
    t = t.cast(pa.schema([f.with_nullable(True) for f in t.schema]))
    kinds = kinds.combine_chunks() if isinstance(kinds, pa.ChunkedArray) else pa.array(kinds)
    return t.add_column(0, ROW_KIND, kind_text(kinds))


def _read_entries(table: TableContext, entries, columns) -> pa.Table:
    codec = table.partition_codec
    reader = TableRead(table, columns)
    parts = []
    for e in entries:
        split = DataSplit(codec.from_bytes(e.partition), e.partition, e.bucket, e.total_buckets, (e.file,))
        t = reader.read_file(split, e.file, table.is_primary_key_table)
        if table.is_primary_key_table:
            kinds = t.column(KIND)
            t = t.select(reader.columns)
        else:
            kinds = pa.array(np.zeros(t.num_rows, np.int8))
            t = t.select(reader.columns)
        parts.append(with_row_kind(t, kinds))
    return pa.concat_tables(parts) if parts else empty_changes(table, columns)


def empty_changes(table: TableContext, columns: list[str]) -> pa.Table:
    """No rows, with the columns of a change table (``_row_kind`` first)."""
    schema = table.schema.arrow_schema()
    t = no_rows(schema).select(columns or schema.names)
    return with_row_kind(t, pa.array([], pa.int8()))


def snapshot_changelog(table: TableContext, snap: Snapshot, columns: list[str]) -> pa.Table:
    """The rows of the changelog files ``snap`` committed (any commit kind), with their kinds."""
    if not snap.changelog_manifest_list:
        return empty_changes(table, columns)
    store = table.manifests
    entries = [
        e for m in store.read_list(snap.changelog_manifest_list) for e in store.read_manifest(m.file_name)
    ]
    return _read_entries(table, entries, columns)


def snapshot_delta(table: TableContext, snap: Snapshot, columns: list[str]) -> pa.Table:
    """The rows of the data files an APPEND snapshot added, with their kinds (empty for other kinds)."""
    if snap.commit_kind != "APPEND":
        return empty_changes(table, columns)
    store = table.manifests
    entries = [e for m in store.read_list(snap.delta_manifest_list) for e in store.read_manifest(m.file_name)]
    return _read_entries(table, merge_entries(entries), columns)


def diff(
    table: TableContext,
    start: int | Snapshot,
    end: int | Snapshot,
    mode: str = "auto",
    per_snapshot: bool = False,
    columns: list[str] | None = None,
) -> pa.Table:
    """Changes in (start, end]; start may be 0 (the empty table before snapshot 1). ``start`` and
    ``end`` are snapshot ids or Snapshot objects (a tag's snapshot, which may have expired: then
    only the state comparison of ``diff`` mode can answer). All of ``diff_parts`` in one table."""
    parts = list(diff_parts(table, start, end, mode, per_snapshot, columns))
    return pa.concat_tables(parts) if parts else no_rows(changes_schema(table, columns, per_snapshot))


def changes_schema(table: TableContext, columns: list[str] | None, per_snapshot: bool) -> pa.Schema:
    """The columns of a change table: ``_row_kind``, ``_snapshot`` with ``per_snapshot``, ``columns``."""
    out = empty_changes(table, columns or table.schema.field_names)
    return out.add_column(1, SNAPSHOT, pa.array([], pa.int64())).schema if per_snapshot else out.schema


def diff_parts(
    table: TableContext,
    start: int | Snapshot,
    end: int | Snapshot,
    mode: str = "auto",
    per_snapshot: bool = False,
    columns: list[str] | None = None,
) -> Iterator[pa.Table]:
    """The changes of ``diff`` a part at a time (each with ``changes_schema``), so that a caller
    writing them out holds one part: a snapshot's changelog or delta, or the state comparison of
    a group of buckets (``state_diff``). The range is checked before the first part."""
    if mode not in MODES:
        raise InvalidInput(f"unknown diff mode '{mode}' (one of {', '.join(MODES)})")
    columns = columns or table.schema.field_names
    producer = table.schema.core_options.changelog_producer
    if mode == "auto":
        mode = "changelog" if producer != "none" and table.is_primary_key_table else "diff"
    if mode == "changelog" and producer == "none":
        raise InvalidInput(
            f"table {table.identifier} has no changelog producer (changelog-producer=none)"
        ).with_hint("mode_diff_delta")
    if mode == "diff" and not per_snapshot and (isinstance(start, Snapshot) or isinstance(end, Snapshot)):
        a = start.id if isinstance(start, Snapshot) else start
        b = end.id if isinstance(end, Snapshot) else end
        if a > b:
            raise range_error(a, b)
        return _kinded(state_changes(table, start, end, columns))
    start = start.id if isinstance(start, Snapshot) else start
    end = end.id if isinstance(end, Snapshot) else end
    check_range(
        table,
        start,
        end,
        need_all=mode != "diff" or per_snapshot,
        changelogs=_changelogs_readable(mode, producer),
    )
    if mode == "diff" and not per_snapshot:
        return _kinded(state_changes(table, start, end, columns))
    return _per_snapshot(table, start, end, mode, per_snapshot, columns)


def _kinded(parts: Iterator[pa.Table]) -> Iterator[pa.Table]:
    for log in parts:
        yield with_row_kind(log.drop_columns([KIND]), log.column(KIND))


def _per_snapshot(table, start: int, end: int, mode: str, per_snapshot: bool, columns) -> Iterator[pa.Table]:
    for sid in range(start + 1, end + 1):
        if mode == "diff":
            parts = list(_kinded(state_changes(table, sid - 1, sid, columns)))
            t = pa.concat_tables(parts) if parts else empty_changes(table, columns)
        else:
            snap = changelog_or_snapshot(table.snapshots, changelog_manager(table), sid)
            t = (
                snapshot_changelog(table, snap, columns)
                if mode == "changelog"
                else snapshot_delta(table, snap, columns)
            )
        if per_snapshot:
            t = t.add_column(1, SNAPSHOT, pa.array(np.full(t.num_rows, sid, np.int64)))
        if t.num_rows:
            yield t
