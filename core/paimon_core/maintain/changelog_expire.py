"""Expiry of long-lived changelogs (``changelog/changelog-N``), with Java ``ExpireChangelogImpl``'s
rules; the snapshot expiry (``expire.py``) writes them when the changelog lifecycle is decoupled.

**Decoupled** (Java's ``changelogLifecycleDecoupled``): ``changelog.num-retained.max`` above the
snapshot maximum, ``changelog.num-retained.min`` above the snapshot minimum, or
``changelog.time-retained`` above ``snapshot.time-retained`` (each unset one takes the snapshot
value). Then an expired snapshot leaves ``changelog-N`` and its changelog manifests and files (with
``changelog-producer = none`` its base and delta lists too, and the data files its stream reads);
this module deletes them once the changelog retention lets them go.

Which changelogs go (counted from the latest *snapshot*, as Java does): ``[earliest changelog,
end)`` where end = min(latest snapshot - min + 1, the smallest consumer ``nextSnapshot``,
earliest changelog + ``snapshot.expire.limit``, the latest changelog), lowered to the first
changelog from ``max(latest snapshot - max + 1, earliest changelog)`` on that is younger than the
time retention. The latest changelog always stays (Java's rule).

Deleting changelog N: the files its changelog manifests added, the data files its delta removed
(when the delta list still exists) that no tag uses, its manifest lists and manifests that neither
changelog ``end``, a snapshot nor a tag uses, then the ``changelog-N`` file; last the EARLIEST hint.
Unlike Java we keep the changelog manifests and files of a tagged snapshot while the tag exists
(as our snapshot expiry does): the tag's metadata stays readable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.maintain.expire_range import ExpireRange
from paimon_core.maintain.files import PlannedFile, manifest_path
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.maintain.snapshot_files import FileCollector, added_files, deleted_data_files, try_list
from paimon_core.metadata.changelog import changelog_manager
from paimon_core.metadata.tags import tag_manager
from paimon_core.options.registry import (
    CHANGELOG_NUM_RETAINED_MAX,
    CHANGELOG_NUM_RETAINED_MIN,
    CHANGELOG_TIME_RETAINED,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_TIME_RETAINED,
    Option,
)

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.options.core_options import CoreOptions


@dataclass(frozen=True)
class ChangelogRetention:
    """The changelog retention in effect and whether it outlives the snapshots (decoupled)."""

    retain_min: int
    retain_max: int
    time_retained_ms: int
    decoupled: bool


# each changelog option and the snapshot option it follows when unset
CHANGELOG_OPTIONS: tuple[tuple[Option[int | None], Option[int]], ...] = (
    (CHANGELOG_NUM_RETAINED_MIN, SNAPSHOT_NUM_RETAINED_MIN),
    (CHANGELOG_NUM_RETAINED_MAX, SNAPSHOT_NUM_RETAINED_MAX),
    (CHANGELOG_TIME_RETAINED, SNAPSHOT_TIME_RETAINED),
)


def changelog_retention(
    opts: CoreOptions,
    snap_min: int,
    snap_max: int,
    snap_time_ms: int,
    *,
    retain_min: int | None = None,
    retain_max: int | None = None,
    time_retained_ms: int | None = None,
) -> ChangelogRetention:
    """The changelog retention of ``opts`` while the snapshot retention in effect is ``snap_*``
    (the table's, or a one-off ``expire``'s).

    A table that declares none of the ``changelog.*`` options keeps its changelogs with its
    snapshots: every value follows ``snap_*``. A table that declares any keeps what it declares,
    whatever an ``expire`` asks of the snapshots: an unset value follows the table's own
    ``snapshot.*`` option (as Java's CoreOptions), never the one-off one. Explicit arguments (the
    changelog flags of ``expire``) win over both."""
    explicit = (retain_min, retain_max, time_retained_ms)
    declared = any(opts.get(changelog) is not None for changelog, _ in CHANGELOG_OPTIONS)
    in_effect = (snap_min, snap_max, snap_time_ms)

    def pick(i: int) -> int:
        given = explicit[i]
        if given is not None:
            return given
        if not declared:
            return in_effect[i]
        changelog, snapshot = CHANGELOG_OPTIONS[i]
        v = opts.get(changelog)
        return opts.get(snapshot) if v is None else v

    cmin, cmax, ctime = (pick(i) for i in range(len(CHANGELOG_OPTIONS)))
    return ChangelogRetention(cmin, cmax, ctime, cmax > snap_max or cmin > snap_min or ctime > snap_time_ms)


def decide_changelog_range(
    latest_snapshot: int,
    ids: Sequence[int],
    times: Mapping[int, int],
    retention: ChangelogRetention,
    *,
    max_deletes: int,
    now_ms: int,
    consumer_next: int | None = None,
) -> ExpireRange:
    """Which changelogs go, as the module doc says; ``ids`` are the changelog ids (ascending)."""
    if not ids:
        return ExpireRange(0, 0, "nothing")
    earliest, latest = ids[0], ids[-1]
    lo = max(latest_snapshot - retention.retain_max + 1, earliest)
    end, reason = latest_snapshot - retention.retain_min + 1, "retain-min"
    if consumer_next is not None and consumer_next < end:
        end, reason = consumer_next, "consumer"
    if earliest + max_deletes < end:
        end, reason = earliest + max_deletes, "expire-limit"
    if latest < end:
        end, reason = latest, "latest-changelog"
    older_than = now_ms - retention.time_retained_ms
    existing = set(ids)
    for i in range(lo, end + 1):
        if i in existing and older_than <= times[i]:
            end, reason = min(end, i), "time-retained"
            break
    if end <= earliest:
        return ExpireRange(earliest, earliest, reason)
    return ExpireRange(earliest, end, reason)


@dataclass(frozen=True)
class ChangelogPlan:
    """What a changelog expiry deletes: ``files`` in deletion order, ``changelog-N`` files last."""

    range: ExpireRange
    files: tuple[PlannedFile, ...]
    retention: ChangelogRetention
    earliest: int | None
    latest: int | None

    @property
    def changelog_ids(self) -> list[int]:
        return list(self.range.ids)


def _list_exists(table: TableContext, name: str | None, gone: frozenset[str]) -> bool:
    if not name:
        return False
    p = manifest_path(table, name)
    return p not in gone and table.io.exists(p)


def plan_changelog_expire(
    table: TableContext,
    retention: ChangelogRetention,
    *,
    max_deletes: int,
    now_ms: int,
    consumer_next: int | None,
    pending: Mapping[int, Snapshot] | None = None,
    gone: frozenset[str] = frozenset(),
) -> ChangelogPlan:
    """Plan the expiry of long-lived changelogs. ``pending`` are changelogs a snapshot expiry
    planned in the same run but has not written (a dry run), ``gone`` the paths it would delete."""
    cm = changelog_manager(table)
    changelogs: dict[int, Snapshot] = {i: cm.changelog(i) for i in cm.list_ids()}
    changelogs.update(pending or {})
    latest_snapshot = table.snapshots.latest_id()
    ids = sorted(changelogs)
    empty = ChangelogPlan(
        ExpireRange(0, 0, "nothing"), (), retention, ids[0] if ids else None, ids[-1] if ids else None
    )
    if latest_snapshot is None or not ids:
        return empty
    rng = decide_changelog_range(
        latest_snapshot,
        ids,
        {i: c.time_millis for i, c in changelogs.items()},
        retention,
        max_deletes=max_deletes,
        now_ms=now_ms,
        consumer_next=consumer_next,
    )
    if not rng:
        return ChangelogPlan(rng, (), retention, ids[0], ids[-1])
    reader = RefReader(table)
    protected = Refs()
    for s in tag_manager(table).tagged().values():
        protected.update(reader.refs(s))
    for i in table.snapshots.list_ids():
        if i not in changelogs:  # (a pending changelog's snapshot is going)
            protected.update(reader.manifest_names(table.snapshots.snapshot(i)))
    keep = changelogs[rng.end]
    for lst in (keep.changelog_manifest_list, keep.base_manifest_list, keep.delta_manifest_list):
        if lst and _list_exists(table, lst, gone):
            protected.manifests[manifest_path(table, lst)] = -1
            for m in try_list(table, lst):
                protected.manifests[manifest_path(table, m.file_name)] = m.file_size
    col = FileCollector(table, protected)
    for i in rng.ids:
        c = changelogs[i]
        for p, size, extras in added_files(table, c.changelog_manifest_list):
            col.add(p, size, "changelog")
            for x in extras:
                col.add(x, -1, "changelog")
        if _list_exists(table, c.delta_manifest_list, gone):
            for p, (size, extras) in deleted_data_files(table, c.delta_manifest_list).items():
                col.add(p, size, "data")
                for x in extras:
                    col.add(x, -1, "data")
    for i in rng.ids:
        c = changelogs[i]
        for lst in (c.changelog_manifest_list, c.delta_manifest_list, c.base_manifest_list):
            if lst and (lst == c.changelog_manifest_list or _list_exists(table, lst, gone)):
                for m in try_list(table, lst):
                    col.add(manifest_path(table, m.file_name), m.file_size, "manifest")
                col.add(manifest_path(table, lst), -1, "manifest-list")
    for i in rng.ids:
        col.add(cm.path(i), -1, "changelog-meta")
    return ChangelogPlan(rng, tuple(col.files), retention, ids[0], ids[-1])


def execute_changelog_plan(table: TableContext, plan: ChangelogPlan, progress=None) -> int:
    """Delete the plan's files in order, then move the changelog EARLIEST hint."""
    from paimon_core.maintain.snapshot_files import execute_plan_files

    if not plan.range:
        return 0
    n = execute_plan_files(table, plan.files, progress)
    changelog_manager(table).write_hint("EARLIEST", plan.range.end)
    return n


__all__ = [
    "ChangelogPlan",
    "ChangelogRetention",
    "changelog_retention",
    "decide_changelog_range",
    "execute_changelog_plan",
    "plan_changelog_expire",
]
