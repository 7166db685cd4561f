"""Rollback to a snapshot or a tag (Java ``RollbackHelper`` semantics).

The table is readable at the target at every step: first the target's snapshot file is
recreated from the tag if it has expired, and LATEST is pointed at it; then the newer
snapshot files are deleted, newest first; only then the files they added (data, changelog),
their manifests and index files, and tags newer than the target (as Java does: they name
snapshots that no longer exist and whose ids will be reused). Long-lived changelogs newer than
the target (a rollback to a tag older than the earliest snapshot) go too, with their files, as
Java's RollbackHelper does. Nothing the target, an older
snapshot or a remaining tag uses is deleted. If a rollback is interrupted after the snapshot
files are gone, the files left behind are unreferenced and ``remove_orphans`` deletes them.
A table with Iceberg-compatible metadata gets it afresh for the target before any file of the
newer snapshots is deleted (``iceberg/sync.py``).

A newer snapshot file that is damaged (does not parse) does not stop a rollback past it: its file
is deleted with the others (after LATEST points at the target), and since the files it added
cannot be listed they are left for ``remove_orphans`` (``RollbackPlan.damaged`` names them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.errors import DamagedSnapshot, InvalidInput, SnapshotNotFound
from paimon_core.iceberg.sync import reset_iceberg
from paimon_core.maintain import files as _files
from paimon_core.maintain.files import PlannedFile, manifest_path
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.maintain.snapshot_files import (
    FileCollector,
    added_files,
    execute_plan_files,
    metadata_files,
)
from paimon_core.metadata.changelog import changelog_manager
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.metadata.tags import tag_manager
from paimon_core.metadata.time_travel import SnapshotSpec, require_snapshot

if TYPE_CHECKING:
    from paimon_core.maintain.files import FileProgress
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class RollbackPlan:
    target: Snapshot
    tag: str | None
    recreate_snapshot: bool  # the target's snapshot file expired: rewrite it from the tag
    snapshots: tuple[int, ...]  # ids to delete, newest first
    tags_deleted: tuple[str, ...]  # tags on snapshots newer than the target
    files: tuple[PlannedFile, ...]  # data, changelog, manifests, index files (after the snapshots)
    damaged: tuple[int, ...] = ()  # newer snapshot files that do not parse: deleted, files unknown
    changelogs: tuple[int, ...] = ()  # long-lived changelogs newer than the target, newest first

    @property
    def total_bytes(self) -> int:
        return sum(max(f.size, 0) for f in self.files)


@dataclass(frozen=True)
class RollbackResult:
    plan: RollbackPlan
    dry_run: bool
    deleted: int


def plan_rollback(
    table: TableContext,
    to_snapshot: int | None = None,
    to_tag: str | None = None,
    as_of_ms: int | None = None,
) -> RollbackPlan:
    """Plan a rollback to a snapshot id, a tag, or the newest snapshot committed at or before
    ``as_of_ms`` (a time before the earliest snapshot is refused, naming the earliest)."""
    if sum(x is not None for x in (to_snapshot, to_tag, as_of_ms)) != 1:
        raise InvalidInput("rollback needs exactly one of a snapshot id, a tag name or a time")
    sm, tags = table.snapshots, tag_manager(table)
    tagged = tags.tagged()
    target = require_snapshot(table, SnapshotSpec(snapshot_id=to_snapshot, tag=to_tag, time_millis=as_of_ms))
    ids = sm.list_ids()
    if not ids and to_tag is None:
        raise SnapshotNotFound("the table has no snapshots")
    newer = sorted((i for i in ids if i > target.id), reverse=True)
    recreate = not sm.exists(target.id)
    if recreate and ids and ids[0] <= target.id:
        raise SnapshotNotFound(
            f"snapshot {target.id} of tag '{to_tag}' is missing although snapshot "
            f"{ids[0]} exists; the table needs repair"
        )
    newer_tags = tuple(sorted(n for n, s in tagged.items() if s.id > target.id))
    kept_tags = [s for n, s in tagged.items() if s.id <= target.id]

    reader = RefReader(table)
    protected = Refs().update(reader.refs(target))
    for s in kept_tags:
        protected.update(reader.refs(s))
    for i in ids:  # metadata of every snapshot that stays (cheap; a subset of the target's in practice)
        if i <= target.id:
            protected.update(reader.manifest_names(sm.snapshot(i)))
    cm = changelog_manager(table)
    for i in cm.list_ids():  # the changelogs that stay keep their files
        if i <= target.id:
            protected.update(reader.changelog_refs(cm.changelog(i)))
    col = FileCollector(table, protected)
    doomed, damaged = [], []
    for i in newer:
        try:
            doomed.append(sm.snapshot(i))
        except DamagedSnapshot:  # its file goes; what only it referenced is left to remove_orphans
            damaged.append(i)
    doomed += [tags.snapshot(n) for n in newer_tags]
    for s in doomed:  # every file a doomed snapshot uses, not only what its delta added:
        r = reader.refs(s)  # snapshots between an expired tag and the earliest hold files too
        for p, size in r.data.items():
            col.add(p, size, "data")
        for p, size in r.changelog.items():
            col.add(p, size, "changelog")
    newer_changelogs = sorted((i for i in cm.list_ids() if i > target.id), reverse=True)
    for i in newer_changelogs:
        c = cm.changelog(i)
        for p, size, _extras in added_files(table, c.changelog_manifest_list):
            col.add(p, size, "changelog")
        if table.io.exists(manifest_path(table, c.delta_manifest_list)):
            for p, size, _extras in added_files(table, c.delta_manifest_list):
                col.add(p, size, "data")
        doomed.append(c)
    for s in doomed:
        metadata_files(reader, s, col)
    return RollbackPlan(
        target,
        to_tag,
        recreate,
        tuple(newer),
        newer_tags,
        tuple(col.files),
        tuple(damaged),
        tuple(newer_changelogs),
    )


def rollback(
    table: TableContext,
    to_snapshot: int | None = None,
    to_tag: str | None = None,
    dry_run: bool = False,
    progress: FileProgress | None = None,
    as_of_ms: int | None = None,
) -> RollbackResult:
    """Make the target snapshot the latest again, deleting everything newer (through the
    table's catalog when it does versions itself: a REST server)."""
    plan = plan_rollback(table, to_snapshot, to_tag, as_of_ms)
    if dry_run:
        return RollbackResult(plan, True, 0)
    remote = table.env.versions()
    if remote is not None:  # the catalog (a REST server) rolls back, with its own checks
        remote.rollback(table, None if to_tag is not None else plan.target.id, to_tag)
        return RollbackResult(
            plan, False, len(plan.snapshots) + len(plan.changelogs) + len(plan.tags_deleted)
        )
    sm, io = table.snapshots, table.io
    n = 0
    if plan.recreate_snapshot:
        io.write_if_absent(sm.path(plan.target.id), plan.target.to_json().encode("utf-8"))
    sm.write_hint("LATEST", plan.target.id)
    for i in plan.snapshots:  # newest first: every intermediate state is a valid table
        _files.delete_file(io, sm.path(i))
        n += 1
    if plan.recreate_snapshot:
        sm.write_hint("EARLIEST", plan.target.id)
    cm = changelog_manager(table)
    for i in plan.changelogs:  # newest first, as the snapshots
        _files.delete_file(io, cm.path(i))
        n += 1
    if plan.changelogs:
        rest = [i for i in cm.list_ids() if i <= plan.target.id]
        cm.write_hint("LATEST", rest[-1] if rest else -1)
    tags = tag_manager(table)
    for name in plan.tags_deleted:
        _files.delete_file(io, tags.path(name))
        n += 1
    reset_iceberg(table)  # before the files go: Iceberg readers never see a deleted file
    n += execute_plan_files(table, plan.files, progress)
    sm.write_hint("LATEST", plan.target.id)
    return RollbackResult(plan, False, n)


__all__ = ["RollbackPlan", "RollbackResult", "plan_rollback", "rollback"]
