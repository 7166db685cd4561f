"""`paimon ingest -` meets a bad record while the producer is still writing: a real process whose
stdin is a pipe this test keeps open. It must print one line naming the line and the record,
exit 1, and keep every batch committed before (it used to end in "Fatal Python error", exit
134: the thread reading stdin held the buffered stdin's lock at interpreter shutdown)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

TABLE = "db.t"


def paimon_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}


@pytest.mark.parametrize(
    "fmt, first, good, bad, why, shown",
    [
        (
            "json",
            None,
            b'{"id": 1, "v": "a"}\n',
            b'{"id": "x", "v": "b"}\n',
            "cannot read as JSON",
            '{"id": "x", "v": "b"}',
        ),
        ("csv", b"id,v\n", b"1,a\n", b"x,b\n", "cannot read as CSV", "x,b"),
        ("json", None, b'{"id": 1, "v": "a"}\n', b'{"v": "b"}\n', "column 'id' is NOT NULL", '{"v": "b"}'),
    ],
    ids=["json-type", "csv-type", "json-null"],
)
def test_a_bad_record_while_the_producer_writes(cli, wh, tmp_path, fmt, first, good, bad, why, shown):
    cli("create-table", TABLE, "--schema", "id BIGINT NOT NULL, v STRING")
    argv = [sys.executable, "-m", "paimon_cli", "-w", str(wh), "ingest", "-", "-t", TABLE]
    argv += ["--format", fmt, "--commit-rows", "1", "--commit-interval", "1h"]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=paimon_env(),
    )
    try:
        proc.stdin.write((first or b"") + good)
        proc.stdin.flush()
        assert proc.stdout.readline().startswith(b"snapshot 1: 1 rows")  # committed before
        proc.stdin.write(bad)
        proc.stdin.flush()
        code = proc.wait(timeout=60)  # the producer has not closed the pipe
        err = proc.stderr.read().decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    assert code == 1, err
    assert "Fatal Python error" not in err
    line_no = 3 if first else 2
    assert err.count("\n") == 1, err
    assert err.startswith(f"error: stdin line {line_no}: {why}"), err
    assert err.rstrip().endswith(shown), err
    assert [r["id"] for r in cli.json("read", "-t", TABLE)] == [1]
    assert cli.snapshot_ids(TABLE) == [1]
