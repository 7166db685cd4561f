"""Schema evolution: the rules of each change, schema-(N+1) files, reading across versions (by
field id), time travel with each snapshot's schema, diff across a change, compaction after a
change, and ingest/write with ``evolve`` -- on append and primary-key tables."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.data.types import parse_type as T
from paimon_core.errors import CommitConflict, InvalidInput, SchemaMismatch
from paimon_core.metadata.schema import Schema, SchemaManager
from paimon_core.metadata.schema_evolution import (
    AddColumn,
    DropColumn,
    RemoveOption,
    RenameColumn,
    SetOption,
    UpdateColumnType,
    UpdateComment,
    apply_changes,
    column_cast_allowed,
    commit_changes,
)
from paimon_core.ops.alter import alter_table
from paimon_core.ops.ingest import ingest_files
from paimon_core.read.diff import diff

PK = (
    "pk",
    lambda: Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), (), ("id",), {"bucket": "2"}),
)
APPEND = ("append", lambda: Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING")))
KINDS = [PK, APPEND]


@pytest.fixture(params=KINDS, ids=[k[0] for k in KINDS])
def table(request, catalog):
    return catalog.create_table("db.t", request.param[1]())


def rows(t, **kw):
    out = t.read(**kw)
    return sorted(out.to_pylist(), key=lambda r: (r["id"], json.dumps(r, default=str)))


def write(t, **cols):
    types = {"id": pa.int64()}
    return t.write_arrow(pa.table({k: pa.array(v, types.get(k)) for k, v in cols.items()}))


# ---------------------------------------------------------------------------------------------
# rules (pure)


def base_schema(
    options=None, cols="id BIGINT NOT NULL, v STRING, n INT, f FLOAT, p STRING", pk=("id", "p"), part=("p",)
):
    return Schema(Schema.parse_columns(cols), part, pk, options or {"bucket": "2"}).to_table_schema(0)


def test_add_column_ids_positions_and_highest_field_id():
    s = base_schema()
    s1 = apply_changes(
        s,
        [
            AddColumn("a", T("INT")),
            AddColumn("b", T("STRING"), "cmt", first=True),
            AddColumn("c", T("ROW<x INT, y STRING>"), after="id"),
        ],
        has_snapshot=True,
    )
    assert s1.id == 1
    assert s1.field_names == ["b", "id", "c", "v", "n", "f", "p", "a"]
    ids = {f.name: f.id for f in s1.fields}
    assert (ids["a"], ids["b"], ids["c"]) == (5, 6, 7)
    assert [f.id for f in s1.field("c").type.fields] == [8, 9]
    assert s1.highest_field_id == 9
    assert s1.field("b").description == "cmt"


def test_drop_keeps_highest_and_new_ids_never_reuse():
    s = base_schema()
    s1 = apply_changes(s, [DropColumn("f")], True)
    assert "f" not in s1.field_names and s1.highest_field_id == 4
    s2 = apply_changes(s1, [AddColumn("f", T("DOUBLE"))], True)
    assert s2.field("f").id == 5


def test_rename_keeps_id():
    s1 = apply_changes(base_schema(), [RenameColumn("v", "w")], True)
    assert s1.field("w").id == 1


@pytest.mark.parametrize(
    "change, message",
    [
        (DropColumn("id"), "cannot drop primary-key column 'id'"),
        (DropColumn("p"), "cannot drop partition column 'p'"),
        (RenameColumn("id", "k"), "cannot rename primary-key column 'id'"),
        (RenameColumn("p", "q"), "cannot rename partition column 'p'"),
        (UpdateColumnType("id", T("DECIMAL(20, 0)")), "cannot change the type of primary-key column 'id'"),
        (UpdateColumnType("p", T("VARCHAR(10)")), "cannot change the type of partition column 'p'"),
        (UpdateColumnType("v", T("STRING NOT NULL")), "cannot make column 'v' NOT NULL"),
        (AddColumn("z", T("INT NOT NULL")), "cannot add column 'z' as NOT NULL"),
        (AddColumn("v", T("INT")), "column 'v' already exists"),
        (AddColumn("z", T("INT"), after="nope"), "unknown column 'nope'"),
        (AddColumn("_KEY_x", T("INT")), "reserved"),
        (RenameColumn("v", "n"), "that column already exists"),
        (DropColumn("nope"), "unknown column 'nope'"),
        (UpdateColumnType("v", T("ARRAY<INT>")), "cannot change column 'v' from STRING to ARRAY<INT>"),
        (
            SetOption("merge-engine", "first-row"),
            "option 'merge-engine' cannot be changed on a table with data",
        ),
        (SetOption("bucket-key", "id"), "option 'bucket-key' cannot be changed"),
        (SetOption("sequence.field", "n"), "option 'sequence.field' cannot be changed"),
        (
            SetOption("partial-update.remove-record-on-delete", "true"),
            "cannot be changed on a table with data",
        ),
        (SetOption("primary-key", "id"), "option 'primary-key' cannot be changed"),
        (SetOption("bucket", "-1"), "cannot change bucket from 2 to -1"),
        (RemoveOption("bucket"), "option 'bucket' cannot be removed"),
        (RemoveOption("nope"), "option 'nope' is not set"),
    ],
)
def test_forbidden_changes(change, message):
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        apply_changes(base_schema(), [change], has_snapshot=True)


def test_bucket_changes_between_fixed_numbers_on_a_table_with_data():
    """As Java: partitions keep their files' count until rescaled (tests/core/ops/test_rescale.py)."""
    assert (
        apply_changes(base_schema(), [SetOption("bucket", "4")], has_snapshot=True).options["bucket"] == "4"
    )


