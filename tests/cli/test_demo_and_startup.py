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


def test_root_help_examples_work(cli):
    examples = [ln.strip() for ln in HELP.splitlines() if ln.strip().startswith("paimon ")]
    assert len(examples) >= 3
    for line in examples:
        args = shlex.split(line)[1:]
        if args == ["demo"]:
            args = ["demo", "--rows", "100"]
        cli(*args, warehouse=False)


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
