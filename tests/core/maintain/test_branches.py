"""Branch operations (``maintain/branches.py``) and what maintenance keeps for branches."""

from __future__ import annotations

import hashlib
import os

import pyarrow as pa
import pytest

from paimon_core.data.types import parse_type
from paimon_core.errors import InvalidInput, SnapshotNotFound
from paimon_core.maintain import create_tag, delete_tag, expire_snapshots, remove_orphans, rollback
from paimon_core.maintain.branches import (
    create_branch,
    delete_branch,
    fast_forward,
    list_branches,
    rename_branch,
)
from paimon_core.metadata.branches import BranchAlreadyExists, BranchNotFound
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import AddColumn, SetOption
from paimon_core.metadata.tags import TagNotFound
from paimon_core.ops.alter import alter_table
from tests.core.maintain.helpers import FAR_FUTURE, batch, make_table, rows


def tree(path) -> dict[str, str]:
    """Every file under ``path`` and a digest of its bytes: 'nothing changed' is equality."""
    out = {}
    for d, _dirs, names in os.walk(path):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, path)] = hashlib.sha1(f.read()).hexdigest()
    return out


@pytest.fixture
def table(catalog):
    """db.t (PK, 2 buckets): snapshots 1..3, tag t1 on snapshot 2."""
    t = make_table(catalog, "db.t", True)
    for i in range(3):
        t.write_arrow(batch(t, range(i, i + 2), f"w{i}"))
    create_tag(t, "t1", 2)
    return t


def test_create_from_tag_copies_tag_snapshot_and_schemas(table, catalog):
    info = create_branch(table, "b", tag="t1")
    assert (info.created_from, info.earliest_snapshot, info.latest_snapshot) == ("tag t1", 2, 2)
    root = os.path.join(table.path, "branch", "branch-b")
    assert sorted(tree(root)) == ["schema/schema-0", "snapshot/snapshot-2", "tag/tag-t1"]
    b = catalog.get_table("db.t$branch_b")
    assert b.branch == "b" and b.identifier == "db.t$branch_b"
    assert rows(b.read()) == rows(table.read(tag="t1"))
    main_before = rows(table.read())
    b.write_arrow(batch(b, [7], "branch"))
    assert b.snapshots.latest_id() == 3 and table.snapshots.latest_id() == 3
    assert rows(table.read()) == main_before  # main does not see the branch's write
    assert {"id": 7, "v": "branch-7"} in rows(b.read())
    assert rows(catalog.get_table("db.t", branch="b").read()) == rows(b.read())


def test_create_empty_and_from_snapshot(table, catalog):
    assert create_branch(table, "e").created_from == "empty"
    e = table.for_branch("e")
    assert e.snapshots.latest_id() is None and e.read().num_rows == 0
    e.write_arrow(batch(e, [1], "e"))
    assert e.snapshots.latest_id() == 1 and rows(e.read()) == [{"id": 1, "v": "e-1"}]
    info = create_branch(table, "s", snapshot_id=1)
    assert info.created_from == "snapshot 1"
    assert rows(table.for_branch("s").read()) == rows(table.read(snapshot_id=1))
    assert [b.name for b in list_branches(table)] == ["e", "s"]


def test_bad_input_changes_nothing(table, catalog):
    create_branch(table, "b", tag="t1")
    before = tree(table.path)
    with pytest.raises(BranchAlreadyExists, match="branch 'b' already exists"):
        create_branch(table, "b")
    with pytest.raises(TagNotFound):
        create_branch(table, "c", tag="nope")
    with pytest.raises(SnapshotNotFound):
        create_branch(table, "c", snapshot_id=99)
    for bad in ("a/b", "..", "../x", "main", "42"):
        with pytest.raises(InvalidInput, match="bad branch name"):
            create_branch(table, bad)
    with pytest.raises(InvalidInput, match="not both"):
        create_branch(table, "c", tag="t1", snapshot_id=1)
    for op in (
        lambda: delete_branch(table, "nope"),
        lambda: fast_forward(table, "nope"),
        lambda: rename_branch(table, "nope", "x"),
        lambda: catalog.get_table("db.t$branch_nope"),
        lambda: table.for_branch("nope"),
    ):
        with pytest.raises(BranchNotFound, match="branch 'nope' of table db.t does not exist"):
            op()
    with pytest.raises(BranchAlreadyExists):
        rename_branch(table, "b", "b")
    with pytest.raises(InvalidInput, match="names branch 'b' but branch 'c'"):
        catalog.get_table("db.t$branch_b", branch="c")
    create_branch(table, "e")
    before = tree(table.path)
    with pytest.raises(SnapshotNotFound, match="branch 'e' has no snapshot"):
        fast_forward(table, "e")
    assert tree(table.path) == before


