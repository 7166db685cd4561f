"""Branch operations: create, list, delete, rename and fast-forward (Java ``BranchManager``).

A branch (``metadata/branches.py``) owns ``branch/branch-NAME/{snapshot,schema,tag,changelog,
consumer}`` and shares the table's data, manifest and index files.

* create: empty (the schema files of the source branch, none of its snapshots), from a tag (the
  tag file, its snapshot as ``snapshot-N`` and the schema files up to the snapshot's), or from a
  snapshot (the snapshot and the schema files up to its). Schemas ``0..N`` are copied, as Java
  1.x does (Java 0.9 copies schema N only and then cannot read files of older schemas). The
  schema files go first, so an interrupted create leaves at worst an empty branch.
* delete: the branch directory first (the branch is gone), then the files its snapshots and tags
  used that no other branch (main included) uses. An interrupted delete leaves only orphans.
* rename: the files are copied to the new name, then the old directory is deleted.
* fast-forward: main becomes the branch, as Java's ``fastForward``: main's snapshots from the
  branch's earliest snapshot id on, its schemas from that snapshot's schema id on and its tags of
  those snapshots are deleted (newest snapshot first, so main stays readable), then the branch's
  snapshot, schema and tag files are copied in and the hints rewritten. Main's older snapshots
  stay when their ids run up to the branch's earliest; when they would leave a gap in the ids
  (the branch started from a snapshot main has since lost, e.g. by a rollback) they are dropped
  too, where Java keeps them: snapshot ids stay contiguous. Refused when a snapshot or
  tag main keeps would then see another schema under its schema id ("main cannot take the
  branch's schema"). Files only the dropped main snapshots used are left to ``remove_orphans``,
  as Java leaves them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import InvalidInput, SnapshotNotFound, UnsupportedFeature
from paimon_core.maintain import files as _files
from paimon_core.maintain.files import PlannedFile
from paimon_core.maintain.refs import RefReader
from paimon_core.maintain.snapshot_files import execute_plan_files
from paimon_core.maintain.used_names import branch_names, other_branches_names
from paimon_core.metadata.branches import (
    BranchAlreadyExists,
    BranchNotFound,
    branch_path,
    split_branch,
    validate_branch_name,
)
from paimon_core.metadata.schema import SchemaManager
from paimon_core.metadata.snapshot import Snapshot, SnapshotManager
from paimon_core.metadata.tags import branch_tag_manager, tag_manager
from paimon_core.metadata.time_travel import SnapshotSpec, require_snapshot

if TYPE_CHECKING:
    from paimon_core.maintain.files import FileProgress
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.storage.file_io import FileIO


@dataclass(frozen=True)
class BranchInfo:
    name: str
    created_from: str  # "tag NAME", "snapshot N" or "empty"
    earliest_snapshot: int | None
    latest_snapshot: int | None
    schema_id: int | None
    tags: tuple[str, ...]


def _exists(table: TableContext, name: str) -> bool:
    return table.io.is_dir(branch_path(table.path, name)) or bool(
        table.io.list_names(branch_path(table.path, name))
    )


def _require(table: TableContext, name: str) -> str:
    validate_branch_name(name)
    if name not in branch_names(table):
        raise BranchNotFound(name, _main_name(table))
    return branch_path(table.path, name)


def _main_name(table: TableContext) -> str:
    return split_branch(table.identifier)[0]


def _copy(io: FileIO, src: str, dst: str) -> None:
    """Copy one metadata file (a copy already there with the same bytes is fine)."""
    data = io.read_bytes(src)
    if not io.write_if_absent(dst, data) and io.read_bytes(dst) != data:
        raise InvalidInput(f"cannot copy {src}: {dst} exists with other content")


def _copy_schemas(table: TableContext, dst_root: str, upto: int) -> None:
    src = table.schemas
    for i in src.list_ids():
        if i <= upto:
            _copy(table.io, src.path(i), paths.schema_file(dst_root, i))


# ---------------------------------------------------------------- create / list
def create_branch(
    table: TableContext, name: str, tag: str | None = None, snapshot_id: int | None = None
) -> BranchInfo:
    """Create branch ``name`` of ``table``'s branch (main by default): from ``tag``, from
    snapshot ``snapshot_id``, or empty (the latest schema, no snapshot) when neither."""
    validate_branch_name(name)
    if tag is not None and snapshot_id is not None:
        raise InvalidInput("a branch is created from a tag or from a snapshot, not both")
    if _exists(table, name):
        raise BranchAlreadyExists(name)
    remote = table.env.versions()
    if remote is not None:
        if snapshot_id is not None:
            raise UnsupportedFeature(
                f"a branch of {table.identifier} from a snapshot: its catalog creates branches from "
                "a tag or empty (tag the snapshot, then branch from the tag)"
            )
        remote.create_branch(table, name, tag)
        return branch_info(table, name)
    io, root = table.io, branch_path(table.path, name)
    tags = tag_manager(table)
    snap: Snapshot | None = None
    if tag is not None:
        snap = require_snapshot(table, SnapshotSpec(tag=tag))  # TagNotFound before anything is written
    elif snapshot_id is not None:
        snap = table.snapshots.snapshot(snapshot_id)  # SnapshotNotFound likewise
    latest = table.schemas.latest()
    if latest is None:
        raise InvalidInput(f"table {table.identifier} has no schema to branch from")
    _copy_schemas(table, root, snap.schema_id if snap else latest.id)
    if snap is not None:
        if tag is not None:
            _copy(io, tags.path(tag), paths.tag_file(root, tag))
        sm = SnapshotManager(io, root)
        if not io.write_if_absent(sm.path(snap.id), snap.to_json().encode("utf-8")):
            raise BranchAlreadyExists(name)
    return branch_info(table, name)


def branch_info(table: TableContext, name: str) -> BranchInfo:
    root = _require(table, name)
    io = table.io
    sm = SnapshotManager(io, root)
    ids = sm.list_ids()
    tagged = branch_tag_manager(io, root).tagged()
    schemas = SchemaManager(io, root).list_ids()
    earliest = ids[0] if ids else None
    if earliest is None:
        origin = "empty"
    else:
        from_tag = sorted(n for n, s in tagged.items() if s.id == earliest)
        origin = f"tag {from_tag[0]}" if from_tag else f"snapshot {earliest}"
    return BranchInfo(
        name,
        origin,
        earliest,
        ids[-1] if ids else None,
        schemas[-1] if schemas else None,
        tuple(sorted(tagged)),
    )


def list_branches(table: TableContext) -> list[BranchInfo]:
    """Every branch of the table (main not included), by name."""
    return [branch_info(table, n) for n in branch_names(table)]


# ---------------------------------------------------------------- delete / rename
@dataclass(frozen=True)
class BranchDeletion:
    name: str
    files: tuple[PlannedFile, ...]  # what only this branch used (deleted after its directory)
    dry_run: bool


def plan_delete_branch(table: TableContext, name: str) -> tuple[PlannedFile, ...]:
    """The files the branch's snapshots and tags use that no other branch uses."""
    root = _require(table, name)
    io = table.io
    others = other_branches_names(_as_branch(table, name))
    reader = RefReader(table)
    sm, tags = SnapshotManager(io, root), branch_tag_manager(io, root)
    snaps = [sm.snapshot(i) for i in sm.list_ids()] + list(tags.tagged().values())
    out: dict[str, PlannedFile] = {}
    for s in snaps:
        r = reader.refs(s)
        for kind, group in (
            ("data", r.data),
            ("changelog", r.changelog),
            ("manifest", r.manifests),
            ("index", r.index),
            ("statistics", r.other),
        ):
            for p, size in group.items():
                if p not in out and p.rsplit("/", 1)[-1] not in others:
                    out[p] = PlannedFile(p, size if size >= 0 else _files.safe_size(io, p), kind)
    return tuple(out.values())