def test_drop_last_column():
    s = Schema(Schema.parse_columns("a INT, b INT")).to_table_schema(0)
    s1 = apply_changes(s, [DropColumn("a")], True)
    with pytest.raises(InvalidInput, match="last column"):
        apply_changes(s1, [DropColumn("b")], True)


def test_immutable_options_change_on_an_empty_table():
    s1 = apply_changes(
        base_schema(), [SetOption("bucket", "4"), SetOption("merge-engine", "first-row")], False
    )
    assert s1.options["bucket"] == "4" and s1.options["merge-engine"] == "first-row"
    with pytest.raises(InvalidInput, match="unknown merge engine|merge"):
        apply_changes(base_schema(), [SetOption("merge-engine", "nope")], False)


def test_mutable_options_and_comment():
    s1 = apply_changes(
        base_schema(),
        [
            SetOption("snapshot.num-retained.min", "3"),
            SetOption("changelog-producer", "input"),
            UpdateComment("hi"),
        ],
        True,
    )
    assert s1.options["snapshot.num-retained.min"] == "3" and s1.comment == "hi"
    s2 = apply_changes(s1, [RemoveOption("snapshot.num-retained.min"), UpdateComment(None)], True)
    assert "snapshot.num-retained.min" not in s2.options and s2.comment is None
    with pytest.raises(InvalidInput, match="bad value"):
        apply_changes(s1, [SetOption("snapshot.num-retained.min", "many")], True)


def test_bucket_key_column_cannot_be_dropped():
    s = Schema(
        Schema.parse_columns("id INT, v STRING"), options={"bucket": "2", "bucket-key": "id"}
    ).to_table_schema(0)
    with pytest.raises(InvalidInput, match="bucket-key column 'id'"):
        apply_changes(s, [DropColumn("id")], True)


@pytest.mark.parametrize(
    "src, dst, explicit_ok, implicit_ok",
    [
        ("INT", "BIGINT", True, True),
        ("FLOAT", "DOUBLE", True, True),
        ("INT", "DOUBLE", True, True),
        ("DECIMAL(10, 2)", "DECIMAL(12, 2)", True, True),
        ("VARCHAR(5)", "STRING", True, True),
        ("DATE", "TIMESTAMP(3)", True, True),
        ("BIGINT", "INT", True, False),
        ("STRING", "INT", True, False),
        ("DOUBLE", "DECIMAL(10, 2)", True, False),
        ("DOUBLE", "FLOAT", True, False),
        ("INT", "STRING", True, False),
        ("BOOLEAN", "DATE", False, False),
        ("DATE", "BOOLEAN", False, False),
        ("DATE", "INT", False, False),
        ("BYTES", "INT", False, False),
        ("ARRAY<INT>", "ARRAY<BIGINT>", True, True),
        ("ARRAY<BIGINT>", "ARRAY<INT>", False, False),
        ("MAP<STRING, INT>", "MAP<STRING, BIGINT>", False, False),
        ("ROW<a INT>", "ROW<a BIGINT>", False, False),
        ("INT", "ARRAY<INT>", False, False),
        ("STRING", "ROW<a INT>", False, False),
    ],
)
def test_cast_rules(src, dst, explicit_ok, implicit_ok):
    assert column_cast_allowed(T(src), T(dst), True) is explicit_ok
    assert column_cast_allowed(T(src), T(dst), False) is implicit_ok


