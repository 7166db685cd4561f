"""One habit for every command: a command that works on one table takes it as its first
argument or as -t/--table (not two different ones), and the global options work before or after
the command name (-w after it, -t before it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.infra import with_default_sigint

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


def test_ctrl_c_in_stream_exits_130_and_says_where_it_stopped(cli, events_table):
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        with_default_sigint(
            [sys.executable, "-m", "paimon_cli", "-w", str(cli.wh), "stream", events_table, "--from", "999"]
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
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


GROUPS = [("tag", "list"), ("branch", "list"), ("partition", "list"), ("consumer", "list")]


@pytest.mark.parametrize("group", GROUPS, ids=[g[0] for g in GROUPS])
def test_groups_take_the_table_before_their_subcommand(cli, events_table, group):
    """``paimon tag T list`` is ``paimon tag list -t T`` and ``paimon -t T tag list``."""
    name, sub = group
    cli("tag", events_table, "create", "v1")  # something to list in every group
    cli("branch", events_table, "create", "b1")
    cli("consumer", events_table, "reset", "audit", "--next", "1")
    by_opt = cli("-o", "json", name, sub, "-t", events_table).stdout
    assert by_opt.strip(), f"`{name} {sub}` listed nothing"
    assert cli("-o", "json", name, events_table, sub).stdout == by_opt
    assert cli("-t", events_table, "-o", "json", name, sub).stdout == by_opt
    r = cli(name, events_table, sub, "-t", "demo.other", code=2)
    assert f"two tables given: {events_table} and -t demo.other" in r.stderr, r.stderr


def test_ingest_use_rename_drop_and_rescale_take_the_table_both_ways(cli, events_table, tmp_path):
    from tests.cli.conftest import events, write_parquet

    more = write_parquet(tmp_path / "more.parquet", events(5, start=100))
    cli("ingest", events_table, more)  # the table first: an existing table, no such file
    assert len(cli.json("read", events_table)) == 15
    assert len(cli.json("read", "-t", events_table)) == 15
    r = cli("ingest", "no.such_table", more, code=1)  # neither a table nor a file: no table given
    assert "no table given" in r.stderr, r.stderr

    cli("use", "-t", events_table)
    assert f'table = "{events_table}"' in Path("paimon.toml").read_text()  # in the cwd
    r = cli("use", events_table, "-t", "demo.other", code=2)
    assert "two tables given" in r.stderr

    cli("create-table", "b.k", "--schema", "id INT NOT NULL, v STRING", "-k", "id", "--bucket", "2")
    (tmp_path / "k.jsonl").write_text('{"id": 1, "v": "a"}\n{"id": 2, "v": "b"}\n')
    cli("ingest", "b.k", str(tmp_path / "k.jsonl"))
    by_arg = cli.json("rescale", "b.k", "--bucket", "4", "--dry-run")
    assert by_arg and cli.json("rescale", "-t", "b.k", "--bucket", "4", "--dry-run") == by_arg

    cli("rename-table", "-t", "b.k", "b.k2")
    assert [r["id"] for r in cli.json("read", "b.k2")] in ([1, 2], [2, 1])
    cli("drop-table", "-t", "b.k2")
    assert "b.k2" not in cli("tables", "b").stdout


def test_every_global_option_works_after_the_command(cli, events_table, tmp_path):
    want = cli.json("read", "-t", events_table)
    config = tmp_path / "conf.toml"
    config.write_text(f'warehouse = "{cli.wh}"\ntable = "{events_table}"\n')
    for args in (
        ["read", "--config", str(config), "-o", "json"],
        ["read", events_table, "--catalog", "filesystem", "-o", "json", "-w", str(cli.wh)],
    ):
        got = cli(*args, warehouse=False).stdout
        assert [json.loads(x) for x in got.splitlines()] == want, args


def _ctrl_c_after_first_commit(cli, args: list[str], stdin_text: str | None = None):
    """Run ``paimon ARGS`` until it prints its first commit line, then Ctrl-C it: (code, stdout
    line, stderr)."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        with_default_sigint([sys.executable, "-m", "paimon_cli", "-w", str(cli.wh), *args]),
        stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    if stdin_text is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin_text)
        proc.stdin.flush()  # left open: the command waits for more
    line = proc.stdout.readline()  # waits for the commit, not for a time
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, line, err


def test_ctrl_c_in_ingest_from_stdin_exits_130_and_says_what_was_committed(cli, events_table):
    rows = "".join(
        json.dumps({"id": 200 + i, "name": "n", "value": 1.0, "dt": "2024-01-01"}) + "\n" for i in range(2)
    )
    code, line, err = _ctrl_c_after_first_commit(
        cli, ["ingest", "-", "-t", events_table, "--commit-rows", "2", "--commit-interval", "1h"], rows
    )
    assert line.startswith("snapshot 2: 2 rows"), line
    assert code == 130, (code, err)
    assert "interrupted: 1 commit(s), 2 rows committed" in err and "Traceback" not in err, err
    assert len(cli.json("read", events_table)) == 12


def test_ctrl_c_in_ingest_watch_exits_130_and_says_what_was_committed(cli, events_table, tmp_path):
    from tests.cli.conftest import events, write_parquet

    landing = tmp_path / "landing"
    landing.mkdir()
    write_parquet(landing / "a.parquet", events(3, start=300))
    code, line, err = _ctrl_c_after_first_commit(
        cli, ["ingest", "--watch", str(landing), "-t", events_table, "--poll", "100ms"]
    )
    assert line.startswith("snapshot 2: 3 rows from"), line
    assert code == 130, (code, err)
    assert "interrupted: 1 commit(s), 3 rows committed" in err and "Traceback" not in err, err
