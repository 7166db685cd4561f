"""paimon diff: every mode, ranges, per-snapshot tagging, changelog producers, errors."""

import pyarrow as pa
import pytest

from paimon_core.errors import InvalidInput, SnapshotNotFound
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff


def pk(catalog, producer="none", name="db.pk"):
    return catalog.create_table(
        name,
        Schema(
            Schema.parse_columns("id INT NOT NULL, v STRING"),
            (),
            ("id",),
            {"bucket": "1", "changelog-producer": producer},
        ),
    )


def history(t):
    t.write_arrow(pa.table({"id": pa.array([1, 2, 3], pa.int32()), "v": ["a", "b", "c"]}))
    t.write_arrow(
        pa.table({"id": pa.array([2, 3, 4], pa.int32()), "v": ["b2", "c", "d"], "k": ["+U", "-D", "+I"]}),
        row_kind_column="k",
    )
    t.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "v": ["a3"]}))


def rows(t, **kw):
    return [tuple(r.values()) for r in diff(t, **kw).to_pylist()]


EXPECTED_STATE_DIFF = [
    ("-U", 1, "a"),
    ("+U", 1, "a3"),
    ("-U", 2, "b"),
    ("+U", 2, "b2"),
    ("-D", 3, "c"),
    ("+I", 4, "d"),
]


@pytest.mark.parametrize("producer", ["none", "input", "lookup", "full-compaction"])
def test_state_diff_is_the_same_for_every_producer(catalog, producer):
    t = pk(catalog, producer)
    history(t)
    last = t.snapshots.latest_id()
    first_append = 2 if producer == "full-compaction" else 1  # full-compaction adds a COMPACT per write
    assert (
        sorted(rows(t, start=first_append, end=last, mode="diff"), key=lambda r: (r[1], r[0] != "-U"))
        == EXPECTED_STATE_DIFF
    )


def test_changelog_per_snapshot_keeps_every_change(catalog):
    t = pk(catalog, "input")
    history(t)
    got = rows(t, start=0, end=3, mode="changelog", per_snapshot=True)
    assert got == [
        ("+I", 1, 1, "a"),
        ("+I", 1, 2, "b"),
        ("+I", 1, 3, "c"),
        ("+U", 2, 2, "b2"),
        ("-D", 2, 3, "c"),
        ("+I", 2, 4, "d"),
        ("+I", 3, 1, "a3"),
    ]
    assert len(rows(t, start=0, end=3, mode="changelog")) == 7  # a range loses nothing either


def test_lookup_changelog_has_before_images(catalog):
    t = pk(catalog, "lookup")
    history(t)
    last = t.snapshots.latest_id()
    got = [r for r in rows(t, start=0, end=last, mode="changelog")]
    assert ("-U", 2, "b") in got and ("+U", 2, "b2") in got and ("-D", 3, "c") in got
    assert ("-U", 1, "a") in got and ("+U", 1, "a3") in got


def test_delta_mode_reads_added_files(catalog):
    t = pk(catalog)
    history(t)
    assert rows(t, start=1, end=2, mode="delta") == [("+U", 2, "b2"), ("-D", 3, "c"), ("+I", 4, "d")]


def test_append_table_diff_with_nulls(catalog):
    t = catalog.create_table("db.ap", Schema(Schema.parse_columns("id INT, v STRING")))
    t.write_arrow(pa.table({"id": pa.array([1, None, 1], pa.int32()), "v": [None, "x", None]}))
    t.write_arrow(pa.table({"id": pa.array([5], pa.int32()), "v": [None]}))
    assert rows(t, start=1, end=2, mode="diff") == [("+I", 5, None)]
    t.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "v": [None]}), overwrite=True)
    assert sorted(rows(t, start=2, end=3, mode="diff"), key=str) == sorted(
        [("-D", None, "x"), ("-D", 1, None), ("-D", 5, None)], key=str
    )


