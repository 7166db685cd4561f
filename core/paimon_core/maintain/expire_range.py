"""The range of snapshots (or long-lived changelogs) one expiry removes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExpireRange:
    """Expire snapshots ``[begin, end)``; ``end`` is the new earliest. Empty when begin == end."""

    begin: int
    end: int
    reason: str  # what kept snapshot `end`: retain-min | time-retained | expire-limit | consumer | retain-max | nothing

    @property
    def ids(self) -> range:
        return range(self.begin, self.end)

    def __bool__(self) -> bool:
        return self.end > self.begin
