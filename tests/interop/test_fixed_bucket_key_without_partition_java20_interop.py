"""A fixed-bucket primary-key table whose key leaves out the partition key (``bucket = N``): Java
1.x and 2.0 write it as plain fixed buckets, a key unique within its partition (only ``bucket =
-1`` makes a key unique across partitions; Java 0.9 refused the table). We read Java 2.0's table,
write into it the same way, and Java reads the result."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app

pytestmark = [pytest.mark.interop]

NAME = "db.t"
SCHEMA = [
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "dt", "type": "STRING NOT NULL"},
    {"name": "v", "type": "STRING"},
]


def _paimon(wh: str, *args: str) -> str:
    r = CliRunner().invoke(app, ["-w", wh, *args])
    assert r.exit_code == 0, (args, r.stdout, r.stderr)
    return r.stdout


def _ours(wh: str) -> list[tuple]:
    rows = [json.loads(x) for x in _paimon(wh, "-o", "json", "read", "-t", NAME).splitlines() if x.strip()]
    return sorted((r["id"], r["dt"], r["v"]) for r in rows)


def _javas(java, wh: str) -> list[tuple]:
    return sorted((r["id"], r["dt"], r["v"]) for r in java.call("read", warehouse=wh, table=NAME)["rows"])


def test_java_table_read_and_written_per_partition(java20, tmp_path):
    wh = str(tmp_path / "wh")
    java20.run(
        [
            {
                "op": "create_table",
                "warehouse": wh,
                "table": NAME,
                "schema": SCHEMA,
                "partition_keys": ["dt"],
                "primary_keys": ["id"],
                "options": {"bucket": "2", "file.format": "avro"},
            },
            {
                "op": "write",
                "warehouse": wh,
                "table": NAME,
                "rows": [
                    {"id": 1, "dt": "a", "v": "x"},
                    {"id": 1, "dt": "b", "v": "y"},
                    {"id": 2, "dt": "a", "v": "w"},
                ],
            },
            {"op": "write", "warehouse": wh, "table": NAME, "rows": [{"id": 1, "dt": "a", "v": "z"}]},
        ]
    )
    want = [(1, "a", "z"), (1, "b", "y"), (2, "a", "w")]
    assert _javas(java20, wh) == want
    assert _ours(wh) == want
    # our upsert of key 1 in partition b leaves partition a's key 1 alone, as Java's would
    (tmp_path / "in.jsonl").write_text(
        '{"id": 1, "dt": "b", "v": "ours"}\n{"id": 3, "dt": "b", "v": "new"}\n'
    )
    _paimon(wh, "ingest", str(tmp_path / "in.jsonl"), "-t", NAME)
    want = [(1, "a", "z"), (1, "b", "ours"), (2, "a", "w"), (3, "b", "new")]
    assert _ours(wh) == want
    assert _javas(java20, wh) == want
    # the key's bucket is Java's: its full compaction keeps one row per key and partition
    java20.call("compact", warehouse=wh, table=NAME, full=True)
    assert _javas(java20, wh) == _ours(wh) == want


def test_we_create_such_a_table_and_java_writes_into_it(java20, tmp_path):
    wh = str(tmp_path / "wh")
    _paimon(
        wh,
        "create-table",
        NAME,
        "--schema",
        "id INT NOT NULL, dt STRING NOT NULL, v STRING",
        "-k",
        "id",
        "-p",
        "dt",
        "--bucket",
        "2",
    )
    (tmp_path / "in.jsonl").write_text('{"id": 1, "dt": "a", "v": "x"}\n{"id": 1, "dt": "b", "v": "y"}\n')
    _paimon(wh, "ingest", str(tmp_path / "in.jsonl"), "-t", NAME)
    java20.call("write", warehouse=wh, table=NAME, rows=[{"id": 1, "dt": "a", "v": "java"}])
    want = [(1, "a", "java"), (1, "b", "y")]
    assert _ours(wh) == _javas(java20, wh) == want