def test_disable_explicit_type_casting():
    s = base_schema({"bucket": "2", "disable-explicit-type-casting": "true"})
    with pytest.raises(InvalidInput, match="only widening"):
        apply_changes(s, [UpdateColumnType("n", T("SMALLINT"))], True)
    assert apply_changes(s, [UpdateColumnType("n", T("BIGINT"))], True).field("n").type == T("BIGINT")


# ---------------------------------------------------------------------------------------------
# schema files


def test_each_change_writes_the_next_schema_file(table, catalog):
    t = alter_table(table, [AddColumn("a", T("INT"))])
    t = alter_table(t, [RenameColumn("a", "b")])
    assert SchemaManager(t.io, t.path).list_ids() == [0, 1, 2]
    assert catalog.get_table("db.t").schema.field("b").id == 2


def test_nothing_written_when_rejected(table):
    with pytest.raises(InvalidInput):
        alter_table(table, [AddColumn("a", T("INT")), DropColumn("nope")])
    assert SchemaManager(table.io, table.path).list_ids() == [0]


def test_commit_retries_when_another_writer_took_the_id(table, monkeypatch):
    """A concurrent writer commits schema-1 first: our change is re-applied on top as schema-2."""
    real = SchemaManager.commit
    state = {"raced": False}

    def racing(self, schema):
        if not state["raced"]:
            state["raced"] = True
            other = apply_changes(self.latest(), [AddColumn("other", T("INT"))], False)
            assert real(self, other)
        return real(self, schema)

    monkeypatch.setattr(SchemaManager, "commit", racing)
    new = commit_changes(table.io, table.path, [AddColumn("mine", T("STRING"))])
    assert new.id == 2 and new.field_names[-2:] == ["other", "mine"]
    assert new.field("mine").id == 3


def test_conflicting_concurrent_change_is_rejected(table, monkeypatch):
    real = SchemaManager.commit
    state = {"raced": False}

    def racing(self, schema):
        if not state["raced"]:
            state["raced"] = True
            assert real(self, apply_changes(self.latest(), [AddColumn("a", T("INT"))], False))
        return real(self, schema)

    monkeypatch.setattr(SchemaManager, "commit", racing)
    with pytest.raises(InvalidInput, match="already exists"):
        commit_changes(table.io, table.path, [AddColumn("a", T("STRING"))])


# ---------------------------------------------------------------------------------------------
# reading across versions


def test_read_across_add_drop_rename_widen(table, catalog):
    t = alter_table(table, [AddColumn("n", T("INT")), AddColumn("f", T("FLOAT"))])
    t.write_arrow(
        pa.table(
            {
                "id": pa.array([1, 2], pa.int64()),
                "v": ["a", "b"],
                "n": pa.array([1, 2], pa.int32()),
                "f": pa.array([0.5, 1.5], pa.float32()),
            }
        )
    )
    t = alter_table(
        t, [RenameColumn("v", "w"), UpdateColumnType("n", T("BIGINT")), UpdateColumnType("f", T("DOUBLE"))]
    )
    t = alter_table(t, [AddColumn("x", T("STRING"), first=True)])
    t.write_arrow(
        pa.table(
            {"id": pa.array([3], pa.int64()), "w": ["c"], "n": pa.array([2**40], pa.int64()), "x": ["new"]}
        )
    )
    t = alter_table(t, [DropColumn("f")])
    t = catalog.get_table("db.t")
    out = t.read()
    assert out.column_names == ["x", "id", "w", "n"]
    assert out.schema.field("n").type == pa.int64()
    assert rows(t) == [
        {"x": None, "id": 1, "w": "a", "n": 1},
        {"x": None, "id": 2, "w": "b", "n": 2},
        {"x": "new", "id": 3, "w": "c", "n": 2**40},
    ]


def test_time_travel_uses_the_snapshots_schema(table, catalog):
    write(table, id=[1], v=["a"])
    t = alter_table(table, [RenameColumn("v", "w"), AddColumn("n", T("INT"))])
    write(t, id=[2], w=["b"], n=pa.array([7], pa.int32()))
    t = alter_table(t, [DropColumn("n"), UpdateColumnType("w", T("VARCHAR(100)"))])
    t = catalog.get_table("db.t")
    assert rows(t, snapshot_id=1) == [{"id": 1, "v": "a"}]
    assert t.read(snapshot_id=1).column_names == ["id", "v"]
    assert rows(t, snapshot_id=2) == [{"id": 1, "w": "a", "n": None}, {"id": 2, "w": "b", "n": 7}]
    assert rows(t) == [{"id": 1, "w": "a"}, {"id": 2, "w": "b"}]
    assert t.read(snapshot_id=1, columns=["v"], where="v = 'a'").to_pylist() == [{"v": "a"}]
    with pytest.raises(InvalidInput, match="unknown column 'v'"):
        t.read(columns=["v"])
    assert t.schema.id == 2  # writes keep the latest schema


