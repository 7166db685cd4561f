"""Streaming read: follow a table snapshot by snapshot, as Paimon's streaming source does.

A stream has a *starting state* and then, for each new snapshot, that snapshot's *changes*,
always as ``_row_kind`` (+I/-U/+U/-D) plus the table columns.

Starting state (``mode``, Paimon's ``scan.mode``):

* ``latest-full`` (default): every row of the latest snapshot, then the changes of the
  snapshots after it (rows of a primary-key table keep the kind of their merged record, +I or
  +U, as in Java's full phase);
* ``latest``: nothing; the changes of the snapshots after the latest;
* ``from-snapshot``: the changes of snapshot ``start`` and every later one (``start`` may be a
  snapshot id, a tag's snapshot, or a time: the first snapshot committed at or after it);
* ``from-snapshot-full``: every row of snapshot ``start``, then the changes after it;
* ``compacted-full``: every row of the latest full compaction (a COMPACT snapshot whose commit
  identifier is a multiple of ``full-compaction.delta-commits`` (default 1) or a batch commit's,
  Java's rule; the latest snapshot when there is none), then the changes after it. On a
  ``full-compaction`` changelog table this is the start whose changelog never retracts a value
  the reader has not seen (a ``latest-full`` start on an APPEND snapshot can meet one).

A consumer (``consumer_id``) that exists overrides the mode: the stream resumes at its
``nextSnapshot`` (unless ``ignore_progress``, Paimon's ``consumer.ignore-progress``).

The changes of one snapshot (Paimon 0.9's follow-up scanners):

* no changelog producer, or an append table: the rows of the data files an APPEND snapshot
  added (the delta), with their row kinds; other commit kinds have no changes to stream;
* ``changelog-producer = input``: the changelog files of APPEND snapshots;
* ``lookup`` / ``full-compaction``: the changelog files of the snapshots that have them
  (COMPACT snapshots, where Java and this project's compactions put them; tables written by
  this project before that have lookup changelog in APPEND snapshots, read as well).

A snapshot that expired while the table keeps its changelog (``changelog/changelog-N``, a
decoupled changelog lifecycle) is read from that changelog, as Java's streaming scan does.

OVERWRITE snapshots are not streamed (as Java with ``streaming-read-overwrite = false``): they
come out as batches of kind ``skipped`` so that a caller can say so.

Invariants: snapshots are read in id order with no gap. ``poll`` advances an in-memory cursor;
only ``ack(batch)`` (called after the batch's rows were delivered) moves the consumer, so a
crash between the two re-delivers at most that one batch's snapshot, never skips one. If the
next snapshot to read has expired, reading stops with :class:`StreamGap` naming the gap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from paimon_core.errors import CorruptMetadata, InvalidInput, SnapshotNotFound
from paimon_core.metadata.changelog import changelog_manager, changelog_or_snapshot
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.metadata.time_travel import SnapshotSpec, require_snapshot
from paimon_core.options.registry import CONSUMER_IGNORE_PROGRESS, FULL_COMPACTION_DELTA_COMMITS, SCAN_MODE
from paimon_core.read.diff import empty_changes, snapshot_changelog, snapshot_delta, with_row_kind
from paimon_core.read.scan import plan
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

MODES = ("latest-full", "latest", "from-snapshot", "from-snapshot-full", "compacted-full")
BATCH_COMMIT = 2**63 - 1  # the commit identifier of a batch commit (Java's Long.MAX_VALUE)


class StreamGap(SnapshotNotFound):
    """Snapshots a stream still had to read were expired: their changes are lost to it."""


@dataclass(frozen=True)
class StreamBatch:
    """Rows of one snapshot. ``kind``: ``full`` (a starting state), ``changes`` or ``skipped``
    (a snapshot with nothing to stream: COMPACT without changelog, OVERWRITE...).
    ``next_snapshot`` is where the stream resumes once these rows are delivered."""

    snapshot_id: int
    kind: str
    commit_kind: str
    time_millis: int
    rows: pa.Table
    next_snapshot: int


def change_source(table: TableContext, snap: Snapshot) -> str | None:
    """``changelog``, ``delta`` or None (nothing to stream) for one snapshot of ``table``."""
    producer = table.schema.core_options.changelog_producer
    if not table.is_primary_key_table or producer == "none":
        return "delta" if snap.commit_kind == "APPEND" else None
    if producer == "input":
        return "changelog" if snap.commit_kind == "APPEND" else None
    if producer in ("lookup", "full-compaction"):
        return "changelog" if snap.changelog_manifest_list and snap.commit_kind != "OVERWRITE" else None
    raise InvalidInput(f"table {table.identifier}: changelog-producer '{producer}' cannot be streamed")


def snapshot_changes(
    table: TableContext, snap: Snapshot, columns: list[str] | None = None
) -> pa.Table | None:
    """The changes one snapshot contributes to a stream; None when it has none to stream."""
    source = change_source(table, snap)
    if source is None:
        return None
    columns = columns or table.schema.field_names
    return (
        snapshot_changelog(table, snap, columns)
        if source == "changelog"
        else snapshot_delta(table, snap, columns)
    )


class StreamRead:
    def __init__(
        self,
        table: TableContext,
        mode: str | None = None,
        start: int | Snapshot | None = None,
        start_time_ms: int | None = None,
        consumer_id: str | None = None,
        ignore_progress: bool | None = None,
        columns: list[str] | None = None,
    ):
        opts = table.schema.core_options
        mode = mode or opts.get(SCAN_MODE)
        if mode == "default":
            mode = "from-snapshot" if start is not None or start_time_ms is not None else "latest-full"
        if mode not in MODES:
            raise InvalidInput(f"unknown scan mode '{mode}' (one of {', '.join(MODES)})")
        if mode.startswith("from-snapshot") and start is None and start_time_ms is None:
            raise InvalidInput(f"scan mode {mode} needs a starting snapshot, tag or time").with_hint("start")
        if not mode.startswith("from-snapshot") and (start is not None or start_time_ms is not None):
            raise InvalidInput(
                f"scan mode {mode} takes no starting point; use from-snapshot or from-snapshot-full"
            )
        self.table = table
        self.mode = mode
        self.start = start
        self.start_time_ms = start_time_ms
        self.consumer_id = consumer_id
        self.consumers = consumer_manager(table) if consumer_id else None
        if self.consumers is not None and consumer_id:
            self.consumers.path(consumer_id)  # validates the id now
        self.ignore_progress = (
            opts.get(CONSUMER_IGNORE_PROGRESS) if ignore_progress is None else ignore_progress
        )
        self.columns = list(columns) if columns else table.schema.field_names
        for c in self.columns:
            table.schema.field(c)
        self.cursor: int | None = None  # next snapshot to read
        self.delivered: int | None = None  # next snapshot not yet acknowledged

    def _cursor(self) -> int:
        """The next snapshot to read, which start_batch() sets."""
        if self.cursor is None:
            raise RuntimeError("the stream has not started: start_batch() comes first")
        return self.cursor

    # ---- start
    def _full(self, snap: Snapshot) -> StreamBatch:
        view = self.table.for_snapshot(snap)  # each snapshot read with its own schema
        reader = TableRead(view, self.columns)
        parts = []
        for split in plan(view, snap):
            t, kinds = reader.read_split_with_kinds(split)
            parts.append(
                with_row_kind(t, pa.array(np.zeros(t.num_rows, np.int8)) if kinds is None else kinds)
            )
        rows = pa.concat_tables(parts) if parts else empty_changes(self.table, self.columns)
        return StreamBatch(snap.id, "full", snap.commit_kind, snap.time_millis, rows, snap.id + 1)

    def _start_snapshot(self) -> Snapshot:
        if isinstance(self.start, Snapshot):
            return self.start
        return require_snapshot(
            self.table, SnapshotSpec(snapshot_id=self.start, time_millis=self.start_time_ms)
        )

    def _first_after_time(self, ms: int) -> int:
        """Id of the first snapshot (or long-lived changelog) committed at or after ``ms``
        (latest + 1 if none)."""
        sm, cm = self.table.snapshots, changelog_manager(self.table)
        snapshot_ids = sm.list_ids()
        ids = [i for i in cm.list_ids() if not snapshot_ids or i < snapshot_ids[0]] + snapshot_ids
        if not ids:
            return 1
        lo, hi = 0, len(ids)
        while lo < hi:
            mid = (lo + hi) // 2
            if changelog_or_snapshot(sm, cm, ids[mid]).time_millis < ms:
                lo = mid + 1
            else:
                hi = mid
        return ids[lo] if lo < len(ids) else ids[-1] + 1

    def start_batch(self) -> StreamBatch | None:
        """Decide where the stream starts; the starting state's rows, if the mode has any."""
        sm = self.table.snapshots
        if self.consumers is not None and self.consumer_id and not self.ignore_progress:
            nxt = self.consumers.get(self.consumer_id)
            if nxt is not None:
                self.cursor = self.delivered = nxt
                self._check_gap(nxt)
                return None
        first = None
        if self.mode == "latest-full":
            latest = sm.latest()
            if latest is not None:
                first = self._full(latest)
            self.cursor = latest.id + 1 if latest else 1
        elif self.mode == "latest":
            self.cursor = (sm.latest_id() or 0) + 1
        elif self.mode == "compacted-full":
            snap = self._latest_full_compaction()
            if snap is not None:
                first = self._full(snap)
            self.cursor = snap.id + 1 if snap else 1
        elif self.mode == "from-snapshot":
            if self.start is None:
                assert self.start_time_ms is not None  # __init__ refused neither a start nor a time
                self.cursor = self._first_after_time(self.start_time_ms)
            else:
                self.cursor = self.start.id if isinstance(self.start, Snapshot) else int(self.start)
                if self.cursor < 1:
                    raise InvalidInput(f"snapshot ids start at 1, got {self.cursor}")
            self._check_gap(self.cursor)
        else:  # from-snapshot-full
            first = self._full(self._start_snapshot())
            self.cursor = first.next_snapshot
        self.delivered = self.cursor if first is None else None
        return first

    def _latest_full_compaction(self) -> Snapshot | None:
        """The newest full compaction by Java's rule (see the module doc), else the latest snapshot."""
        sm = self.table.snapshots
        every = self.table.schema.core_options.get(FULL_COMPACTION_DELTA_COMMITS) or 1
        ids = sm.list_ids()
        for i in reversed(ids):
            snap = sm.snapshot(i)
            ident = snap.commit_identifier
            if snap.commit_kind == "COMPACT" and (ident == BATCH_COMMIT or ident % every == 0):
                return snap
        return sm.snapshot(ids[-1]) if ids else None

    # ---- follow
    def _check_gap(self, nxt: int) -> None:
        earliest = self.table.snapshots.earliest_id()
        if earliest is not None and nxt < earliest:
            cm = changelog_manager(self.table)
            first = cm.earliest_id()
            if first is not None and first <= nxt and cm.exists(nxt):
                return  # expired as a snapshot, kept as a changelog
            earliest = first if first is not None and first < earliest else earliest
            who = f"consumer '{self.consumer_id}'" if self.consumer_id else "this stream"
            raise StreamGap(
                f"snapshots {nxt}..{earliest - 1} of {self.table.identifier} expired before {who} read them: "
                f"their changes are lost (earliest snapshot is {earliest}); restart from a full read"
            ).with_hint("stream_gap")

    def poll(self) -> StreamBatch | None:
        """The next snapshot's batch, or None if it does not exist yet. Advances the cursor."""
        if self.cursor is None:
            raise InvalidInput("start_batch() must be called before poll()")
        sm = self.table.snapshots
        sid = self.cursor
        try:
            snap = changelog_or_snapshot(sm, changelog_manager(self.table), sid)
        except SnapshotNotFound:
            self._check_gap(sid)
            return None
        try:
            rows = snapshot_changes(self.table, snap, self.columns)
        except (FileNotFoundError, CorruptMetadata, SnapshotNotFound):
            self._check_gap(sid + 1)  # expired while we read it
            raise
        self.cursor = sid + 1
        if rows is None:
            return StreamBatch(
                sid,
                "skipped",
                snap.commit_kind,
                snap.time_millis,
                empty_changes(self.table, self.columns),
                sid + 1,
            )
        return StreamBatch(sid, "changes", snap.commit_kind, snap.time_millis, rows, sid + 1)

    def ack(self, batch: StreamBatch) -> None:
        """The batch's rows were delivered: record the progress (in the consumer, if any)."""
        self.delivered = batch.next_snapshot
        if self.consumers is not None and self.consumer_id:
            self.consumers.reset(self.consumer_id, batch.next_snapshot)

    def follow(
        self,
        poll_interval_s: float = 1.0,
        until_snapshot: int | None = None,
        until_ms: int | None = None,
        max_snapshots: int | None = None,
        stop: Callable[[], bool] | None = None,
        idle: Callable[[], None] | None = None,
    ) -> Iterator[StreamBatch]:
        """Batches as they come; the caller delivers each and then calls :meth:`ack`.

        Ends after snapshot ``until_snapshot``, before the first snapshot committed after
        ``until_ms``, after ``max_snapshots`` batches with rows to stream (the starting state
        counts as one), or when ``stop()`` is true. ``idle()`` runs while waiting."""
        first = self.start_batch()
        count = 0
        if first is not None:
            yield first
            count += 1
        while True:
            if max_snapshots is not None and count >= max_snapshots:
                return
            if until_snapshot is not None and self._cursor() > until_snapshot:
                return
            if stop is not None and stop():
                return
            b = self.poll()
            if b is None:
                if idle is not None:
                    idle()
                time.sleep(poll_interval_s)
                continue
            if until_ms is not None and b.time_millis > until_ms:
                self.cursor = b.snapshot_id  # not consumed
                return
            yield b
            if b.kind != "skipped":
                count += 1


__all__ = ["MODES", "StreamBatch", "StreamGap", "StreamRead", "change_source", "snapshot_changes"]
