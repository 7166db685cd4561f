"""``diff --mode diff`` a group of buckets at a time (``state_diff``) gives the changes the whole-
table comparison gives (``changes(state A, state B)``, the implementation before it), row for row, on random histories with every row kind: fixed buckets
over partitions, dynamic buckets, cross-partition keys that move between partitions, append
tables with and without buckets, and a bucket count changed between A and B."""

from __future__ import annotations

import random
from collections import Counter

import pyarrow as pa
import pytest

from paimon_core.data.no_rows import no_rows
from paimon_core.data.system_columns import KIND
from paimon_core.merge.changelog import changes
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff, diff_parts
from paimon_core.read.scan import plan
from paimon_core.read.state_diff import groups, state_changes
from paimon_core.read.table_read import TableRead

COLUMNS = "id INT NOT NULL, p INT NOT NULL, v STRING, n DOUBLE"
TABLES = {
    "fixed": (("p",), ("id", "p"), {"bucket": "3"}),
    "dynamic": (("p",), ("id", "p"), {"bucket": "-1"}),
    "cross": (("p",), ("id",), {"bucket": "-1"}),
    "append": (("p",), (), {}),
    "append-buckets": ((), (), {"bucket": "2", "bucket-key": "id"}),
}


def _history(table, rng: random.Random, snapshots: int) -> None:
    keyed = bool(table.schema.primary_keys)
    for i in range(snapshots):
        n = rng.randint(1, 40)
        ids = [rng.randint(0, 30) for _ in range(n)]
        if keyed:  # one row per key a commit, any kind
            ids = list(dict.fromkeys(ids))
        rows = {
            "id": pa.array(ids, pa.int32()),
            "p": pa.array(
                [rng.randint(0, 2) if not keyed or "cross" in table.identifier else i % 3 for i in ids],
                pa.int32(),
            ),
            "v": [rng.choice(["a", "b", None, "", "c,d"]) for _ in ids],
            "n": [rng.choice([1.5, None, float("nan"), -0.0]) for _ in ids],
        }
        if keyed:
            rows["k"] = [rng.choice(["+I", "+U", "-U", "-D"]) for _ in ids]
            table.write_arrow(pa.table(rows), row_kind_column="k")
        elif i in (3, 6):  # an append table loses rows by an overwrite
            table.write_arrow(pa.table(rows), overwrite=True)
        else:
            table.write_arrow(pa.table(rows))


def _key(row: dict) -> str:
    return repr(sorted((k, "nan" if v != v else v) for k, v in row.items()))


def _state(table, point: int) -> pa.Table:
    whole = table.schema.field_names
    if point == 0:
        return no_rows(table.schema.arrow_schema()).select(whole)
    return TableRead(table, whole).to_arrow(plan(table, table.snapshots.snapshot(point)))


def _whole_table(table, a: int, b: int) -> pa.Table:
    """The reference: both states whole, then ``changes``."""
    return changes(_state(table, a), _state(table, b), list(table.schema.primary_keys))


@pytest.mark.parametrize("kind", sorted(TABLES))
@pytest.mark.parametrize("seed", range(3))
def test_grouped_state_diff_equals_the_whole_table_diff(catalog, kind, seed):
    parts, keys, opts = TABLES[kind]
    t = catalog.create_table(
        f"db.{kind.replace('-', '_')}_{seed}", Schema(Schema.parse_columns(COLUMNS), parts, keys, opts)
    )
    rng = random.Random(seed)
    _history(t, rng, 8)
    last = t.snapshots.latest_id()
    kinds = Counter()
    for a, b in [(0, last), (1, last), (3, 5), (last - 1, last), (2, 2)]:
        before = _whole_table(t, a, b)
        pieces = list(state_changes(t, a, b, t.schema.field_names))
        after = pa.concat_tables(pieces) if pieces else before.slice(0, 0)
        assert Counter(map(_key, after.to_pylist())) == Counter(map(_key, before.to_pylist()))
        kinds.update(before.column(KIND).to_pylist())
        if not keys or kind == "cross":
            continue
        for piece in pieces:  # each group in the whole-table order: by key, -U before +U
            order = [r for r in before.to_pylist() if _key(r) in set(map(_key, piece.to_pylist()))]
            assert [_key(r) for r in piece.to_pylist()] == [_key(r) for r in order]
    assert len(kinds) == (4 if keys else 2), kinds  # every row kind the table can have was compared


