"""``paimon`` on a cross-partition upsert table (``--primary-key id --partition dt``, dynamic
buckets): create-table accepts it, ingest moves keys between partitions without duplicates, and
the commands that do not route keys through the global key index refuse in one line, leaving the
table at its snapshot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _jsonl(path: str, rows: list[dict]) -> str:
    Path(path).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def xtable(cli):
    r = cli(
        "create-table", "db.x", "--schema", "id BIGINT NOT NULL, v STRING, dt STRING", "-p", "dt", "-k", "id"
    )
    assert "primary key id" in r.stdout
    cli(
        "ingest",
        "-t",
        "db.x",
        _jsonl("a.json", [{"id": 1, "v": "a", "dt": "x"}, {"id": 2, "v": "b", "dt": "x"}]),
    )
    return "db.x"


def test_ingest_moves_a_key_to_its_new_partition(cli, xtable):
    r = cli(
        "ingest",
        "-t",
        xtable,
        _jsonl("b.json", [{"id": 1, "v": "c", "dt": "y"}, {"id": 3, "v": "d", "dt": "y"}]),
    )
    assert "(2 input rows; with deletes of keys that moved partition)" in r.stdout
    rows = sorted(cli.json("read", "-t", xtable), key=lambda r: r["id"])
    assert rows == [
        {"id": 1, "v": "c", "dt": "y"},
        {"id": 2, "v": "b", "dt": "x"},
        {"id": 3, "v": "d", "dt": "y"},
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["delete", "--where", "id = 1"], "delete is not supported on cross-partition upsert table db.x"),
        (
            ["ingest", "b.json", "--overwrite"],
            "overwrite is not supported on cross-partition upsert table db.x",
        ),
    ],
)
def test_paths_that_do_not_keep_the_index_refuse_in_one_line(cli, xtable, args, message):
    _jsonl("b.json", [{"id": 1, "v": "c", "dt": "y"}])
    before = cli.snapshot_ids(xtable)
    r = cli(*args, "-t", xtable, code=1)
    assert r.stderr.startswith(f"error: {message} (primary key id without partition key(s) dt)"), r.stderr
    assert r.stderr.count("\n") == 1
    assert cli.snapshot_ids(xtable) == before


def test_ingest_from_stdin_moves_keys(cli, wh, xtable):
    p = subprocess.run(
        [sys.executable, "-m", "paimon_cli", "-w", str(wh), "ingest", "-t", xtable, "-", "--format", "json"],
        input=b'{"id": 1, "v": "c", "dt": "y"}\n{"id": 2, "v": "e", "dt": "z"}\n',
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr.decode()
    rows = sorted(cli.json("read", "-t", xtable), key=lambda r: r["id"])
    assert rows == [{"id": 1, "v": "c", "dt": "y"}, {"id": 2, "v": "e", "dt": "z"}]