def test_errors(catalog):
    t = pk(catalog)
    history(t)
    with pytest.raises(InvalidInput, match="after"):
        diff(t, 3, 1)
    with pytest.raises(SnapshotNotFound):
        diff(t, 0, 9)
    with pytest.raises(InvalidInput, match="no changelog producer"):
        diff(t, 0, 3, mode="changelog")
    with pytest.raises(InvalidInput, match="unknown diff mode"):
        diff(t, 0, 3, mode="nope")


@pytest.mark.parametrize("per_snapshot", [False, True])
def test_diff_compares_whole_rows_then_projects(catalog, per_snapshot):
    """Key 2 changes only in v: `--select id` still lists it, as --mode delta does."""
    t = pk(catalog)
    history(t)
    got = rows(t, start=1, end=2, mode="diff", columns=["id"], per_snapshot=per_snapshot)
    assert [(r[0], r[-1]) for r in got] == [("-U", 2), ("+U", 2), ("-D", 3), ("+I", 4)]
    if per_snapshot:
        assert {r[1] for r in got} == {2}
    assert [r[-1] for r in rows(t, start=1, end=2, mode="delta", columns=["id"])] == [2, 3, 4]


def test_append_table_diff_compares_whole_rows_then_projects(catalog):
    t = catalog.create_table("db.log", Schema(Schema.parse_columns("id INT, v STRING"), (), (), {}))
    t.write_arrow(pa.table({"id": pa.array([1, 2], pa.int32()), "v": ["a", "b"]}))
    t.write_arrow(pa.table({"id": pa.array([1, 2], pa.int32()), "v": ["a", "c"]}), overwrite=True)
    assert sorted(rows(t, start=1, end=2, mode="diff", columns=["id"])) == [("+I", 2), ("-D", 2)]


NESTED = "id INT NOT NULL, tags ARRAY<STRING>, attrs MAP<STRING, INT>, pos ROW<x DOUBLE, y ARRAY<INT>>, n INT"


def test_diff_of_nested_values(catalog):
    """Nested columns compare element by element: unchanged nested values give no change."""
    t = catalog.create_table("db.nested", Schema(Schema.parse_columns(NESTED), (), ("id",), {"bucket": "1"}))
    schema = t.schema.arrow_schema()
    before = [
        {"id": 1, "tags": ["a"], "attrs": [("k", 1)], "pos": {"x": 1.0, "y": [1]}, "n": 1},
        {"id": 2, "tags": ["a", "b"], "attrs": [("k", 1)], "pos": {"x": float("nan"), "y": [1, 2]}, "n": 2},
        {"id": 3, "tags": None, "attrs": None, "pos": None, "n": 3},
        {"id": 4, "tags": [None], "attrs": [], "pos": {"x": None, "y": None}, "n": 4},
        {"id": 5, "tags": ["a"], "attrs": [("k", 1)], "pos": {"x": 1.0, "y": [1]}, "n": 5},
        {"id": 6, "tags": ["a"], "attrs": [("k", 1)], "pos": {"x": 1.0, "y": [1]}, "n": 6},
        {"id": 7, "tags": ["a"], "attrs": [("k", 1)], "pos": {"x": 1.0, "y": [1]}, "n": 7},
    ]
    after = [dict(r) for r in before]
    after[4]["tags"] = ["a", None]  # a longer list
    after[5]["attrs"] = [("k", 2)]  # a map value
    after[6]["pos"] = {"x": 1.0, "y": [2]}  # a list inside a struct
    t.write_arrow(pa.Table.from_pylist(before, schema=schema))
    t.write_arrow(pa.Table.from_pylist(after, schema=schema))
    assert [r[:2] for r in rows(t, start=1, end=2, mode="diff", columns=["id"])] == [
        ("-U", 5),
        ("+U", 5),
        ("-U", 6),
        ("+U", 6),
        ("-U", 7),
        ("+U", 7),
    ]
