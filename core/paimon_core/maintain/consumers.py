"""Consumers as operations: list each with where it resumes, and move one.

A consumer's ``nextSnapshot`` may only name a snapshot a reader can still start from: from the
earliest snapshot the table keeps (1 when it has none) to one past the latest, the next commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.errors import InvalidInput
from paimon_core.metadata.consumer import consumer_manager

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class ConsumerInfo:
    consumer_id: str
    next_snapshot: int  # the first snapshot it has not delivered yet
    modified_ms: int  # when its file was last written


def list_consumers(table: TableContext) -> list[ConsumerInfo]:
    """Every readable consumer by id; one removed while listing is left out."""
    manager = consumer_manager(table)
    out = []
    for cid, nxt in sorted(manager.consumers().items()):
        try:
            modified = table.io.mtime_millis(manager.path(cid))
        except FileNotFoundError:
            continue
        out.append(ConsumerInfo(cid, nxt, modified))
    return out


def reset_consumer(table: TableContext, consumer_id: str, next_snapshot: int) -> None:
    """Set (or create) ``consumer_id`` to read ``next_snapshot`` next (InvalidInput outside the
    range the module docstring states)."""
    snapshots = table.snapshots
    earliest, latest = snapshots.earliest_id(), snapshots.latest_id()
    lo, hi = (earliest or 1), (latest or 0) + 1
    if not lo <= next_snapshot <= hi:
        raise InvalidInput(
            f"next snapshot {next_snapshot} is outside {lo}..{hi} (earliest snapshot .. latest + 1)"
        )
    consumer_manager(table).reset(consumer_id, next_snapshot)


def delete_consumer(table: TableContext, consumer_id: str) -> None:
    """Remove ``consumer_id`` (NotFound when it does not exist); its snapshots may then expire."""
    consumer_manager(table).delete(consumer_id)
