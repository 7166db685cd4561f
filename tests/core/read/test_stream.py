"""Streaming read and consumers: start modes, per-snapshot changes for every producer (checked
against a plain-Python model of the writes), consumer files, resume, expiry and gaps."""

import json
import os
import random

import pyarrow as pa
import pytest

from paimon_core.errors import InvalidInput
from paimon_core.maintain.expire import expire_snapshots
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema import Schema
from paimon_core.read.stream import StreamGap, StreamRead


def pk(catalog, producer="none", name="db.pk", **opts):
    options = {"bucket": "2", "changelog-producer": producer, **opts}
    return catalog.create_table(
        name, Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), (), ("id",), options)
    )


def append(catalog, name="db.ap", **opts):
    return catalog.create_table(name, Schema(Schema.parse_columns("id INT, v STRING"), (), (), opts))


def write(t, ids, vals, kinds=None):
    data = {"id": pa.array(ids, pa.int32()), "v": vals}
    if kinds is not None:
        data["k"] = kinds
    return t.write_arrow(pa.table(data), row_kind_column="k" if kinds is not None else None)


def random_writes(t, model: dict, rng: random.Random, n: int) -> None:
    """``n`` commits of random upserts and deletes, applied to ``model`` (id -> v) as well."""
    for c in range(n):
        keys = rng.sample(range(40), rng.randint(1, 8))
        ids, vals, kinds = [], [], []
        for k in keys:
            if k in model and rng.random() < 0.3:
                ids.append(k)
                vals.append(model[k])
                kinds.append("-D")
                del model[k]
            else:
                v = f"v{c}-{k}"
                ids.append(k)
                vals.append(v)
                kinds.append("+I")
                model[k] = v
        write(t, ids, vals, kinds)


def apply(state: dict, rows: list[dict]) -> None:
    for r in rows:
        if r["_row_kind"] in ("+I", "+U"):
            state[r["id"]] = r["v"]
        elif r["_row_kind"] == "-D":
            assert state.pop(r["id"], None) is not None, f"-D of absent key {r}"


def drain(reader: StreamRead) -> list:
    """Everything available now (starting state included), acknowledged batch by batch."""
    out = []
    if reader.cursor is None:
        b = reader.start_batch()
        if b is not None:
            out.append(b)
            reader.ack(b)
    while (b := reader.poll()) is not None:
        out.append(b)
        reader.ack(b)
    return out


@pytest.mark.parametrize("producer", ["none", "input", "lookup", "full-compaction"])
def test_stream_reproduces_the_model_for_every_producer(catalog, producer):
    rng = random.Random(hash(producer) & 0xFFFF)
    t = pk(
        catalog, producer, **({"full-compaction.delta-commits": "1"} if producer == "full-compaction" else {})
    )
    model: dict = {}
    random_writes(t, model, rng, 3)
    reader = StreamRead(t)  # latest-full
    state: dict = {}
    seen = []
    for _ in range(4):
        for b in drain(reader):
            apply(state, b.rows.to_pylist())
            seen.append(b.snapshot_id)
        random_writes(t, model, rng, 3)
    for b in drain(reader):
        apply(state, b.rows.to_pylist())
        seen.append(b.snapshot_id)
    assert seen == sorted(set(seen)) and seen[-1] == t.snapshots.latest_id()
    assert state == model
    assert state == {r["id"]: r["v"] for r in t.read().to_pylist()}


def test_input_changelog_is_exactly_the_input(catalog):
    t = pk(catalog, "input")
    write(t, [1, 2], ["a", "b"])
    r = StreamRead(t, mode="latest")
    assert drain(r) == []
    write(t, [2, 1], ["b2", "a"], ["+U", "-D"])
    write(t, [3], ["c"])
    got = [
        (b.snapshot_id, row["_row_kind"], row["id"], row["v"]) for b in drain(r) for row in b.rows.to_pylist()
    ]
    assert sorted(got) == [(2, "+U", 2, "b2"), (2, "-D", 1, "a"), (3, "+I", 3, "c")]


def test_append_table_streams_every_row_once(catalog):
    t = append(catalog)
    r = StreamRead(t)
    assert drain(r) == []  # empty table: nothing, then from snapshot 1
    total = []
    for i in range(5):
        write(t, list(range(i * 10, i * 10 + 10)), [str(i)] * 10)
        if i % 2:
            total += [row["id"] for b in drain(r) for row in b.rows.to_pylist()]
    total += [row["id"] for b in drain(r) for row in b.rows.to_pylist()]
    assert sorted(total) == list(range(50))


def test_start_modes(catalog):
    t = append(catalog)
    for i in range(4):
        write(t, [i], [str(i)])
    ids = lambda bs: [(b.kind, b.snapshot_id, [x["id"] for x in b.rows.to_pylist()]) for b in bs]  # noqa: E731
    assert ids(drain(StreamRead(t))) == [("full", 4, [0, 1, 2, 3])]
    assert ids(drain(StreamRead(t, mode="latest"))) == []
    assert ids(drain(StreamRead(t, start=3))) == [("changes", 3, [2]), ("changes", 4, [3])]
    assert ids(drain(StreamRead(t, mode="from-snapshot-full", start=2))) == [
        ("full", 2, [0, 1]),
        ("changes", 3, [2]),
        ("changes", 4, [3]),
    ]
    t3 = t.snapshots.snapshot(3).time_millis
    assert [b.snapshot_id for b in drain(StreamRead(t, start_time_ms=t3))][0] == 3
    with pytest.raises(InvalidInput, match="needs a starting"):
        StreamRead(t, mode="from-snapshot")
    with pytest.raises(InvalidInput, match="unknown scan mode"):
        StreamRead(t, mode="earliest")


