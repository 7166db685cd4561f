"""A table's health at a glance: the facts ``paimon doctor`` draws, and what to run about them.

Pure analysis (no terminal code). :func:`table_health` reads each manifest once (the table's
``ManifestStore`` caches them, so the per-snapshot references and the orphan planner reuse what
the latest snapshot's scan read) and returns a :class:`TableHealth`:

* per partition and bucket of the latest snapshot: files, bytes and rows per LSM level, the
  sorted runs (each level-0 file is one run, each other non-empty level one more; primary-key
  tables only), small files, rows waiting in level 0; rows waiting in ``bucket-postpone``
  (bucket = -2 tables), which batch reads do not see until a compaction;
* the deletion-vector ratio: rows marked deleted by the latest snapshot's ``DELETION_VECTORS``
  index entries (the cardinality of each range) over the rows of the live data files (``None``
  when the table has no deletion vectors, or a vector's cardinality is not recorded);
* snapshots (count, ages, how many ``expire`` with the table's settings would remove), tags, the
  files (data, changelog, index) that only older snapshots or tags still use, and orphan files
  (the remove-orphans planner, dry run, with its one-day default; the manifests it reads are
  mostly cached by the reads here).

Every :class:`Finding` names its threshold, so the advice can be checked by a reader.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

from paimon_core.clock import now_ms as clock_ms
from paimon_core.errors import PaimonError
from paimon_core.maintain.expire import decide_expire_range, oldest_consumer_next
from paimon_core.maintain.orphans import DAY_MS, plan_orphans
from paimon_core.maintain.refs import RefReader, Refs
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.tags import tag_manager
from paimon_core.options.bucket_mode import POSTPONE_BUCKET
from paimon_core.options.registry import (
    DELETION_VECTORS_ENABLED,
    NUM_SORTED_RUN_COMPACTION_TRIGGER,
    SNAPSHOT_EXPIRE_LIMIT,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_TIME_RETAINED,
)

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class Thresholds:
    """When a fact becomes advice. ``runs_trigger`` is the table's
    ``num-sorted-run.compaction-trigger``; a file is small below ``small_file_bytes``
    (a quarter of the table's ``target-file-size``)."""

    runs_trigger: int
    small_file_bytes: int
    small_files_per_bucket: int = 10  # a bucket with this many small files: full compaction
    dv_ratio: float = 0.2  # deleted rows / rows: full compaction rewrites files without them
    orphan_age_ms: int = DAY_MS  # remove-orphans' default cut-off


@dataclass(frozen=True)
class LevelStats:
    level: int
    files: int
    bytes: int
    rows: int


@dataclass(frozen=True)
class BucketHealth:
    """One bucket of one partition in the latest snapshot (bucket -2: rows waiting to be assigned)."""

    partition: str  # the partition as shown (dt=2024-01-01,hr=3: dates as dates), "" when unpartitioned
    bucket: int
    levels: tuple[LevelStats, ...]  # non-empty levels, ascending
    sorted_runs: int | None  # None for append tables (no LSM) and the postpone bucket
    small_files: int
    level0_rows: int  # PK tables: rows in level-0 files, merged on every read

    @property
    def postponed(self) -> bool:
        """The ``bucket-postpone`` folder: rows no read sees until a compaction assigns them."""
        return self.bucket == POSTPONE_BUCKET

    @property
    def files(self) -> int:
        return sum(v.files for v in self.levels)

    @property
    def bytes(self) -> int:
        return sum(v.bytes for v in self.levels)

    @property
    def rows(self) -> int:
        return sum(v.rows for v in self.levels)


@dataclass(frozen=True)
class SnapshotStats:
    count: int
    earliest: int | None
    latest: int | None
    oldest_age_ms: int | None  # now - commit time of the earliest snapshot
    newest_age_ms: int | None
    tags: int
    expirable: int  # snapshots `paimon expire` would remove with the table's settings
    retain_min: int
    time_retained_ms: int


@dataclass(frozen=True)
class Finding:
    """One observation: ``level`` is "ok" or "warn"; ``command`` what to run (None: nothing)."""

    topic: str
    level: str
    text: str
    threshold: str
    command: str | None = None


@dataclass(frozen=True)
class TableHealth:
    table: str
    primary_key: bool
    bucket_mode: int  # the ``bucket`` option: N, -1 dynamic, -2 postpone
    num_levels: int | None
    thresholds: Thresholds
    snapshot_id: int | None  # the latest snapshot, None for an empty table
    buckets: tuple[BucketHealth, ...]
    files: int
    bytes: int
    rows: int  # physical rows of the live files (before merging keys)
    small_files: int
    level0_rows: int
    postpone_rows: int
    dv_deleted_rows: int | None
    dv_ratio: float | None
    snapshots: SnapshotStats
    held_files: int  # files only older snapshots or tags use
    held_bytes: int
    orphan_files: int | None  # None when the planner refused (a branch without a schema), see orphans_note
    orphan_bytes: int | None
    orphans_note: str | None
    missing_files: tuple[str, ...] = ()  # live data files that are not in storage (paths in the table)
    findings: tuple[Finding, ...] = field(default=())

    def to_dict(self) -> dict:
        d = asdict(self)
        for b, src in zip(d["buckets"], self.buckets):
            b.update(files=src.files, bytes=src.bytes, rows=src.rows)
        return d


def _bucket_health(
    table: TableContext, partition: str, bucket: int, entries, pk: bool, small: int
) -> BucketHealth:
    levels: dict[int, list[int]] = {}
    n_small = 0
    for e in entries:
        s = levels.setdefault(e.file.level, [0, 0, 0])
        s[0] += 1
        s[1] += e.file.file_size
        s[2] += e.file.row_count
        n_small += e.file.file_size < small
    stats = tuple(LevelStats(lv, *levels[lv]) for lv in sorted(levels))
    lsm = pk and bucket != POSTPONE_BUCKET
    runs = None
    if lsm:
        runs = sum(s.files if s.level == 0 else 1 for s in stats)
    l0 = sum(s.rows for s in stats if s.level == 0) if lsm else 0
    return BucketHealth(partition, bucket, stats, runs, n_small, l0)


def _deletion_vectors(table: TableContext, snapshot, rows: int) -> tuple[int | None, float | None]:
    """(deleted rows, ratio); a table with ``deletion-vectors.enabled`` and no vector yet is 0,
    any other table without vectors is None (n/a)."""
    enabled = table.schema.core_options.get(DELETION_VECTORS_ENABLED)
    none = (0, 0.0) if enabled and snapshot is not None else (None, None)
    if snapshot is None or not snapshot.index_manifest:
        return none
    from paimon_core.metadata.deletion_vectors import deleted_rows, dv_entries

    entries = dv_entries(table, snapshot)
    if not entries:
        return none
    deleted = deleted_rows(entries)
    if deleted is None:
        return None, None  # a cardinality not recorded: the ratio is unknown, not 0
    return deleted, (deleted / rows if rows else 0.0)


def _snapshot_stats(table: TableContext, snaps: dict, tags: int, now_ms: int) -> SnapshotStats:
    opts = table.schema.core_options
    retain_min = opts.get(SNAPSHOT_NUM_RETAINED_MIN)
    time_retained = opts.get(SNAPSHOT_TIME_RETAINED)
    ids = sorted(snaps)
    if not ids:
        return SnapshotStats(0, None, None, None, None, tags, 0, retain_min, time_retained)
    rng = decide_expire_range(
        ids,
        {i: s.time_millis for i, s in snaps.items()},
        retain_min=retain_min,
        retain_max=opts.get(SNAPSHOT_NUM_RETAINED_MAX),
        time_retained_ms=time_retained,
        max_deletes=opts.get(SNAPSHOT_EXPIRE_LIMIT),
        now_ms=now_ms,
        consumer_next=oldest_consumer_next(table),
    )
    first, last = snaps[ids[0]], snaps[ids[-1]]
    return SnapshotStats(
        len(ids),
        ids[0],
        ids[-1],
        now_ms - first.time_millis,
        now_ms - last.time_millis,
        tags,
        len([i for i in rng.ids if i in snaps]),
        retain_min,
        time_retained,
    )


def _held(reader: RefReader, latest, older) -> tuple[int, int]:
    """Files (data, changelog, index) some older snapshot or tag uses and the latest does not."""
    if latest is None:
        return 0, 0
    now = reader.refs(latest)
    old = Refs()
    for s in older:
        old.update(reader.refs(s))
    files = bytes_ = 0
    for kind in ("data", "changelog", "index"):
        mine = getattr(now, kind)
        for p, size in getattr(old, kind).items():
            if p not in mine:
                files += 1
                bytes_ += max(size, 0)
    return files, bytes_


def _mb(n: int) -> str:
    """Bytes in binary units, one decimal unless whole: 32 MiB, 1.5 KiB, 700 B."""
    value, unit = float(n), "B"
    for u in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, u
    return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"


def _duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def _missing_files(table: TableContext, keyed) -> tuple[str, ...]:
    """Live data files not in storage: one listing per bucket (a file with an external path is
    checked alone); paths relative to the table, sorted."""
    from paimon_core.paths import bucket_dir

    missing = []
    for _, part, bucket, entries in keyed:
        folder = bucket_dir(table.path, part, bucket)
        present = None
        for e in entries:
            if e.file.external_path:
                if not table.io.exists(e.file.external_path):
                    missing.append(e.file.external_path)
                continue
            if present is None:
                present = set(table.io.list_names(folder))
            if e.file.file_name not in present:
                missing.append(folder[len(table.path.rstrip("/")) + 1 :] + "/" + e.file.file_name)
    return tuple(sorted(missing))


def _findings(h: TableHealth) -> tuple[Finding, ...]:
    t, out = h.thresholds, []
    rule = "every data file of the latest snapshot is in storage"
    if h.missing_files:
        n, first = len(h.missing_files), h.missing_files[0]
        out.append(
            Finding(
                "missing files",
                "warn",
                f"{n} live data file(s) are gone from storage (first: {first}): every read of the "
                "latest snapshot fails. Restore them from a backup or copy, or roll back to a "
                "snapshot that does not use them (paimon rollback --to N; paimon files --snapshot N "
                "lists what N uses)",
                rule,
            )
        )
    else:
        out.append(Finding("missing files", "ok", f"all {h.files} live data file(s) are in storage", rule))
    if h.primary_key:
        crowded = [b for b in h.buckets if b.sorted_runs is not None and b.sorted_runs >= t.runs_trigger]
        rule = f"sorted runs >= {t.runs_trigger} in a bucket (num-sorted-run.compaction-trigger)"
        if crowded:
            worst = max(b.sorted_runs or 0 for b in crowded)  # each is set: see crowded
            out.append(
                Finding(
                    "sorted runs",
                    "warn",
                    f"{len(crowded)} bucket(s) with up to {worst} sorted runs: every read merges them",
                    rule,
                    "paimon compact",
                )
            )
        else:
            most = max((b.sorted_runs or 0 for b in h.buckets), default=0)
            out.append(Finding("sorted runs", "ok", f"at most {most} sorted run(s) per bucket", rule))
        if h.level0_rows:
            out.append(
                Finding(
                    "level 0",
                    "ok",
                    f"{h.level0_rows} row(s) in level 0 (merged on read until compacted)",
                    "informational: compaction moves them up",
                )
            )
    many = [b for b in h.buckets if b.small_files >= t.small_files_per_bucket]
    rule = (
        f">= {t.small_files_per_bucket} files under {_mb(t.small_file_bytes)} in a bucket "
        "(a quarter of target-file-size)"
    )
    if many:
        out.append(
            Finding(
                "small files",
                "warn",
                f"{sum(b.small_files for b in many)} small file(s) in {len(many)} bucket(s)",
                rule,
                "paimon compact --level-max",
            )
        )
    else:
        out.append(
            Finding("small files", "ok", f"{h.small_files} small file(s), no bucket over the limit", rule)
        )
    if h.postpone_rows:
        out.append(
            Finding(
                "postpone",
                "warn",
                f"{h.postpone_rows} row(s) wait in bucket-postpone: reads do not see them",
                "any row waiting",
                "paimon compact",
            )
        )
    if h.dv_ratio is not None:
        rule = f"deleted rows >= {t.dv_ratio:.0%} of rows (deletion vectors)"
        if h.dv_ratio >= t.dv_ratio:
            out.append(
                Finding(
                    "deletion vectors",
                    "warn",
                    f"{h.dv_ratio:.0%} of rows are marked deleted",
                    rule,
                    "paimon compact --level-max",
                )
            )
        else:
            out.append(
                Finding("deletion vectors", "ok", f"{h.dv_ratio:.0%} of rows are marked deleted", rule)
            )
    s = h.snapshots
    rule = (
        f"snapshots beyond the newest {s.retain_min} older than {_duration(s.time_retained_ms)} "
        "(snapshot.num-retained.min, snapshot.time-retained)"
    )
    if s.expirable:
        out.append(
            Finding(
                "snapshots",
                "warn",
                f"{s.expirable} of {s.count} snapshot(s) can expire; "
                f"{h.held_files} file(s), {_mb(h.held_bytes)} only older snapshots or tags use",
                rule,
                "paimon expire",
            )
        )
    else:
        out.append(
            Finding(
                "snapshots",
                "ok",
                f"{s.count} snapshot(s), none to expire; {h.held_files} file(s), "
                f"{_mb(h.held_bytes)} only older snapshots or tags use",
                rule,
            )
        )
    rule = f"unreferenced files older than {_duration(t.orphan_age_ms)}"
    if h.orphan_files is None:
        out.append(Finding("orphans", "ok", f"not checked: {h.orphans_note}", rule))
    elif h.orphan_files:
        out.append(
            Finding(
                "orphans",
                "warn",
                f"{h.orphan_files} orphan file(s), {_mb(h.orphan_bytes or 0)}",
                rule,
                "paimon remove-orphans",
            )
        )
    else:
        out.append(Finding("orphans", "ok", "no orphan files", rule))
    return tuple(out)


def table_health(
    table: TableContext, now_ms: int | None = None, thresholds: Thresholds | None = None
) -> TableHealth:
    """The health of ``table`` at its latest snapshot (see the module docstring)."""
    now_ms = clock_ms() if now_ms is None else now_ms
    opts = table.schema.core_options
    pk = table.is_primary_key_table
    if thresholds is None:
        thresholds = Thresholds(
            runs_trigger=opts.get(NUM_SORTED_RUN_COMPACTION_TRIGGER),
            small_file_bytes=opts.target_file_size // 4,
        )
    sm = table.snapshots
    snaps = {}
    for i in sm.list_ids():
        try:
            snaps[i] = sm.snapshot(i)
        except PaimonError:
            if sm.exists(i):
                raise  # otherwise expired while we listed
    latest = snaps[max(snaps)] if snaps else None
    entries = live_entries(table.manifests, latest)
    groups: dict[tuple[bytes, int], list] = {}
    for e in entries:
        groups.setdefault((e.partition, e.bucket), []).append(e)
    codec = table.partition_codec
    keyed = [  # (the partition as shown: dates as dates, its folder, bucket, entries)
        (
            codec.display(codec.spec(codec.from_bytes(p))) if table.schema.partition_keys else "",
            codec.path(codec.from_bytes(p)) if table.schema.partition_keys else "",
            b,
            es,
        )
        for (p, b), es in groups.items()
    ]
    buckets = tuple(
        _bucket_health(table, part, b, es, pk, thresholds.small_file_bytes)
        for part, _, b, es in sorted(keyed, key=lambda x: (x[1], x[2] == POSTPONE_BUCKET, x[2]))
    )
    real = [b for b in buckets if b.bucket != POSTPONE_BUCKET]
    rows = sum(b.rows for b in real)
    dv_deleted, dv_ratio = _deletion_vectors(table, latest, rows)

    tagged = tag_manager(table).tagged()
    reader = RefReader(table)
    older = [s for i, s in snaps.items() if latest is not None and i != latest.id] + list(tagged.values())
    held_files, held_bytes = _held(reader, latest, older)
    try:
        plan = plan_orphans(table, thresholds.orphan_age_ms, now_ms)  # the manifests read above are cached
        orphans, orphan_bytes, note = len(plan.files), plan.total_bytes, None
    except PaimonError as e:
        orphans, orphan_bytes, note = None, None, str(e)

    h = TableHealth(
        table=table.identifier,
        primary_key=pk,
        bucket_mode=opts.bucket,
        num_levels=opts.num_levels if pk else None,
        thresholds=thresholds,
        snapshot_id=latest.id if latest else None,
        buckets=buckets,
        files=sum(b.files for b in buckets),
        bytes=sum(b.bytes for b in buckets),
        rows=rows,
        small_files=sum(b.small_files for b in buckets),
        level0_rows=sum(b.level0_rows for b in buckets),
        postpone_rows=sum(b.rows for b in buckets if b.bucket == POSTPONE_BUCKET),
        dv_deleted_rows=dv_deleted,
        dv_ratio=dv_ratio,
        snapshots=_snapshot_stats(table, snaps, len(tagged), now_ms),
        held_files=held_files,
        held_bytes=held_bytes,
        orphan_files=orphans,
        orphan_bytes=orphan_bytes,
        orphans_note=note,
        missing_files=_missing_files(table, keyed),
    )
    return replace(h, findings=_findings(h))


__all__ = [
    "BucketHealth",
    "Finding",
    "LevelStats",
    "SnapshotStats",
    "TableHealth",
    "Thresholds",
    "table_health",
]
