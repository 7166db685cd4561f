"""The names of every file that orphan cleanup must keep: what any snapshot, tag or decoupled
changelog of the table's main branch **or of any branch** (``branch/branch-NAME/``) uses.

Names, not paths, as Java Paimon's orphan cleanup matches them: a candidate file is kept when
its name is used anywhere, whichever directory it sits in. File names are unique (UUIDs), so
this keeps exactly the used files, and a misplaced copy of a used file errs on the side of
keeping. Branches share the table's ``manifest/``, ``index/``, ``statistics/`` and bucket
directories, so their snapshots and tags pin files there too.

Per snapshot or tag: its manifest lists (base, delta, changelog), every manifest they list,
the file and extra files (file indexes) of every entry of those manifests (added or deleted:
a deleted file an older retained snapshot still reads must stay), its index manifest and the
index files it lists, its statistics file.

Per decoupled changelog (``changelog/changelog-N``, left by an expiry with
``changelog.num-retained.*`` above the snapshot retention): its changelog manifest list, and
its base and delta lists where they still exist, their manifests, and the files of its
changelog manifests (of its delta manifests when it has no changelog list): what a streaming
read of that changelog opens.

A snapshot, tag or changelog removed while we read (expire, tag deletion, rollback) is skipped:
what it used is then either used by something else we read or garbage. Any other read failure
is an error, so nothing is deleted on an incomplete picture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import PaimonError
from paimon_core.metadata.branches import BRANCH_PREFIX, branch_path
from paimon_core.metadata.index_manifest import IndexStore
from paimon_core.metadata.snapshot import Snapshot, SnapshotManager
from paimon_core.metadata.tags import branch_tag_manager

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


def branch_names(table: TableContext) -> list[str]:
    """Names of the table's branches (directories ``branch/branch-NAME``), main not included."""
    io = table.io
    root = io.join(table.path, paths.BRANCH_DIR)
    if not io.is_dir(root):
        return []
    return sorted(
        n[len(BRANCH_PREFIX) :]
        for n in io.list_names(root)
        if n.startswith(BRANCH_PREFIX) and len(n) > len(BRANCH_PREFIX) and io.is_dir(io.join(root, n))
    )


def branch_paths(table: TableContext) -> list[str]:
    """The main branch's directory (the table's) and every branch's, in that order. A branch
    without a schema is an error: its state cannot be told, so nothing may be deleted."""
    io = table.io
    out = [table.path]
    for name in branch_names(table):
        p = branch_path(table.path, name)
        if not io.list_numbered(io.join(p, paths.SCHEMA_DIR), paths.SCHEMA_PREFIX):
            raise PaimonError(
                f"branch '{name}' has no schema (branch/{BRANCH_PREFIX}{name}/schema is empty);"
                " check that branch by hand, nothing was deleted"
            )
        out.append(p)
    return out


def other_branches_names(table: TableContext) -> set[str]:
    """Names of every file a branch other than ``table``'s own uses (main included when
    ``table`` is a branch): what expire, rollback, tag and branch deletion of this branch must
    keep. Empty, and cheap, for the main branch of a table without branches."""
    if table.is_main_branch and not branch_names(table):
        return set()
    own = table.branch_path.rstrip("/")
    return used_names(table, [p for p in branch_paths(table) if p.rstrip("/") != own])


class _Collector:
    """Adds the names one snapshot, tag or changelog uses to ``names``."""

    def __init__(self, table: TableContext):
        self.table = table
        self.io = table.io
        self.store = table.manifests  # caches manifests: snapshots share most of them
        self.index_store = IndexStore(table.io, table.path)
        self.names: set[str] = set()

    def _manifest(self, name: str) -> str:
        return paths.manifest_file(self.table.path, name)

    def _entry_names(self, manifest: str) -> None:
        for e in self.store.read_manifest(manifest):
            self.names.add(e.file.file_name)
            self.names.update(e.file.extra_files)

    def snapshot(self, s: Snapshot) -> None:
        lists = [s.base_manifest_list, s.delta_manifest_list, s.changelog_manifest_list]
        for lst in filter(None, lists):
            self.names.add(lst)
            for m in self.store.read_list(lst):
                self.names.add(m.file_name)
                self._entry_names(m.file_name)
        if s.index_manifest:
            self.names.add(s.index_manifest)
            for e in self.index_store.read_manifest(s.index_manifest):
                self.names.add(e.file_name)
        if s.statistics:
            self.names.add(s.statistics)

    def changelog(self, c: Snapshot) -> None:
        with_files = c.changelog_manifest_list or c.delta_manifest_list
        for lst in filter(None, [c.changelog_manifest_list, c.base_manifest_list, c.delta_manifest_list]):
            if lst != c.changelog_manifest_list and not self.io.exists(self._manifest(lst)):
                continue  # the base and delta lists of a changelog may be gone with their snapshot
            self.names.add(lst)
            for m in self.store.read_list(lst):
                self.names.add(m.file_name)
                if lst == with_files:
                    self._entry_names(m.file_name)


def _read_all(collect, items, still_there) -> None:
    """``collect(item)`` for each item; an item that vanished meanwhile is skipped."""
    for item, path in items:
        try:
            collect(item)
        except (PaimonError, FileNotFoundError):
            if still_there(path):
                raise


def used_names(table: TableContext, branches: list[str] | None = None) -> set[str]:
    """Names of every file some snapshot, tag or decoupled changelog of ``branches`` (the
    directories :func:`branch_paths` returns, by default) uses."""
    io = table.io
    col = _Collector(table)
    exists = io.exists
    for root in branch_paths(table) if branches is None else branches:
        sm = SnapshotManager(io, root)
        _read_all(
            lambda i, sm=sm: col.snapshot(sm.snapshot(i)), [(i, sm.path(i)) for i in sm.list_ids()], exists
        )
        tags = branch_tag_manager(io, root)
        _read_all(
            lambda n, tags=tags: col.snapshot(tags.snapshot(n)),
            [(n, tags.path(n)) for n in tags.names()],
            exists,
        )
        cdir = io.join(root, paths.CHANGELOG_DIR)
        ids = io.list_numbered(cdir, paths.CHANGELOG_PREFIX)
        cpaths = [io.join(cdir, f"{paths.CHANGELOG_PREFIX}{i}") for i in ids]
        _read_all(lambda p: col.changelog(_read_changelog(io, p)), [(p, p) for p in cpaths], exists)
    return col.names


def _read_changelog(io, path: str) -> Snapshot:
    """A ``changelog-N`` file: a snapshot's JSON (Java's Changelog adds no field)."""
    text = io.read_bytes(path).decode("utf-8")  # FileNotFoundError: expired meanwhile
    try:
        return Snapshot.from_json(text)
    except (ValueError, TypeError, KeyError) as e:
        raise PaimonError(f"changelog file {path} is unreadable: {e}") from None


__all__ = [
    "branch_names",
    "branch_paths",
    "other_branches_names",
    "used_names",
]
