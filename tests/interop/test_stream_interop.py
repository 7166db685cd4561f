"""Streaming against Java Paimon 0.9: Java reads what the stream writer committed (batch and
streaming), consumer files both ways (Java resumes from ours, we resume from Java's), and
expiry with a consumer keeps the same snapshots as Java's."""

from __future__ import annotations

import io
import json
import shutil

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.maintain.expire import expire_snapshots
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema import Schema
from paimon_core.ops.streaming import StreamingCommitter, ingest_stream
from paimon_core.read.stream import StreamRead
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

COLUMNS = "id INT NOT NULL, v STRING"


def _table(wh, name, producer):
    pk = ("id",) if producer is not None else ()
    opts = {"bucket": "2", "changelog-producer": producer} if producer is not None else {}
    return FileSystemCatalog(wh).create_table(name, Schema(Schema.parse_columns(COLUMNS), (), pk, opts))


def _commits():
    return [
        pa.table({"id": pa.array(ids, pa.int32()), "v": vs, "k": ks})
        for ids, vs, ks in (
            ([1, 2, 3], ["a", "b", "c"], ["+I"] * 3),
            ([2, 3, 4], ["b2", "c", "d"], ["+U", "-D", "+I"]),
            ([1, 5], ["a3", "e"], ["+U", "+I"]),
        )
    ]


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    wh = str(tmp_path_factory.mktemp("stream_interop"))
    for name, producer in (("db.input", "input"), ("db.none", "none")):
        t = _table(wh, name, producer)
        c = StreamingCommitter(t, "interop-stream-writer")
        for batch in _commits():
            c.write([batch], row_kind_column="k")
    ap = _table(wh, "db.ap", None)
    lines = b"".join(json.dumps({"id": i, "v": f"v{i}"}).encode() + b"\n" for i in range(50))
    ingest_stream(
        ap, io.BytesIO(lines), "json", commit_interval_s=60, commit_rows=20, commit_user="stdin-writer"
    )
    return wh


def _ours(wh, name, consumer=None, mode=None):
    t = FileSystemCatalog(wh).get_table(name)
    r = StreamRead(t, mode=mode, consumer_id=consumer)
    out = []
    b = r.start_batch()
    if b is not None:
        out.append(b)
        r.ack(b)
    while (b := r.poll()) is not None:
        out.append(b)
        r.ack(b)
    return out


@pytest.mark.parametrize("name", ["db.input", "db.none", "db.ap"])
def test_java_reads_what_the_stream_writer_committed(wh, java, name):
    t = FileSystemCatalog(wh).get_table(name)
    res = java.run(
        [{"op": "read", "warehouse": wh, "table": name}, {"op": "snapshots", "warehouse": wh, "table": name}]
    )
    assert_same_rows(rows_from_arrow(t.read()), res[0]["rows"], label_a="paimon-cli", label_b="java")
    appends = [s for s in res[1]["snapshots"] if s["commitKind"] == "APPEND"]
    assert [s["commitIdentifier"] for s in appends] == list(range(1, len(appends) + 1))
    assert len({s["commitUser"] for s in appends}) == 1


@pytest.mark.parametrize("name", ["db.input", "db.ap"])
def test_java_stream_from_our_consumer_and_ours_from_javas(wh, java, name):
    t = FileSystemCatalog(wh).get_table(name)
    latest = t.snapshots.latest_id()
    # consumer ids of this Java release: the module's tables serve both releases (one after the
    # other on one worker), and a consumer left by the other would move where a stream starts
    ours, jv, jfull, ofull = (f"{c}-{java.version}" for c in ("ours", "java", "java-full", "ours-full"))
    # ours reads up to snapshot 2 and records nextSnapshot 3
    r = StreamRead(t, mode="from-snapshot", start=1, consumer_id=ours)
    r.start_batch()
    for _ in range(2):
        r.ack(r.poll())
    assert consumer_manager(t).get(ours) == 3
    got = java.run(
        [
            {"op": "consumer", "warehouse": wh, "table": name, "action": "get", "id": ours},
            {"op": "stream", "warehouse": wh, "table": name, "options": {"consumer-id": ours}},
        ]
    )
    assert got[0]["next_snapshot"] == 3
    mine = [row for b in _ours_from(t, 3) for row in rows_from_arrow(b.rows)]
    assert_same_rows(
        mine,
        _unplanned(got[1]["rows"]),
        ignore_kind=False,
        label_a="paimon-cli from 3",
        label_b="java stream from 3",
    )
    assert got[1]["next_snapshot"] == latest + 1
    assert consumer_manager(t).get(ours) == latest + 1  # Java moved our consumer in its own layout
    # Java writes a consumer from its start; we resume from it
    java.run([{"op": "consumer", "warehouse": wh, "table": name, "action": "reset", "id": jv, "next": 2}])
    r2 = StreamRead(t, consumer_id=jv)
    assert r2.start_batch() is None and r2.cursor == 2
    theirs = java.call("stream", warehouse=wh, table=name, options={"consumer-id": jfull})
    full = [row for b in _ours(wh, name, consumer=ofull) for row in rows_from_arrow(b.rows)]
    assert_same_rows(
        full,
        _unplanned(theirs["rows"]),
        ignore_kind=False,
        label_a="paimon-cli latest-full",
        label_b="java default",
    )
    assert consumer_manager(t).get(jfull) == consumer_manager(t).get(ofull) == latest + 1


def _unplanned(rows):
    return [{k: v for k, v in r.items() if k != "_plan"} for r in rows]


def _ours_from(t, start):
    r = StreamRead(t, mode="from-snapshot", start=start)
    r.start_batch()
    out = []
    while (b := r.poll()) is not None:
        out.append(b)
    return out


def test_expiry_with_a_consumer_matches_java(wh, java, tmp_path):
    src = FileSystemCatalog(wh).get_table("db.ap")
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        shutil.copytree(wh, d)
        t = FileSystemCatalog(str(d)).get_table("db.ap")
        extra = StreamingCommitter(t, "more")
        for i in range(4):
            extra.write([pa.table({"id": pa.array([100 + i], pa.int32()), "v": ["x"]})])
        cm = consumer_manager(t)
        for cid in cm.ids():  # consumers other tests left
            cm.delete(cid)
        cm.reset("slow", 3)
    assert src.snapshots.latest_id() + 4 == FileSystemCatalog(str(a)).get_table("db.ap").snapshots.latest_id()
    java.call("expire", warehouse=str(a), table="db.ap", retain_max=1, retain_min=1)
    tb = FileSystemCatalog(str(b)).get_table("db.ap")
    expire_snapshots(tb, older_than_ms=0, retain_min=1, retain_max=1, max_deletes=2**31 - 1)
    ta = FileSystemCatalog(str(a)).get_table("db.ap")
    assert ta.snapshots.list_ids() == tb.snapshots.list_ids()
    assert tb.snapshots.list_ids()[0] == 3
