"""The CLI on the Spark engine (local[2] lane, its session reused): ingest, compact, read --out,
diff --out and sql with time travel, through Typer's CliRunner."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog

pytestmark = pytest.mark.parametrize("engine", ["local"], indirect=True)

SCHEMA = "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING"


def events(n: int, start: int = 0, tag: str = "n") -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": [f"{tag}{i}" for i in ids],
            "value": [i / 2 for i in ids],
            "dt": [f"2024-01-0{i % 2 + 1}" for i in ids],
        }
    )


@pytest.fixture
def cli(engine, tmp_path, monkeypatch):
    """``cli(*args)`` runs paimon -w WH ARGS in-process; the engine's session creation is
    redirected to the lane's session (and records the master/remote it was asked for)."""
    import paimon_core.engines.spark.engine as S

    asked = []

    def create_session(master=None, remote=None, conf=None):
        asked.append((master, remote))
        return engine.spark

    monkeypatch.setattr(S, "create_session", create_session)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    wh = tmp_path / "wh"

    def run(*args, code=0):
        argv = ["-w", str(wh), *map(str, args)]
        r = runner.invoke(app, argv)
        assert r.exit_code == code, (
            f"paimon {' '.join(argv)} -> {r.exit_code}\n{r.stdout}\n{r.stderr}\n{r.exception!r}"
        )
        return r

    run.wh, run.asked = wh, asked
    return run


