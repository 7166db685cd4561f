"""One habit for every command: a command that works on one table takes it as its first
argument or as -t/--table (not two different ones), and the global options work before or after
the command name (-w after it, -t before it)."""

from __future__ import annotations

import json

import pytest

ONE_TABLE = [
    ("read",),
    ("snapshots",),
    ("schema",),
    ("files",),
    ("diff", "--from", "0"),
    ("expire", "--dry-run"),
    ("rollback", "--to", "1", "--dry-run"),
    ("analyze",),
    ("compact",),
    ("remove-orphans", "--dry-run"),
    ("doctor",),
]


@pytest.mark.parametrize("command", ONE_TABLE, ids=[c[0] for c in ONE_TABLE])
def test_the_table_as_argument_or_option(cli, events_table, command):
    name, *rest = command
    by_arg = cli("-o", "json", name, events_table, *rest)
    by_opt = cli("-o", "json", name, "-t", events_table, *rest)
    if name not in ("compact", "analyze", "expire", "remove-orphans", "rollback", "doctor"):
        assert by_arg.stdout == by_opt.stdout
    r = cli(name, events_table, "-t", "demo.other", *rest, code=2)
    assert f"two tables given: {events_table} and -t demo.other" in r.stderr


def test_global_options_before_or_after_the_command(cli, events_table):
    want = cli.json("read", "-t", events_table)
    # -w after the command, -t before it
    after = cli("read", events_table, "-o", "json", "-w", str(cli.wh), warehouse=False)
    assert [json.loads(x) for x in after.stdout.splitlines()] == want
    before = cli("-w", str(cli.wh), "-t", events_table, "-o", "json", "read", warehouse=False)
    assert [json.loads(x) for x in before.stdout.splitlines()] == want


def test_date_partitions_show_as_dates_everywhere(cli, tmp_path):
    cli("create-table", "d.p", "--schema", "id INT NOT NULL, dt DATE NOT NULL", "-p", "dt")
    (tmp_path / "in.jsonl").write_text('{"id": 1000, "dt": "2024-05-01"}\n')
    cli("ingest", str(tmp_path / "in.jsonl"), "-t", "d.p")
    (doctor,) = cli.json("doctor", "d.p")
    assert [b["partition"] for b in doctor["buckets"]] == ["dt=2024-05-01"]
    assert [f["partition"] for f in cli.json("files", "d.p")] == ["dt=2024-05-01"]
    assert "dt=2024-05-01" in cli("files", "d.p").stdout
    assert [p["partition"] for p in cli.json("partition", "list", "-t", "d.p")] == ["dt=2024-05-01"]
    r = cli("alter-table", "d.p", "alter-column", "id", "TINYINT", code=1)
    assert "of partition dt=2024-05-01" in r.stderr, r.stderr


def test_a_bad_spark_master_is_one_line_before_any_jvm(cli, tmp_path):
    cli("create-table", "a.t", "--schema", "id INT")
    (tmp_path / "in.jsonl").write_text('{"id": 1}\n')
    r = cli(
        "--engine",
        "spark",
        "--spark-master",
        "bogus://x:1",
        "ingest",
        str(tmp_path / "in.jsonl"),
        "-t",
        "a.t",
        code=1,
    )
    assert r.stderr.strip().splitlines() == [
        "error: not a Spark master URL: 'bogus://x:1' (local, local[N], local[*], spark://HOST:PORT, yarn, "
        "k8s://..., or a Spark Connect remote sc://HOST:PORT)"
    ]
    assert cli.snapshot_ids("a.t") == []


def test_out_never_replaces_a_file_without_force(cli, events_table, tmp_path):
    out = tmp_path / "rows.parquet"
    out.write_bytes(b"precious")
    for command in (
        ["read", events_table],
        ["sql", f"SELECT * FROM {events_table}"],
        ["diff", events_table, "--from", "0"],
    ):
        r = cli(*command, "--out", str(out), code=1)
        assert r.stderr.strip() == f"error: --out {out}: it exists; give --force to replace it", r.stderr
        assert out.read_bytes() == b"precious"
    cli("read", events_table, "--out", str(out), "--force")
    assert out.read_bytes()[:4] == b"PAR1"
    r = cli("read", events_table, "--out", str(tmp_path / "nodir" / "rows.parquet"), code=1)
    assert (
        r.stderr.strip()
        == f"error: --out {tmp_path / 'nodir' / 'rows.parquet'}: the folder {tmp_path / 'nodir'} does not exist"
    )
    r = cli("read", events_table, "--count", "--out", str(tmp_path / "n.parquet"), code=2)
    assert "--count prints the number of rows; it writes no --out file" in r.stderr


def test_messages_that_help(cli, tmp_path):
    cli(
        "create-table",
        "a.t",
        "--schema",
        "id INT NOT NULL, name STRING, dt STRING NOT NULL",
        "-k",
        "id,dt",
        "-p",
        "dt",
        "--bucket",
        "4",
    )
    (tmp_path / "in.jsonl").write_text('{"id": 1, "name": "a", "dt": "x"}\n')
    cli("ingest", str(tmp_path / "in.jsonl"), "-t", "a.t")
    r = cli("read", "a.t", "--where", "name = 'a", code=1)
    assert "a string is not closed: 'a" in r.stderr, r.stderr
    r = cli("compact", "a.t", "--partition", "dt=1999", code=1)
    assert (
        r.stderr.strip()
        == "error: table a.t has no partition dt=1999 (paimon partition list shows its partitions)"
    )
    r = cli("read", "a.t", "--as-of", "2099-01-01")
    assert "note: --as-of 2099-01-01 is in the future: reading the latest snapshot" in r.stderr
    r = cli("rescale", "a.t", "--bucket", "2", "--dry-run")
    assert "keeps its bucket option (4)" in r.stderr and "set-option bucket=2" in r.stderr


def _default_sigint():  # a test run in the background ignores SIGINT: its children must not
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_stream_exits_130_and_says_where_it_stopped(cli, events_table):
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "paimon_cli", "-w", str(cli.wh), "stream", events_table, "--from", "999"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()  # waits for the event, not for a time
    assert "snapshot 999 does not exist yet" in line, line
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "interrupted" in err and "Traceback" not in err, err


def test_empty_stdin_says_nothing_was_committed(cli, events_table):
    r = cli.runner.invoke(
        __import__("paimon_cli.app", fromlist=["app"]).app,
        ["-w", str(cli.wh), "ingest", "-", "-t", events_table],
        input="",
    )
    assert r.exit_code == 0 and "note: stdin held no rows: nothing was committed" in r.stderr, r.stderr
