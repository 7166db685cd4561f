"""What a snapshot (or a tag, which is a snapshot) uses: the files that must survive while it
is retained.

Used files of a snapshot = the data files of the live entries of its base + delta manifests
(with their extra files), the files of its changelog manifests, the manifest lists and
manifests themselves, its index manifest and the index files it lists, and its statistics
file. A tag pins exactly what its snapshot used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paimon_core.maintain.files import (
    entry_path,
    extra_paths,
    index_entry_path,
    manifest_path,
    statistics_path,
)
from paimon_core.metadata.index_manifest import IndexStore
from paimon_core.metadata.live_files import merge_entries
from paimon_core.metadata.manifest import ADD
from paimon_core.metadata.snapshot import Snapshot

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_core.metadata.table_context import TableContext


@dataclass
class Refs:
    """Full paths of everything some snapshots use, with known sizes."""

    data: dict[str, int] = field(default_factory=dict)  # data files and their extra files
    changelog: dict[str, int] = field(default_factory=dict)
    manifests: dict[str, int] = field(default_factory=dict)  # manifests, lists, index manifests
    index: dict[str, int] = field(default_factory=dict)
    other: dict[str, int] = field(default_factory=dict)  # statistics

    def update(self, other: Refs) -> Refs:
        for a in ("data", "changelog", "manifests", "index", "other"):
            getattr(self, a).update(getattr(other, a))
        return self

    def all_paths(self) -> set[str]:
        return set(self.data) | set(self.changelog) | set(self.manifests) | set(self.index) | set(self.other)

    def __contains__(self, path: str) -> bool:
        return (
            path in self.data
            or path in self.changelog
            or path in self.manifests
            or path in self.index
            or path in self.other
        )


class RefReader:
    """Computes :class:`Refs` of snapshots of one table, caching per snapshot (id, uuid, lists)."""

    def __init__(self, table: TableContext):
        self.table = table
        self.index_store = IndexStore(table.io, table.path)
        self._cache: dict[tuple, Refs] = {}
        self._paths: dict[tuple, tuple[str, list[str]]] = {}  # (partition, bucket, name, ...) -> paths

    def _file_paths(self, e) -> tuple[str, list[str]]:
        """The path of an entry's file and of its extra files, computed once per file: the same
        file appears in the live set of many snapshots."""
        key = (e.partition, e.bucket, e.file.file_name, e.file.external_path, e.file.extra_files)
        hit = self._paths.get(key)
        if hit is None:
            t = self.table
            hit = self._paths[key] = (
                entry_path(t, e.partition, e.bucket, e.file.file_name, e.file.external_path),
                extra_paths(t, e.partition, e.bucket, e.file.extra_files) if e.file.extra_files else [],
            )
        return hit

    def _key(self, s: Snapshot) -> tuple:
        return (
            s.id,
            s.base_manifest_list,
            s.delta_manifest_list,
            s.changelog_manifest_list,
            s.index_manifest,
        )

    def manifest_names(self, s: Snapshot) -> Refs:
        """Only the metadata files (lists, manifests, index manifest, index files, statistics):
        cheap, no manifest content is read."""
        t, store = self.table, self.table.manifests
        r = Refs()
        for lst, size in (
            (s.base_manifest_list, s.base_manifest_list_size),
            (s.delta_manifest_list, s.delta_manifest_list_size),
            (s.changelog_manifest_list, s.changelog_manifest_list_size),
        ):
            if not lst:
                continue
            r.manifests[manifest_path(t, lst)] = -1 if size is None else size
            for m in store.read_list(lst):
                r.manifests[manifest_path(t, m.file_name)] = m.file_size
        if s.index_manifest:
            r.manifests[manifest_path(t, s.index_manifest)] = -1
            for e in self.index_store.read_manifest(s.index_manifest):
                r.index[index_entry_path(t, e)] = e.file_size
        if s.statistics:
            r.other[statistics_path(t, s.statistics)] = -1
        return r

    def refs(self, s: Snapshot) -> Refs:
        key = self._key(s)
        if key in self._cache:
            return self._cache[key]
        store = self.table.manifests
        r = self.manifest_names(s)
        entries = []
        for lst in (s.base_manifest_list, s.delta_manifest_list):
            for m in store.read_list(lst):
                entries.extend(store.read_manifest(m.file_name))
        for e in merge_entries(entries):
            path, extra = self._file_paths(e)
            r.data[path] = e.file.file_size
            for p in extra:
                r.data[p] = -1
        if s.changelog_manifest_list:
            for m in store.read_list(s.changelog_manifest_list):
                for e in store.read_manifest(m.file_name):
                    if e.kind == ADD:
                        path, extra = self._file_paths(e)
                        r.changelog[path] = e.file.file_size
                        for p in extra:
                            r.changelog[p] = -1
        self._cache[key] = r
        return r

    def changelog_refs(self, c: Snapshot) -> Refs:
        """What a long-lived changelog (``changelog/changelog-N``) uses: its changelog list, the
        manifests and files it lists, and its base and delta lists where they still exist (with
        ``changelog-producer = none``), with the manifests and the files its delta added."""
        t, store = self.table, self.table.manifests
        r = Refs()
        for lst, size in (
            (c.changelog_manifest_list, c.changelog_manifest_list_size),
            (c.base_manifest_list, c.base_manifest_list_size),
            (c.delta_manifest_list, c.delta_manifest_list_size),
        ):
            if not lst or (lst != c.changelog_manifest_list and not t.io.exists(manifest_path(t, lst))):
                continue
            r.manifests[manifest_path(t, lst)] = -1 if size is None else size
            for m in store.read_list(lst):
                r.manifests[manifest_path(t, m.file_name)] = m.file_size
                if lst == c.base_manifest_list:
                    continue
                for e in store.read_manifest(m.file_name):
                    if e.kind == ADD:
                        path, extra = self._file_paths(e)
                        target = r.changelog if lst == c.changelog_manifest_list else r.data
                        target[path] = e.file.file_size
                        for p in extra:
                            target[p] = -1
        return r

    def union(self, snapshots: Iterable[Snapshot]) -> Refs:
        out = Refs()
        for s in snapshots:
            out.update(self.refs(s))
        return out


__all__ = ["RefReader", "Refs"]
