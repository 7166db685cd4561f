"""Which snapshots a piece of work created: what to tell a user who interrupted it.

``commit_journal()`` collects, for the code run inside it (in this thread or context), every
snapshot and schema version a commit created, as (table path, "snapshot" | "schema", id) in
commit order. A commit made and
then interrupted (Ctrl-C after ``snapshot-N`` was created, before the commit call returned)
raises ``InterruptedAfterCommit``: still a KeyboardInterrupt, but it tells callers the commit
stands, so they must not delete the files it references. Kept free of heavy imports: the
CLI opens a journal around every command.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_JOURNAL: ContextVar[list | None] = ContextVar("paimon_commit_journal", default=None)


class InterruptedAfterCommit(KeyboardInterrupt):
    """Ctrl-C arrived after a commit was made: the snapshot stands, its files must stay."""

    def __init__(self, table_path: str, snapshot_id: int):
        super().__init__(f"interrupted after commit: snapshot {snapshot_id}")
        self.table_path = table_path
        self.snapshot_id = snapshot_id


@contextmanager
def commit_journal() -> Iterator[list[tuple[str, str, int]]]:
    journal: list[tuple[str, str, int]] = []
    token = _JOURNAL.set(journal)
    try:
        yield journal
    finally:
        _JOURNAL.reset(token)


def record_commit(table_path: str, snapshot_id: int, kind: str = "snapshot") -> None:
    journal = _JOURNAL.get()
    if journal is not None:
        journal.append((table_path, kind, snapshot_id))
