"""Snapshot expiration, with Paimon's rules (Java ``ExpireSnapshotsImpl``, docs/format.md section 14).

Which snapshots go is a pure decision (:func:`decide_expire_range`, tested with an injected
clock). Expiring ``[begin, end)`` then deletes, in this order, so that an interrupted run can
simply be run again:

1. data files DELETEd by the deltas of snapshots ``(begin, end]`` that neither snapshot ``end``
   nor any tag still uses (a file is never re-added once deleted, so ``end`` and the tags are
   the only snapshots that could still hold it);
2. changelog files of the expired snapshots (unless a tag holds that snapshot);
3. manifest lists, manifests, index manifests and index files of the expired snapshots that
   no retained snapshot or tag references;
4. the snapshot files, in increasing id order;
5. finally the EARLIEST hint = ``end``.

Data files go first because they are found through manifests of the expired snapshots; once
they are gone a re-run finds nothing more to delete there. Missing files are never an error.

With a decoupled changelog lifecycle (``changelog.*`` retention above the snapshots', see
``changelog_expire.py``), as Java: step 2 is skipped, step 3 keeps the changelog lists (and, with
``changelog-producer = none``, the base and delta lists, and step 1 the files writes added), and
right before each snapshot file goes its ``changelog/changelog-N`` is written; then the changelog
expiry runs on the new state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.clock import now_ms as clock_ms
from paimon_core.errors import CommitConflict, InvalidInput, SnapshotNotFound
from paimon_core.iceberg.sync import prune_iceberg
from paimon_core.maintain.changelog_expire import (
    ChangelogPlan,
    changelog_retention,
    execute_changelog_plan,
    plan_changelog_expire,
)
from paimon_core.maintain.expire_range import ExpireRange
from paimon_core.maintain.files import (
    PlannedFile,
)
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.maintain.snapshot_files import (
    FileCollector,
    added_files,
    deleted_data_files,
    execute_plan_files,
    metadata_files,
)
from paimon_core.metadata.changelog import changelog_manager
from paimon_core.metadata.tags import tag_manager
from paimon_core.options.registry import (
    CONSUMER_EXPIRATION_TIME,
    SNAPSHOT_EXPIRE_LIMIT,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_TIME_RETAINED,
    WRITE_ONLY,
)

if TYPE_CHECKING:
    from paimon_core.maintain.files import FileProgress
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

INT_MAX = 2147483647


# ---------------------------------------------------------------- pure decision
def decide_expire_range(
    ids: Sequence[int],
    times: Mapping[int, int],
    *,
    retain_min: int,
    retain_max: int,
    time_retained_ms: int,
    max_deletes: int,
    now_ms: int,
    consumer_next: int | None = None,
) -> ExpireRange:
    """Which snapshots to expire, as Java Paimon 0.9 decides it.

    ``ids``: the existing snapshot ids (sorted); ``times``: their commit times (timeMillis).
    min = max(latest - retainMax + 1, earliest); maxExclusive = latest - retainMin + 1, capped by
    the smallest consumer ``nextSnapshot`` and by earliest + expire.limit; scanning ids from min,
    the first snapshot committed within ``time_retained_ms`` of ``now_ms`` stops expiry.
    Snapshots below ``min`` go whatever their age (retain-max).
    """
    if retain_min < 1:
        raise InvalidInput(f"retain-min must be at least 1, got {retain_min}")
    if retain_max < retain_min:
        raise InvalidInput(f"retain-max ({retain_max}) must not be smaller than retain-min ({retain_min})")
    if max_deletes < 0:
        raise InvalidInput(f"max-deletes must not be negative, got {max_deletes}")
    if not ids:
        return ExpireRange(0, 0, "nothing")
    earliest, latest = ids[0], ids[-1]
    lo = max(latest - retain_max + 1, earliest)
    end, reason = latest - retain_min + 1, "retain-min"
    if consumer_next is not None and consumer_next < end:
        end, reason = consumer_next, "consumer"
    if earliest + max_deletes < end:
        end, reason = earliest + max_deletes, "expire-limit"
    older_than = now_ms - time_retained_ms
    existing = set(ids)
    for i in range(lo, end):
        if i in existing and older_than <= times[i]:
            end, reason = i, "time-retained"
            break
    if end <= earliest:
        return ExpireRange(earliest, earliest, reason)
    # only the newest snapshots are kept: below a missing id everything is already gone
    begin = earliest
    for i in range(end - 1, earliest - 1, -1):
        if i not in existing:
            begin = i + 1
            break
    if reason == "time-retained" and end == lo and lo > earliest:
        reason = "retain-max+time-retained"
    return ExpireRange(begin, end, reason)


# ---------------------------------------------------------------- plan
@dataclass(frozen=True)
class ExpirePlan:
    earliest: int | None
    latest: int | None
    range: ExpireRange
    files: tuple[PlannedFile, ...]  # deletion order; snapshot files last
    tags: tuple[tuple[str, int], ...]  # (name, snapshot id) of every tag: they pin their files
    retain_min: int
    retain_max: int
    time_retained_ms: int
    max_deletes: int
    now_ms: int
    # a decoupled changelog lifecycle: the snapshots that become changelog-N, and the changelog
    # expiry that follows (planned on the state after this expiry); None when coupled
    changelog_writes: tuple[Snapshot, ...] = ()
    changelog: ChangelogPlan | None = None

    @property
    def snapshot_ids(self) -> list[int]:
        return list(self.range.ids)

    @property
    def total_bytes(self) -> int:
        return sum(max(f.size, 0) for f in self.files)

    def by_kind(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for f in self.files:
            n, b = out.get(f.kind, (0, 0))
            out[f.kind] = (n + 1, b + max(f.size, 0))
        return out

    def protection(self) -> dict[str, str]:
        """What keeps the remaining snapshots, in words (for ``--dry-run``)."""
        out = {}
        if self.latest is None:
            return {"table": "no snapshots"}
        keep_from = self.range.end if self.range else self.earliest
        out["kept"] = f"snapshots {keep_from}..{self.latest}"
        out["retain-min"] = f"the newest {self.retain_min} snapshot(s) are always kept"
        if self.retain_max < INT_MAX:
            out["retain-max"] = f"at most {self.retain_max} snapshot(s) are kept"
        out["time-retained"] = f"snapshots committed in the last {self.time_retained_ms} ms are kept"
        out["expire-limit"] = f"at most {self.max_deletes} snapshot(s) expire per run"
        out["stopped-by"] = self.range.reason
        if self.tags:
            out["tags"] = ", ".join(f"{n}->{i}" for n, i in self.tags) + " (their files are kept)"
        if self.changelog is not None:
            c, r = self.changelog, self.changelog.retention
            kept = (
                f"changelogs {c.range.end}..{c.latest}"
                if c.range
                else (f"changelogs {c.earliest}..{c.latest}" if c.latest is not None else "no changelogs")
            )
            out["changelog"] = (
                f"decoupled: {kept} kept (changelog.num-retained.min {r.retain_min}, "
                f"max {r.retain_max}, time-retained {r.time_retained_ms} ms); stopped by {c.range.reason}"
            )
        return out

    @property
    def nothing(self) -> bool:
        """Neither snapshots nor changelogs to expire."""
        return not self.range and not (self.changelog is not None and self.changelog.range)


def oldest_consumer_next(table: TableContext) -> int | None:
    """The smallest ``nextSnapshot`` of the table's consumers (Java's ``minNextSnapshot``)."""
    from paimon_core.metadata.consumer import consumer_manager

    return consumer_manager(table).min_next_snapshot()


def _listed_snapshots(sm) -> tuple[int | None, int | None, dict]:
    """(earliest id, latest id, id -> Snapshot of every snapshot between them that still exists:
    another process may expire some while we list)."""
    ids = sm.list_ids()
    earliest, latest = sm.earliest_id(), sm.latest_id()
    if not ids or earliest is None or latest is None:
        return earliest, latest, {}
    snaps = {}
    for i in ids:
        if earliest <= i <= latest:
            try:
                snaps[i] = sm.snapshot(i)
            except SnapshotNotFound:
                continue
    return earliest, latest, snaps


def _protected(reader: RefReader, snaps: dict, rng: ExpireRange, tagged: dict) -> Refs:
    """What must survive: everything the new earliest snapshot and every tag use, and the metadata
    of every retained snapshot (by construction a subset of the first, checked because it is cheap)."""
    protected = Refs().update(reader.refs(snaps[rng.end]))
    for s in tagged.values():
        protected.update(reader.refs(s))
    for i, snap in snaps.items():
        if i > rng.end:
            protected.update(reader.manifest_names(snap))
    return protected


def _doomed_files(
    table: TableContext,
    reader: RefReader,
    snaps: dict,
    rng: ExpireRange,
    protected: Refs,
    decoupled: bool = False,
) -> list:
    """The files to delete, in the order of the module doc: data files the deltas of (begin, end]
    removed, changelog files, metadata, then the snapshot files. A ``decoupled`` changelog keeps
    the changelog files and lists; without a changelog producer also the base and delta lists
    and the files writes added (what streaming that changelog reads), as Java's SnapshotDeletion."""
    produces = table.schema.core_options.changelog_producer != "none"
    keep_appended = decoupled and not produces
    col = FileCollector(table, protected)
    for i in range(rng.begin + 1, rng.end + 1):
        deleted = deleted_data_files(table, snaps[i].delta_manifest_list, keep_appended)
        for p, (size, extras) in deleted.items():
            col.add(p, size, "data")
            for x in extras:
                col.add(x, -1, "data")
    if not decoupled:
        for i in rng.ids:
            for p, size, extras in added_files(table, snaps[i].changelog_manifest_list):
                col.add(p, size, "changelog")
                for x in extras:
                    col.add(x, -1, "changelog")
    for i in rng.ids:
        metadata_files(reader, snaps[i], col, data_lists=not keep_appended, changelog_list=not decoupled)
    for i in rng.ids:
        col.add(table.snapshots.path(i), -1, "snapshot")
    return col.files


