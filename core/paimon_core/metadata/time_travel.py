"""Which snapshot a user asked for: an id, a tag or a time, and the one rule that turns a text
("42", "nightly", "2024-05-01T12:00:00") into such a choice and the choice into a snapshot.

Invariants: at most one of id, tag and time is given (none = the latest snapshot); a tag yields
the snapshot it holds even after that snapshot expired; a time yields the newest snapshot
committed at or before it. Texts are read as: digits shorter than 12 -> a snapshot id (epoch
millis have 13); an existing tag's name -> that tag; else a time (ISO-8601 or epoch millis)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.data.times import parse_time_millis
from paimon_core.errors import InvalidInput, SnapshotNotFound
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.metadata.tags import snapshot_from_tag, tag_manager

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

TimeArg = int | str  # epoch millis, or a text parse_time_millis reads
_MAX_ID_DIGITS = 11  # longer digit strings are epoch millis


@dataclass(frozen=True)
class SnapshotSpec:
    snapshot_id: int | None = None
    tag: str | None = None
    time_millis: int | None = None

    @classmethod
    def of(
        cls, snapshot_id: int | None = None, tag: str | None = None, time: TimeArg | None = None
    ) -> SnapshotSpec:
        if sum(x is not None for x in (snapshot_id, tag, time)) > 1:
            raise InvalidInput("give one of a snapshot id, a tag and a time, not several")
        millis = parse_time_millis(time) if isinstance(time, str) else time
        return cls(snapshot_id, tag, millis)

    @property
    def travels(self) -> bool:
        """Whether this names an older snapshot than 'the latest' (read with its own schema)."""
        return self.snapshot_id is not None or self.tag is not None or self.time_millis is not None


def parse_point(table: TableContext, text: str, *, times: bool = True) -> SnapshotSpec:
    """A snapshot id, a tag name or (when ``times``) a time, as the module docstring reads texts."""
    s = text.strip()
    if s.isdigit() and len(s) <= _MAX_ID_DIGITS:
        return SnapshotSpec(snapshot_id=int(s))
    if s and tag_manager(table).exists(s):
        return SnapshotSpec(tag=s)
    if times:
        try:
            return SnapshotSpec(time_millis=parse_time_millis(s))
        except InvalidInput:
            pass
    what = "a snapshot id, a tag or a time" if times else "a snapshot id or a tag"
    raise InvalidInput(f"'{text}' is not {what}")


def diff_point(table: TableContext, spec: SnapshotSpec) -> int | Snapshot:
    """An end point of a diff: a snapshot id (0 = the empty table before the first snapshot), or
    for a tag the Snapshot it holds (readable after the snapshot itself expired)."""
    if spec.snapshot_id is not None:
        return spec.snapshot_id
    if spec.tag is not None:
        return snapshot_from_tag(tag_manager(table).snapshot(spec.tag))
    if spec.time_millis is not None:
        return table.snapshots.at_or_before(spec.time_millis).id
    return table.snapshots.latest_id() or 0


def resolve_snapshot(table: TableContext, spec: SnapshotSpec) -> Snapshot | None:
    """The snapshot ``spec`` names; None for 'the latest' of a table without snapshots."""
    if spec.snapshot_id is not None:
        if spec.snapshot_id < 1:
            raise SnapshotNotFound(f"snapshot {spec.snapshot_id} does not exist (ids start at 1)")
        return table.snapshots.snapshot(spec.snapshot_id)
    if spec.time_millis is not None:
        return table.snapshots.at_or_before(spec.time_millis)
    if spec.tag is not None:
        return snapshot_from_tag(tag_manager(table).snapshot(spec.tag))
    return table.snapshots.latest()


def require_snapshot(table: TableContext, spec: SnapshotSpec) -> Snapshot:
    """Like ``resolve_snapshot``, but a table without snapshots raises SnapshotNotFound."""
    snap = resolve_snapshot(table, spec)
    if snap is None:
        raise SnapshotNotFound(f"table {table.identifier} has no snapshots")
    return snap
