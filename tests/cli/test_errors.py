"""Every user error: one `error: ...` line on stderr, exit 1, nothing committed or left behind."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from .conftest import SCHEMA, events, run_paimon, write_parquet

T = "demo.events"


def data_files(wh: Path) -> list[Path]:
    return sorted((wh / "demo.db").rglob("*.parquet"))


def inputs():
    """Input files for the ingest error cases (written in the test's cwd)."""
    write_parquet(Path("extra_col.parquet"), events(3).append_column("zzz", pa.array([1, 2, 3])))
    write_parquet(Path("bad_cast.parquet"), events(3).set_column(2, "value", pa.array(["a", "b", "c"])))
    write_parquet(Path("struct.parquet"), events(2).set_column(1, "name", pa.array([{"a": 1}, {"a": 2}])))
    nulls = events(3).set_column(0, "id", pa.array([1, None, 3], pa.int64()))
    write_parquet(Path("null_id.parquet"), nulls)
    write_parquet(Path("no_id.parquet"), events(3).drop_columns(["id"]))
    write_parquet(Path("overflow.parquet"), pa.table({"id": pa.array([2**40], pa.int64())}))
    Path("notes.txt").write_text("hello")
    Path("fake.parquet").write_text("this is not parquet")
    Path("bad.csv").write_text("id,name\nnot-a-number,x\n")
    write_parquet(Path("good.parquet"), events(2, 500))


CASES = [
    # (args, expected start of the message after "error: ")
    (["read", "-t", "demo.nope"], "table 'demo.nope' does not exist"),
    (["snapshots", "-t", "demo.nope"], "table 'demo.nope' does not exist"),
    (["read", "-t", "nodb.t"], "database 'nodb' does not exist"),
    (["snapshots", "-t", "nodb.t"], "database 'nodb' does not exist"),
    (["tables", "nodb"], "database 'nodb' does not exist"),
    (["read", "-t", "no_dots"], "bad table name 'no_dots'"),
    (["create-table", T, "--schema", "id INT"], "table 'demo.events' already exists"),
    (["create-table", "demo.x", "--schema", "id BIGINTT"], "unknown type 'BIGINTT'"),
    (
        ["create-table", "demo.x", "--schema", "id DECIMAL(50, 2)"],
        "cannot parse type 'DECIMAL(50, 2)': DECIMAL precision must be 1..38",
    ),
    (["create-table", "demo.x", "--schema", "id INT, id STRING"], "column 'id' is defined twice"),
    (["create-table", "demo.x", "--schema", "id INT", "-p", "dt"], "partition key 'dt' is not a column"),
    (["create-table", "demo.x", "--schema", "id"], "bad schema"),
    (["create-table", "demo.x", "--schema", ""], "the schema is empty"),
    (
        ["create-table", "demo.x", "--schema", "id INT", "-O", "bucket=zero"],
        "option 'bucket' has a bad value 'zero' (expected an integer)",
    ),
    (
        [
            "create-table",
            "demo.x",
            "--schema",
            "id INT NOT NULL, c BIGINT",
            "-k",
            "id",
            "-O",
            "merge-engine=aggregation",
            "-O",
            "fields.c.aggregate-function=count",
        ],
        "aggregate function 'count' of column 'c' is not supported: Java Paimon 0.9 has no 'count'",
    ),
    (["create-table", "demo.x", "--like", "missing.parquet"], "file not found: missing.parquet"),
    (["create-table", "demo.x", "--like", "fake.parquet"], "fake.parquet: not a readable Parquet file"),
    (["ingest", "missing.parquet", "-t", T], "file not found: missing.parquet"),
    (["ingest", "good.parquet", "missing.parquet", "-t", T], "file not found: missing.parquet"),
    (["ingest", "nothing*.parquet", "-t", T], "no files match"),
    (["ingest", "notes.txt", "-t", T], "notes.txt: not a Parquet, CSV or JSON file"),
    (["ingest", "good.parquet", "fake.parquet", "-t", T], "fake.parquet: not a readable Parquet file"),
    (
        ["ingest", "bad.csv", "-t", T],
        "bad.csv: cannot read as CSV: line 2: column 'id' has 'not-a-number', not a valid BIGINT",
    ),
    (
        ["ingest", "good.parquet", "bad_cast.parquet", "-t", T],
        "bad_cast.parquet: row 1: column 'value' has 'a', not a valid DOUBLE",
    ),
    (["ingest", "struct.parquet", "-t", T], "struct.parquet: column 'name': cannot cast"),
    (["ingest", "extra_col.parquet", "-t", T], "extra_col.parquet: unknown column 'zzz'"),
    (
        ["ingest", "good.parquet", "null_id.parquet", "-t", T],
        "null_id.parquet: row 2: column 'id' is NOT NULL but the value is null",
    ),
    (["ingest", "no_id.parquet", "-t", T], "no_id.parquet: column 'id' is NOT NULL but missing"),
    (["ingest", "good.parquet", "-t", T, "-p", "dt=2024-01-01"], "--partition needs --overwrite"),
    (["ingest", "good.parquet", "-t", T, "--overwrite", "-p", "nope=1"], "'nope' is not a partition key"),
    (["read", "-t", T, "--snapshot", "99"], "snapshot 99 does not exist"),
    (["files", "-t", T, "--snapshot", "99"], "snapshot 99 does not exist"),
    (["read", "-t", T, "--as-of", "2001-01-01"], "no snapshot at or before that time"),
    (["read", "-t", T, "--where", "id >"], "bad --where 'id >': it ends too early"),
    (["read", "-t", T, "--where", "id = = 3"], "bad --where 'id = = 3': expected a literal but found '='"),
    (["read", "-t", T, "--where", "nope = 3"], "bad --where: unknown column 'nope'"),
    (["read", "-t", T, "--where", "id = 'abc'"], "bad --where: 'abc' is not a valid BIGINT for column 'id'"),
    (["read", "-t", T, "--where", "(id = 3"], "bad --where '(id = 3': it ends too early"),
    (["read", "-t", T, "--select", "id,nope"], "unknown column 'nope'"),
    (["read", "-t", T], None),  # sanity: the table itself is fine (see below)
]


@pytest.mark.parametrize("args, message", CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_error_is_one_line_and_nothing_changes(cli, wh, events_table, args, message):
    inputs()
    before_snaps, before_files = cli.snapshot_ids(T), data_files(wh)
    before_tables = cli.json("tables")
    if message is None:
        cli(*args)
        return
    r = cli(*args, code=1)
    assert r.stderr.startswith("error: " + message), r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.endswith("\n")
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert r.stdout == ""
    assert cli.snapshot_ids(T) == before_snaps
    assert data_files(wh) == before_files  # no orphan data files either
    assert cli.json("tables") == before_tables


def test_ingest_error_then_success(cli, wh, events_table):
    """A failed ingest leaves the table exactly as it was: the next one gets snapshot 2."""
    inputs()
    cli("ingest", "good.parquet", "null_id.parquet", "-t", T, code=1)
    r = cli("ingest", "good.parquet", "-t", T)
    assert "snapshot 2" in r.stdout


def test_internal_error_line(cli, events_table, monkeypatch):
    def boom(*a, **k):
        raise ValueError("boom\nsecond line")

    monkeypatch.setattr("paimon_core.table.TableAt.plan", boom)
    r = cli("read", "-t", T, code=1)
    assert r.stderr == (
        "error: internal error: ValueError: boom second line (run with --verbose for the traceback)\n"
    )
    r = cli("-v", "read", "-t", T, code=1)
    assert "Traceback (most recent call last)" in r.stderr
    assert r.stderr.splitlines()[-1] == "error: internal error: ValueError: boom second line"


def test_verbose_adds_the_traceback(cli, events_table):
    r = cli("-v", "read", "-t", "demo.nope", code=1)
    assert "Traceback (most recent call last)" in r.stderr
    assert r.stderr.splitlines()[-1] == "error: table 'demo.nope' does not exist"


def test_usage_errors_exit_2(cli):
    cli("read", "--limit", "abc", code=2)
    cli("--output", "xml", "databases", code=2)
    cli("nosuchcommand", code=2)
    cli("read", "--snapshot", "0", code=2)


# ---- through a real process: exit codes and stderr exactly as a user sees them


@pytest.fixture
def proc_table(tmp_path):
    wh = tmp_path / "pwh"
    r = run_paimon("-w", wh, "create-table", T, "--schema", SCHEMA, "-p", "dt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    write_parquet(tmp_path / "e.parquet", events(4))
    r = run_paimon("-w", wh, "ingest", "e.parquet", "-t", T, cwd=tmp_path)
    assert r.returncode == 0 and "snapshot 1" in r.stdout, r.stderr
    return wh


@pytest.mark.parametrize(
    "args, message",
    [
        (["read", "-t", "demo.nope"], "error: table 'demo.nope' does not exist"),
        (["read", "-t", T, "--snapshot", "7"], "error: snapshot 7 does not exist (snapshots 1..1 exist)"),
        (["ingest", "missing.parquet", "-t", T], "error: file not found: missing.parquet"),
        (["create-table", T, "--schema", "id INT"], "error: table 'demo.events' already exists"),
        (["read", "-t", T, "--where", "id >"], "error: bad --where 'id >': it ends too early"),
    ],
)
def test_subprocess_errors(tmp_path, proc_table, args, message):
    r = run_paimon("-w", proc_table, *args, cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr.startswith(message) and r.stderr.count("\n") == 1, r.stderr
    assert r.stdout == ""
    snaps = run_paimon("-w", proc_table, "-o", "json", "snapshots", "-t", T, cwd=tmp_path)
    assert snaps.returncode == 0 and len(snaps.stdout.splitlines()) == 1


def test_subprocess_usage_error_exits_2(tmp_path):
    r = run_paimon("read", "--limit", "abc", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_subprocess_success_and_console_script(tmp_path, proc_table):
    import shutil
    import subprocess
    import sys

    r = run_paimon("-w", proc_table, "read", "-t", T, "--count", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "4\n", "")
    script = shutil.which("paimon", path=str(Path(sys.executable).parent))
    assert script, "the paimon console script is installed next to the interpreter"
    r = subprocess.run(
        [script, "-w", str(proc_table), "snapshots", "-t", "nodb.x"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert (r.returncode, r.stderr) == (1, "error: database 'nodb' does not exist\n")


@pytest.mark.parametrize(
    "flag, url, kind",
    [
        ("--spark-master", "spark://127.0.0.1:{}", "Spark master"),
        ("--spark-remote", "sc://127.0.0.1:{}", "Spark Connect server"),
    ],
)
def test_an_unreachable_spark_is_one_line_at_once(cli, tmp_path, flag, url, kind):
    """Spark retries an unreachable master for about two minutes, printing Java stack traces,
    then failed with an 'internal error' of several thousand characters."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cli("create-table", "d.t", "--schema", "id INT")
    write_parquet(tmp_path / "x.parquet", pa.table({"id": pa.array([1], pa.int32())}))
    where = url.format(port)
    r = cli("--engine", "spark", flag, where, "ingest", "-t", "d.t", str(tmp_path / "x.parquet"), code=1)
    assert r.stderr == f"error: cannot reach the {kind} {where} (connection refused); nothing was done\n"
    assert cli.snapshot_ids("d.t") == []


def test_a_full_disk_is_one_plain_line():
    import errno

    from paimon_cli.errors import message_for

    for exc in (
        OSError(errno.ENOSPC, "No space left on device", "/wh/db.db/t/bucket-0/x.parquet"),
        OSError("[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device"),
    ):
        text = message_for(exc)
        assert text.startswith("no space left on the device") and "check `paimon snapshots`" in text, text