def test_snapshot_records_the_schema_id(table):
    write(table, id=[1], v=["a"])
    t = alter_table(table, [AddColumn("n", T("INT"))])
    snap = write(t, id=[2], v=["b"], n=pa.array([1], pa.int32()))
    assert snap.schema_id == 1
    assert t.snapshots.snapshot(1).schema_id == 0


def test_diff_across_a_schema_change(table, catalog):
    write(table, id=[1, 2], v=["a", "b"])
    t = alter_table(table, [AddColumn("n", T("INT"))])
    write(t, id=[3], v=["c"], n=pa.array([5], pa.int32()))
    t = catalog.get_table("db.t")
    d = diff(t, 0, 2, mode="diff")
    assert sorted(d.to_pylist(), key=lambda r: r["id"]) == [
        {"_row_kind": "+I", "id": 1, "v": "a", "n": None},
        {"_row_kind": "+I", "id": 2, "v": "b", "n": None},
        {"_row_kind": "+I", "id": 3, "v": "c", "n": 5},
    ]
    d = diff(t, 1, 2, mode="diff")
    assert d.to_pylist() == [{"_row_kind": "+I", "id": 3, "v": "c", "n": 5}]


def test_compaction_after_a_change(table, catalog):
    write(table, id=[1, 2], v=["a", "b"])
    write(table, id=[3], v=["c"])
    t = alter_table(table, [RenameColumn("v", "w"), AddColumn("n", T("BIGINT"))])
    write(t, id=[2, 4], w=["B", "d"], n=[20, 40])
    t = catalog.get_table("db.t")
    before = rows(t)
    full_compact(t)
    t = catalog.get_table("db.t")
    assert t.snapshots.latest().commit_kind == "COMPACT"
    assert rows(t) == before
    live = [f for s in t.plan(t.snapshots.latest()) for f in s.files]
    assert live and all(f.schema_id == 1 for f in live)
    if t.is_primary_key_table:
        assert before == [
            {"id": 1, "w": "a", "n": None},
            {"id": 2, "w": "B", "n": 20},
            {"id": 3, "w": "c", "n": None},
            {"id": 4, "w": "d", "n": 40},
        ]


def test_pk_merge_across_schemas_keeps_latest_value(catalog):
    t = catalog.create_table("db.pk", PK[1]())
    write(t, id=[1, 2], v=["a", "b"])
    t = alter_table(t, [AddColumn("n", T("INT")), RenameColumn("v", "w")])
    write(t, id=[1], w=["A"], n=pa.array([1], pa.int32()))
    assert rows(t) == [{"id": 1, "w": "A", "n": 1}, {"id": 2, "w": "b", "n": None}]


def test_explicit_cast_of_stored_values(catalog):
    t = catalog.create_table(
        "db.c", Schema(Schema.parse_columns("id BIGINT NOT NULL, s STRING, d DOUBLE, b BIGINT"))
    )
    t.write_arrow(
        pa.table({"id": pa.array([1], pa.int64()), "s": ["42"], "d": [2.75], "b": pa.array([7], pa.int64())})
    )
    t = alter_table(
        t,
        [
            UpdateColumnType("s", T("INT")),
            UpdateColumnType("d", T("DECIMAL(10, 2)")),
            UpdateColumnType("b", T("INT")),
        ],
    )
    out = t.read().to_pylist()
    assert out[0]["s"] == 42 and str(out[0]["d"]) == "2.75" and out[0]["b"] == 7
    t.write_arrow(pa.table({"id": pa.array([2], pa.int64()), "s": pa.array([5], pa.int32())}))
    assert sorted(r["s"] for r in t.read().to_pylist()) == [5, 42]


