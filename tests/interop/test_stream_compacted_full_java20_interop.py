"""``paimon stream --mode compacted-full`` (Java's ``scan.mode = compacted-full``) on a
``full-compaction`` changelog table: the rows of the latest full compaction, then the changes
after it. Java Paimon 2.0 writes the table; its streaming scan and ours give the same rows."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog
from paimon_core.read.stream import StreamRead
from tests.interop.harness.canonical import assert_same_rows

pytestmark = [pytest.mark.interop]

NAME = "db.t"


def _req(op: str, wh: str, **fields) -> dict:
    return {"op": op, "warehouse": wh, "table": NAME, **fields}


def _ours(wh: str) -> list[dict]:
    r = StreamRead(FileSystemCatalog(wh).get_table(NAME), mode="compacted-full")
    out = []
    first = r.start_batch()
    batches = [first] if first is not None else []
    while (b := r.poll()) is not None:
        batches.append(b)
    for b in batches:
        out += b.rows.to_pylist()
    return out


def _kind(value) -> str:
    return value if isinstance(value, str) else ("+I", "-U", "+U", "-D")[value]


def test_compacted_full_starts_at_the_latest_full_compaction(java20, tmp_path):
    wh = str(tmp_path / "wh")
    rows = [{"id": i, "v": f"a{i}"} for i in range(4)]
    java20.run(
        [
            _req(
                "create_table",
                wh,
                schema=[{"name": "id", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
                primary_keys=["id"],
                options={"bucket": "1", "changelog-producer": "full-compaction"},
            ),
            _req("write", wh, rows=rows),
            _req("compact", wh, full=True),  # the full compaction the stream starts from
            _req("write", wh, rows=[{"id": 1, "v": "b1"}, {"id": 9, "v": "b9"}]),  # no changelog yet
        ]
    )
    kinds = [s["commitKind"] for s in java20.call("snapshots", warehouse=wh, table=NAME)["snapshots"]]
    assert kinds[-2:] == ["COMPACT", "APPEND"], kinds
    theirs = java20.call("stream", warehouse=wh, table=NAME, options={"scan.mode": "compacted-full"})
    got = [{k: v for k, v in r.items() if k != "_plan"} for r in theirs["rows"]]
    # the compacted rows, nothing of the APPEND after it (its changes come with the next compaction)
    assert sorted(r["id"] for r in got) == [0, 1, 2, 3]
    assert_same_rows(got, _ours(wh), ignore_kind=False, label_a="Java compacted-full", label_b="ours")
    # a stream that started here goes on with the next full compaction's changelog: it retracts
    # only values it delivered, and what it delivered adds up to the table Java reads
    live = StreamRead(FileSystemCatalog(wh).get_table(NAME), mode="compacted-full")
    first = live.start_batch()
    seen = {r["id"]: r["v"] for r in (first.rows.to_pylist() if first is not None else [])}
    assert seen == {i: f"a{i}" for i in range(4)}
    while live.poll() is not None:  # the APPEND: nothing until its compaction
        pass

    java20.call("compact", warehouse=wh, table=NAME, full=True)  # its changelog: -U/+U 1, +I 9
    changes = []
    while (b := live.poll()) is not None:
        changes += [(_kind(r["_row_kind"]), r["id"], r["v"]) for r in b.rows.to_pylist()]
    assert sorted(changes) == sorted([("-U", 1, "a1"), ("+U", 1, "b1"), ("+I", 9, "b9")]), changes
    for kind, key, value in changes:
        if kind in ("-U", "-D"):
            assert seen.pop(key) == value, (kind, key, value)  # a retraction of a delivered value
        else:
            seen[key] = value
    now = java20.call("read", warehouse=wh, table=NAME)["rows"]
    assert seen == {r["id"]: r["v"] for r in now}
    theirs = java20.call("stream", warehouse=wh, table=NAME, options={"scan.mode": "compacted-full"})
    got = [{k: v for k, v in r.items() if k != "_plan"} for r in theirs["rows"]]
    assert_same_rows(got, _ours(wh), ignore_kind=False, label_a="Java compacted-full", label_b="ours")
    # the CLI: the same start
    r = CliRunner().invoke(
        app, ["-w", wh, "-o", "json", "stream", NAME, "--mode", "compacted-full", "--until", "0"]
    )
    assert r.exit_code == 0, r.stderr
    cli_rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert sorted(x["id"] for x in cli_rows) == sorted(x["id"] for x in got)
