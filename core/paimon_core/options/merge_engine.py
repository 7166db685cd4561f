"""A primary-key table's merge engine (the ``merge-engine`` option) and what it implies; the one
place the engines' names are spelled."""

from __future__ import annotations

from enum import Enum


class MergeEngineKind(str, Enum):
    """A primary-key table's ``merge-engine``, with what the rest of the system needs to know
    about it; no code compares the option's text itself."""

    DEDUPLICATE = "deduplicate"  # the newest record of a key wins
    PARTIAL_UPDATE = "partial-update"  # non-null fields of newer records overwrite
    AGGREGATION = "aggregation"  # per-field aggregate functions
    FIRST_ROW = "first-row"  # the oldest insert wins, retractions ignored

    @property
    def picks_rows(self) -> bool:
        """Whether the merge result of a key is one of its stored records, whole."""
        return self in (MergeEngineKind.DEDUPLICATE, MergeEngineKind.FIRST_ROW)

    @property
    def merges_fields(self) -> bool:
        """Whether the merge result is built field by field (aggregate functions apply)."""
        return not self.picks_rows

    @property
    def reads_compacted_only(self) -> bool:
        """Whether batch reads skip level 0 (Java's first-row: compaction removes later inserts)."""
        return self is MergeEngineKind.FIRST_ROW


MERGE_ENGINES = tuple(k.value for k in MergeEngineKind)