def plan_expire(
    table: TableContext,
    older_than_ms: int | None = None,
    retain_min: int | None = None,
    retain_max: int | None = None,
    max_deletes: int | None = None,
    now_ms: int | None = None,
    changelog_flags: ChangelogFlags | None = None,
) -> ExpirePlan:
    """What :func:`expire_snapshots` would delete, without deleting anything.

    ``older_than_ms`` is a duration (keep snapshots younger than this), overriding the table's
    ``snapshot.time-retained``; the other arguments override ``snapshot.num-retained.min``,
    ``snapshot.num-retained.max`` and ``snapshot.expire.limit``, for the snapshots only. A table
    that declares ``changelog.*`` options keeps its changelogs by them (see
    ``changelog_retention``): only ``changelog_flags`` (explicit changelog values) override those.
    """
    table.require_readable()  # a plan deletes nothing: options only writers must know never block it
    opts = table.schema.core_options
    keep_min: int = opts.get(SNAPSHOT_NUM_RETAINED_MIN) if retain_min is None else retain_min
    keep_max: int = opts.get(SNAPSHOT_NUM_RETAINED_MAX) if retain_max is None else retain_max
    time_retained: int = opts.get(SNAPSHOT_TIME_RETAINED) if older_than_ms is None else older_than_ms
    limit: int = opts.get(SNAPSHOT_EXPIRE_LIMIT) if max_deletes is None else max_deletes
    now_ms = clock_ms() if now_ms is None else now_ms
    if time_retained < 0:
        raise InvalidInput(f"older-than must not be negative, got {time_retained} ms")
    flags = changelog_flags or ChangelogFlags()
    retention = changelog_retention(
        opts,
        keep_min,
        keep_max,
        time_retained,
        retain_min=flags.retain_min,
        retain_max=flags.retain_max,
        time_retained_ms=flags.older_than_ms,
    )
    if retention.retain_max < retention.retain_min and keep_max >= keep_min:  # (else the snapshots' error)
        raise InvalidInput(
            f"changelog.num-retained.max ({retention.retain_max}) must not be smaller than "
            f"changelog.num-retained.min ({retention.retain_min})"
        )

    ids = table.snapshots.list_ids()
    tagged = tag_manager(table).tagged()
    tags = tuple(sorted(((n, s.id) for n, s in tagged.items()), key=lambda x: (x[1], x[0])))
    earliest, latest, snaps = _listed_snapshots(table.snapshots)
    consumer_next = oldest_consumer_next(table)
    rng = ExpireRange(0, 0, "nothing")
    if snaps:
        rng = decide_expire_range(
            sorted(snaps),
            {i: s.time_millis for i, s in snaps.items()},
            retain_min=keep_min,
            retain_max=keep_max,
            time_retained_ms=time_retained,
            max_deletes=limit,
            now_ms=now_ms,
            consumer_next=consumer_next,
        )
    files: tuple = ()
    writes: tuple = ()
    if snaps and rng:
        reader = RefReader(table)
        protected = _protected(reader, snaps, rng, tagged)
        files = tuple(_doomed_files(table, reader, snaps, rng, protected, retention.decoupled))
        if retention.decoupled:
            writes = tuple(snaps[i] for i in rng.ids)
    else:
        earliest, latest = (ids[0], ids[-1]) if ids else (None, None)
    changelog_plan = None
    if retention.decoupled:
        changelog_plan = plan_changelog_expire(
            table,
            retention,
            max_deletes=limit,
            now_ms=now_ms,
            consumer_next=consumer_next,
            pending={s.id: s for s in writes},
            gone=frozenset(f.path for f in files),
        )
    return ExpirePlan(
        earliest,
        latest,
        rng,
        files,
        tags,
        keep_min,
        keep_max,
        time_retained,
        limit,
        now_ms,
        writes,
        changelog_plan,
    )


