"""Automatic tags and tag time-to-live, as Java 0.9's ``TagAutoCreation``, ``TagTimeExpire`` and
Flink's batch-write tag.

``tag.automatic-creation``:

* ``process-time``: a snapshot's time is its commit time (local); ``watermark``: its watermark in
  ``sink.watermark-time-zone`` (snapshots without one are passed over).
* A run starts after the newest automatic tag (the tags whose names parse in the period's format):
  at the next snapshot, expecting the next period; without one, at the earliest snapshot. For each
  later snapshot: once ``time - tag.creation-delay`` reaches the end of the expected period, the
  snapshot is tagged with the period before its own (``normalize``), or, with
  ``tag.automatic-completion``, with the expected period itself; then ``tag.num-retained-max``
  deletes the oldest automatic tags (and the files only they kept).
* ``batch``: a batch write tags its latest snapshot ``batch-write-yyyy-MM-dd`` (replacing one of
  that name), then keeps at most ``tag.num-retained-max`` tags of any kind (oldest snapshots first).

Automatic tags carry ``tag.default-time-retained`` as their time-to-live. :func:`expire_tags`
deletes every tag whose creation time plus time-to-live is before now (Java runs it after every
commit that is not write-only, whatever ``tag.automatic-creation`` says).

Invariant: a run creates a tag only if its name is free and only on a snapshot that exists.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from paimon_core.clock import local, now_ms
from paimon_core.errors import InvalidInput
from paimon_core.metadata.tags import tag_manager, tag_ttl
from paimon_core.options.registry import (
    SINK_WATERMARK_TIME_ZONE,
    TAG_AUTOMATIC_COMPLETION,
    TAG_AUTOMATIC_CREATION,
    TAG_CREATION_DELAY,
    TAG_CREATION_PERIOD,
    TAG_DEFAULT_TIME_RETAINED,
    TAG_NUM_RETAINED_MAX,
    TAG_PERIOD_FORMATTER,
)

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

LOG = logging.getLogger(__name__)
_EPOCH = datetime(1970, 1, 1)
BATCH_PREFIX = "batch-write-"

_PERIOD_MS = {"daily": 86_400_000, "hourly": 3_600_000, "two-hours": 7_200_000}
_FORMATS = {
    ("daily", "with_dashes"): "%Y-%m-%d",
    ("daily", "without_dashes"): "%Y%m%d",
    ("daily", "without_dashes_and_spaces"): "%Y%m%d",
    ("hourly", "with_dashes"): "%Y-%m-%d %H",
    ("hourly", "without_dashes"): "%Y%m%d %H",
    ("hourly", "without_dashes_and_spaces"): "%Y%m%d%H",
}


@dataclass(frozen=True)
class PeriodHandler:
    """Java's ``TagPeriodHandler``: tag names of periods and their times."""

    period: str  # daily | hourly | two-hours
    formatter: str = "with_dashes"

    @property
    def one_period(self) -> timedelta:
        return timedelta(milliseconds=_PERIOD_MS[self.period])

    @property
    def _format(self) -> str:
        if self.period == "two-hours":
            return "%Y-%m-%d %H"  # Java 0.9: always with dashes
        return _FORMATS[(self.period, self.formatter)]

    def time_to_tag(self, t: datetime) -> str:
        return t.strftime(self._format)

    def tag_to_time(self, name: str) -> datetime | None:
        """The period start a tag name stands for, or None when it is not an automatic tag."""
        text = name.split(" ")[0] if self.period == "daily" else name
        try:
            t = datetime.strptime(text, self._format)
        except ValueError:
            return None
        # strptime accepts 1-digit fields; Java's formatters want 2 digits: compare round trip
        return t if self.time_to_tag(t) == text else None

    def is_auto_tag(self, name: str) -> bool:
        return self.tag_to_time(name) is not None

    def normalize_to_previous(self, t: datetime) -> datetime:
        """The start of the period before the one ``t`` is in (local wall clock as UTC millis, as Java)."""
        ms = int((t - _EPOCH) / timedelta(milliseconds=1))
        p = _PERIOD_MS[self.period]
        return _EPOCH + timedelta(milliseconds=(ms // p) * p) - self.one_period

    def next_tag_time(self, t: datetime) -> datetime:
        return t + self.one_period


def period_handler(table: TableContext) -> PeriodHandler:
    o = table.schema.core_options
    h = PeriodHandler(o.get(TAG_CREATION_PERIOD), o.get(TAG_PERIOD_FORMATTER))
    if not h.one_period > timedelta(milliseconds=o.get(TAG_CREATION_DELAY)):
        raise InvalidInput("tag.creation-delay must be shorter than tag.creation-period")
    return h


def _snapshot_time(table: TableContext, snap: Snapshot) -> datetime | None:
    o = table.schema.core_options
    if o.get(TAG_AUTOMATIC_CREATION) == "process-time":
        return local(snap.time_millis)
    wm = snap.watermark
    if wm is None or wm == -(2**63):
        return None
    from zoneinfo import ZoneInfo

    zone = o.get(SINK_WATERMARK_TIME_ZONE)
    return datetime.fromtimestamp(wm / 1000, timezone.utc).astimezone(ZoneInfo(zone)).replace(tzinfo=None)


def _auto_tags(table: TableContext, h: PeriodHandler) -> list[tuple[str, Snapshot]]:
    """(name, snapshot) of the automatic tags, by snapshot id."""
    tags = [(n, s) for n, s in tag_manager(table).tagged().items() if h.is_auto_tag(n)]
    return sorted(tags, key=lambda t: (t[1].id, t[0]))


def _one_auto_tag(names: list[str]) -> str:
    if len(names) != 1:
        raise InvalidInput(f"more than one automatic tag on one snapshot: {', '.join(names)}")
    return names[0]


def create_auto_tags(table: TableContext, now: int | None = None) -> list[str]:
    """One run of Java's ``TagAutoCreation`` as a new writer makes it; returns the tags created."""
    from paimon_core.maintain.tags import delete_tag

    o = table.schema.core_options
    if o.get(TAG_AUTOMATIC_CREATION) not in ("process-time", "watermark"):
        return []
    h = period_handler(table)
    delay = timedelta(milliseconds=o.get(TAG_CREATION_DELAY))
    retained = o.get(TAG_DEFAULT_TIME_RETAINED)
    keep = o.get(TAG_NUM_RETAINED_MAX)
    completion = o.get(TAG_AUTOMATIC_COMPLETION)
    sm, tm = table.snapshots, tag_manager(table)
    autos = _auto_tags(table, h)
    next_tag: datetime | None = None
    if not autos:
        next_snapshot = sm.earliest_id() or 1
    else:
        last_id = autos[-1][1].id
        next_snapshot = last_id + 1
        name = _one_auto_tag([n for n, s in autos if s.id == last_id])
        t = h.tag_to_time(name)
        assert t is not None
        next_tag = h.next_tag_time(t)
    created: list[str] = []
    ids = set(sm.list_ids())
    while True:
        if next_snapshot in ids:
            snap = sm.snapshot(next_snapshot)
            t = _snapshot_time(table, snap)
            if t is not None and (next_tag is None or t - delay >= h.next_tag_time(next_tag)):
                this = h.normalize_to_previous(t)
                if completion and next_tag is not None:
                    this = next_tag
                name = h.time_to_tag(this)
                if not tm.exists(name) and tm.create(name, snap, retained, now_ms() if now is None else now):
                    created.append(name)
                next_tag = h.next_tag_time(this)
                if keep is not None:
                    autos = _auto_tags(table, h)
                    for victim, _ in autos[: max(0, len(autos) - keep)]:
                        delete_tag(table, victim)
            next_snapshot += 1
        else:
            earliest = min(ids) if ids else None
            if earliest is not None and earliest > next_snapshot:
                next_snapshot = earliest
            else:
                break
    return created


def create_batch_tag(table: TableContext) -> str | None:
    """Flink's batch-write tag (``tag.automatic-creation = batch``) after a batch write."""
    from paimon_core.maintain.tags import delete_tag

    o = table.schema.core_options
    if o.get(TAG_AUTOMATIC_CREATION) != "batch":
        return None
    snap = table.snapshots.latest()
    if snap is None:
        return None
    name = BATCH_PREFIX + local(snap.time_millis).strftime("%Y-%m-%d")
    tm = tag_manager(table)
    if tm.exists(name):
        delete_tag(table, name)
    tm.create(name, snap, o.get(TAG_DEFAULT_TIME_RETAINED), now_ms())
    keep = o.get(TAG_NUM_RETAINED_MAX)
    if keep is not None:
        tags = sorted(tm.tagged().items(), key=lambda t: (t[1].id, t[0]))
        for victim, _ in tags[: max(0, len(tags) - keep)]:
            delete_tag(table, victim)
    return name


def expired_tags(table: TableContext, now: int | None = None) -> list[str]:
    """The tags whose time-to-live has passed at ``now``."""
    now = now_ms() if now is None else now
    out = []
    for name, snap in tag_manager(table).tagged().items():
        ttl = tag_ttl(snap)
        if ttl is not None and now > ttl[0] + ttl[1]:
            out.append(name)
    return out


def expire_tags(table: TableContext, now: int | None = None, dry_run: bool = False) -> list[str]:
    """Java's ``TagTimeExpire``: delete each tag past its time-to-live (and the files only it kept)."""
    from paimon_core.maintain.tags import delete_tag

    names = expired_tags(table, now)
    if not dry_run:
        for name in names:
            delete_tag(table, name)
    return names


__all__ = [
    "BATCH_PREFIX",
    "PeriodHandler",
    "create_auto_tags",
    "create_batch_tag",
    "expire_tags",
    "expired_tags",
    "period_handler",
]
