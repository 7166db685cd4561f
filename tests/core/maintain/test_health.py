"""table_health on tables built to have known facts: levels and sorted runs, small files, bytes
only older snapshots hold, orphans, rows waiting in bucket-postpone. Expected values come from
the files on disk and the writes made, not from the health module's own helpers."""

from __future__ import annotations

import os
import time

import pyarrow as pa

from paimon_core.compaction.compaction import compact
from paimon_core.maintain import create_tag, expire_snapshots
from paimon_core.maintain.health import Thresholds, table_health
from paimon_core.metadata.schema import Schema
from paimon_core.write.conform import conform_table
from tests.core.maintain.helpers import FAR_FUTURE, batch, make_table

DAY = 86_400_000


def _finding(h, topic):
    return next(f for f in h.findings if f.topic == topic)


def _bucket_files(t):
    """bucket dir (relative, e.g. p=a/bucket-0) -> data file names on disk (the independent view)."""
    out = {}
    for d, _dirs, names in os.walk(t.path):
        if os.path.basename(d).startswith("bucket-"):
            out[os.path.relpath(d, t.path)] = sorted(n for n in names if n.startswith("data-"))
    return out


def test_pk_levels_runs_and_compaction_advice(catalog):
    # one bucket, trigger 3: writers compact only from 3 runs on; we never let them (write-only)
    t = make_table(
        catalog,
        "db.pk",
        True,
        {"bucket": "1", "num-sorted-run.compaction-trigger": "3", "write-only": "true"},
    )
    for i in range(4):
        t.write_arrow(batch(t, range(i * 10, i * 10 + 10), f"w{i}"))
    h = table_health(t, now_ms=FAR_FUTURE)
    assert h.primary_key and h.snapshot_id == 4 and len(h.buckets) == 1
    b = h.buckets[0]
    assert (b.partition, b.bucket) == ("", 0)
    assert [(lv.level, lv.files, lv.rows) for lv in b.levels] == [(0, 4, 40)]
    assert b.sorted_runs == 4 and b.level0_rows == 40 and h.level0_rows == 40
    assert b.files == len(_bucket_files(t)["bucket-0"]) == 4
    assert b.bytes == sum(
        os.path.getsize(os.path.join(t.path, "bucket-0", n)) for n in _bucket_files(t)["bucket-0"]
    )
    f = _finding(h, "sorted runs")
    assert f.level == "warn" and f.command == "paimon compact" and ">= 3" in f.threshold
    # every file is tiny: small against a quarter of the 128 MB default target, but 4 < 10 per bucket
    assert h.thresholds.small_file_bytes == 32 * 1024 * 1024 and h.small_files == 4
    assert _finding(h, "small files").level == "ok"
    assert h.dv_ratio is None and h.postpone_rows == 0

    compact(t, full=True)
    h2 = table_health(t, now_ms=FAR_FUTURE)
    top = t.schema.core_options.num_levels - 1
    assert [(lv.level, lv.files, lv.rows) for lv in h2.buckets[0].levels] == [(top, 1, 40)]
    assert h2.buckets[0].sorted_runs == 1 and h2.level0_rows == 0
    assert _finding(h2, "sorted runs").level == "ok"
    # the four level-0 files are now used only by snapshots 1-4
    assert h2.held_files == 4 and h2.held_bytes == b.bytes
    assert h2.snapshots.count == 5


def test_small_files_threshold_and_append_table(catalog):
    t = make_table(catalog, "db.ap", False)
    for i in range(3):
        t.write_arrow(batch(t, range(i * 4, i * 4 + 4), f"w{i}"))  # partitions a and b each time
    h = table_health(
        t,
        now_ms=FAR_FUTURE,
        thresholds=Thresholds(runs_trigger=5, small_file_bytes=10**6, small_files_per_bucket=3),
    )
    assert not h.primary_key and h.num_levels is None
    assert [(b.partition, b.bucket, b.files, b.rows, b.sorted_runs) for b in h.buckets] == [
        ("p=a", 0, 3, 6, None),
        ("p=b", 0, 3, 6, None),
    ]
    assert h.rows == 12 and h.small_files == 6
    f = _finding(h, "small files")
    assert f.level == "warn" and f.command == "paimon compact --level-max" and ">= 3 files" in f.threshold
    assert not any(f.topic == "sorted runs" for f in h.findings)
    big = table_health(t, now_ms=FAR_FUTURE, thresholds=Thresholds(runs_trigger=5, small_file_bytes=10))
    assert big.small_files == 0 and _finding(big, "small files").level == "ok"


def test_expirable_snapshots_held_bytes_and_tags(catalog):
    t = make_table(
        catalog, "db.ex", False, {"snapshot.num-retained.min": "2", "snapshot.time-retained": "1h"}
    )
    t.write_arrow(batch(t, range(4), "a"))
    first = set().union(*_bucket_files(t).values())
    t.write_arrow(batch(t, range(4), "b"), overwrite=True)  # replaces every file
    t.write_arrow(batch(t, range(4), "c"), overwrite=True)
    t.write_arrow(batch(t, range(4), "d"), overwrite=True)
    now = int(time.time() * 1000)
    young = table_health(t, now_ms=now)
    assert young.snapshots.count == 4 and young.snapshots.expirable == 0  # all younger than 1h
    assert _finding(young, "snapshots").level == "ok"
    old = table_health(t, now_ms=now + DAY)
    assert old.snapshots.expirable == 2 and old.snapshots.oldest_age_ms >= DAY
    f = _finding(old, "snapshots")
    assert f.level == "warn" and f.command == "paimon expire" and "newest 2 older than 1h" in f.threshold
    # three generations of files are used only by snapshots 1-3
    live = {b.partition: b.files for b in old.buckets}
    on_disk = set().union(*_bucket_files(t).values())
    assert old.held_files == len(on_disk) - sum(live.values())
    create_tag(t, "keep", 1)
    expire_snapshots(t, retain_min=1, now_ms=FAR_FUTURE)
    h = table_health(t, now_ms=FAR_FUTURE)
    assert h.snapshots.count == 1 and h.snapshots.tags == 1
    # only the tag holds generation one now
    paths = {os.path.basename(p) for p in first}
    assert h.held_files == len(paths)
    assert h.held_bytes == sum(os.path.getsize(p) for p in _all_paths(t) if os.path.basename(p) in paths)


