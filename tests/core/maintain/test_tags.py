import json

import pytest

from paimon_core.errors import InvalidInput, SnapshotNotFound
from paimon_core.maintain import (
    TagAlreadyExists,
    TagNotFound,
    create_tag,
    delete_tag,
    expire_snapshots,
    get_tag,
    list_tags,
    plan_delete_tag,
)
from paimon_core.metadata.snapshot import Snapshot
from tests.core.maintain.helpers import FAR_FUTURE, assert_files_equal_referenced, batch, make_table, rows


@pytest.fixture
def table(catalog):
    t = make_table(catalog, "db.t", True)
    for i in range(4):
        t.write_arrow(batch(t, range(i, i + 2), f"w{i}"))
    return t


def test_create_list_delete(table):
    a = create_tag(table, "v1.0", 2)
    b = create_tag(table, "latest_tag")
    assert (a.snapshot_id, b.snapshot_id) == (2, table.snapshots.latest_id())
    listed = list_tags(table)
    assert [(x.name, x.snapshot_id) for x in listed] == [("v1.0", 2), ("latest_tag", b.snapshot_id)]
    assert listed[0].record_count == table.snapshots.snapshot(2).total_record_count
    assert listed[0].time_millis == table.snapshots.snapshot(2).time_millis
    # the tag file is the snapshot JSON, in the snapshot file's format
    text = table.io.read_text(table.io.join(table.path, "tag", "tag-v1.0"))
    assert text == table.io.read_text(table.snapshots.path(2))
    assert Snapshot.from_json(text).id == 2 and json.loads(text)["id"] == 2
    delete_tag(table, "v1.0")
    assert [x.name for x in list_tags(table)] == ["latest_tag"]
    with pytest.raises(TagNotFound):
        delete_tag(table, "v1.0")


def test_refusals(table):
    create_tag(table, "x", 1)
    with pytest.raises(TagAlreadyExists):
        create_tag(table, "x", 2)
    with pytest.raises(SnapshotNotFound):
        create_tag(table, "y", 99)
    for bad in ("a/b", "", "a b", "..", "123", "ä"):
        with pytest.raises(InvalidInput):
            create_tag(table, bad, 1)
    with pytest.raises(TagNotFound):
        table.read(tag="nope")
    with pytest.raises(TagNotFound):
        get_tag(table, "nope")


def test_tag_reads_after_its_snapshot_expired(table):
    before = rows(table.read(snapshot_id=2))
    create_tag(table, "t2", 2)
    expire_snapshots(table, retain_min=1, now_ms=FAR_FUTURE)
    with pytest.raises(SnapshotNotFound):
        table.read(snapshot_id=2)
    assert rows(table.read(tag="t2")) == before
    assert table.resolve_snapshot(tag="t2").id == 2
    assert_files_equal_referenced(table)


def test_delete_tag_of_expired_snapshot_cleans_its_files(table):
    create_tag(table, "t1", 1)
    create_tag(table, "t2", 2)
    expire_snapshots(table, retain_min=1, now_ms=FAR_FUTURE)
    before_t2 = rows(table.read(tag="t2"))
    _info, planned = plan_delete_tag(table, "t1")
    res = delete_tag(table, "t1")
    assert res.files == planned
    assert rows(table.read(tag="t2")) == before_t2
    assert_files_equal_referenced(table)
    delete_tag(table, "t2")
    assert_files_equal_referenced(table)
    # a tag whose snapshot still exists frees nothing
    create_tag(table, "t_last")
    assert delete_tag(table, "t_last", dry_run=True).files == ()
