"""Consumers as operations: list each with where it resumes, and move one.

A consumer's ``nextSnapshot`` may only name a snapshot a reader can still start from: from the
earliest snapshot the table keeps (1 when it has none) to one past the latest, the next commit.
A table whose catalog keeps consumers itself (a REST catalog: ``ConsumerCatalog``) has them
listed, reset and deleted there; others on storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

from paimon_core.errors import InvalidInput, NotFound
from paimon_core.metadata.consumer import consumer_manager

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class ConsumerInfo:
    consumer_id: str
    next_snapshot: int  # the first snapshot it has not delivered yet
    modified_ms: int | None  # when its file was last written (None: the catalog does not say)


class ConsumerCatalog(Protocol):
    """A catalog that keeps a table's consumers (``env.consumers()``); each call is the whole change."""

    def list_consumers(self, table: TableContext) -> dict[str, int]: ...

    def reset_consumer(self, table: TableContext, consumer_id: str, next_snapshot: int | None) -> None:
        """Set the consumer's next snapshot; None deletes it."""
        ...


def _catalog(table: TableContext) -> ConsumerCatalog | None:
    env = table.env
    env = getattr(env, "main", env)  # a branch's environment wraps its table's
    get = getattr(env, "consumers", None)
    return cast(ConsumerCatalog, get()) if callable(get) else None


def list_consumers(table: TableContext) -> list[ConsumerInfo]:
    """Every readable consumer by id; one removed while listing is left out."""
    remote = _catalog(table)
    if remote is not None:
        return [ConsumerInfo(cid, nxt, None) for cid, nxt in sorted(remote.list_consumers(table).items())]
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
    remote = _catalog(table)
    if remote is not None:
        remote.reset_consumer(table, consumer_id, next_snapshot)
        return
    consumer_manager(table).reset(consumer_id, next_snapshot)


def delete_consumer(table: TableContext, consumer_id: str) -> None:
    """Remove ``consumer_id`` (NotFound when it does not exist); its snapshots may then expire."""
    remote = _catalog(table)
    if remote is None:
        consumer_manager(table).delete(consumer_id)
        return
    if consumer_id not in remote.list_consumers(table):
        raise NotFound(f"consumer '{consumer_id}' does not exist")
    remote.reset_consumer(table, consumer_id, None)
