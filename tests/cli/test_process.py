"""The CLI as a process among others: a reader that closes the pipe early (`| head -1`), and
Ctrl-C (SIGINT) before, inside and after a commit. Real subprocesses, real signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

from tests.infra import with_default_sigint

from .conftest import Cli, events, run_paimon, write_parquet

pytestmark = pytest.mark.slow  # real processes interrupted by signals and closed pipes

T = "demo.events"


def paimon_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}


@pytest.fixture
def big_table(cli, tmp_path) -> str:
    """Enough rows that the output is far larger than a pipe's buffer."""
    cli("create-table", "db.big", "--schema", "id BIGINT, name STRING")
    n = 100_000
    data = pa.table({"id": pa.array(range(n), pa.int64()), "name": [f"name-{i}" for i in range(n)]})
    cli("ingest", write_parquet(tmp_path / "big.parquet", data), "-t", "db.big")
    return "db.big"


@pytest.mark.parametrize("fmt", ["json", "csv", "table"])
def test_a_reader_that_stops_early_is_normal(tmp_path, wh, big_table, fmt):
    """`paimon -o json read | head -1`: exit 0, nothing on stderr."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "paimon_cli",
            "-w",
            str(wh),
            "-o",
            fmt,
            "read",
            "-t",
            big_table,
            "--limit",
            "100000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=paimon_env(),
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert err == ""
    if fmt == "json":
        assert json.loads(first) == {"id": 0, "name": "name-0"}


# ---- Ctrl-C

PAUSE = """
import sys, time
import {module} as _m

_target = _m.{owner}
_orig = getattr(_target, "{name}")

def _paused(*args, **kwargs):
    {before}
    sys.stderr.write("PAUSED\\n")
    sys.stderr.flush()
    time.sleep(120)
    return result

