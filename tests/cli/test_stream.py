"""paimon stream / paimon consumer / paimon ingest --watch and - (in-process)."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_cli.app import app
from tests.cli.conftest import write_parquet


def make(cli, producer=None):
    opts = ["-O", f"changelog-producer={producer}"] if producer else []
    cli(
        "create-table", "db.t", "--schema", "id BIGINT NOT NULL, v STRING", "-k", "id", "--bucket", "1", *opts
    )


def put(cli, name, rows):
    p = write_parquet(
        Path(f"in/{name}.parquet"),
        pa.table({"id": pa.array([r[0] for r in rows], pa.int64()), "v": [r[1] for r in rows]}),
    )
    cli("ingest", p, "-t", "db.t")


def lines(result):
    return [json.loads(x) for x in result.stdout.splitlines() if x.strip()]


def test_stream_json_default_then_changes_until(cli):
    make(cli, "input")
    put(cli, "a", [(1, "a"), (2, "b")])
    put(cli, "b", [(1, "a2")])
    got = lines(cli("stream", "db.t", "--from", "1", "--until", "2", "--snapshot-column"))
    assert got == [
        {"_row_kind": "+I", "_snapshot": 1, "id": 1, "v": "a"},
        {"_row_kind": "+I", "_snapshot": 1, "id": 2, "v": "b"},
        {"_row_kind": "+I", "_snapshot": 2, "id": 1, "v": "a2"},
    ]
    full = lines(cli("stream", "db.t", "--max-snapshots", "1"))
    assert full == [{"_row_kind": "+I", "id": 1, "v": "a2"}, {"_row_kind": "+I", "id": 2, "v": "b"}]
    csv = cli("-o", "csv", "stream", "-t", "db.t", "--from", "2", "--until", "2", "--select", "id").stdout
    assert csv.splitlines() == ["_row_kind,id", "+I,1"]


def test_consumer_resume_list_reset_delete(cli, wh):
    make(cli)
    put(cli, "a", [(1, "a")])
    assert lines(cli("stream", "db.t", "--consumer-id", "c1", "--until", "1")) == [
        {"_row_kind": "+I", "id": 1, "v": "a"}
    ]
    put(cli, "b", [(2, "b")])
    assert lines(cli("stream", "db.t", "--consumer-id", "c1", "--until", "2")) == [
        {"_row_kind": "+I", "id": 2, "v": "b"}
    ]
    assert (wh / "db.db/t/consumer/consumer-c1").read_text() == '{\n  "nextSnapshot" : 3\n}'
    listed = cli.json("consumer", "list", "-t", "db.t")
    assert [(r["consumer"], r["next_snapshot"]) for r in listed] == [("c1", 3)]
    cli("consumer", "reset", "c1", "--next", "2", "-t", "db.t")
    assert lines(cli("stream", "db.t", "--consumer-id", "c1", "--until", "2")) == [
        {"_row_kind": "+I", "id": 2, "v": "b"}
    ]
    bad = cli("consumer", "reset", "c1", "--next", "9", "-t", "db.t", code=1)
    assert "outside 1..3" in bad.stderr
    cli("consumer", "delete", "c1", "-t", "db.t")
    assert cli.json("consumer", "list", "-t", "db.t") == []
    assert "does not exist" in cli("consumer", "delete", "c1", "-t", "db.t", code=1).stderr


def test_gap_is_one_clear_line(cli):
    make(cli)
    for i in range(4):
        put(cli, f"x{i}", [(i, "x")])
    cli("expire", "-t", "db.t", "--retain-min", "1", "--older-than", "0s")
    r = cli("stream", "db.t", "--from", "2", "--until", "4", code=1)
    assert r.stderr.startswith("error: snapshots 2..3 of db.t expired before this stream read them")
    assert len(r.stderr.strip().splitlines()) == 1


def test_out_dir_writes_parquet_parts(cli, tmp_path):
    make(cli)
    for i in range(3):
        put(cli, f"x{i}", [(i, "x")])
    cli("stream", "db.t", "--from", "1", "--until", "3", "--out", tmp_path / "o", "--roll-rows", "2")
    parts = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert parts == ["part-000000000001-000000000002.parquet", "part-000000000003-000000000003.parquet"]
    rows = pa.concat_tables([pq.read_table(tmp_path / "o" / p) for p in parts]).to_pylist()
    assert [r["id"] for r in rows] == [0, 1, 2]


def test_ingest_stdin(cli):
    make(cli)
    data = "".join(json.dumps({"id": i, "v": str(i)}) + "\n" for i in range(7))
    r = cli.runner.invoke(
        app,
        [
            "-w",
            str(cli.wh),
            "-o",
            "json",
            "ingest",
            "-",
            "-t",
            "db.t",
            "--commit-rows",
            "3",
            "--commit-interval",
            "1h",
        ],
        input=data,
    )
    assert r.exit_code == 0, r.stderr
    out = lines(r)
    assert [x["rows"] for x in out] == [3, 3, 1]  # by --commit-rows, not the interval
    assert sorted(x["id"] for x in cli.json("read", "-t", "db.t")) == list(range(7))
    bad = cli("ingest", "-", "a.parquet", "-t", "db.t", code=2)
    assert "cannot be mixed" in bad.stderr


def test_table_output_off_a_terminal_and_until_time(cli, wh):
    make(cli)
    put(cli, "a", [(1, "a")])
    put(cli, "b", [(2, "b")])
    out = cli("-o", "table", "stream", "db.t", "--from", "1", "--until", "2").stdout
    assert "snapshot 1 (changes)" in out and "snapshot 2 (changes)" in out and "+I" in out
    from paimon_core.catalog import FileSystemCatalog

    first = FileSystemCatalog(str(wh)).get_table("db.t").snapshots.snapshot(1).time_millis
    got = lines(cli("stream", "db.t", "--from", "1", "--until", str(first)))
    assert got == [{"_row_kind": "+I", "id": 1, "v": "a"}]  # snapshot 2 was committed after that time
