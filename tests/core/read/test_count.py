"""Counts from metadata (#26): equal to counts from data on random histories, answered
without reading a data file where exact, and refused (None: count from data) elsewhere."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where
from paimon_core.read.count import metadata_count
from paimon_core.read.table_read import TableRead

COLUMNS = "dt STRING, id BIGINT NOT NULL, v BIGINT"
WHERES = [None, "dt = 'd1'", "dt IN ('d0', 'd2')", "dt != 'd1'", "dt IS NULL", "NOT (dt = 'd0')", "v > 3"]


def _table(tmp_path, pk: bool, options: dict | None = None):
    keys = ("dt", "id") if pk else ()
    opts = {"bucket": "2" if pk else "-1", **(options or {})}
    cols = Schema.parse_columns(COLUMNS)
    return FileSystemCatalog(str(tmp_path / "wh")).create_table("db.t", Schema(cols, ("dt",), keys, opts))


def _rows(rng: random.Random, n: int) -> pa.Table:
    return pa.table(
        {
            "dt": [rng.choice(["d0", "d1", "d2"]) for _ in range(n)],
            "id": pa.array([rng.randrange(40) for _ in range(n)], pa.int64()),
            "v": pa.array([rng.randrange(8) for _ in range(n)], pa.int64()),
        }
    )


def _check(t, where: str | None) -> int | None:
    """metadata_count beside the rows a read returns; the metadata answer (None: not exact)."""
    at = t.at()
    predicate = t.parse_filter(where)
    splits = at.plan(predicate)
    from_meta = metadata_count(at.table, splits, predicate)
    from_data = sum(b.num_rows for b in TableRead(at.table, ["id"], predicate).to_batches(splits))
    if from_meta is not None:
        assert from_meta == from_data, where
    assert at.count(where) == from_data, where
    return from_meta


def _step(t, rng: random.Random, pk: bool) -> None:
    r = rng.random()
    if r < 0.5:
        t.write_arrow(_rows(rng, rng.randrange(1, 25)))
    elif r < 0.7:
        delete_where(t, f"id < {rng.randrange(15)} AND dt = 'd{rng.randrange(3)}'")
    elif r < 0.85:
        compact(t, full=True)
    else:
        compact(t)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(
    "kind,options",
    [
        ("append", {}),
        ("append-dv", {"deletion-vectors.enabled": "true"}),
        ("pk", {}),
        ("pk-dv", {"deletion-vectors.enabled": "true"}),
    ],
)
def test_metadata_counts_equal_data_counts_on_random_histories(tmp_path, seed, kind, options):
    rng = random.Random(seed)
    pk = kind.startswith("pk")
    t = _table(tmp_path, pk, options)
    answered = 0
    for _ in range(10):
        _step(t, rng, pk)
        for where in WHERES:
            got = _check(t, where)
            if got is not None:
                answered += 1
            if not pk and where != "v > 3":
                assert got is not None, (kind, where)  # append tables: always from metadata
            if where == "v > 3":
                assert got is None  # a value column: counted from data
    compact(t, full=True)
    for where in WHERES[:-1]:
        assert _check(t, where) is not None, (kind, where)  # fully compacted: from metadata
    assert answered


def test_count_reads_no_data_file_where_metadata_is_exact(tmp_path, monkeypatch):
    """An append table and a fully compacted PK table count without opening a data file."""
    rng = random.Random(7)
    append = _table(tmp_path / "a", False)
    pk = _table(tmp_path / "p", True)
    for _ in range(3):
        rows = _rows(rng, 30)
        append.write_arrow(rows)
        pk.write_arrow(rows)
    expected_pk = pk.read().num_rows
    expected_d1 = append.read(where="dt = 'd1'").num_rows
    compact(pk, full=True)

    def refuse(*a, **k):
        raise AssertionError("a data file was read")

    monkeypatch.setattr(TableRead, "read_file", refuse)
    assert append.count() == 90
    assert append.count("dt = 'd1'") == expected_d1 > 0
    assert pk.count() == expected_pk


def test_overlapping_runs_count_from_data(tmp_path):
    """Two writes of the same keys (level 0, overlapping): metadata cannot tell the merged
    count, the count is the merged rows."""
    t = _table(tmp_path, True)
    rows = pa.table(
        {"dt": ["d0"] * 3, "id": pa.array([1, 2, 3], pa.int64()), "v": pa.array([1, 2, 3], pa.int64())}
    )
    t.write_arrow(rows)
    t.write_arrow(rows)
    at = t.at()
    assert metadata_count(at.table, at.plan()) is None
    assert t.count() == 3