def test_overwrite_is_skipped_and_said(catalog):
    t = append(catalog)
    write(t, [1], ["a"])
    r = StreamRead(t, mode="latest")
    drain(r)
    t.write_arrow(pa.table({"id": pa.array([2], pa.int32()), "v": ["b"]}), overwrite=True)
    (b,) = drain(r)
    assert (b.kind, b.commit_kind, b.rows.num_rows) == ("skipped", "OVERWRITE", 0)


def test_consumer_file_is_javas_layout_and_resume_is_exact(catalog):
    t = append(catalog)
    write(t, [1], ["a"])
    r = StreamRead(t, consumer_id="job1")
    (full,) = drain(r)
    path = consumer_manager(t).path("job1")
    assert open(path).read() == '{\n  "nextSnapshot" : 2\n}'
    write(t, [2], ["b"])
    write(t, [3], ["c"])
    r2 = StreamRead(t, consumer_id="job1")
    assert r2.start_batch() is None and r2.cursor == 2
    b = r2.poll()
    assert [x["id"] for x in b.rows.to_pylist()] == [2]
    # not acknowledged: a restart reads snapshot 2 again, nothing is skipped
    r3 = StreamRead(t, consumer_id="job1")
    got = [x["id"] for b in drain(r3) for x in b.rows.to_pylist()]
    assert got == [2, 3]
    assert json.loads(open(path).read()) == {"nextSnapshot": 4}
    assert drain(StreamRead(t, consumer_id="job1")) == []
    # ignore-progress starts afresh by the mode
    assert [b.kind for b in drain(StreamRead(t, consumer_id="job1", ignore_progress=True))] == ["full"]


def test_we_read_a_consumer_file_written_as_java_writes_it(catalog):
    t = append(catalog)
    for i in range(3):
        write(t, [i], [str(i)])
    d = os.path.join(t.path, "consumer")
    os.makedirs(d)
    with open(os.path.join(d, "consumer-flink"), "w") as f:
        f.write('{\n  "nextSnapshot" : 3\n}')
    assert consumer_manager(t).consumers() == {"flink": 3}
    assert [b.snapshot_id for b in drain(StreamRead(t, consumer_id="flink"))] == [3]


def test_expire_keeps_what_a_consumer_needs_and_gap_is_named(catalog):
    t = append(
        catalog, **{"snapshot.num-retained.min": "1", "snapshot.time-retained": "0ms", "write-only": "true"}
    )
    for i in range(3):
        write(t, [i], [str(i)])
    consumer_manager(t).reset("slow", 2)
    for i in range(3, 6):
        write(t, [i], [str(i)])
    expire_snapshots(t)
    assert t.snapshots.earliest_id() == 2  # the consumer's nextSnapshot is kept
    got = [x["id"] for b in drain(StreamRead(t, consumer_id="slow")) for x in b.rows.to_pylist()]
    assert got == [1, 2, 3, 4, 5]
    expire_snapshots(t)
    assert t.snapshots.earliest_id() == 6
    with pytest.raises(StreamGap, match=r"snapshots 3\.\.5 .* expired before this stream"):
        StreamRead(t, start=3).start_batch()
    consumer_manager(t).reset("stale", 4)
    with pytest.raises(StreamGap, match=r"snapshots 4\.\.5 .*consumer 'stale'"):
        StreamRead(t, consumer_id="stale").start_batch()


def test_consumer_expiration_time_releases_snapshots_after_a_commit(catalog):
    t = append(
        catalog,
        **{
            "snapshot.num-retained.min": "1",
            "snapshot.time-retained": "0ms",
            "consumer.expiration-time": "1h",
        },
    )
    write(t, [0], ["0"])
    cm = consumer_manager(t)
    cm.reset("old", 1)
    cm.reset("fresh", 1)
    write(t, [1], ["1"])
    assert t.snapshots.earliest_id() == 1 and set(cm.ids()) == {"old", "fresh"}
    two_hours_ago = os.path.getmtime(cm.path("old")) - 7200
    os.utime(cm.path("old"), (two_hours_ago, two_hours_ago))
    write(t, [2], ["2"])
    assert cm.ids() == ["fresh"]  # the idle consumer went; the fresh one still pins snapshot 1
    assert t.snapshots.earliest_id() == 1
    cm.delete("fresh")
    write(t, [3], ["3"])
    assert t.snapshots.earliest_id() == 4


def test_bad_consumer_id(catalog):
    t = append(catalog)
    with pytest.raises(InvalidInput, match="bad consumer id"):
        StreamRead(t, consumer_id="a/b")