@dataclass(frozen=True)
class ChangelogFlags:
    """Explicit changelog retention of one expiry run (``expire --changelog-*``): each set value
    overrides the table's ``changelog.*`` option; unset ones leave the table's retention as is."""

    retain_min: int | None = None
    retain_max: int | None = None
    older_than_ms: int | None = None


@dataclass(frozen=True)
class ExpireResult:
    plan: ExpirePlan
    dry_run: bool
    deleted: int  # files deleted (0 in a dry run)
    changelog: ChangelogPlan | None = None  # the changelog expiry run after the snapshots'

    @property
    def expired(self) -> list[int]:
        return [] if self.dry_run else self.plan.snapshot_ids

    @property
    def expired_changelogs(self) -> list[int]:
        plan = self.plan.changelog if self.dry_run else self.changelog
        return [] if plan is None or self.dry_run else plan.changelog_ids

    @property
    def files(self) -> tuple[PlannedFile, ...]:
        """Every file deleted (or planned): the snapshot expiry's, then the changelog expiry's."""
        c = self.plan.changelog if self.dry_run else self.changelog
        return self.plan.files + (c.files if c is not None else ())


def _run_snapshot_plan(table: TableContext, plan: ExpirePlan, progress) -> int:
    """Delete the plan's files in order; right before each snapshot file, write its changelog-N
    when the changelog is decoupled (an interrupted run re-plans and finishes)."""
    writes = {table.snapshots.path(s.id): s for s in plan.changelog_writes}
    cm = changelog_manager(table)
    n = 0
    for f in plan.files:
        snap = writes.get(f.path) if f.kind == "snapshot" else None
        if snap is not None:
            cm.commit(snap)
        n += execute_plan_files(table, (f,), progress)
    return n


