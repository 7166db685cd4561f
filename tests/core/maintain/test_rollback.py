import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import InvalidInput, SnapshotNotFound
from paimon_core.maintain import create_tag, expire_snapshots, list_tags, rollback
from tests.core.maintain.helpers import (
    FAR_FUTURE,
    assert_files_equal_referenced,
    batch,
    data_and_meta_files,
    make_table,
    rows,
)


def build(catalog, pk):
    t = make_table(catalog, "db.r", pk)
    for i in range(6):
        t.write_arrow(batch(t, range(i, i + 3), f"w{i}"), overwrite=(not pk and i == 2))
        if pk and i == 3:
            full_compact(t)
    return t


@pytest.mark.parametrize("pk", [False, True])
def test_rollback_to_snapshot(catalog, pk):
    t = build(catalog, pk)
    ids = t.snapshots.list_ids()
    before = {i: rows(t.read(snapshot_id=i)) for i in ids}
    create_tag(t, "old", 2)
    create_tag(t, "new", ids[-1])
    files_before = data_and_meta_files(t)
    dry = rollback(t, to_snapshot=3, dry_run=True)
    assert data_and_meta_files(t) == files_before
    assert dry.plan.snapshots == tuple(range(ids[-1], 3, -1)) and dry.plan.tags_deleted == ("new",)
    rollback(t, to_snapshot=3)
    assert t.snapshots.list_ids() == [1, 2, 3] and t.snapshots.latest_id() == 3
    assert rows(t.read()) == before[3]
    for i in (1, 2):
        assert rows(t.read(snapshot_id=i)) == before[i]
    assert [x.name for x in list_tags(t)] == ["old"]
    assert_files_equal_referenced(t)
    t.write_arrow(batch(t, [100], "after"))  # the table takes commits again
    assert t.snapshots.latest_id() == 4


@pytest.mark.parametrize("pk", [False, True])
def test_rollback_to_expired_tag_recreates_snapshot(catalog, pk):
    t = build(catalog, pk)
    before = rows(t.read(snapshot_id=2))
    create_tag(t, "t2", 2)
    expire_snapshots(t, retain_min=2, now_ms=FAR_FUTURE)
    assert not t.snapshots.exists(2)
    res = rollback(t, to_tag="t2")
    assert res.plan.recreate_snapshot
    assert t.snapshots.list_ids() == [2]
    assert t.snapshots.earliest_id() == t.snapshots.latest_id() == 2
    assert rows(t.read()) == before == rows(t.read(tag="t2"))
    assert_files_equal_referenced(t)
    t.write_arrow(batch(t, [100], "after"))
    assert t.snapshots.latest_id() == 3


def test_rollback_refusals(catalog):
    t = build(catalog, False)
    with pytest.raises(SnapshotNotFound):
        rollback(t, to_snapshot=99)
    with pytest.raises(InvalidInput):
        rollback(t)
    with pytest.raises(InvalidInput):
        rollback(t, to_snapshot=1, to_tag="x")