setattr(_target, "{name}", _paused)
from paimon_cli.app import main
sys.argv = ["paimon"] + {argv!r}
main()
"""


def interrupt_at(tmp_path: Path, where: str, after_call: bool, argv: list[str]) -> tuple[int, str]:
    """Run paimon ARGV with ``where`` (module:Owner.name) pausing (before or after calling
    the real function); SIGINT once it pauses. Returns (exit code, stderr without the marker)."""
    module, attr = where.split(":")
    owner, name = attr.rsplit(".", 1) if "." in attr else ("", attr)
    before = "result = _orig(*args, **kwargs)" if after_call else "result = None"
    code = PAUSE.format(module=module, owner=owner or "__dict__", name=name, before=before, argv=argv)
    if not owner:  # a module-level function
        code = code.replace("_m.__dict__", "_m")
    script = tmp_path / "paused.py"
    script.write_text(textwrap.dedent(code))
    proc = subprocess.Popen(
        with_default_sigint([sys.executable, str(script)]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=paimon_env(),
        text=True,
    )
    line = proc.stderr.readline()
    assert line == "PAUSED\n", line + proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    err = proc.stderr.read()
    proc.stdout.read()
    return proc.wait(timeout=60), err


def all_files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def table_with_one_snapshot(cli, wh, tmp_path) -> Cli:
    cli("create-table", T, "--schema", "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING", "-p", "dt")
    cli("ingest", write_parquet(tmp_path / "a.parquet", events(10)), "-t", T)
    write_parquet(tmp_path / "b.parquet", events(5, 100))
    return cli


def test_ctrl_c_before_the_commit(tmp_path, wh, table_with_one_snapshot):
    """Ctrl-C once the writer handed its files to the commit, before anything was committed: the
    commit (which owns commit-or-abort) deletes them."""
    cli = table_with_one_snapshot
    before = all_files(wh)
    code, err = interrupt_at(
        tmp_path,
        "paimon_core.commit.file_store_commit:FileStoreCommit._commit",
        False,
        ["-w", str(wh), "ingest", "b.parquet", "-t", T],
    )
    assert (code, err) == (130, "interrupted: nothing committed\n")
    assert all_files(wh) == before  # the data files written before the commit are gone
    assert cli.snapshot_ids(T) == [1]


def test_ctrl_c_inside_the_commit_after_the_snapshot_exists(tmp_path, wh, table_with_one_snapshot):
    """The snapshot file is created, the LATEST hint not yet written: the commit stands, and
    neither its manifests nor its data files may be cleaned up."""
    cli = table_with_one_snapshot
    code, err = interrupt_at(
        tmp_path,
        "paimon_core.metadata.snapshot:SnapshotManager.write_hint",
        False,
        ["-w", str(wh), "ingest", "b.parquet", "-t", T],
    )
    assert (code, err) == (130, f"interrupted after commit: snapshot 2 of {T}\n")
    assert cli.snapshot_ids(T) == [1, 2]
    assert sorted(r["id"] for r in cli.json("read", "-t", T)) == list(range(10)) + list(range(100, 105))


def test_ctrl_c_after_the_commit(tmp_path, wh, table_with_one_snapshot):
    cli = table_with_one_snapshot
    code, err = interrupt_at(
        tmp_path,
        "paimon_core.maintain.expire:expire_after_commit",
        False,
        ["-w", str(wh), "ingest", "b.parquet", "-t", T],
    )
    assert (code, err) == (130, f"interrupted after commit: snapshot 2 of {T}\n")
    assert len(cli.json("read", "-t", T)) == 15


def test_ctrl_c_in_a_deleting_command(tmp_path, wh, table_with_one_snapshot):
    code, err = interrupt_at(
        tmp_path,
        "paimon_core.maintain:plan_orphans",
        True,
        ["-w", str(wh), "remove-orphans", "-t", T, "--older-than", "0s"],
    )
    assert (code, err) == (
        130,
        "interrupted: remove-orphans may have stopped part-way; run it again to finish\n",
    )
    assert run_paimon("-w", wh, "read", "-t", T, "--count", cwd=tmp_path).stdout == "10\n"


def test_ctrl_c_where_python_cannot_raise_it_prints_no_traceback():
    """SIGINT landing in a callback Python cannot propagate from (weakref, import-lock and
    finalizer callbacks) used to print 'Exception ignored ... Traceback'; the CLI drops it."""
    code = textwrap.dedent("""
        import weakref
        from paimon_cli import interrupt
        interrupt.watch()

        class Thing:
            pass

        def callback(_ref):
            raise KeyboardInterrupt

        thing = Thing()
        ref = weakref.ref(thing, callback)
        del thing
        print("went on")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "went on\n", "")


def test_ctrl_c_printed_by_extension_code_prints_no_traceback():
    """Extension code that swallows an error prints it through PyErr_Print first (Cython's
    noexcept functions do): a KeyboardInterrupt there printed a bare traceback in a CI run.
    PyRun_SimpleString takes the same C path."""
    code = textwrap.dedent("""
        import ctypes
        from paimon_cli import interrupt
        interrupt.watch()
        assert ctypes.pythonapi.PyRun_SimpleString(b"raise KeyboardInterrupt") == -1
        ctypes.pythonapi.PyRun_SimpleString(b"raise ValueError('still shown')")
        print("went on")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "went on\n")
    assert r.stderr.startswith("Traceback") and r.stderr.endswith("ValueError: still shown\n")
    assert "KeyboardInterrupt" not in r.stderr


def test_the_process_ends_after_atexit_handlers_without_interpreter_teardown():
    """``process_exit``: output flushed, threads joined and atexit handlers run, then no
    teardown (where native thread pools can abort a finished command); the status is kept."""
    code = textwrap.dedent("""
        import atexit, threading, time
        from paimon_cli.process_exit import exit_process

        class Finalized:
            def __del__(self):
                print("teardown ran", flush=True)

        kept = Finalized()
        threading.Thread(target=lambda: (time.sleep(0.2), print("thread done"))).start()
        atexit.register(lambda: print("atexit ran"))
        print("out", end="")
        exit_process(3)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (3, "outthread done\natexit ran\n", "")
    r = subprocess.run(
        [sys.executable, "-c", "from paimon_cli.process_exit import exit_process; exit_process('bad')"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (r.returncode, r.stderr) == (1, "bad\n")
