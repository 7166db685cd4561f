"""The demo tour, the root help examples, and what the CLI imports on its hot paths."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap

from paimon_cli.app import HELP


def _after(lines: list[str], command_tail: str) -> list[str]:
    """The output lines of the step whose printed command ends with ``command_tail`` (up to the
    blank line before the next step)."""
    i = next(i for i, ln in enumerate(lines) if ln.startswith("$ ") and ln.endswith(command_tail))
    out = []
    for ln in lines[i + 1 :]:
        if not ln.strip():
            break
        out.append(ln)
    return out


def test_demo(cli):
    """The demo's story, step by step: each printed command is followed by what it did, and the
    tables end in the state the story describes (checked again through separate commands)."""
    import json
    from collections import Counter

    r = cli("demo", "--rows", "3000", env={"COLUMNS": "80"})
    out = r.stdout
    lines = out.splitlines()
    assert "$ paimon -w" in out and "create-table demo.events --schema" in out
    assert "ingested 3000 rows" in out
    assert _after(lines, "--where \"dt = '2024-01-02'\" --count") == ["1000"]
    # the primary-key table: 1000 inserted, 100 updated + 100 new, 3 deleted + 2 updated
    assert "create-table demo.orders --schema" in out and "-k id --bucket 2" in out
    assert "ingested 1000 rows in 2 files into demo.orders: snapshot 1" in out
    assert "ingested 200 rows in 2 files into demo.orders: snapshot 2" in out
    assert "--row-kind-column op" in out and "into demo.orders: snapshot 3" in out
    assert _after(lines, "read -t demo.orders --count") == ["1097"]
    # the LSM before compaction: three level-0 runs in each bucket, drawn by doctor
    doctor = "\n".join(_after(lines, "doctor demo.orders"))
    assert doctor.count("3 runs") == 2 and "L0" in doctor and "snapshot 3" in doctor
    assert all(len(ln) <= 80 for ln in doctor.splitlines())
    assert "6 file(s) -> 2, snapshot 4" in out
    # diff 2..3 with row kinds: the CDC batch as the table saw it
    diff = _after(lines, "diff -t demo.orders --from 2 --to 3")
    kinds = Counter((ln.split()[0], int(ln.split()[1])) for ln in diff[2:])
    assert kinds == Counter(
        {
            ("-U", 0): 1,
            ("+U", 0): 1,
            ("-U", 1): 1,
            ("+U", 1): 1,
            ("-D", 100): 1,
            ("-D", 101): 1,
            ("-D", 102): 1,
        }
    ), diff
    assert [ln.split()[-1] for ln in diff[2:] if ln.startswith("+U")] == ["shipped", "shipped"]
    # time travel
    assert _after(lines, "read -t demo.orders --snapshot 1 --count") == ["1000"]
    back_then = _after(lines, '--snapshot 1 --where "id < 2"')[2:]
    assert sorted(ln.split()[-1] for ln in back_then) == ["new", "new"]
    assert "would expire snapshots 1..3 of demo.orders" in out and "nothing was deleted" in out

    # the state, through other commands
    assert cli.snapshot_ids("demo.events") == [1]
    assert cli.snapshot_ids("demo.orders") == [1, 2, 3, 4]  # the dry run expired nothing
    assert [s["kind"] for s in cli.json("snapshots", "-t", "demo.orders")][-1] == "COMPACT"
    assert cli("read", "-t", "demo.orders", "--count").stdout == "1097\n"
    assert cli("read", "-t", "demo.orders", "--snapshot", "2", "--count").stdout == "1100\n"
    rows = {r["id"]: r["status"] for r in cli.json("read", "-t", "demo.orders", "--where", "id < 105")}
    assert rows[0] == rows[1] == "shipped" and rows[2] == rows[99] == "paid" and rows[103] == "new"
    assert not {100, 101, 102} & set(rows)
    health = json.loads(cli("-o", "json", "doctor", "demo.orders").stdout)
    assert [b["sorted_runs"] for b in health["buckets"]] == [1, 1] and health["level0_rows"] == 0

    cli("demo", "--rows", "10")  # runs again: drops and recreates the tables
    assert cli.snapshot_ids("demo.events") == [1] and cli.snapshot_ids("demo.orders") == [1, 2, 3, 4]


def test_root_help_examples_work(cli, tmp_path):
    """Each example of the root help runs in order in a fresh directory and does what it shows:
    an example without a check here fails the test, so new examples get one."""
    import json
    from pathlib import Path

    import pyarrow as pa

    from .conftest import write_parquet

    wh = tmp_path / "warehouse"  # the default warehouse, ./warehouse

    def check_demo(r):
        assert "ingested 100 rows" in r.stdout
        assert (
            cli.snapshot_ids("demo.events") == [1]
            and cli("read", "-t", "demo.events", "--count").stdout == "100\n"
        )
        assert cli("read", "-t", "demo.orders", "--count").stdout == "1097\n"

    def check_create(r):
        schema = json.loads(cli("-o", "json", "schema", "-t", "demo.t").stdout)
        assert [(f["name"], f["type"]) for f in schema["fields"]] == [
            ("id", "BIGINT NOT NULL"),
            ("dt", "STRING"),
        ]
        assert schema["partitionKeys"] == ["dt"] and schema["primaryKeys"] == []

    def check_use(r):
        assert Path("paimon.toml").read_text().strip() == 'table = "demo.t"'
        # one row into the default table (no -t), so the next example has a snapshot to list
        cli(
            "ingest",
            write_parquet(Path("one.parquet"), pa.table({"id": pa.array([7], pa.int64()), "dt": ["d"]})),
        )

    def check_snapshots(r):
        rows = [json.loads(ln) for ln in r.stdout.splitlines()]
        assert [(s["id"], s["kind"], s["total_records"]) for s in rows] == [(1, "APPEND", 1)], r.stdout

    checks = {
        "demo": check_demo,
        "create-table": check_create,
        "use": check_use,
        "snapshots": check_snapshots,
    }
    examples = [ln.strip() for ln in HELP.splitlines() if ln.strip().startswith("paimon ")]
    assert len(examples) >= 3
    cli.wh = wh
    for line in examples:
        args = shlex.split(line)[1:]
        if args == ["demo"]:
            args = ["demo", "--rows", "100"]
        command = next(a for a in args if not a.startswith("-") and a not in ("json", "table", "csv"))
        assert command in checks, f"root help example {line!r} has no check in this test"
        checks[command](cli(*args, warehouse=False))
    assert wh.is_dir()


def _modules_after(args: list[str], cwd) -> set[str]:
    code = textwrap.dedent(f"""
        import sys
        from paimon_cli.app import app
        try:
            app({args!r}, prog_name="paimon")
        except SystemExit:
            pass
        print(" ".join(sorted(sys.modules)), file=sys.stderr)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    return set(r.stderr.strip().splitlines()[-1].split())