def test_delete_branch_deletes_only_its_own_files(table):
    create_branch(table, "b", tag="t1")
    create_branch(table, "c", tag="t1")
    b, c = table.for_branch("b"), table.for_branch("c")
    b.write_arrow(batch(b, [50], "b"))
    c.write_arrow(batch(c, [60], "c"))
    main_rows, c_rows = rows(table.read()), rows(c.read())
    b_only = {p for p in tree(table.path) if "bucket-" in p} - {
        p for p in tree(table.path) if "bucket-" in p and p.rsplit("/", 1)[-1] in _used(table, ["c"])
    }
    result = delete_branch(table, "b")
    assert not os.path.exists(os.path.join(table.path, "branch", "branch-b"))
    gone = {os.path.relpath(f.path, table.path) for f in result.files}
    assert gone and all(os.path.basename(p).startswith(("data-", "manifest", "index")) for p in gone)
    data_gone = {p for p in gone if "bucket-" in p}
    assert data_gone and data_gone <= b_only
    assert rows(table.read()) == main_rows and rows(table.for_branch("c").read()) == c_rows
    assert rows(table.read(tag="t1")) == rows(table.for_branch("c").read(tag="t1"))


def _used(table, branches):
    from paimon_core.maintain.used_names import used_names
    from paimon_core.metadata.branches import branch_path

    return used_names(table, [table.path] + [branch_path(table.path, b) for b in branches])


def test_rename_branch(table):
    create_branch(table, "b", tag="t1")
    b = table.for_branch("b")
    b.write_arrow(batch(b, [9], "b"))
    expected = rows(b.read())
    info = rename_branch(table, "b", "b2")
    assert info.name == "b2" and info.latest_snapshot == 3
    assert [x.name for x in list_branches(table)] == ["b2"]
    assert rows(table.for_branch("b2").read()) == expected


def test_fast_forward_makes_main_the_branch(table):
    create_branch(table, "b", tag="t1")
    b = table.for_branch("b")
    b.write_arrow(batch(b, [40, 41], "b"))
    create_tag(b, "bt")
    expected = rows(b.read())
    plan = fast_forward(table, "b")
    assert plan.snapshots_dropped == (3, 2) and plan.latest == 3
    assert rows(table.read()) == expected
    assert table.snapshots.latest_id() == 3 and table.snapshots.earliest_id() == 1
    assert rows(table.read(tag="bt")) == expected
    table.write_arrow(batch(table, [99], "after"))  # main goes on from the branch's latest
    assert table.snapshots.latest_id() == 4 and {"id": 99, "v": "after-99"} in rows(table.read())


def test_fast_forward_refuses_a_schema_main_cannot_take(catalog):
    """Main keeps snapshots written with its schema 1; the branch's schema 1 is another one:
    copying it over would change how main's kept snapshots read. Refused, nothing changed."""
    t = make_table(catalog, "db.s", True)
    create_branch(t, "b")  # empty: schema 0
    b = t.for_branch("b")
    b = alter_table(b, [AddColumn("y", parse_type("INT"))])
    bt = t.for_branch("b")
    for i in range(3):
        bt.write_arrow(
            pa.table({"id": pa.array([i], pa.int64()), "v": ["b"], "y": pa.array([i], pa.int32())})
        )
    expire_snapshots(bt, retain_max=1, retain_min=1, now_ms=FAR_FUTURE)
    alter_table(t, [AddColumn("x", parse_type("STRING"))])
    tm = catalog.get_table("db.s")
    for i in range(3):
        tm.write_arrow(pa.table({"id": pa.array([i], pa.int64()), "v": ["m"], "x": ["x"]}))
    before = tree(tm.path)
    with pytest.raises(
        InvalidInput, match="cannot fast-forward to branch 'b': main keeps snapshot 1 of schema 1"
    ):
        fast_forward(tm, "b")
    assert tree(tm.path) == before


