"""What a writer hands to the commit: the files it wrote for one (partition, bucket).

Writers, compactions and engines produce CommitMessages and never commit; the commit
(``paimon_core.commit.file_store_commit``) turns a list of them into one snapshot or deletes their files."""

from __future__ import annotations

from dataclasses import dataclass

from paimon_core.metadata.manifest import DataFileMeta


@dataclass(frozen=True)
class CommitMessage:
    """What one writer produced for one (partition, bucket); partition in internal values."""

    partition: tuple
    bucket: int
    total_buckets: int
    new_files: tuple[DataFileMeta, ...] = ()
    compact_before: tuple[DataFileMeta, ...] = ()
    compact_after: tuple[DataFileMeta, ...] = ()
    changelog_files: tuple[DataFileMeta, ...] = ()
    new_index: tuple = ()  # IndexEntry ADDs (dynamic-bucket hash indexes)
    deleted_index: tuple = ()  # IndexEntry DELETEs of the index files they replace

    @property
    def is_empty(self) -> bool:
        return not (
            self.new_files
            or self.compact_before
            or self.compact_after
            or self.changelog_files
            or self.new_index
            or self.deleted_index
        )