def _as_branch(table: TableContext, name: str) -> TableContext:
    """A context whose ``branch_path`` is branch ``name`` (for "what do the others use")."""
    from paimon_core.metadata.table_context import TableContext as Ctx

    return Ctx(table.io, table.path, table.identifier, table.schema, name)


def delete_branch(
    table: TableContext, name: str, dry_run: bool = False, progress: FileProgress | None = None
) -> BranchDeletion:
    """Delete the branch directory, then the files only the branch used."""
    files = plan_delete_branch(table, name)
    remote = table.env.versions()
    if not dry_run and remote is not None:
        remote.delete_branch(table, name)  # the catalog deletes it and the files only it used
    elif not dry_run:
        table.io.delete_dir(branch_path(table.path, name))
        execute_plan_files(table, files, progress)
    return BranchDeletion(name, files, dry_run)


def rename_branch(table: TableContext, name: str, new_name: str) -> BranchInfo:
    """Copy branch ``name``'s files to ``new_name``, then delete ``name``'s directory."""
    src = _require(table, name)
    validate_branch_name(new_name)
    if _exists(table, new_name):
        raise BranchAlreadyExists(new_name)
    remote = table.env.versions()
    if remote is not None:
        remote.rename_branch(table, name, new_name)
        return branch_info(table, new_name)
    io, dst = table.io, branch_path(table.path, new_name)
    for sub in (paths.SCHEMA_DIR, paths.SNAPSHOT_DIR, paths.TAG_DIR, paths.CHANGELOG_DIR, paths.CONSUMER_DIR):
        for n in sorted(io.list_names(io.join(src, sub))):
            if not n.startswith("."):
                _copy(io, io.join(src, sub, n), io.join(dst, sub, n))
    io.delete_dir(src)
    return branch_info(table, new_name)


