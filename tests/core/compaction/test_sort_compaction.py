"""Sort compaction of append tables: the same rows, in order, one OVERWRITE snapshot, and files
whose statistics let filtered reads skip most of them."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction import sort_keys
from paimon_core.compaction.sort_compaction import sort_compact
from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import Schema


def _table(tmp_path, options=None):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    opts = {"target-file-size": "8kb"} | (options or {})
    cols = "a INT, b STRING, c BIGINT, f DOUBLE, dt STRING NOT NULL"
    return cat.create_table("db.t", Schema(Schema.parse_columns(cols), ("dt",), (), opts))


def _batch(rng, n, dt="d1"):
    return pa.table(
        {
            "a": pa.array(
                [rng.randrange(1000) if rng.random() > 0.05 else None for _ in range(n)], pa.int32()
            ),
            "b": [f"k{rng.randrange(500):04d}" for _ in range(n)],
            "c": pa.array([rng.randrange(1000) for _ in range(n)], pa.int64()),
            "f": [rng.uniform(-1e6, 1e6) for _ in range(n)],
            "dt": [dt] * n,
        }
    )


def _multiset(t):
    return sorted(map(lambda r: tuple(r.values()), t.read().to_pylist()), key=str)


def _files_read(t, where: str) -> int:
    return sum(len(s.files) for s in t.plan(t.snapshots.latest(), t.parse_filter(where)))


@pytest.mark.parametrize("strategy", ["order", "zorder", "hilbert"])
def test_sort_compaction_keeps_rows_and_prunes(tmp_path, strategy):
    """Random rows in files of partition d1 (each spanning every value); after the sort a range filter on a sort column
    reads at most half of the files written (with a curve, on either column). Paimon's Z-order works on each
    column's 64-bit key, so columns of like ranges interleave well (as in Java)."""
    rng = random.Random(7)
    t = _table(tmp_path)
    for _ in range(4):
        t.write_arrow(pa.concat_tables([_batch(rng, 8000), _batch(rng, 200, "d2")]))
    before = _multiset(t)
    files = _files_read(t, "dt = 'd1' AND a >= 100 AND a < 140")
    res = sort_compact(t, strategy, ["a", "c"], partition="dt=d1")
    assert res.partitions == 1 and res.rows == 32000
    assert res.snapshot.commit_kind == "OVERWRITE" and res.files_after > 1
    assert _multiset(t) == before
    after = _files_read(t, "dt = 'd1' AND a >= 100 AND a < 140")
    assert files == res.files_before and res.files_after >= 8
    assert after <= res.files_after / 2, (res.files_after, after)
    if strategy != "order":  # a curve keeps both columns local
        assert _files_read(t, "dt = 'd1' AND c >= 100 AND c < 140") < res.files_after * 2 / 3
    d2 = [s for s in t.plan(t.snapshots.latest()) if s.partition == ("d2",)]
    assert sum(len(s.files) for s in d2) == 4  # the other partition untouched
    if strategy == "order":
        d1 = t.read(where="dt = 'd1'")
        a = d1.column("a").to_pylist()
        assert a == sorted(a, key=lambda x: (x is not None, x))


def test_orders():
    t = pa.table({"x": pa.array([3, 0, 2, 1], pa.int64()), "y": pa.array([0, 3, 1, 2], pa.int64())})
    assert list(sort_keys.column_order(t, ["x"])) == [1, 3, 2, 0]
    # Z-order of (x, y) on a 4x4 grid: interleaved bits x1 y1 x0 y0 (sign bits flipped alike)
    z = [
        ((x >> 1) << 3) | ((y >> 1) << 2) | ((x & 1) << 1) | (y & 1)
        for x, y in zip([3, 0, 2, 1], [0, 3, 1, 2])
    ]
    assert list(sort_keys.zorder(t, ["x", "y"])) == list(np.argsort(z, kind="stable"))
    # a Hilbert walk visits neighbours: consecutive cells of the full 4x4 grid are adjacent
    g = pa.table(
        {
            "x": pa.array([i % 4 for i in range(16)], pa.int64()),
            "y": pa.array([i // 4 for i in range(16)], pa.int64()),
        }
    )
    path = [(i % 4, i // 4) for i in sort_keys.hilbert(g, ["x", "y"])]
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(path, path[1:])), path


def test_refusals(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    pk = cat.create_table(
        "db.pk", Schema(Schema.parse_columns("id INT NOT NULL, v INT"), (), ("id",), {"bucket": "1"})
    )
    with pytest.raises(InvalidInput, match="append tables without buckets"):
        sort_compact(pk, "zorder", ["v"])
    t = _table(tmp_path)
    with pytest.raises(InvalidInput, match="unknown sort strategy 'spiral'"):
        sort_compact(t, "spiral", ["a"])
    with pytest.raises(InvalidInput, match="nope"):
        sort_compact(t, "order", ["nope"])
    assert sort_compact(t, "order", ["a"]).snapshot is None  # empty table: nothing to do