def test_snapshots_does_not_load_pyarrow_or_pyspark(cli, events_table, tmp_path):
    mods = _modules_after(["-w", str(cli.wh), "snapshots", "-t", "demo.events"], tmp_path)
    assert "paimon_core.metadata.snapshot" in mods
    assert not {m for m in mods if m.split(".")[0] in ("pyarrow", "pyspark", "numpy")}


# What a count answered from manifests never needs: DuckDB and what DuckDB's Arrow scans pull in
# (pandas through pyarrow.dataset), Spark, fsspec (a local warehouse goes through os), ORC
# manifest code (these tables have Avro manifests), the commit and write machinery, Iceberg
# metadata, the REST catalog, and every command module but the one that runs.
_COUNT_NEVER = ("pandas", "pyspark", "duckdb", "polars", "fsspec", "pyarrow.dataset", "pyarrow._dataset")
_COUNT_NEVER_MODULES = (
    "pyarrow.orc",
    "paimon_core.commit.file_store_commit",
    "paimon_core.write.table_write",
)
_COUNT_NEVER_PACKAGES = (
    "paimon_core.iceberg",
    "paimon_core.ops",
    "paimon_core.compaction",
    "paimon_cli.rest",
)


def _heavy_on_count_path(mods: set[str], command_module: str) -> set[str]:
    return {
        m
        for m in mods
        if m.split(".")[0] in _COUNT_NEVER
        or m in _COUNT_NEVER
        or m in _COUNT_NEVER_MODULES
        or m.startswith(tuple(p + "." for p in _COUNT_NEVER_PACKAGES))
        or m.startswith(
            "paimon_core.catalog.metastore.rest.catalog"
        )  # rest.py, rest/wire.py, rest/auth.py...
        or (m.startswith("paimon_cli.commands.") and m != command_module)
    }


def test_sql_count_starts_without_pandas_duckdb_or_pyspark(cli, events_table, tmp_path):
    """A count/min/max answered from manifests loads none of ``_COUNT_NEVER*``. (A WHERE binds
    its literals as pyarrow scalars, which loads pandas: not pinned here.)"""
    query = "SELECT count(*), min(id) FROM demo.events"
    for output in ("table", "csv", "json"):  # a few rows print row by row, not through Arrow compute
        mods = _modules_after(["-w", str(cli.wh), "-o", output, "sql", query], tmp_path)
        assert "paimon_core.engines.sql.aggregates" in mods and "paimon_cli.commands.sql" in mods
        assert _heavy_on_count_path(mods, "paimon_cli.commands.sql") == set(), output
        # nor the row reader and Arrow's compute functions: no row is read
        assert not mods & {"paimon_core.read.table_read", "pyarrow.compute"}, output


def test_read_count_starts_without_the_reader_or_the_commit(cli, events_table, tmp_path):
    """``read --count`` of an append table answers from the manifests' row counts, loading none
    of ``_COUNT_NEVER*`` either (the row reader it sets up first checks the columns and
    options, so it loads)."""
    for output in ("table", "csv"):
        mods = _modules_after(
            ["-w", str(cli.wh), "-o", output, "read", "-t", "demo.events", "--count"], tmp_path
        )
        assert "paimon_core.read.count" in mods and "paimon_cli.commands.read" in mods
        assert _heavy_on_count_path(mods, "paimon_cli.commands.read") == set(), output


def test_no_pyspark_on_the_read_path(cli, events_table, tmp_path):
    mods = _modules_after(["-w", str(cli.wh), "read", "-t", "demo.events", "--limit", "1"], tmp_path)
    assert "pyarrow" in mods
    assert not {m for m in mods if m.startswith("pyspark")}
