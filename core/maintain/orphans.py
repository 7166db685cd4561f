"""Orphan files: files under a table directory that no snapshot and no tag uses, such as the
data files and manifests of a writer that crashed before committing, or files left by an
interrupted rollback or tag deletion.

A file is deleted only if it is unreferenced **and** older than the cut-off, so the files of a
commit still in flight (written, not yet committed) are safe as long as commits take less
time than the cut-off. ``schema/``, ``snapshot/``, ``tag/``, ``consumer/`` and ``branch/``
hold no orphans: only stale temporary files (``.<name>.<uuid>.tmp``) are removed there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import PaimonError
from paimon_core.maintain import files as _files
from paimon_core.maintain.expire import now_millis
from paimon_core.maintain.files import PlannedFile, is_temp_name, walk_files
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.metadata.tags import tag_manager

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

METADATA_DIRS = paths.METADATA_DIRS
DAY_MS = 86_400_000


@dataclass(frozen=True)
class OrphanPlan:
    files: tuple[PlannedFile, ...]
    referenced: int  # files in use
    too_young: int  # unreferenced files kept because they are newer than the cut-off
    cutoff_ms: int

    @property
    def total_bytes(self) -> int:
        return sum(max(f.size, 0) for f in self.files)


@dataclass(frozen=True)
class OrphanResult:
    plan: OrphanPlan
    dry_run: bool
    deleted: int


def referenced_files(table: TableContext, reader: RefReader | None = None) -> Refs:
    """Everything any snapshot or tag of the table uses (full paths). ``reader`` may be one that
    already read some of these snapshots (its per-snapshot cache is reused)."""
    reader = reader or RefReader(table)
    sm = table.snapshots
    refs = Refs()
    for i in sm.list_ids():
        try:
            refs.update(reader.refs(sm.snapshot(i)))
        except PaimonError:
            if sm.exists(i):
                raise
            # expired while we listed: whatever it used is either still used or garbage
    for s in tag_manager(table).tagged().values():
        refs.update(reader.refs(s))
    return refs


def _rel(table: TableContext, path: str) -> str:
    root = table.path.rstrip("/") + "/"
    return path[len(root) :] if path.startswith(root) else path


def _kind(rel: str) -> str:
    top = rel.split("/", 1)[0]
    name = rel.rsplit("/", 1)[-1]
    if is_temp_name(name):
        return "temp"
    if top == "manifest":
        return (
            "manifest-list"
            if name.startswith("manifest-list")
            else ("index-manifest" if name.startswith("index-manifest") else "manifest")
        )
    if top == "index":
        return "index"
    return "changelog" if name.startswith("changelog-") else "data"


def plan_orphans(
    table, older_than_ms: int = DAY_MS, now_ms: int | None = None, reader: RefReader | None = None
) -> OrphanPlan:
    if older_than_ms < 0:
        raise PaimonError(f"older-than must not be negative, got {older_than_ms} ms")
    io = table.io
    if [n for n in io.list_names(io.join(table.path, "branch")) if n.startswith("branch-")]:
        raise PaimonError("the table has branches; remove-orphans does not handle them yet")
    now_ms = now_millis() if now_ms is None else now_ms
    cutoff = now_ms - older_than_ms
    # list first, then read the references: a file committed in between is then referenced,
    # and a file written after the listing is not seen at all
    listing = walk_files(io, table.path)
    refs = referenced_files(table, reader).all_paths()
    out, n_ref, young = [], 0, 0
    for f in listing:
        rel = _rel(table, f.path)
        top = rel.split("/", 1)[0]
        name = rel.rsplit("/", 1)[-1]
        if top in METADATA_DIRS or "/" not in rel:
            if not is_temp_name(name):
                continue
        elif f.path in refs:
            n_ref += 1
            continue
        if f.mtime_ms <= 0 or f.mtime_ms >= cutoff:  # unknown time counts as young
            young += 1
            continue
        out.append(PlannedFile(f.path, f.size, _kind(rel)))
    out.sort(key=lambda p: p.path)
    return OrphanPlan(tuple(out), n_ref, young, cutoff)


def remove_orphans(
    table, older_than_ms: int = DAY_MS, dry_run: bool = False, now_ms: int | None = None, progress=None
) -> OrphanResult:
    """Delete unreferenced files older than ``older_than_ms`` (a duration, default one day)."""
    plan = plan_orphans(table, older_than_ms, now_ms)
    if dry_run:
        return OrphanResult(plan, True, 0)
    n = 0
    for f in plan.files:
        _files.delete_file(table.io, f.path)
        n += 1
        if progress:
            progress(f)
    return OrphanResult(plan, False, n)


__all__ = ["OrphanPlan", "OrphanResult", "plan_orphans", "referenced_files", "remove_orphans"]
