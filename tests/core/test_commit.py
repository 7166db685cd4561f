"""Commits: concurrent writers in separate processes never lose or duplicate a committed row,
snapshot ids stay gapless, and manifests are merged once they pile up."""

import multiprocessing as mp
import os

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.commit.file_store_commit import CommitOptions
from paimon_core.errors import CommitConflict
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.schema import Schema


def _writer(warehouse, worker, commits, barrier):
    t = FileSystemCatalog(warehouse).get_table("db.t")
    barrier.wait()
    for c in range(commits):
        base = worker * 1000 + c * 10
        t.write_arrow(pa.table({"id": pa.array(range(base, base + 10), pa.int64()), "w": [worker] * 10}))


@pytest.mark.slow
def test_concurrent_processes_lose_nothing(tmp_path):
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    cat.create_table(
        "db.t", Schema(Schema.parse_columns("id BIGINT, w INT"), options={"commit.max-retries": "100"})
    )
    workers, commits = 4, 5
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(workers)
    procs = [ctx.Process(target=_writer, args=(wh, w, commits, barrier)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    t = cat.get_table("db.t")
    ids = t.read().column("id").to_pylist()
    expected = [w * 1000 + c * 10 + i for w in range(workers) for c in range(commits) for i in range(10)]
    assert sorted(ids) == sorted(expected)  # exactly once each
    assert t.snapshots.list_ids() == list(range(1, workers * commits + 1))
    for s in t.snapshots.snapshots():
        assert s.delta_record_count == 10


def test_losing_writer_retries_on_top_of_the_winner(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT")))
    writer = t.new_writer()
    writer.write(pa.table({"id": pa.array([1, 2], pa.int64())}))
    messages = writer.prepare_commit()
    t.write_arrow(pa.table({"id": pa.array([3], pa.int64())}))  # someone else commits first
    commit = t.new_commit()
    other = cat.get_table("db.t")
    real_try = t.snapshots.try_commit
    calls = []

    def racing_try(snapshot):
        calls.append(snapshot.id)
        if len(calls) == 1:  # a third writer takes our id just before us
            other.write_arrow(pa.table({"id": pa.array([4], pa.int64())}))
        return real_try(snapshot)

    t.snapshots.try_commit = racing_try
    snap = commit.commit(messages)
    assert calls == [2, 3] and snap.id == 3
    assert sorted(t.read().column("id").to_pylist()) == [1, 2, 3, 4]
    assert snap.total_record_count == 4
    # the loser's manifest lists were removed: every list on disk is referenced by a snapshot
    referenced = set()
    for s in t.snapshots.snapshots():
        referenced |= {s.base_manifest_list, s.delta_manifest_list}
    lists = {n for n in os.listdir(os.path.join(t.path, "manifest")) if n.startswith("manifest-list-")}
    assert lists == referenced


def test_deleting_a_file_that_is_gone_is_a_conflict(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT")))
    t.write_arrow(pa.table({"id": pa.array([1], pa.int64())}))
    f = t.plan(t.snapshots.latest())[0].files[0]
    t.write_arrow(pa.table({"id": pa.array([2], pa.int64())}), overwrite=True)  # removes f
    with pytest.raises(CommitConflict):
        t.commit([CommitMessage((), 0, -1, compact_before=(f,), compact_after=())], CommitOptions())
    assert t.snapshots.latest_id() == 2


def test_manifests_are_merged_and_reads_stay_equal(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table(
        "db.t", Schema(Schema.parse_columns("id BIGINT"), options={"manifest.merge-min-count": "5"})
    )
    for i in range(12):
        t.write_arrow(pa.table({"id": pa.array([i], pa.int64())}))
    latest = t.snapshots.latest()
    assert len(t.manifests.read_list(latest.base_manifest_list)) < 5
    assert sorted(t.read().column("id").to_pylist()) == list(range(12))
    for sid in range(1, 13):
        assert t.read(snapshot_id=sid).num_rows == sid


def test_stale_latest_hint_is_not_trusted(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT")))
    for i in range(3):
        t.write_arrow(pa.table({"id": pa.array([i], pa.int64())}))
    with open(os.path.join(t.path, "snapshot", "LATEST"), "w") as f:
        f.write("1")
    assert t.snapshots.latest_id() == 3
    os.unlink(os.path.join(t.path, "snapshot", "LATEST"))
    assert t.snapshots.latest_id() == 3
    t.write_arrow(pa.table({"id": pa.array([9], pa.int64())}))
    assert t.snapshots.latest_id() == 4


def test_an_id_freed_by_expiry_is_not_taken_by_a_late_writer(tmp_path):
    """A writer built snapshot 3 on snapshot 2; meanwhile others committed 3..5 and an expirer
    deleted 1..4. Creating snapshot-3 would succeed on storage (the file is gone) and put the
    writer's rows in a snapshot outside the chain (lost). It must retry on 5 and land as 6."""
    from paimon_core.maintain import expire_snapshots

    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT")))
    for i in (1, 2):
        t.write_arrow(pa.table({"id": pa.array([i], pa.int64())}))
    writer = t.new_writer()
    writer.write(pa.table({"id": pa.array([100], pa.int64())}))
    messages = writer.prepare_commit()
    other = cat.get_table("db.t")
    real_try = t.snapshots.try_commit
    calls = []

    def late_try(snapshot):
        calls.append(snapshot.id)
        if len(calls) == 1:
            for i in (3, 4, 5):
                other.write_arrow(pa.table({"id": pa.array([i], pa.int64())}))
            expire_snapshots(other, older_than_ms=0, retain_min=1)
            assert other.snapshots.list_ids() == [5]
        return real_try(snapshot)

    t.snapshots.try_commit = late_try
    snap = t.commit(messages)
    assert calls == [3, 6] and snap.id == 6
    assert t.snapshots.list_ids() == [5, 6]
    assert sorted(cat.get_table("db.t").read().column("id").to_pylist()) == [1, 2, 3, 4, 5, 100]


def test_a_snapshot_created_below_a_newer_one_is_taken_back(tmp_path):
    """snapshot-(N-1) and snapshot-(N+1) exist, snapshot-N does not (its id was freed): a create
    of snapshot-N is undone and reported as a lost race."""
    from dataclasses import replace

    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT")))
    for i in (1, 2, 3):
        t.write_arrow(pa.table({"id": pa.array([i], pa.int64())}))
    s2 = t.snapshots.snapshot(2)
    os.remove(t.snapshots.path(2))
    assert not t.snapshots.try_commit(replace(s2, uuid="another"))
    assert t.snapshots.list_ids() == [1, 3]


def test_retry_waits_double_up_to_a_second_with_up_to_a_fifth_more_at_random():
    """As Java's RetryWaiter: writers that lost the same race do not come back in step."""
    from paimon_core.commit.file_store_commit import retry_wait

    for attempt, base in ((0, 0.01), (3, 0.08), (6, 0.64), (7, 1.0), (30, 1.0)):
        waits = [retry_wait(attempt) for _ in range(200)]
        assert all(base <= w <= base * 1.2 for w in waits), (attempt, min(waits), max(waits))
        assert len(set(waits)) > 1
