"""Expire on real tables: retained snapshots and tags read as before, expired ones are gone,
and exactly the referenced files remain."""

import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import SnapshotNotFound
from paimon_core.maintain import create_tag, expire_snapshots, files, plan_expire
from tests.core.maintain.helpers import (
    FAR_FUTURE,
    assert_files_equal_referenced,
    batch,
    data_and_meta_files,
    make_table,
    rows,
)


def build(catalog, pk: bool):
    t = make_table(catalog, "db.pk" if pk else "db.app", pk)
    for i in range(6):
        t.write_arrow(batch(t, range(i, i + 3), f"w{i}"), overwrite=(not pk and i == 3))
        if pk and i in (2, 4):
            full_compact(t)
    return t


def reads(t):
    return {i: rows(t.read(snapshot_id=i)) for i in t.snapshots.list_ids()}


@pytest.mark.parametrize("pk", [False, True])
def test_expire_keeps_retained_and_tags(catalog, pk):
    t = build(catalog, pk)
    create_tag(t, "early", 2)
    before = reads(t)
    latest = max(before)
    res = expire_snapshots(t, retain_min=2, now_ms=FAR_FUTURE)
    assert res.expired == list(range(1, latest - 1))
    assert t.snapshots.list_ids() == [latest - 1, latest]
    assert t.snapshots.earliest_id() == latest - 1
    assert t.io.read_text(t.io.join(t.snapshots.dir, "EARLIEST")) == str(latest - 1)
    for i in (latest - 1, latest):
        assert rows(t.read(snapshot_id=i)) == before[i]
    assert rows(t.read(tag="early")) == before[2]
    for i in range(1, latest - 1):
        with pytest.raises(SnapshotNotFound):
            t.read(snapshot_id=i)
    assert_files_equal_referenced(t)


@pytest.mark.parametrize("pk", [False, True])
def test_dry_run_deletes_nothing_and_matches_run(catalog, pk):
    t = build(catalog, pk)
    files_before = data_and_meta_files(t)
    plan = expire_snapshots(t, retain_min=2, now_ms=FAR_FUTURE, dry_run=True).plan
    assert data_and_meta_files(t) == files_before
    assert plan.snapshot_ids and plan.total_bytes > 0
    assert [f.kind for f in plan.files][-len(plan.snapshot_ids) :] == ["snapshot"] * len(plan.snapshot_ids)
    assert "retain-min" in plan.protection()
    gone = {f.path for f in plan.files if f.kind != "snapshot"}
    expire_snapshots(t, retain_min=2, now_ms=FAR_FUTURE)
    assert files_before - data_and_meta_files(t) == gone


def test_defaults_keep_young_and_ten(catalog):
    t = build(catalog, True)
    n = len(t.snapshots.list_ids())
    assert not expire_snapshots(t).plan.range  # all younger than 1 h
    res = expire_snapshots(t, now_ms=FAR_FUTURE)  # old, but the newest 10 are kept
    assert len(t.snapshots.list_ids()) == min(n, 10) and len(res.expired) == max(0, n - 10)
    assert not expire_snapshots(t, older_than_ms=FAR_FUTURE, retain_min=1).plan.range  # older-than overrides


def test_table_options_drive_expire(catalog):
    t = make_table(
        catalog,
        "db.o",
        True,
        {"snapshot.num-retained.min": "2", "snapshot.expire.limit": "3", "snapshot.time-retained": "1 s"},
    )
    for i in range(8):
        t.write_arrow(batch(t, [i], "x"))
    res = expire_snapshots(t, now_ms=FAR_FUTURE)
    assert res.expired == [1, 2, 3] and res.plan.range.reason == "expire-limit"
    latest = t.snapshots.latest_id()
    for _ in range(3):
        expire_snapshots(t, now_ms=FAR_FUTURE)
    assert t.snapshots.list_ids() == [latest - 1, latest]
    assert_files_equal_referenced(t)


@pytest.mark.parametrize("pk", [False, True])
@pytest.mark.parametrize("frac", [0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
def test_interrupted_expire_can_be_rerun(catalog, monkeypatch, pk, frac):
    t = build(catalog, pk)
    create_tag(t, "keep", 3)
    before = reads(t)
    latest = max(before)
    k = int(frac * len(plan_expire(t, retain_min=2, now_ms=FAR_FUTURE).files))
    real = files.delete_file
    count = {"n": 0}

    def flaky(io, path):
        if count["n"] >= k:
            raise OSError("simulated crash")
        count["n"] += 1
        real(io, path)

    monkeypatch.setattr(files, "delete_file", flaky)
    with pytest.raises(OSError):
        expire_snapshots(t, retain_min=2, now_ms=FAR_FUTURE)
    monkeypatch.setattr(files, "delete_file", real)
    # retained snapshots and tags still read as before, even mid-way
    assert rows(t.read(snapshot_id=latest)) == before[latest]
    assert rows(t.read(tag="keep")) == before[3]
    expire_snapshots(t, retain_min=2, now_ms=FAR_FUTURE)
    assert t.snapshots.list_ids() == [latest - 1, latest]
    for i in (latest - 1, latest):
        assert rows(t.read(snapshot_id=i)) == before[i]
    assert rows(t.read(tag="keep")) == before[3]
    assert_files_equal_referenced(t)


def test_consumer_pins_snapshots(catalog):
    t = build(catalog, False)
    t.io.write_bytes(t.io.join(t.path, "consumer", "consumer-c1"), b'{"nextSnapshot": 3}')
    res = expire_snapshots(t, retain_min=1, now_ms=FAR_FUTURE)
    assert res.expired == [1, 2] and res.plan.range.reason == "consumer"


def test_plan_on_empty_table(catalog):
    t = make_table(catalog, "db.e", False)
    assert not plan_expire(t).range
    assert expire_snapshots(t).deleted == 0