def test_expire_rollback_and_tag_deletion_keep_what_a_branch_uses(catalog):
    t = make_table(catalog, "db.k", True)
    t.write_arrow(batch(t, range(4), "v1"))
    create_tag(t, "t1", 1)
    create_branch(t, "b", tag="t1")
    expected = rows(t.read())
    for i in range(3):
        t.write_arrow(batch(t, range(4), f"o{i}"), overwrite=True)  # deletes snapshot 1's files
    delete_tag(t, "t1")  # main's tag: the branch holds its own copy
    expire_snapshots(t, retain_max=1, retain_min=1, now_ms=FAR_FUTURE)
    b = t.for_branch("b")
    assert rows(b.read()) == expected and rows(b.read(tag="t1")) == expected
    rollback(t, to_snapshot=t.snapshots.latest_id())
    # the branch's own expiry keeps what main uses
    b.write_arrow(batch(b, [10], "b"), overwrite=True)
    b.write_arrow(batch(b, [11], "b"), overwrite=True)
    main_rows = rows(t.read())
    expire_snapshots(b, retain_max=1, retain_min=1, now_ms=FAR_FUTURE)
    assert rows(t.read()) == main_rows
    assert rows(b.read(tag="t1")) == expected  # the branch's tag
    remove_orphans(t, older_than_ms=0, now_ms=FAR_FUTURE)
    assert rows(t.read()) == main_rows and rows(b.read()) == [{"id": 11, "v": "b-11"}]
    assert rows(b.read(tag="t1")) == expected


def test_rollback_of_main_keeps_files_of_a_branch_made_from_a_newer_snapshot(table):
    create_branch(table, "b", snapshot_id=3)
    expected = rows(table.for_branch("b").read())
    rollback(table, to_snapshot=1)
    assert rows(table.for_branch("b").read()) == expected


def test_fallback_branch_fills_partitions_main_lacks(catalog):
    schema = Schema(
        Schema.parse_columns("dt STRING NOT NULL, id BIGINT NOT NULL, v STRING"),
        ("dt",),
        ("dt", "id"),
        {"bucket": "1"},
    )
    t = catalog.create_table("db.f", schema)
    create_branch(t, "fb")
    fb = t.for_branch("fb")
    fb.write_arrow(pa.table({"dt": ["d1", "d2"], "id": pa.array([1, 2], pa.int64()), "v": ["fb1", "fb2"]}))
    t.write_arrow(pa.table({"dt": ["d1"], "id": pa.array([1], pa.int64()), "v": ["main1"]}))
    assert rows(t.read()) == [{"dt": "d1", "id": 1, "v": "main1"}]
    t = alter_table(t, [SetOption("scan.fallback-branch", "fb")])
    main = catalog.get_table("db.f")
    assert rows(main.read()) == [{"dt": "d1", "id": 1, "v": "main1"}, {"dt": "d2", "id": 2, "v": "fb2"}]
    assert rows(main.read(where="dt = 'd2'")) == [{"dt": "d2", "id": 2, "v": "fb2"}]
    # the branch itself, and maintenance of main, never fall back
    assert rows(main.for_branch("fb").read()) == [
        {"dt": "d1", "id": 1, "v": "fb1"},
        {"dt": "d2", "id": 2, "v": "fb2"},
    ]
    assert {s.partition for s in main.plan(main.snapshots.latest(), all_levels=True)} == {("d1",)}


def test_fast_forward_leaves_no_gap_in_main_snapshot_ids(table):
    """The branch starts at snapshot 3, main was rolled back to 1 since: main's snapshot 1 would
    sit before a gap (Java keeps it; expiries then misjudge the range): it goes too."""
    create_branch(table, "b", snapshot_id=3)
    rollback(table, to_snapshot=1)
    b = table.for_branch("b")
    b.write_arrow(batch(b, [9], "b"))
    expected = rows(b.read())
    plan = fast_forward(table, "b")
    assert plan.snapshots_dropped == (1,)
    assert table.snapshots.list_ids() == [3, 4] and table.snapshots.earliest_id() == 3
    table.write_arrow(batch(table, [10], "m"))
    expire_snapshots(table, retain_min=1, now_ms=FAR_FUTURE)
    assert table.snapshots.list_ids() == [5]
    assert rows(table.read()) == rows(
        pa.concat_tables([pa.Table.from_pylist(expected), batch(table, [10], "m")])
    )
