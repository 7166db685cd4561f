"""Partitions of a table: what ``$partitions`` shows, dropping partitions, marking them done.

* :func:`partition_stats`: per partition of the latest snapshot, the live files' record count,
  size, file count, newest file creation time and total buckets: Java's ``PartitionEntry`` figures.
* :func:`drop_partitions`: one OVERWRITE commit that deletes every live file of the partitions, as
  Java's ``FileStoreCommit.dropPartitions`` (partition expiry commits the same way), then the
  catalog drops them from its metastore (Hive with ``metastore.partitioned-table``). A partition
  without live files is refused by name before anything is written.
* :func:`mark_done`: the table's ``partition.mark-done-action``: ``success-file`` writes Java's
  ``_SUCCESS`` JSON into the partition directory (updating ``modificationTime`` when it exists);
  ``done-partition`` and ``mark-event`` go to the Hive metastore (refused by name elsewhere).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from paimon_core.clock import epoch_ms, now_ms
from paimon_core.data.partition import value_to_path_string
from paimon_core.errors import InvalidInput, NotFound, UnsupportedFeature
from paimon_core.metadata.live_files import live_entries
from paimon_core.options.registry import PARTITION_MARK_DONE_ACTION

if TYPE_CHECKING:
    from paimon_core.metadata.manifest import DataFileMeta, ManifestEntry
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

SUCCESS_FILE = "_SUCCESS"


@dataclass(frozen=True)
class PartitionStats:
    values: tuple  # internal values, in partition-key order
    record_count: int
    file_size_in_bytes: int
    file_count: int
    last_file_creation_time: int  # epoch millis (Java reads the creation time as local time)
    total_buckets: int = -1  # the last live entry's (Java's PartitionEntry keeps the last merged)


def creation_millis(f: DataFileMeta) -> int:
    """Java's ``creationTimeEpochMillis``: the stored wall clock read in the local zone."""
    t = f.creation_time
    if t is None:
        return 0
    if isinstance(t, int):
        wall = datetime.fromtimestamp(t / 1000, timezone.utc)
    else:
        wall = t if t.tzinfo is None else t.astimezone(timezone.utc)
    return epoch_ms(wall.replace(tzinfo=None))


def _entries(table: TableContext, snapshot: Snapshot | None) -> list[ManifestEntry]:
    return live_entries(table.manifests, snapshot)


def partition_stats(table: TableContext, snapshot: Snapshot | None = None) -> list[PartitionStats]:
    """One row per partition with live files in ``snapshot`` (the latest by default), sorted by values."""
    snap = snapshot if snapshot is not None else table.snapshots.latest()
    codec = table.partition_codec
    acc: dict[bytes, list] = {}
    for e in _entries(table, snap):
        a = acc.setdefault(e.partition, [0, 0, 0, 0, -1])
        a[0] += e.file.row_count
        a[1] += e.file.file_size
        a[2] += 1
        a[3] = max(a[3], creation_millis(e.file))
        a[4] = e.total_buckets
    out = [PartitionStats(codec.from_bytes(p), *a) for p, a in acc.items()]
    return sorted(out, key=lambda s: tuple((v is None, str(v)) for v in s.values))


def java_strings(table: TableContext, values: Sequence) -> list[str | None]:
    """Java's partition string of each value (DATE: its day number); None for NULL and for a
    blank string, which Java's partition computer both names by the default partition name."""
    return [value_to_path_string(v, t) for v, t in zip(values, table.partition_codec.types)]


def matching(table: TableContext, specs: Iterable[dict], snapshot: Snapshot | None = None) -> list[tuple]:
    """The live partitions (value tuples) each spec ({key: internal value}, possibly partial)
    names; NotFound naming the first spec that names none."""
    live = [s.values for s in partition_stats(table, snapshot)]
    keys = list(table.schema.partition_keys)
    out: list[tuple] = []
    for spec in specs:
        idx = {keys.index(k): v for k, v in spec.items()}
        hit = [p for p in live if all(p[i] == v for i, v in idx.items())]
        if not hit:
            raise NotFound(
                f"table {table.identifier} has no partition {table.partition_codec.display(spec)} "
                "(paimon partition list shows its partitions)"
            )
        out.extend(p for p in hit if p not in out)
    return out


