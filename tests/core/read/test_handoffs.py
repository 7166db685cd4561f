"""DataFrame hand-offs of a table: Arrow, pandas, polars, DuckDB; each with snapshot, columns
and filter; DuckDB's own filters reach our scan."""

from __future__ import annotations

import sys

import duckdb
import pyarrow as pa
import pytest

from paimon_core import FileSystemCatalog, Schema
from paimon_core.errors import InvalidInput


@pytest.fixture
def table(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cols = Schema.parse_columns("id BIGINT NOT NULL, name STRING, dt STRING")
    t = cat.create_table("db.t", Schema(cols, ("dt",)))
    t.write_arrow(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"], "dt": ["x", "x", "y"]}))
    t.write_arrow(pa.table({"id": [4], "name": ["d"], "dt": ["y"]}))
    return t


def test_arrow_pandas_polars(table):
    assert table.to_arrow(columns=["id"], where="dt = 'y'").column("id").to_pylist() == [3, 4]
    assert table.to_arrow(snapshot_id=1).num_rows == 3
    assert sorted(table.to_arrow_reader(where="id > 1").read_all().column("id").to_pylist()) == [2, 3, 4]
    df = table.to_pandas(columns=["id", "name"], where="id < 3")
    assert list(df.columns) == ["id", "name"] and sorted(df["id"]) == [1, 2]
    pl = table.to_polars(snapshot_id=1, where="dt = 'x'")
    assert sorted(pl["id"].to_list()) == [1, 2]


def test_polars_missing_is_a_clear_error(table, monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)  # what an environment without polars imports
    with pytest.raises(InvalidInput, match="to_polars needs polars"):
        table.to_polars()


def test_duckdb_relation_and_view_push_down(table):
    con = duckdb.connect()
    rel = table.to_duckdb(con)
    assert rel.filter("dt = 'y'").aggregate("count(*)").fetchall() == [(2,)]
    table.to_duckdb(con, snapshot_id=1, columns=["id", "dt"], where="id > 1", name="v")
    assert sorted(con.sql("SELECT id FROM v").fetchall()) == [(2,), (3,)]
    data = table.dataset()
    con.register("w", data)
    assert con.sql("SELECT name FROM w WHERE dt = 'x' AND id > 1").fetchall() == [("b",)]
    columns, where, files = data.scans[-1]
    assert set(columns) == {"name", "dt", "id"} and "`dt` = 'x'" in where and files == 1