def test_each_bucket_is_a_group_and_a_moving_key_widens_it(catalog):
    schema = Schema(Schema.parse_columns(COLUMNS), ("p",), ("id", "p"), {"bucket": "3"})
    t = catalog.create_table("db.g", schema)
    _history(t, random.Random(1), 4)
    splits = t.plan(t.snapshots.latest())
    assert len(groups(t, splits, splits)) == len(splits) > 3
    cross = catalog.create_table(
        "db.c", Schema(Schema.parse_columns(COLUMNS), ("p",), ("id",), {"bucket": "-1"})
    )
    _history(cross, random.Random(1), 4)
    splits = cross.plan(cross.snapshots.latest())
    assert len(splits) > 1 and len(groups(cross, splits, splits)) == 1


def test_a_rescaled_partition_is_one_group(catalog):
    schema = Schema(Schema.parse_columns(COLUMNS), ("p",), ("id", "p"), {"bucket": "2"})
    t = catalog.create_table("db.r", schema)
    _history(t, random.Random(2), 3)
    old = t.plan(t.snapshots.latest())
    new = [
        s.__class__(s.partition, s.partition_bytes, s.bucket, 4, s.files) for s in old if s.partition == (0,)
    ]
    new += [s for s in old if s.partition != (0,)]
    g = groups(t, old, new)
    whole = [pair for pair in g if any(s.partition == (0,) for s in pair[0])]
    assert len(whole) == 1 and len(whole[0][0]) == len([s for s in old if s.partition == (0,)])


def test_diff_parts_stream_what_diff_returns(catalog):
    t = catalog.create_table(
        "db.s", Schema(Schema.parse_columns(COLUMNS), ("p",), ("id", "p"), {"bucket": "2"})
    )
    _history(t, random.Random(5), 5)
    whole = diff(t, 1, 5, mode="diff")
    parts = list(diff_parts(t, 1, 5, mode="diff", columns=["id", "v"]))
    assert len(parts) > 1
    assert pa.concat_tables(parts).column_names == ["_row_kind", "id", "v"]
    assert pa.concat_tables(parts).num_rows == whole.num_rows


def test_a_diff_across_a_rescale_equals_the_whole_table_diff(catalog):
    """The partitions go from 2 to 5 buckets between A and B: keys change buckets, so each
    partition is compared whole (per bucket, updated keys would read as -D and +I)."""
    from paimon_core.ops.rescale import rescale

    t = catalog.create_table(
        "db.rs", Schema(Schema.parse_columns(COLUMNS), ("p",), ("id", "p"), {"bucket": "2"})
    )
    rng = random.Random(9)
    _history(t, rng, 3)
    a = t.snapshots.latest_id()
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    alter_table(t, [SetOption("bucket", "5")])
    t = catalog.get_table("db.rs")
    rescale(t, 5)
    _history(t, rng, 3)
    b = t.snapshots.latest_id()
    before = _whole_table(t, a, b)
    after = pa.concat_tables(list(state_changes(t, a, b, t.schema.field_names)))
    assert Counter(map(_key, after.to_pylist())) == Counter(map(_key, before.to_pylist()))
    assert {"-U", "+U"} <= set(diff(t, a, b, mode="diff").column("_row_kind").to_pylist())


def test_groups_whose_files_did_not_change_are_not_read(catalog, monkeypatch):
    """An overwrite of one partition: only that partition's buckets are read, on both sides."""
    t = catalog.create_table(
        "db.o", Schema(Schema.parse_columns(COLUMNS), ("p",), (), {"bucket": "2", "bucket-key": "id"})
    )
    rows = {"id": pa.array(range(30), pa.int32()), "p": pa.array([i % 3 for i in range(30)], pa.int32())}
    t.write_arrow(pa.table(rows))
    t.write_arrow(
        pa.table({"id": pa.array([1, 4], pa.int32()), "p": pa.array([1, 1], pa.int32())}), overwrite=True
    )
    read = []
    real = TableRead.to_arrow
    monkeypatch.setattr(TableRead, "to_arrow", lambda self, splits: read.extend(splits) or real(self, splits))
    got = pa.concat_tables(state_changes(t, 1, 2, t.schema.field_names))
    assert {s.partition for s in read} == {(1,)}
    monkeypatch.undo()
    assert Counter(map(_key, got.to_pylist())) == Counter(map(_key, _whole_table(t, 1, 2).to_pylist()))
    assert sorted(got.column("id").to_pylist()) == [i for i in range(30) if i % 3 == 1 and i not in (1, 4)]
