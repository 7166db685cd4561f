"""The files a snapshot owns, found through its manifests, and their deletion: shared by expire,
rollback and tag deletion. Missing metadata (deleted by an earlier, interrupted run) is skipped,
so every operation built on this can be re-run."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from paimon_core.errors import CorruptMetadata
from paimon_core.maintain import files as _files
from paimon_core.maintain.files import (
    PlannedFile,
    entry_path,
    extra_paths,
    index_entry_path,
    manifest_path,
    safe_size,
)
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.metadata.manifest import ADD, DELETE, FILE_SOURCE_APPEND

if TYPE_CHECKING:
    from paimon_core.maintain.files import FileProgress
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


def try_list(table: TableContext, name: str | None):
    """Manifest metas of a list of an expiring snapshot; [] if an earlier run deleted it."""
    if not name:
        return []
    try:
        return table.manifests.read_list(name)
    except CorruptMetadata:
        if table.io.exists(manifest_path(table, name)):
            raise
        return []


def try_manifest(table: TableContext, name: str):
    try:
        return table.manifests.read_manifest(name)
    except CorruptMetadata:
        if table.io.exists(manifest_path(table, name)):
            raise
        return []


def try_index(reader: RefReader, name: str | None):
    if not name:
        return []
    try:
        return reader.index_store.read_manifest(name)
    except CorruptMetadata:
        if reader.table.io.exists(manifest_path(reader.table, name)):
            raise
        return []


class FileCollector:
    """Files planned for deletion: each path once, never a protected (still used) one, and never
    a file another branch of the table uses (branches share data, manifest and index files)."""

    def __init__(self, table: TableContext, protected: Refs):
        self.table = table
        self.protected = protected
        self.files: list[PlannedFile] = []
        self.seen: set[str] = set()
        self._others: set[str] | None = None  # read on the first candidate: most plans have none

    def _used_elsewhere(self, path: str) -> bool:
        if self._others is None:
            from paimon_core.maintain.used_names import other_branches_names

            self._others = other_branches_names(self.table)
        return path.rsplit("/", 1)[-1] in self._others

    def add(self, path: str, size: int, kind: str) -> None:
        if path in self.seen or path in self.protected or self._used_elsewhere(path):
            return
        self.seen.add(path)
        if size is None or size < 0:
            size = safe_size(self.table.io, path)
        self.files.append(PlannedFile(path, size, kind))


def deleted_data_files(
    table: TableContext, delta_list: str | None, keep_appended: bool = False
) -> dict[str, tuple[int, list[str]]]:
    """Files a snapshot's delta removed: DELETE entries not re-added in the same delta (a Java
    upgrade deletes and re-adds one file at another level). path -> (size, extra file paths).
    ``keep_appended`` leaves out files a write made (file source APPEND or unknown): a decoupled
    changelog without a changelog producer still streams them."""
    out: dict[str, tuple[int, list[str]]] = {}
    appended: set[str] = set()
    for m in try_list(table, delta_list):
        for e in try_manifest(table, m.file_name):
            p = entry_path(table, e.partition, e.bucket, e.file.file_name, e.file.external_path)
            if e.kind == ADD:
                out.pop(p, None)
            elif e.kind == DELETE:
                out[p] = (e.file.file_size, extra_paths(table, e.partition, e.bucket, e.file.extra_files))
                if e.file.file_source in (None, FILE_SOURCE_APPEND):
                    appended.add(p)
    if keep_appended:
        return {p: v for p, v in out.items() if p not in appended}
    return out


def added_files(table: TableContext, manifest_list: str | None) -> list[tuple[str, int, list[str]]]:
    out = []
    for m in try_list(table, manifest_list):
        for e in try_manifest(table, m.file_name):
            if e.kind == ADD:
                out.append(
                    (
                        entry_path(table, e.partition, e.bucket, e.file.file_name, e.file.external_path),
                        e.file.file_size,
                        extra_paths(table, e.partition, e.bucket, e.file.extra_files),
                    )
                )
    return out


def metadata_files(
    reader: RefReader,
    snap: Snapshot,
    col: FileCollector,
    data_lists: bool = True,
    changelog_list: bool = True,
) -> None:
    """Manifest lists, manifests, index manifest and index files of ``snap`` that nobody kept;
    without ``data_lists`` its base and delta lists stay, without ``changelog_list`` its changelog
    list (a decoupled changelog keeps them)."""
    t = reader.table
    for lst, size, wanted in (
        (snap.base_manifest_list, snap.base_manifest_list_size, data_lists),
        (snap.delta_manifest_list, snap.delta_manifest_list_size, data_lists),
        (snap.changelog_manifest_list, snap.changelog_manifest_list_size, changelog_list),
    ):
        if not lst or not wanted:
            continue
        for m in try_list(t, lst):
            col.add(manifest_path(t, m.file_name), m.file_size, "manifest")
        col.add(manifest_path(t, lst), size if size is not None else -1, "manifest-list")
    if snap.index_manifest:
        for e in try_index(reader, snap.index_manifest):
            col.add(index_entry_path(t, e), e.file_size, "index")
        col.add(manifest_path(t, snap.index_manifest), -1, "index-manifest")
    if snap.statistics:
        col.add(_files.statistics_path(t, snap.statistics), -1, "statistics")


def execute_plan_files(
    table: TableContext, files: Iterable[PlannedFile], progress: FileProgress | None = None
) -> int:
    n = 0
    for f in files:
        _files.delete_file(table.io, f.path)
        n += 1
        if progress:
            progress(f)
    return n