def expire_snapshots(
    table: TableContext,
    older_than_ms: int | None = None,
    retain_min: int | None = None,
    retain_max: int | None = None,
    max_deletes: int | None = None,
    dry_run: bool = False,
    now_ms: int | None = None,
    progress: FileProgress | None = None,
    changelog_flags: ChangelogFlags | None = None,
) -> ExpireResult:
    """Expire old snapshots and delete the files only they used; see the module doc for the
    order. With a decoupled changelog lifecycle, the changelog expiry runs next (planned again on
    the new state). ``progress(PlannedFile)`` is called after each deletion."""
    plan = plan_expire(table, older_than_ms, retain_min, retain_max, max_deletes, now_ms, changelog_flags)
    if dry_run:
        return ExpireResult(plan, dry_run, 0)
    table.require_writable()
    n = 0
    if plan.range:
        prune_iceberg(table, plan.range.end)  # Iceberg readers never meet a file deleted below
        n = _run_snapshot_plan(table, plan, progress)
        table.snapshots.write_hint("EARLIEST", plan.range.end)
    elif (
        # a run interrupted after its deletions but before the hint: finish it (only expiry
        # removes snapshot 1, so an earliest above 1 means one ran)
        plan.earliest is not None
        and plan.earliest > 1
        and table.snapshots.read_hint("EARLIEST") != plan.earliest
    ):
        table.snapshots.write_hint("EARLIEST", plan.earliest)
    changelog = None
    if plan.changelog is not None:
        changelog = plan.changelog
        if plan.range:  # the state changed: plan the changelog expiry on it
            changelog = plan_changelog_expire(
                table,
                changelog.retention,
                max_deletes=plan.max_deletes,
                now_ms=plan.now_ms,
                consumer_next=oldest_consumer_next(table),
            )
        n += execute_changelog_plan(table, changelog, progress)
    return ExpireResult(plan, False, n, changelog)


def expire_after_commit(table: TableContext, now_ms: int | None = None) -> ExpireResult | None:
    """Expiry as Paimon's writers run it after a commit: table options only, off with
    ``write-only``; consumers idle longer than ``consumer.expiration-time`` are deleted first."""
    if table.schema.core_options.get(WRITE_ONLY):
        return None
    ttl = table.schema.core_options.get(CONSUMER_EXPIRATION_TIME)
    if ttl is not None:  # first, so that an abandoned consumer stops pinning snapshots (as Java)
        from paimon_core.metadata.consumer import consumer_manager

        consumer_manager(table).expire((clock_ms() if now_ms is None else now_ms) - ttl)
    try:
        return expire_snapshots(table, now_ms=now_ms)
    except (CommitConflict, SnapshotNotFound):
        # another process expired the same snapshots meanwhile: the commit this follows is
        # made, so losing that race must not look like a failed write
        return None


__all__ = [
    "ExpirePlan",
    "ExpireRange",
    "ExpireResult",
    "decide_expire_range",
    "expire_after_commit",
    "expire_snapshots",
    "plan_expire",
    "ChangelogFlags",
]
