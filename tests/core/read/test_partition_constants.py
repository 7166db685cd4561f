"""Partition columns read as the split's partition value repeated, not decoded from each file
(``TableRead._partition_constants``): the rows are the same for every allowed type, a NULL
partition, filters on them, deletion vectors and merges, and a file whose rows are all deleted."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where

COLUMNS = "s STRING, i INT, b BOOLEAN, d DATE, id BIGINT NOT NULL, v DOUBLE"
PARTITION = ("s", "i", "b", "d")


def _rows(null_partition: bool = True) -> pa.Table:
    n = 40
    return pa.table(
        {
            "s": [None if k % 7 == 0 and null_partition else f"p{k % 3}" for k in range(n)],
            "i": pa.array([k % 2 for k in range(n)], pa.int32()),
            "b": [k % 4 == 0 for k in range(n)],
            "d": [dt.date(2024, 1, 1 + k % 2) for k in range(n)],
            "id": pa.array(range(n), pa.int64()),
            "v": [k / 4 for k in range(n)],
        }
    )


def _sorted(t: pa.Table) -> list[dict]:
    return sorted(t.to_pylist(), key=lambda r: r["id"])


def _table(tmp_path, keys=(), options=None):
    cols = Schema.parse_columns(COLUMNS)
    opts = {"bucket": "2" if keys else "-1", **(options or {})}
    return FileSystemCatalog(str(tmp_path / "wh")).create_table("db.t", Schema(cols, PARTITION, keys, opts))


def _stored(t) -> list[dict]:
    """The rows as the data files hold them (pyarrow over every Parquet file)."""
    files = list(Path(t.path).rglob("*.parquet"))
    return _sorted(pa.concat_tables([pq.read_table(p).select(list(_rows().column_names)) for p in files]))


def test_append_table_partition_columns_equal_the_stored_values(tmp_path):
    t = _table(tmp_path)
    t.write_arrow(_rows())
    assert _sorted(t.read()) == _stored(t) == _sorted(_rows())
    only = t.read(columns=["s", "d"])  # partition columns alone: still one row per stored row
    assert only.num_rows == 40 and only.schema.names == ["s", "d"]
    assert sorted(map(str, only.to_pylist())) == sorted(map(str, _rows().select(["s", "d"]).to_pylist()))
    expected = [r for r in _sorted(_rows()) if r["s"] is None and r["b"]]
    assert _sorted(t.read(where="s IS NULL AND b = true")) == expected
    assert t.read().schema == t.schema.arrow_schema()


def test_primary_key_table_with_deletion_vectors(tmp_path):
    keys = ("s", "i", "b", "d", "id")
    t = _table(tmp_path, keys, {"deletion-vectors.enabled": "true"})
    rows = _rows(null_partition=False)
    t.write_arrow(rows)
    changed = rows.slice(0, 10)
    t.write_arrow(changed.set_column(5, "v", pa.array([-1.0] * changed.num_rows)))
    delete_where(t, "id >= 30")
    expected = [dict(r, v=-1.0) if r["id"] < 10 else r for r in _sorted(rows) if r["id"] < 30]
    assert _sorted(t.read()) == expected
    assert _sorted(t.read(columns=["id", "s", "b"])) == [
        {"id": r["id"], "s": r["s"], "b": r["b"]} for r in expected
    ]
