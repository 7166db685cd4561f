"""Long-lived changelogs (``changelog/changelog-N``): what a snapshot expiry with a decoupled
changelog lifecycle (``changelog.num-retained.*`` / ``changelog.time-retained`` above the snapshot
retention) leaves of an expired snapshot, so that streams can still read its changes.

A ``changelog-N`` file is the JSON of snapshot N (Java's ``Changelog`` adds no field); the
directory has LATEST and EARLIEST hints as ``snapshot/`` does.

Invariants: changelog ids are contiguous and all below the earliest snapshot id (expiry writes
changelog-N right before it deletes snapshot-N, oldest first); a changelog file is created only
if absent and never rewritten; hints are trusted only after checking the files exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import PaimonError, SnapshotNotFound
from paimon_core.metadata.snapshot import Snapshot, SnapshotManager
from paimon_core.paths import CHANGELOG_DIR, CHANGELOG_PREFIX
from paimon_core.storage.file_io import FileIO

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


class ChangelogManager(SnapshotManager):
    """The ``changelog/`` directory of one table (or branch) directory: a snapshot directory
    with another name and prefix (ids, hints and reads work the same)."""

    PREFIX = CHANGELOG_PREFIX

    def __init__(self, io: FileIO, table_path: str):
        super().__init__(io, table_path)
        self.dir = io.join(table_path, CHANGELOG_DIR)

    def changelog(self, changelog_id: int) -> Snapshot:
        """Changelog N; SnapshotNotFound when it does not exist."""
        if not self.exists(changelog_id):
            raise SnapshotNotFound(f"changelog {changelog_id} does not exist")
        try:
            return self.snapshot(changelog_id)
        except PaimonError as e:
            raise PaimonError(f"changelog file {self.path(changelog_id)} is unreadable: {e}") from None

    def commit(self, snapshot: Snapshot) -> None:
        """Write changelog-N for snapshot N (kept if a re-run finds it written) and the LATEST hint."""
        self.io.write_if_absent(self.path(snapshot.id), snapshot.to_json().encode("utf-8"))
        self.write_hint("LATEST", snapshot.id)


def changelog_manager(table: TableContext) -> ChangelogManager:
    return ChangelogManager(table.io, table.path)


def changelog_or_snapshot(snapshots: SnapshotManager, changelogs: ChangelogManager, sid: int) -> Snapshot:
    """Snapshot ``sid`` if it exists, else the long-lived changelog of that id (as Java's
    ``changelogOrSnapshot``); SnapshotNotFound when neither exists."""
    try:
        return snapshots.snapshot(sid)
    except SnapshotNotFound:
        if changelogs.exists(sid):
            return changelogs.changelog(sid)
        raise


__all__ = [
    "CHANGELOG_DIR",
    "CHANGELOG_PREFIX",
    "ChangelogManager",
    "changelog_manager",
    "changelog_or_snapshot",
]
