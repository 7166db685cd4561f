"""Consumers: ``consumer/consumer-<ID>`` JSON files recording where a streaming reader resumes.

The file holds exactly ``{"nextSnapshot" : N}`` in Jackson's pretty layout, as Java Paimon
writes it (``Consumer``/``ConsumerManager``): N is the first snapshot whose changes the reader
has NOT yet delivered. It is overwritten after each snapshot's rows are delivered, so a restart
resumes at N and never re-reads a delivered snapshot.

Expiry never removes snapshot N or later of any consumer (the minimum ``nextSnapshot`` caps
``snapshot expire``). With ``consumer.expiration-time`` a consumer file not modified for that
long is deleted before each post-commit expiry, as Java's committer does, so an abandoned
consumer stops pinning snapshots.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.errors import CorruptMetadata, InvalidInput, NotFound
from paimon_core.metadata import jsonfmt

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.storage.file_io import FileIO

PREFIX = paths.CONSUMER_PREFIX
_ID = re.compile(r"^[A-Za-z0-9_.\-]+$")


def check_id(consumer_id: str) -> str:
    if not consumer_id or not _ID.match(consumer_id):
        raise InvalidInput(f"bad consumer id '{consumer_id}' (use letters, digits, '_', '-', '.')")
    return consumer_id


def to_json(next_snapshot: int) -> str:
    return jsonfmt.dumps({"nextSnapshot": int(next_snapshot)})


class ConsumerManager:
    def __init__(self, io: FileIO, table_path: str):
        self.io = io
        self.dir = io.join(table_path, paths.CONSUMER_DIR)

    def path(self, consumer_id: str) -> str:
        return self.io.join(self.dir, PREFIX + check_id(consumer_id))

    def get(self, consumer_id: str) -> int | None:
        """The consumer's ``nextSnapshot``; None if it does not exist."""
        path = self.path(consumer_id)
        try:
            text = self.io.read_text(path)
        except FileNotFoundError:
            return None
        try:
            return int(json.loads(text)["nextSnapshot"])
        except (ValueError, KeyError, TypeError) as e:
            raise CorruptMetadata(f"consumer file {path} is unreadable: {e}") from None

    def reset(self, consumer_id: str, next_snapshot: int) -> None:
        """Write (or replace) the consumer file; atomic on local storage."""
        if next_snapshot < 1:
            raise InvalidInput(f"nextSnapshot must be at least 1, got {next_snapshot}")
        self.io.mkdirs(self.dir)
        self.io.overwrite_hint(self.path(consumer_id), to_json(next_snapshot).encode("utf-8"))

    def delete(self, consumer_id: str) -> None:
        path = self.path(consumer_id)
        if not self.io.exists(path):
            raise NotFound(f"consumer '{consumer_id}' does not exist")
        self.io.delete(path)

    def ids(self) -> list[str]:
        return sorted(
            n[len(PREFIX) :]
            for n in self.io.list_names(self.dir)
            if n.startswith(PREFIX) and not n.startswith(".")
        )

    def consumers(self) -> dict[str, int]:
        """id -> nextSnapshot of every readable consumer (a file removed meanwhile is skipped)."""
        out = {}
        for cid in self.ids():
            try:
                n = self.get(cid)
            except (CorruptMetadata, InvalidInput):
                continue
            if n is not None:
                out[cid] = n
        return out

    def min_next_snapshot(self) -> int | None:
        values = self.consumers().values()
        return min(values) if values else None

    def expire(self, older_than_ms: int) -> list[str]:
        """Delete consumer files last modified before ``older_than_ms`` (epoch millis)."""
        gone = []
        for cid in self.ids():
            path = self.path(cid)
            try:
                mtime = self.io.mtime_millis(path)
            except FileNotFoundError:
                continue
            if mtime < older_than_ms:
                self.io.delete(path)
                gone.append(cid)
        return gone


def consumer_manager(table: TableContext) -> ConsumerManager:
    return ConsumerManager(table.io, table.branch_path)