# ---------------------------------------------------------------- fast-forward
@dataclass(frozen=True)
class FastForwardPlan:
    branch: str
    earliest: int  # the branch's earliest snapshot: main's snapshots from here on are replaced
    schema_from: int  # main's schemas from this id on are replaced
    snapshots_dropped: tuple[int, ...]  # main's, newest first
    schemas_dropped: tuple[int, ...]
    tags_dropped: tuple[str, ...]
    latest: int  # main's latest snapshot afterwards


def plan_fast_forward(table: TableContext, name: str) -> FastForwardPlan:
    """What fast-forwarding main to branch ``name`` changes; refuses what Java would break."""
    root = _require(table, name)
    io = table.io
    main = SnapshotManager(io, table.path)
    main_schemas = SchemaManager(io, table.path)
    main_tags = branch_tag_manager(io, table.path)
    bsm, bschemas = SnapshotManager(io, root), SchemaManager(io, root)
    ids = bsm.list_ids()
    if not ids:
        raise SnapshotNotFound(f"branch '{name}' has no snapshot: there is nothing to fast-forward main to")
    earliest = bsm.snapshot(ids[0])
    schema_from = earliest.schema_id
    main_ids = main.list_ids()
    below = [i for i in main_ids if i < earliest.id]
    gap = bool(below) and below[-1] != earliest.id - 1
    kept = [] if gap else [main.snapshot(i) for i in below]
    tagged = main_tags.tagged()
    kept += [s for s in tagged.values() if s.id < earliest.id]
    branch_ids = set(bschemas.list_ids())
    for s in kept:
        sid = s.schema_id
        before = io.read_bytes(main_schemas.path(sid)) if io.exists(main_schemas.path(sid)) else None
        if sid in branch_ids:
            after = io.read_bytes(bschemas.path(sid))
        elif sid < schema_from:
            after = before
        else:
            after = None
        if before != after:
            raise InvalidInput(
                f"cannot fast-forward to branch '{name}': main keeps snapshot {s.id} of schema {sid}, "
                f"and the branch's schema {sid} is not the same; nothing was changed"
            )
    return FastForwardPlan(
        name,
        earliest.id,
        schema_from,
        tuple(sorted((i for i in main_ids if i >= earliest.id or gap), reverse=True)),
        tuple(i for i in main_schemas.list_ids() if i >= schema_from and i not in branch_ids),
        tuple(sorted(n for n, s in tagged.items() if s.id >= earliest.id)),
        ids[-1],
    )


def fast_forward(table: TableContext, name: str) -> FastForwardPlan:
    """Make main the branch (see the module docstring for the order and what stays)."""
    plan = plan_fast_forward(table, name)
    remote = table.env.versions()
    if remote is not None:
        remote.fast_forward(table, name)
        return plan
    io, root = table.io, branch_path(table.path, name)
    main = SnapshotManager(io, table.path)
    main_schemas = SchemaManager(io, table.path)
    main_tags = branch_tag_manager(io, table.path)
    with table.env.lock():
        if plan.snapshots_dropped:
            keep = [i for i in main.list_ids() if i not in plan.snapshots_dropped]
            if keep:
                main.write_hint("LATEST", keep[-1])
        for i in plan.snapshots_dropped:  # newest first: main stays a valid, older table
            _files.delete_file(io, main.path(i))
        for n in plan.tags_dropped:
            _files.delete_file(io, main_tags.path(n))
        for i in plan.schemas_dropped:
            _files.delete_file(io, main_schemas.path(i))
        bschemas = SchemaManager(io, root)
        for i in bschemas.list_ids():
            _overwrite(io, bschemas.path(i), main_schemas.path(i))
        bsm = SnapshotManager(io, root)
        ids = bsm.list_ids()
        for i in ids:
            _overwrite(io, bsm.path(i), main.path(i))
        btags = branch_tag_manager(io, root)
        for n in btags.names():
            _overwrite(io, btags.path(n), main_tags.path(n))
        first = main.list_ids()
        if first:
            main.write_hint("EARLIEST", first[0])
        main.write_hint("LATEST", ids[-1])
    return plan


def _overwrite(io: FileIO, src: str, dst: str) -> None:
    data = io.read_bytes(src)
    if io.exists(dst):
        if io.read_bytes(dst) == data:
            return
        _files.delete_file(io, dst)
    io.write_if_absent(dst, data)


__all__ = [
    "BranchDeletion",
    "BranchInfo",
    "FastForwardPlan",
    "branch_info",
    "create_branch",
    "delete_branch",
    "fast_forward",
    "list_branches",
    "plan_delete_branch",
    "plan_fast_forward",
    "rename_branch",
]
