"""Manifest compaction on demand (Java's ``compact_manifest`` procedure): every data manifest of
the latest snapshot folded into fresh ones, in one COMPACT snapshot with an empty delta.

Invariant: the snapshot lists exactly the live files the latest one did (no data file is
written or removed); when the manifests are already compact no snapshot is made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class ManifestCompaction:
    manifests_before: int
    manifests_after: int
    snapshot: Snapshot | None


def compact_manifests(table: TableContext) -> ManifestCompaction:
    from paimon_core.metadata.live_files import data_manifests

    latest = table.snapshots.latest()
    before = len(data_manifests(table.manifests, latest)) if latest else 0
    snap = FileStoreCommit(table, CommitOptions(compact_manifests=True)).commit([])
    after = len(data_manifests(table.manifests, snap)) if snap else before
    return ManifestCompaction(before, after, snap)
