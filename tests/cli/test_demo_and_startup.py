"""The demo tour, the root help examples, and what the CLI imports on its hot paths."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap

from paimon_cli.app import HELP


def test_demo(cli):
    r = cli("demo", "--rows", "3000")
    out = r.stdout
    assert "$ paimon -w" in out and "create-table demo.events --schema" in out
    assert "ingested 3000 rows" in out and "snapshot 2" in out
    lines = out.splitlines()
    count_latest = lines[lines.index(next(ln for ln in lines if ln.endswith("read -t demo.events --count"))) + 1]
    count_snap1 = lines[lines.index(next(ln for ln in lines if ln.endswith("--snapshot 1 --count"))) + 1]
    assert (count_latest, count_snap1) == ("6000", "3000")
    assert cli.snapshot_ids("demo.events") == [1, 2]
    cli("demo", "--rows", "10")  # runs again: drops and recreates the table
    assert cli.snapshot_ids("demo.events") == [1, 2]


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
        assert cli.snapshot_ids("demo.events") == [1, 2] and cli("read", "-t", "demo.events", "--count").stdout == "200\n"

    def check_create(r):
        schema = json.loads(cli("-o", "json", "schema", "-t", "demo.t").stdout)
        assert [(f["name"], f["type"]) for f in schema["fields"]] == [("id", "BIGINT NOT NULL"), ("dt", "STRING")]
        assert schema["partitionKeys"] == ["dt"] and schema["primaryKeys"] == []

    def check_use(r):
        assert Path("paimon.toml").read_text().strip() == 'table = "demo.t"'
        # one row into the default table (no -t), so the next example has a snapshot to list
        cli("ingest", write_parquet(Path("one.parquet"), pa.table({"id": pa.array([7], pa.int64()), "dt": ["d"]})))

    def check_snapshots(r):
        rows = [json.loads(ln) for ln in r.stdout.splitlines()]
        assert [(s["id"], s["kind"], s["total_rows"]) for s in rows] == [(1, "APPEND", 1)], r.stdout

    checks = {"demo": check_demo, "create-table": check_create, "use": check_use, "snapshots": check_snapshots}
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


def test_no_pyspark_on_the_read_path(cli, events_table, tmp_path):
    mods = _modules_after(["-w", str(cli.wh), "read", "-t", "demo.events", "--limit", "1"], tmp_path)
    assert "pyarrow" in mods
    assert not {m for m in mods if m.startswith("pyspark")}
