"""Orphan files: files in the table's data and metadata directories that nothing uses, such as
the data files and manifests of a writer that crashed before committing, or files left by an
interrupted expire, rollback or tag deletion.

Which files are looked at is :mod:`~paimon_core.maintain.orphan_scope` (Java Paimon's scope:
``manifest/``, ``index/``, ``statistics/``, the ``bucket-*`` directories, leftovers in
``snapshot/`` and ``changelog/``); what is used is :mod:`~paimon_core.maintain.used_names`
(every snapshot, tag and decoupled changelog of the table and of its branches). A file is
deleted only if it is in scope, not used **and** older than the cut-off, so the files of a
commit still in flight (written, not yet committed) are safe as long as commits take less
time than the cut-off (one day by default, as in Java).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.clock import now_ms as clock_ms
from paimon_core.errors import PaimonError
from paimon_core.maintain import files as _files
from paimon_core.maintain.files import PlannedFile
from paimon_core.maintain.orphan_scope import UNUSED, candidates
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.maintain.used_names import branch_paths, used_names
from paimon_core.metadata.tags import tag_manager

if TYPE_CHECKING:
    from paimon_core.maintain.files import FileProgress
    from paimon_core.metadata.table_context import TableContext

DAY_MS = 86_400_000


@dataclass(frozen=True)
class OrphanPlan:
    files: tuple[PlannedFile, ...]
    referenced: int  # files in scope that are in use
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


def plan_orphans(table: TableContext, older_than_ms: int = DAY_MS, now_ms: int | None = None) -> OrphanPlan:
    """The files :func:`remove_orphans` deletes: the candidates of
    :mod:`~paimon_core.maintain.orphan_scope` that are older than the cut-off and either
    leftovers or unused by every snapshot, tag and changelog of every branch."""
    if older_than_ms < 0:
        raise PaimonError(f"older-than must not be negative, got {older_than_ms} ms")
    now_ms = clock_ms() if now_ms is None else now_ms
    cutoff = now_ms - older_than_ms
    branches = branch_paths(table)  # refuses a branch without a schema before anything else
    # list first, then read what is used: a file committed in between is then used, and a
    # file written after the listing is not seen at all
    listing = candidates(table, branches)
    used = used_names(table, branches)
    out, n_used, young = [], 0, 0
    for c in listing:
        if c.rule == UNUSED and c.file.path.rsplit("/", 1)[-1] in used:
            n_used += 1
            continue
        if c.file.mtime_ms <= 0 or c.file.mtime_ms >= cutoff:  # unknown time counts as young
            young += 1
            continue
        out.append(PlannedFile(c.file.path, c.file.size, c.kind))
    out.sort(key=lambda p: p.path)
    return OrphanPlan(tuple(out), n_used, young, cutoff)


def remove_orphans(
    table: TableContext,
    older_than_ms: int = DAY_MS,
    dry_run: bool = False,
    now_ms: int | None = None,
    progress: FileProgress | None = None,
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
