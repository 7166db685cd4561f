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


def test_the_snapshot_view_has_every_handoff(table):
    """``t.at(snapshot=, tag=, time=)`` carries the hand-offs, each taking ``columns`` and
    ``where`` only; the table's own ``to_*`` are those of its view."""
    from paimon_core.maintain import create_tag

    create_tag(table, "v1", snapshot_id=1)
    for at in (table.at(snapshot=1), table.at(tag="v1")):
        assert at.snapshot.id == 1
        assert sorted(at.to_arrow(["id"], "dt = 'x'").column("id").to_pylist()) == [1, 2]
        assert sorted(at.to_arrow_reader(["id"]).read_all().column("id").to_pylist()) == [1, 2, 3]
        assert sorted(at.to_pandas(["id", "name"], "id > 1")["name"]) == ["b", "c"]
        assert sorted(at.to_polars(where="dt = 'y'")["id"].to_list()) == [3]
        assert at.count("dt = 'x'") == 2 and at.waiting_rows() == 0
        con = duckdb.connect()
        assert at.to_duckdb(con, ["id"], "id < 3").aggregate("sum(id)").fetchall() == [(3,)]
        at.to_duckdb(con, name="first")
        assert con.sql("SELECT count(*) FROM first").fetchall() == [(3,)]
        assert at.dataset(["id"]).to_table().num_rows == 3
    second = table.snapshots.snapshot(2).time_millis  # (the first may share its millisecond)
    assert table.at(time=second).snapshot.id == 2 and table.at(time=second).count("dt = 'y'") == 2
    latest = table.at()
    assert latest.snapshot.id == 2 and latest.to_arrow().num_rows == table.to_arrow().num_rows == 4
    assert table.to_pandas(tag="v1").equals(table.at(tag="v1").to_pandas())