def _all_paths(t):
    return [os.path.join(d, n) for d, _, names in os.walk(t.path) for n in names]


def test_orphans_counted_in_dry_run(catalog):
    t = make_table(catalog, "db.or", True)
    t.write_arrow(batch(t, range(10), "a"))
    w = t.new_writer()  # a writer that died before committing
    w.write(conform_table(batch(t, range(50, 60), "crash"), t.schema))
    stray = [
        os.path.join(t.bucket_path(m.partition, m.bucket), f.file_name)
        for m in w.prepare_commit()
        for f in m.new_files
    ]
    assert stray
    now = int(time.time() * 1000)
    young = table_health(t, now_ms=now)
    assert young.orphan_files == 0 and _finding(young, "orphans").level == "ok"
    h = table_health(t, now_ms=now + 2 * DAY)
    assert h.orphan_files == len(stray) and h.orphan_bytes == sum(os.path.getsize(p) for p in stray)
    f = _finding(h, "orphans")
    assert f.level == "warn" and f.command == "paimon remove-orphans" and "older than 1d" in f.threshold
    assert all(os.path.exists(p) for p in stray)  # a dry run


def test_postpone_rows(catalog):
    cols = "dt STRING NOT NULL, id BIGINT NOT NULL, n BIGINT"
    t = catalog.create_table(
        "db.pp",
        Schema(
            Schema.parse_columns(cols),
            partition_keys=("dt",),
            primary_keys=("dt", "id"),
            options={"bucket": "-2", "postpone.batch-write-fixed-bucket": "false"},
        ),
    )
    t.write_arrow(
        pa.table(
            {
                "dt": ["a", "a", "b"],
                "id": pa.array([1, 2, 3], pa.int64()),
                "n": pa.array([1, 2, 3], pa.int64()),
            }
        )
    )
    h = table_health(t, now_ms=FAR_FUTURE)
    assert h.bucket_mode == -2 and h.postpone_rows == 3
    assert {(b.partition, b.bucket, b.rows, b.sorted_runs) for b in h.buckets} == {
        ("dt=a", -2, 2, None),
        ("dt=b", -2, 1, None),
    }
    f = _finding(h, "postpone")
    assert f.level == "warn" and f.command == "paimon compact" and "3 row(s)" in f.text
    compact(t)
    h2 = table_health(t, now_ms=FAR_FUTURE)
    assert h2.postpone_rows == 0 and not any(f.topic == "postpone" for f in h2.findings)
    assert sum(b.rows for b in h2.buckets) == 3 and all(b.bucket >= 0 for b in h2.buckets)


def test_empty_table_and_json_dict(catalog):
    t = make_table(catalog, "db.em", True)
    h = table_health(t)
    assert h.snapshot_id is None and h.buckets == () and h.snapshots.count == 0 and h.held_bytes == 0
    d = h.to_dict()
    assert d["table"] == "db.em" and d["findings"] and d["snapshots"]["count"] == 0


def _with_deletion_vectors(t, cardinalities):
    """Commit a snapshot whose index manifest marks ``cardinalities[i]`` rows deleted in the i-th
    live data file (the layout of Paimon's DELETION_VECTORS index entries: one index file per
    bucket, a (data file, offset, length, cardinality) range per vector)."""
    from dataclasses import replace

    from paimon_core.metadata.index_manifest import IndexEntry, IndexStore
    from paimon_core.metadata.live_files import live_entries
    from paimon_core.metadata.manifest import ADD

    latest = t.snapshots.latest()
    files = live_entries(t.manifests, latest)
    store = IndexStore(t.io, t.path)
    blob = b"\0" * 64
    t.io.write_bytes(os.path.join(t.path, "index", "index-dv-0"), blob)
    ranges = tuple((e.file.file_name, 8 * i, 8, c) for i, (e, c) in enumerate(zip(files, cardinalities)))
    entry = IndexEntry(
        ADD,
        files[0].partition,
        files[0].bucket,
        "DELETION_VECTORS",
        "index-dv-0",
        len(blob),
        len(ranges),
        ranges,
    )
    name = store.write_manifest([entry])
    snap = replace(latest, id=latest.id + 1, index_manifest=name, commit_kind="COMPACT")
    assert t.snapshots.try_commit(snap)


def test_deletion_vector_ratio(catalog):
    t = make_table(catalog, "db.dv", True, {"bucket": "1"})
    for i in range(2):
        t.write_arrow(batch(t, range(i * 50, i * 50 + 50), f"w{i}"))  # two files of 50 rows
    assert table_health(t, now_ms=FAR_FUTURE).dv_ratio is None  # no deletion vectors: n/a
    _with_deletion_vectors(t, [15, 10])
    h = table_health(t, now_ms=FAR_FUTURE)
    assert h.rows == 100 and h.dv_deleted_rows == 25 and h.dv_ratio == 0.25
    f = _finding(h, "deletion vectors")
    assert f.level == "warn" and f.command == "paimon compact --level-max" and "20%" in f.threshold
    _with_deletion_vectors(t, [5, None])  # a cardinality not recorded: the ratio is unknown, not a guess
    assert table_health(t, now_ms=FAR_FUTURE).dv_ratio is None
