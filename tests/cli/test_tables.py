"""create-table (every form), drop-table, databases, tables."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from .conftest import SCHEMA, Cli, events, write_parquet


def schema_json(cli, table: str) -> dict:
    return json.loads(cli("-o", "json", "schema", "-t", table).stdout)


def test_create_table_positional(cli):
    r = cli("create-table", "demo.events", "--schema", SCHEMA, "--partition", "dt", "--comment", "hello")
    assert "created table demo.events" in r.stdout
    s = schema_json(cli, "demo.events")
    assert [f["name"] for f in s["fields"]] == ["id", "name", "value", "dt"]
    assert s["fields"][0]["type"] == "BIGINT NOT NULL"
    assert s["partitionKeys"] == ["dt"]
    assert s["comment"] == "hello"


def test_create_table_with_table_option_and_default_table(cli, monkeypatch):
    cli("create-table", "-t", "db1.a", "--schema", "id INT")
    monkeypatch.setenv("PAIMON_TABLE", "db1.b")
    cli("create-table", "--schema", "id INT")  # the default table
    assert [r["table"] for r in cli.json("tables", "db1")] == ["a", "b"]


def test_create_table_needs_a_name_without_default(cli):
    r = cli("create-table", "--schema", "id INT", code=1)
    assert r.stderr.startswith("error: no table given")


def test_create_table_primary_key_bucket_options(cli):
    cli(
        "create-table",
        "db.pk",
        "--schema",
        "dt STRING, id BIGINT, v STRING",
        "-k",
        "dt,id",
        "-p",
        "dt",
        "--bucket",
        "4",
        "-O",
        "file.compression=zstd",
        "-O",
        "snapshot.num-retained.min=5",
    )
    s = schema_json(cli, "db.pk")
    assert s["primaryKeys"] == ["dt", "id"]
    assert s["partitionKeys"] == ["dt"]
    assert s["options"]["bucket"] == "4"
    assert s["options"]["file.compression"] == "zstd"
    assert s["options"]["snapshot.num-retained.min"] == "5"
    assert s["fields"][1]["type"] == "BIGINT NOT NULL"  # primary keys become NOT NULL


def test_create_table_like_parquet(cli):
    f = write_parquet(
        Path("like.parquet"),
        pa.table({"a": pa.array([1], pa.int32()), "b": ["x"], "c": pa.array([1.5], pa.float32())}),
    )
    cli("create-table", "db.like", "--like", f)
    s = schema_json(cli, "db.like")
    assert [(x["name"], x["type"]) for x in s["fields"]] == [("a", "INT"), ("b", "STRING"), ("c", "FLOAT")]


def test_create_table_if_not_exists(cli):
    cli("create-table", "db.t", "--schema", "id INT")
    r = cli("create-table", "db.t", "--schema", "id BIGINT, x STRING", "--if-not-exists")
    assert "already exists" in r.stdout
    assert len(schema_json(cli, "db.t")["fields"]) == 1


def test_create_table_schema_or_like_required(cli):
    r = cli("create-table", "db.t", code=2)
    assert "--schema" in r.stderr
    r = cli("create-table", "db.t", "--schema", "id INT", "--like", "x.parquet", code=2)


def test_create_table_json_output(cli):
    assert cli.json("create-table", "db.t", "--schema", "id INT") == [{"table": "db.t", "created": True}]


def test_create_table_replace_keeps_the_history(cli, tmp_path):
    cli("create-table", "db.t", "--schema", "id BIGINT, name STRING, dt STRING", "--partition", "dt")
    f = tmp_path / "in.csv"
    f.write_text("id,name,dt\n1,a,d1\n2,b,d2\n")
    cli("ingest", "-t", "db.t", str(f))
    r = cli(
        "create-table",
        "db.t",
        "--replace",
        "--schema",
        "id BIGINT NOT NULL, email STRING, dt STRING",
        "-p",
        "dt",
    )
    assert "replaced table db.t" in r.stdout and "schema 1" in r.stdout and "--snapshot 1" in r.stdout
    s = schema_json(cli, "db.t")
    assert (s["id"], [x["name"] for x in s["fields"]]) == (1, ["id", "email", "dt"])
    assert cli.json("read", "-t", "db.t") == []
    assert sorted(x["name"] for x in cli.json("read", "-t", "db.t", "--snapshot", "1")) == ["a", "b"]
    assert [x["kind"] for x in cli.json("snapshots", "-t", "db.t")] == ["APPEND", "OVERWRITE"]
    out = cli.json("create-table", "db.t", "--replace", "--schema", "id INT, dt STRING", "-p", "dt")
    assert out == [
        {"table": "db.t", "created": False, "replaced": True, "schema_id": 2, "previous_snapshot": 2}
    ]

    r = cli("create-table", "db.t", "--replace", "--schema", "id INT, dt STRING", code=1)  # no partition key
    assert "cannot change the partition keys" in r.stderr
    assert schema_json(cli, "db.t")["id"] == 2
    r = cli("create-table", "db.t", "--replace", "--if-not-exists", "--schema", "id INT", code=2)
    assert "--replace" in r.stderr and "--if-not-exists" in r.stderr
    # a table that does not exist is created
    assert cli.json("create-table", "db.new", "--replace", "--schema", "id INT") == [
        {"table": "db.new", "created": True}
    ]


def test_databases_and_tables(cli):
    cli("create-table", "a.t1", "--schema", "id INT")
    cli("create-table", "a.t2", "--schema", "id INT")
    cli("create-table", "b.t1", "--schema", "id INT")
    assert cli.json("databases") == [{"database": "a", "tables": 2}, {"database": "b", "tables": 1}]
    assert cli.json("tables") == [
        {"database": "a", "table": "t1"},
        {"database": "a", "table": "t2"},
        {"database": "b", "table": "t1"},
    ]
    assert cli.json("tables", "b") == [{"database": "b", "table": "t1"}]
    text = cli("tables").stdout
    assert "database" in text and "t2" in text


def test_drop_table(cli, wh):
    cli("create-table", "a.t1", "--schema", "id INT")
    cli("ingest", write_parquet(Path("x.parquet"), pa.table({"id": pa.array([1], pa.int32())})), "-t", "a.t1")
    assert "dropped table a.t1" in cli("drop-table", "a.t1").stdout
    assert cli.json("tables", "a") == []
    assert not (wh / "a.db" / "t1").exists()
    r = cli("drop-table", "a.t1", code=1)
    assert r.stderr == "error: table 'a.t1' does not exist\n"
    assert "nothing dropped" in cli("drop-table", "a.t1", "--if-exists").stdout


def run_locked(wh: Path, locked: list[Path], *args: str) -> subprocess.CompletedProcess:
    """``paimon -w wh ARGS`` in a subprocess that cannot write in the ``locked`` folders (chmod
    555), so cannot delete their entries. Root ignores permissions: when the tests run as root
    the subprocess runs in a new user namespace, where root's privileges do not reach the
    files (it is then an owner like any other, bound by the mode bits)."""
    prefix = []
    if os.geteuid() == 0:
        if not shutil.which("unshare"):
            pytest.skip("running as root without unshare(1): permissions cannot be enforced")
        prefix = ["unshare", "--user"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}
    for d in locked:
        d.chmod(0o555)
    try:
        return subprocess.run(
            [*prefix, sys.executable, "-m", "paimon_cli", "-w", str(wh), *args],
            cwd=wh.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        for d in locked:
            d.chmod(0o755)


def files_under(path: Path) -> set[Path]:
    return {p for p in path.rglob("*") if p.is_file()}


def make_dropped_candidate(cli: Cli) -> Path:
    cli("create-table", "a.t1", "--schema", "id INT, dt STRING", "--partition", "dt")
    data = pa.table({"id": pa.array([1, 2], pa.int32()), "dt": ["x", "y"]})
    cli("ingest", write_parquet(Path("x.parquet"), data), "-t", "a.t1")
    return cli.wh / "a.db" / "t1"


def test_drop_table_on_a_read_only_warehouse_deletes_nothing_and_says_so(cli, wh):
    make_dropped_candidate(cli)
    before = files_under(wh)
    locked = [wh, *(p for p in wh.rglob("*") if p.is_dir())]
    r = run_locked(wh, locked, "drop-table", "a.t1")
    assert r.returncode == 1, r
    assert r.stderr.startswith("error: could not drop table a.t1: Permission denied: ")
    assert r.stderr.endswith("; nothing was deleted\n") and r.stderr.count("\n") == 1
    assert "dropped table" not in r.stdout
    assert files_under(wh) == before
    assert sorted(r["id"] for r in cli.json("read", "-t", "a.t1")) == [1, 2]


def test_drop_table_that_fails_part_way_says_so_and_can_be_run_again(cli, wh):
    table = make_dropped_candidate(cli)
    stuck = table / "dt=y" / "bucket-0"
    r = run_locked(wh, [stuck], "drop-table", "a.t1")
    assert r.returncode == 1, r
    left = len(files_under(table))
    assert r.stderr.startswith(f"error: drop-table a.t1 stopped part-way: Permission denied: {stuck}/")
    assert f"{left} of " in r.stderr and "run drop-table again" in r.stderr
    assert left == len(files_under(stuck)) + len(files_under(table / "schema")) > 0
    assert not (table / "snapshot").exists()  # the table reads as empty, not as a broken table
    assert cli.json("read", "-t", "a.t1") == []
    assert "dropped table a.t1" in cli("drop-table", "a.t1").stdout
    assert not table.exists()


def test_drop_table_never_uses_the_default_table(cli, monkeypatch):
    cli("create-table", "a.t1", "--schema", "id INT")
    monkeypatch.setenv("PAIMON_TABLE", "a.t1")
    cli("drop-table", code=2)
    assert cli.json("tables") == [{"database": "a", "table": "t1"}]


def _help(cli, *args) -> str:
    return " ".join(cli(*args, "--help", warehouse=False, env={"COLUMNS": "200"}).stdout.split())


def test_help_shows_examples(cli):
    assert 'paimon create-table demo.t --schema "id BIGINT NOT NULL, dt STRING" -p dt' in _help(cli)
    for cmd in (
        "create-table",
        "drop-table",
        "databases",
        "tables",
        "ingest",
        "read",
        "snapshots",
        "schema",
        "files",
        "use",
        "demo",
    ):
        out = _help(cli, cmd)
        assert "Example" in out and ("paimon " + cmd in out or f"paimon -w ./warehouse {cmd}" in out), cmd
    assert (
        'paimon create-table demo.events --schema "id BIGINT NOT NULL, name STRING, ts TIMESTAMP(6), '
        'dt STRING" --partition dt'
    ) in _help(cli, "create-table")


def test_events_fixture_sanity(cli, events_table):
    assert len(cli.json("read", "-t", events_table)) == 10
    assert events(3).num_rows == 3


def test_the_catalog_lane_is_the_catalog_the_cli_runs_with(cli, catalog_lane):
    """The REST lane (tests/cli/rest_lane.py) really goes through the server: `catalog info`
    names the catalog, and for REST the server's uri."""
    cli("create-database", "lane")
    info = cli.json("catalog", "info")[0]
    assert info["catalog"] == {"fs": "filesystem", "rest": "rest"}[catalog_lane]
    if catalog_lane == "rest":
        assert info["uri"].startswith("http://127.0.0.1:") and info["prefix"].startswith("paimon-")