def drop_partitions(
    table: TableContext,
    partitions: Sequence[tuple],
    commit_user: str | None = None,
    operation: str | None = "TRUNCATE",
):
    """One OVERWRITE commit removing every live file of ``partitions`` (value tuples); returns the
    snapshot (None when there was nothing to drop). Its operation is TRUNCATE, as Java's
    truncatePartitions writes it for a dropped partition; partition expiry passes None (Java's
    expiry commits without one)."""
    from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit

    if not partitions:
        return None
    wanted = set(partitions)
    opts = CommitOptions(overwrite=True, overwrite_filter=wanted.__contains__, operation=operation)
    if commit_user is not None:
        opts.commit_user = commit_user
    snap = FileStoreCommit(table, opts).commit([])
    if snap is not None:
        table.env.after_partitions_dropped(table, list(partitions))
    return snap


# ---------------------------------------------------------------- mark done
MARK_DONE_ACTIONS = ("success-file", "done-partition", "mark-event", "http-report", "custom")


def mark_done_actions(table: TableContext) -> list[str]:
    raw = table.schema.core_options.get(PARTITION_MARK_DONE_ACTION) or ""
    actions = [a.strip().lower() for a in raw.split(",") if a.strip()]
    for a in actions:
        if a not in MARK_DONE_ACTIONS:
            raise InvalidInput(
                f"partition.mark-done-action '{a}' is not one of {', '.join(MARK_DONE_ACTIONS)}"
            )
    return actions


def success_file_path(table: TableContext, values: Sequence) -> str:
    return table.io.join(table.path, table.partition_codec.path(values), SUCCESS_FILE)


def read_success_file(table: TableContext, values: Sequence) -> dict | None:
    try:
        return json.loads(table.io.read_text(success_file_path(table, values)))
    except FileNotFoundError:
        return None


def success_file_json(creation: int, modification: int) -> str:
    """Java's ``SuccessFile`` JSON (its Jackson layout)."""
    return json.dumps({"creationTime": creation, "modificationTime": modification}, indent=2).replace(
        '": ', '" : '
    )


def mark_done(table: TableContext, partitions: Sequence[tuple], dry_run: bool = False) -> list[str]:
    """Run the table's mark-done actions on each partition; returns the actions run. Actions this
    catalog cannot run are refused (by name) before anything is done: ``done-partition`` and
    ``mark-event`` need the Hive catalog (``CatalogEnvironment.mark_done``); ``http-report`` and
    ``custom`` are never run here."""
    actions = mark_done_actions(table)
    for a in actions:
        if a in ("http-report", "custom"):
            raise UnsupportedFeature(
                f"partition.mark-done-action '{a}' is not run by this project (use success-file, "
                "done-partition or mark-event)"
            ).with_hint("unsupported_option", option="partition.mark-done-action")
        if a != "success-file":
            table.env.mark_done(table, [], a)  # refuses (before anything is done) when the catalog cannot
    if dry_run:
        return actions
    for a in actions:
        if a != "success-file":
            table.env.mark_done(table, partitions, a)
            continue
        write_success_files(table, partitions)
    return actions


def write_success_files(table: TableContext, partitions: Sequence[tuple]) -> None:
    """The ``success-file`` action: write (or refresh, keeping its creation time) each
    partition's ``_SUCCESS`` file."""
    for values in partitions:
        now = now_ms()
        old = read_success_file(table, values)
        created = int(old["creationTime"]) if old and "creationTime" in old else now
        table.io.write_bytes(
            success_file_path(table, values), success_file_json(created, now).encode("utf-8")
        )


__all__ = [
    "PartitionStats",
    "creation_millis",
    "drop_partitions",
    "java_strings",
    "mark_done",
    "matching",
    "partition_stats",
    "read_success_file",
    "write_success_files",
]