def test_bad_stored_value_for_explicit_cast_is_one_line_error(catalog):
    """Our alter refuses the change (retype_check); a table changed without that check (Java 0.9
    checks no data) reads with a one-line error."""
    t = catalog.create_table("db.c", Schema(Schema.parse_columns("id BIGINT NOT NULL, s STRING")))
    t.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "s": ["not a number"]}))
    from paimon_core.ops.alter import alter_table as checked_alter

    with pytest.raises(InvalidInput, match="stored value 'not a number'"):
        checked_alter(t, [UpdateColumnType("s", T("INT"))])
    assert t.read().to_pylist() == [{"id": 1, "s": "not a number"}]
    t = t.with_schema(commit_changes(t.io, t.path, [UpdateColumnType("s", T("INT"))]))
    with pytest.raises(SchemaMismatch, match="column 's': values written as STRING cannot be read as INT"):
        t.read()


def test_bucket_change_on_empty_table(catalog):
    t = catalog.create_table("db.b", PK[1]())
    t = alter_table(t, [SetOption("bucket", "3")])
    write(t, id=list(range(20)), v=["x"] * 20)
    assert {s.bucket for s in t.plan(t.snapshots.latest())} == {0, 1, 2}
    t = alter_table(t, [SetOption("bucket", "4")])  # the stored files keep 3 until rescaled
    with pytest.raises(CommitConflict, match="the table holds files of 3 buckets, this write has 4"):
        write(t, id=[1], v=["y"])


# ---------------------------------------------------------------------------------------------
# evolve on write


def test_write_arrow_evolve_adds_and_widens(table, catalog):
    t = alter_table(table, [AddColumn("n", T("INT"))])
    write(t, id=[1], v=["a"], n=pa.array([1], pa.int32()))
    data = pa.table({"id": pa.array([2], pa.int64()), "n": pa.array([2**40], pa.int64()), "extra": [1.5]})
    with pytest.raises(SchemaMismatch, match="unknown column 'extra'"):
        t.write_arrow(data)
    snap = t.write_arrow(data, evolve=True)
    latest = catalog.get_table("db.t").schema
    assert snap.schema_id == latest.id == 2
    assert latest.field("n").type == T("BIGINT") and latest.field("extra").type == T("DOUBLE")
    assert latest.field("extra").id == 3
    assert t.schema.id == 2  # the table object follows
    assert rows(t) == [
        {"id": 1, "v": "a", "n": 1, "extra": None},
        {"id": 2, "v": None, "n": 2**40, "extra": 1.5},
    ]


def test_evolve_without_changes_writes_no_schema(table):
    write(table, id=[1], v=["a"])
    table.write_arrow(pa.table({"id": pa.array([2], pa.int64())}), evolve=True)
    assert SchemaManager(table.io, table.path).list_ids() == [0]


def test_evolve_does_not_narrow_or_change_keys(catalog):
    t = catalog.create_table(
        "db.k", Schema(Schema.parse_columns("id INT NOT NULL, v BIGINT"), (), ("id",), {"bucket": "1"})
    )
    with pytest.raises(SchemaMismatch):  # a key is never widened by evolve
        t.write_arrow(pa.table({"id": pa.array([2**40], pa.int64())}), evolve=True)
    with pytest.raises(SchemaMismatch, match="column .v. has .x., not a valid BIGINT"):
        t.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "v": ["x"]}), evolve=True)
    assert SchemaManager(t.io, t.path).list_ids() == [0]


def test_ingest_files_evolve(table, catalog, tmp_path):
    a = tmp_path / "a.parquet"
    b = tmp_path / "b.parquet"
    pq.write_table(
        pa.table({"id": pa.array([1], pa.int64()), "v": ["a"], "c1": pa.array([1], pa.int32())}), a
    )
    pq.write_table(
        pa.table({"id": pa.array([2], pa.int64()), "c2": ["z"], "c1": pa.array([5], pa.int64())}), b
    )
    with pytest.raises(SchemaMismatch, match="a.parquet: unknown column 'c1'"):
        ingest_files(table, [str(a), str(b)])
    assert SchemaManager(table.io, table.path).list_ids() == [0]
    res = ingest_files(table, [str(a), str(b)], evolve=True)
    latest = catalog.get_table("db.t").schema
    assert res.snapshot.schema_id == latest.id == 1  # one schema change for all inputs
    assert latest.field_names == ["id", "v", "c1", "c2"] and latest.field("c1").type == T("BIGINT")
    assert [type(c).__name__ for c in res.evolved] == ["AddColumn", "AddColumn", "UpdateColumnType"]
    assert rows(catalog.get_table("db.t")) == [
        {"id": 1, "v": "a", "c1": 1, "c2": None},
        {"id": 2, "v": None, "c1": 5, "c2": "z"},
    ]
