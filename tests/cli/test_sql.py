"""`paimon sql` on DuckDB (the default engine): results equal `paimon read`, pushdown into our
scan, time travel, writes (one snapshot each), bad SQL as one line, scripts and stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paimon_core import FileSystemCatalog
from tests.cli.conftest import events, run_paimon, write_parquet


def rows(result) -> list[dict]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def by_id(rs):
    return sorted(rs, key=lambda r: r["id"])


def test_select_star_equals_read(cli, events_table):
    assert by_id(cli.json("sql", "SELECT * FROM demo.events")) == by_id(cli.json("read", "-t", "demo.events"))
    got = cli.json(
        "sql", "SELECT dt, count(*) AS n, sum(value) AS s FROM demo.events GROUP BY dt ORDER BY dt"
    )
    assert got == [{"dt": "2024-01-01", "n": 5, "s": 10.0}, {"dt": "2024-01-02", "n": 5, "s": 12.5}]
    where = "dt = '2024-01-02' AND id > 4"
    assert by_id(cli.json("sql", f"SELECT id, name FROM demo.events WHERE {where}")) == by_id(
        cli.json("read", "-t", "demo.events", "--select", "id,name", "--where", where)
    )


def test_quoted_names_limit_and_csv(cli, events_table):
    out = cli("-o", "csv", "sql", 'SELECT id FROM "demo"."events" ORDER BY id', "-n", "3").stdout
    assert out.splitlines() == ["id", "0", "1", "2"]
    assert cli.json("sql", "SELECT count(*) AS n FROM `demo.events`") == [{"n": 10}]


def test_a_partition_filter_reads_only_that_partitions_files(cli, events_table, wh):
    """Pushdown proved on the files: with every file of dt=2024-01-01 gone, a query filtered on
    the other partition still answers, and one that needs the removed files fails."""
    table = FileSystemCatalog(str(wh)).get_table("demo.events")
    for f in (Path(table.path) / "dt=2024-01-01").rglob("*.parquet"):
        f.unlink()
    got = cli.json("sql", "SELECT count(*) AS n, max(name) AS m FROM demo.events WHERE dt = '2024-01-02'")
    assert got == [{"n": 5, "m": "n9"}]  # max of a STRING: read from data
    r = cli("sql", "SELECT max(name) FROM demo.events WHERE dt = '2024-01-01'", code=1)
    assert r.stderr.startswith("error: ") and "Traceback" not in r.stderr


def test_counts_and_min_max_come_from_the_manifests(cli, events_table, wh):
    """With every data file gone, count(*), min and max of an append table still answer: from
    the manifests' row counts and statistics (Java's aggregate push-down), no file opened."""
    expected = cli.json("sql", "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM demo.events")
    table = FileSystemCatalog(str(wh)).get_table("demo.events")
    for f in Path(table.path).rglob("*.parquet"):
        f.unlink()
    assert cli.json("sql", "SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM demo.events") == expected
    got = cli.json("sql", "SELECT count(*) AS n FROM demo.events WHERE dt = '2024-01-01'")
    assert got == [{"n": 5}]


def test_projection_and_filter_reach_the_scan(events_table, wh):
    from paimon_core.engines import duckdb_engine

    engine = duckdb_engine(FileSystemCatalog(str(wh)))
    engine.run("SELECT name FROM demo.events WHERE dt = '2024-01-02' AND id > 6").rows.read_all()
    (dataset,) = engine.datasets.values()
    (columns, where, files) = dataset.scans[-1]
    assert set(columns) == {"name", "dt", "id"}
    assert where == "((`dt` = '2024-01-02') AND (`id` > 6))" or "`dt` = '2024-01-02'" in where
    assert files == 1  # one partition, one file


@pytest.mark.slow
def test_time_travel_spellings(cli, events_table):
    cli("ingest", write_parquet(Path("in/e2.parquet"), events(4, start=100)), "-t", "demo.events")
    counts = {
        q: cli.json("sql", q)[0]["n"]
        for q in (
            "SELECT count(*) AS n FROM demo.events",
            "SELECT count(*) AS n FROM demo.events VERSION AS OF 1",
            "SELECT count(*) AS n FROM `demo.events$snapshot=1`",
            'SELECT count(*) AS n FROM "demo.events$snapshot=2"',
        )
    }
    assert list(counts.values()) == [14, 10, 10, 14]
    cli("tag", "create", "-t", "demo.events", "v1", "--snapshot", "1")
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events VERSION AS OF 'v1'") == [{"n": 10}]
    assert cli.json("sql", "SELECT count(*) AS n FROM `demo.events$tag=v1`") == [{"n": 10}]
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events TIMESTAMP AS OF '2999-01-01'") == [
        {"n": 14}
    ]
    diff = cli.json("sql", "SELECT _row_kind, count(*) AS n FROM `demo.events$diff=1..2` GROUP BY 1")
    assert diff == [{"_row_kind": "+I", "n": 4}]


def test_branch_by_name(cli, events_table):
    cli("branch", "create", "-t", "demo.events", "b1")
    cli("sql", "INSERT INTO demo.events$branch_b1 VALUES (500, 'x', 1.0, '2024-01-03')")
    assert cli.json("sql", "SELECT id FROM demo.events$branch_b1") == [{"id": 500}]  # an empty branch + 1
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events") == [{"n": 10}]


@pytest.mark.slow
def test_integer_sums_are_json_numbers(cli, events_table):
    """DuckDB sums INT/BIGINT as HUGEINT; we give BIGINT as Spark, Flink and Java SQL do, so JSON
    shows numbers. DECIMAL stays exact text; beyond 64 bits is one clean line."""
    got = cli.json(
        "sql",
        "SELECT dt, sum(id) AS s, sum(CAST(id AS BIGINT)) AS b, CAST(sum(id) AS DECIMAL(38, 0)) AS d "
        "FROM demo.events GROUP BY dt ORDER BY dt",
    )
    assert got == [
        {"dt": "2024-01-01", "s": 20, "b": 20, "d": "20"},
        {"dt": "2024-01-02", "s": 25, "b": 25, "d": "25"},
    ]
    r = cli("sql", "SELECT sum(CAST(id AS BIGINT) + 9223372036854775000) AS big FROM demo.events", code=1)
    assert r.stderr.strip() == (
        "error: an integer result (big) does not fit in BIGINT (64 bits); cast it to DECIMAL(38, 0) to get it exactly"
    ), r.stderr
    # INSERT ... SELECT keeps the exact sum for its target column to decide
    cli("sql", "INSERT INTO demo.events (id, dt) SELECT sum(id) + 1000, '2024-01-09' FROM demo.events")
    assert cli.json("sql", "SELECT id FROM demo.events WHERE dt = '2024-01-09'") == [{"id": 1045}]


def test_writes_make_one_snapshot_each(cli, events_table):
    before = cli.snapshot_ids("demo.events")
    r = cli(
        "sql", "INSERT INTO demo.events VALUES (100, 'a', 0.5, '2024-01-03'), (101, 'b', 1.5, '2024-01-03')"
    )
    assert r.stdout.strip() == f"inserted 2 rows into demo.events: snapshot {before[-1] + 1}"
    cli("sql", "INSERT INTO demo.events (id, dt) SELECT id + 1000, dt FROM demo.events WHERE id < 2")
    assert cli.json("sql", "SELECT name FROM demo.events WHERE id >= 1000") == [{"name": None}] * 2
    cli("sql", "DELETE FROM demo.events WHERE id >= 1000 OR name = 'a'")
    assert cli.snapshot_ids("demo.events") == before + [before[-1] + i for i in (1, 2, 3)]
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events") == [{"n": 11}]
    cli("sql", "INSERT OVERWRITE demo.events PARTITION (dt = '2024-01-03') SELECT 7, 'z', 7.0")
    assert cli.json("sql", "SELECT id, name FROM demo.events WHERE dt = '2024-01-03'") == [
        {"id": 7, "name": "z"}
    ]
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events") == [{"n": 11}]
    assert len(cli.snapshot_ids("demo.events")) == len(before) + 4


def test_truncate_and_delete_without_a_filter_empty_in_one_truncate_commit(cli, events_table):
    """Java's truncateTable / truncatePartitions: one OVERWRITE snapshot, operation TRUNCATE;
    earlier snapshots still read the rows."""
    before = cli.snapshot_ids("demo.events")
    by_dt = {
        r["dt"]: r["n"] for r in cli.json("sql", "SELECT dt, count(*) AS n FROM demo.events GROUP BY dt")
    }
    dt = sorted(by_dt)[0]
    r = cli("sql", f"TRUNCATE TABLE demo.events PARTITION (dt = '{dt}')")
    n = by_dt[dt]
    assert (
        r.stdout.strip()
        == f"truncated {n} row{'s' if n != 1 else ''} from demo.events: snapshot {before[-1] + 1}"
    )
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events") == [{"n": 10 - n}]
    r = cli("-o", "json", "sql", "DELETE FROM demo.events")
    assert json.loads(r.stdout) == {
        "action": "deleted",
        "table": "demo.events",
        "rows": 10 - n,
        "snapshot": before[-1] + 2,
    }
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events") == [{"n": 0}]
    snaps = cli.json("snapshots", "-t", "demo.events")[-2:]
    assert [(s["kind"], s["operation"]) for s in snaps] == [("OVERWRITE", "TRUNCATE")] * 2
    assert cli.json("read", "-t", "demo.events", "--count", "--snapshot", str(before[-1])) == [{"rows": 10}]
    r = cli("sql", "TRUNCATE TABLE demo.events")  # an empty table: a snapshot all the same, as Java's
    assert r.stdout.strip() == f"truncated 0 rows from demo.events: snapshot {before[-1] + 3}"


@pytest.mark.parametrize(
    "sql, needle",
    [
        ("SELEC 1", "Parser Error"),
        ("SELECT nope FROM demo.events", 'column "nope" not found'),
        ("SELECT * FROM demo.missing_table", "missing_table"),
        ("CREATE TABLE x (a INT)", "CREATE statements are not supported"),
        ("COPY (SELECT 1) TO 'x.csv'", "COPY statements are not supported"),
        ("UPDATE demo.events SET name = 'x'", "UPDATE statements are not supported"),
        ("DELETE FROM demo.events WHERE", "needs a filter after WHERE"),
        ("TRUNCATE TABLE demo.events PARTITION (dt = '1999-01-01')", "has no partition dt=1999-01-01"),
        ("TRUNCATE TABLE demo.events PARTITION (nope = 'x')", "'nope' is not a partition key"),
        ("TRUNCATE TABLE `demo.events$snapshot=1`", "names a snapshot"),
        ("INSERT INTO demo.events VALUES (1)", "the query gives 1 column(s), the table has 4"),
        ("INSERT INTO demo.events VALUES (1, 'a', 'x', 'd')", "column value"),
        ("SELECT * FROM `demo.events$snapshot=9`", "snapshot 9"),
        ("SELECT * FROM `demo.events$nope=1`", "unknown table suffix"),
        ("INSERT INTO `demo.events$snapshot=1` SELECT * FROM demo.events", "names a snapshot"),
    ],
)
def test_bad_sql_is_one_clean_line(cli, events_table, sql, needle):
    before = cli.snapshot_ids("demo.events")
    r = cli("sql", sql, code=1)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.stderr
    assert cli.snapshot_ids("demo.events") == before
    assert not Path("x.csv").exists()


def test_script_file_stdin_and_out_file(cli, events_table, tmp_path):
    script = tmp_path / "q.sql"
    script.write_text("-- two statements\nSELECT 1 AS a;\nSELECT count(*) AS n FROM demo.events; ")
    assert cli.json("sql", "-f", script) == [{"a": 1}, {"n": 10}]
    r = cli.runner.invoke(
        __import__("paimon_cli.app", fromlist=["app"]).app,
        ["-w", str(cli.wh), "-o", "json", "sql"],
        input="SELECT max(id) AS m FROM demo.events;\n",
    )
    assert r.exit_code == 0 and rows(r) == [{"m": 9}]
    out = tmp_path / "r.parquet"
    cli("sql", "SELECT id FROM demo.events WHERE id < 3", "--out", out)
    import pyarrow.parquet as pq

    assert sorted(pq.read_table(out).column("id").to_pylist()) == [0, 1, 2]
    cli("sql", "SELECT 1", "--out", tmp_path / "r.txt", code=1)


@pytest.mark.slow
def test_real_process_bad_sql_exit_code(events_table, wh, tmp_path):
    p = run_paimon("-w", wh, "sql", "SELECT FROM WHERE", cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and p.stderr.startswith("error: "), p.stderr


@pytest.mark.slow
def test_repl_on_a_terminal(events_table, wh, tmp_path):
    """Driven through a pty: a statement over two lines runs at its ';', an error is one line
    and the session goes on, Ctrl-D ends it, the history file keeps the statements."""
    import os
    import pty
    import select
    import subprocess
    import sys
    import time

    main, child = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}
    env.update(HOME=str(tmp_path / "home"), TERM="dumb")
    p = subprocess.Popen(
        [sys.executable, "-m", "paimon_cli", "-w", str(wh), "-o", "json", "sql"],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=tmp_path,
        env=env,
    )
    os.close(child)
    seen = b""

    def until(text: bytes, timeout: float = 60, count: int = 1) -> None:
        nonlocal seen
        end = time.monotonic() + timeout
        while seen.count(text) < count:
            assert time.monotonic() < end, seen.decode(errors="replace")
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(main, 4096)
                except OSError:
                    break

    until(b"paimon> ")
    os.write(main, b"SELECT count(*) AS n\n")
    until(b"...> ")
    os.write(main, b"FROM demo.events;\n")
    until(b'{"n": 10}')
    os.write(main, b"SELECT nope FROM demo.events;\n")
    until(b"error: Binder Error")
    os.write(main, b"SELECT max(id) AS m FROM demo.events;\n")
    until(b'{"m": 9}')
    until(b"paimon> ", count=4)  # the prompt after the last result: readline reads again
    os.write(main, b"\x04")
    assert p.wait(timeout=60) == 0
    os.close(main)
    assert b"Traceback" not in seen
    history = (tmp_path / "home" / ".paimon_sql_history").read_text()
    assert "FROM demo.events;" in history


def test_system_tables_on_duckdb(cli, events_table):
    """System tables (core/paimon_core/systables) resolve through the one $-suffix place (sql.refs)."""
    got = cli.json("sql", 'SELECT snapshot_id, commit_kind FROM "demo.events$snapshots"')
    assert got == [{"snapshot_id": 1, "commit_kind": "APPEND"}]
    assert cli.json("sql", "SELECT count(*) AS n FROM demo.events$files") == [{"n": 2}]
    names = {r["table_name"] for r in cli.json("sql", "SELECT * FROM sys.all_table_options")}
    assert any("events" in str(n) for n in names), names
    got = cli.json("sql", "SELECT partitioned, primary_key FROM sys.tables WHERE table_name = 'events'")
    assert got == [{"partitioned": True, "primary_key": False}]
    rows = "SELECT sum(record_count) AS n FROM sys.partitions WHERE table_name = 'events'"
    assert cli.json("sql", rows) == [{"n": 10}]