def jrows(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


SPARK = ("--engine", "spark", "--spark-master", "local[2]")


def test_cli_ingest_compact_read_sql(cli, tmp_path):
    pq.write_table(events(60), tmp_path / "a.parquet")
    pq.write_table(events(40, 30, "u"), tmp_path / "b.parquet")
    cli("create-table", "db.pk", "--schema", SCHEMA, "-k", "id", "--bucket", "2")
    cli("create-table", "db.log", "--schema", SCHEMA, "-p", "dt")
    for t in ("db.pk", "db.log"):
        r = cli(*SPARK, "ingest", tmp_path / "a.parquet", "-t", t)
        assert "ingested 60 rows in " in r.stdout and r.stdout.rstrip().endswith(f"into {t}: snapshot 1")
        cli("ingest", *SPARK, tmp_path / "b.parquet", "-t", t)  # the options also work after the command
    cli("tag", "create", "first", "-t", "db.pk", "--snapshot", "1")
    assert cli.asked and all(a == ("local[2]", None) for a in cli.asked)

    cat = FileSystemCatalog(str(cli.wh))
    pk = cat.get_table("db.pk")
    before = pk.read().sort_by("id")
    assert before.num_rows == 70 and before.column("name").to_pylist()[30:32] == ["u30", "u31"]
    r = cli(*SPARK, "compact", "-t", "db.pk", "--full")
    assert r.stdout.startswith("compacted 2 bucket(s) of db.pk")
    pk = cat.get_table("db.pk")
    assert pk.snapshots.latest().commit_kind == "COMPACT"
    assert pk.read().sort_by("id").equals(before)

    # read --out: a folder of Parquet part files written by the executors
    r = cli(*SPARK, "-o", "json", "read", "-t", "db.pk", "--where", "id >= 10", "--out", tmp_path / "pk_out")
    rec = jrows(r)[0]
    assert rec["rows"] == 60 and (tmp_path / "pk_out" / "_SUCCESS").exists()
    got = pq.read_table(tmp_path / "pk_out").sort_by("id")
    assert got.to_pylist() == before.filter(pa.compute.greater_equal(before["id"], 10)).to_pylist()
    cli(
        *SPARK, "read", "-t", "db.pk", "--snapshot", "1", "--out", tmp_path / "pk_out"
    )  # replaces its own folder
    assert pq.read_table(tmp_path / "pk_out").num_rows == 60
    (tmp_path / "file.parquet").write_bytes(b"x")
    r = cli(*SPARK, "read", "-t", "db.pk", "--out", tmp_path / "file.parquet", code=1)
    assert "it exists; give --force to replace it" in r.stderr  # never replaced without --force
    r = cli(*SPARK, "read", "-t", "db.pk", "--out", tmp_path / "file.parquet", "--force", code=1)
    assert "is a file" in r.stderr  # and the executors write a folder, never over a file
    # the local path is unchanged: one file
    cli("--engine", "local", "read", "-t", "db.pk", "--out", tmp_path / "local.parquet")
    assert pq.read_table(tmp_path / "local.parquet").sort_by("id").equals(before)

    # diff --out on the executors, same rows as the local diff
    cli(*SPARK, "diff", "-t", "db.pk", "--from", "1", "--to", "2", "--out", tmp_path / "d_out")
    cli(
        "--engine",
        "local",
        "diff",
        "-t",
        "db.pk",
        "--from",
        "1",
        "--to",
        "2",
        "--out",
        tmp_path / "d.parquet",
    )
    key = lambda r: (r["_row_kind"], r["id"])  # noqa: E731
    spark_diff = sorted(pq.read_table(tmp_path / "d_out").to_pylist(), key=key)
    assert spark_diff == sorted(pq.read_table(tmp_path / "d.parquet").to_pylist(), key=key)
    assert {r["_row_kind"] for r in spark_diff} == {"+I", "-U", "+U"}
    cli(
        *SPARK,
        "diff",
        "-t",
        "db.log",
        "--from",
        "0",
        "--mode",
        "delta",
        "--per-snapshot",
        "--out",
        tmp_path / "d2",
    )
    assert sorted(pq.read_table(tmp_path / "d2").column("_snapshot").to_pylist()) == [1] * 60 + [2] * 40

    # sql: joins, time travel (Spark's clauses and the $-forms), diffs, output formats; DuckDB (the
    # default engine) answers the same SQL with the same rows
    for sql in (
        "SELECT l.dt, count(*) AS n FROM db.log l JOIN db.pk VERSION AS OF 1 p ON l.id = p.id GROUP BY l.dt ORDER BY l.dt",
        "SELECT count(*) AS n, max(name) AS m FROM `db.pk$tag=first` WHERE id >= 30",
        "SELECT _row_kind, count(*) AS n FROM `db.pk$diff=1..2` GROUP BY 1 ORDER BY 1",
        "SELECT id, name, value, dt FROM db.log WHERE dt = '2024-01-02' AND id < 40 ORDER BY id, name",
    ):
        spark_rows = jrows(cli("--engine", "spark", "-o", "json", "sql", sql))
        assert jrows(cli("-o", "json", "sql", sql)) == spark_rows and spark_rows, sql
    q = (
        "SELECT l.dt, count(*) AS n FROM db.log l JOIN db.pk VERSION AS OF 1 p ON l.id = p.id "
        "GROUP BY l.dt ORDER BY l.dt"
    )
    assert jrows(cli("--engine", "spark", "sql", q, "-o", "json")) == [
        {"dt": "2024-01-01", "n": 45},
        {"dt": "2024-01-02", "n": 45},
    ]
    assert cli.asked[-1] == (None, None)  # sql without --spark-master: local[*] (here: the lane's session)
    for tt in (
        "db.pk VERSION AS OF 1",
        "`db.pk$snapshot=1`",
        "db.pk VERSION AS OF 'first'",
        "`db.pk$tag=first`",
    ):
        r = cli(*SPARK, "-o", "json", "sql", f"SELECT count(*) AS n, max(name) AS m FROM {tt} WHERE id >= 30")
        assert jrows(r) == [{"n": 30, "m": "n59"}], tt
    assert jrows(
        cli(
            "--engine",
            "spark",
            "-o",
            "json",
            "sql",
            "SELECT count(*) AS n, max(name) AS m FROM db.pk WHERE id >= 30",
        )
    ) == [{"n": 40, "m": "u69"}]
    r = cli(
        "-o", "json", "sql", "SELECT _row_kind, count(*) AS n FROM `db.pk$diff=1..2` GROUP BY 1 ORDER BY 1"
    )
    assert jrows(r) == [
        {"_row_kind": "+I", "n": 10},
        {"_row_kind": "+U", "n": 30},
        {"_row_kind": "-U", "n": 30},
    ]
    r = cli("--engine", "spark", "-o", "json", "sql", "SELECT count(*) AS n FROM `db.pk$diff=first..3`")
    assert jrows(r) == [{"n": 70}]  # 1 -> 3 (the compaction changes nothing)
    r = cli("--engine", "spark", "-o", "csv", "sql", "SELECT id, name FROM db.pk WHERE id < 2 ORDER BY id")
    assert r.stdout.splitlines() == ["id,name", "0,n0", "1,n1"]
    r = cli("--engine", "spark", "sql", "SELECT id, value FROM db.pk ORDER BY id", "--limit", "2")
    assert r.stdout.split() == ["id", "value", "--", "-----", "0", "0.0", "1", "0.5"]
    r = cli(
        "--engine",
        "spark",
        "-o",
        "json",
        "sql",
        "SELECT * FROM db.pk WHERE id < 5",
        "--out",
        tmp_path / "sql_out",
    )
    assert jrows(r)[0]["rows"] == 5 and pq.read_table(tmp_path / "sql_out").num_rows == 5
    r = cli("--engine", "spark", "sql", "SELECT * FROM `db.pk$snapshot=99`", code=1)
    assert "snapshot 99" in r.stderr


def test_spark_progress_is_fed(engine, tmp_path):
    """Ingest and compaction report the whole job through the progress callback."""
    from paimon_core.metadata.schema import Schema
    from paimon_core.ops.ingest import ingest_files

    pq.write_table(events(500), tmp_path / "a.parquet", row_group_size=100)
    t = FileSystemCatalog(str(tmp_path / "wh")).create_table(
        "db.p", Schema(Schema.parse_columns(SCHEMA), (), ("id",), {"bucket": "2"})
    )
    totals, steps = [], []
    ingest_files(
        t, [str(tmp_path / "a.parquet")], engine=engine, progress=steps.append, on_plan=totals.append
    )
    assert sum(steps) == totals[0] > 0
    steps.clear()
    splits = t.plan(t.snapshots.latest(), all_levels=True)
    engine.compact(t, splits, True, steps.append)
    assert sum(steps) == len(splits) == 2


def test_where_compares_numbers_as_sql_does_on_spark(cli, tmp_path):
    """The executors evaluate the same bound filter as the local engine: a DECIMAL column
    against integers, a BIGINT column against 100.5."""
    import decimal

    cli("create-table", "db.orders", "--schema", "id BIGINT NOT NULL, amount DECIMAL(10, 2)")
    data = pa.table(
        {
            "id": pa.array([7, 100, 101], pa.int64()),
            "amount": pa.array(
                [decimal.Decimal(a) for a in ("0.00", "100.00", "150.25")], pa.decimal128(10, 2)
            ),
        }
    )
    pq.write_table(data, tmp_path / "o.parquet")
    cli("ingest", tmp_path / "o.parquet", "-t", "db.orders")
    for where, ids in (
        ("amount > 100", [101]),
        ("amount = 0", [7]),
        ("id < 100.5", [7, 100]),
        ("amount IN (0, 150.25)", [7, 101]),
    ):
        out = tmp_path / f"out{len(ids)}{ids[0]}"
        cli(*SPARK, "read", "-t", "db.orders", "--where", where, "--out", out)
        assert sorted(pq.read_table(out).column("id").to_pylist()) == ids, where


@pytest.mark.parametrize(
    "query, first",
    [
        (
            "SELECT nope FROM db.q",
            "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column, variable, or function parameter "
            "with name `nope` cannot be resolved.",
        ),
        ("SELECT * FROM nope.x", "[TABLE_OR_VIEW_NOT_FOUND] The table or view `nope`.`x` cannot be found."),
        ("SELECT * FORM db.q", "[PARSE_SYNTAX_ERROR] Syntax error at or near"),
        (
            "SELECT CAST(name AS INT) FROM db.q",
            "[CAST_INVALID_INPUT] The value 'n0' of the type \"STRING\" cannot be cast",
        ),
    ],
)
def test_sql_mistakes_are_one_line_in_sparks_words(cli, tmp_path, capfd, query, first):
    cli("create-table", "db.q", "--schema", SCHEMA)
    pq.write_table(events(3), tmp_path / "q.parquet")
    cli("ingest", tmp_path / "q.parquet", "-t", "db.q")
    capfd.readouterr()
    r = cli("--engine", "spark", "sql", query, code=1)
    assert r.stderr.startswith("error: " + first), r.stderr
    assert r.stderr.count("\n") == 1 and "internal error" not in r.stderr and "paimon_db_q" not in r.stderr
    err = capfd.readouterr().err
    assert "SQLQueryContextLogger" not in err and "org.apache.spark.sql" not in err, err[:2000]


def test_sql_reads_system_tables_on_spark(cli, tmp_path):
    """`db.t$snapshots` and a branch's `db.t$branch_b$files` in `paimon sql --engine spark`."""
    pq.write_table(events(10), tmp_path / "a.parquet")
    cli("create-table", "db.st", "--schema", SCHEMA, "-p", "dt")
    cli("ingest", tmp_path / "a.parquet", "-t", "db.st")
    cli("ingest", tmp_path / "a.parquet", "-t", "db.st")
    r = cli(*SPARK, "-o", "json", "sql", "SELECT max(snapshot_id) AS s, count(*) AS n FROM `db.st$snapshots`")
    assert jrows(r) == [{"s": 2, "n": 2}]
    r = cli(*SPARK, "-o", "json", "sql", "SELECT sum(record_count) AS n FROM `db.st$files`")
    assert jrows(r) == [{"n": 20}]
    r = cli(
        *SPARK,
        "-o",
        "json",
        "sql",
        "SELECT value FROM sys.all_table_options WHERE table_name = 'st' AND key = 'path'",
    )
    assert jrows(r) == [{"value": str(cli.wh / "db.db" / "st")}]


def test_sql_scripts_and_writes_on_spark(cli, tmp_path):
    """``--engine spark sql -f``: statements run one by one; INSERT (its query on Spark) and
    DELETE are one commit each, as on DuckDB (before: Spark refused scripts of more than one
    statement and handed writes to Spark, which has no Paimon tables to write)."""
    pq.write_table(events(10), tmp_path / "a.parquet")
    cli("create-table", "db.pk", "--schema", SCHEMA, "-k", "id", "--bucket", "1")
    cli("create-table", "db.copy", "--schema", SCHEMA, "-k", "id", "--bucket", "1")
    cli("ingest", tmp_path / "a.parquet", "-t", "db.pk")
    script = tmp_path / "s.sql"
    script.write_text(
        "INSERT INTO db.copy SELECT id, upper(name), value * 2, dt FROM db.pk WHERE id < 6;\n"
        "DELETE FROM db.copy WHERE id = 0;\n"
        "INSERT OVERWRITE db.pk SELECT * FROM db.pk WHERE id >= 8;\n"
        "SELECT count(*) AS n, min(name) AS m FROM db.copy;\n"
    )
    out = jrows(cli("--engine", "spark", "-o", "json", "sql", "-f", script))
    assert out == [
        {"action": "inserted", "table": "db.copy", "rows": 6, "snapshot": 1},
        {"action": "deleted", "table": "db.copy", "rows": 1, "snapshot": 2},
        {"action": "overwrote", "table": "db.pk", "rows": 2, "snapshot": 2},
        {"n": 5, "m": "N1"},
    ]
    assert jrows(cli("-o", "json", "sql", "SELECT id FROM db.pk ORDER BY id")) == [{"id": 8}, {"id": 9}]
