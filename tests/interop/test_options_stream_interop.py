"""Streaming options stored in the table (``scan.mode``, ``consumer.ignore-progress``): our stream
reads and Java's streaming scans of our tables start where the options say.
"""

from __future__ import annotations

import pytest

from tests.interop.option_twins import KV, Case, create_ours, our_write

pytestmark = pytest.mark.interop


def test_stream_options_stored_in_the_table(tmp_path, java):
    """scan.mode = latest and consumer.ignore-progress = true as table options: our stream read
    (no mode or flag passed) starts after the latest snapshot, and starts afresh with a full
    read whatever the consumer's progress; Java's streaming scan of our tables does the same."""
    from paimon_core.read.stream import StreamRead

    wh = str(tmp_path)
    rows = [[{"k": i, "v": "x", "n": i, "s": 0}] for i in range(3)]
    latest = create_ours(wh, "o.latest", Case(KV, (), {"bucket": "-1", "scan.mode": "latest"}, rows))
    fresh = create_ours(
        wh, "o.fresh", Case(KV, (), {"bucket": "-1", "consumer.ignore-progress": "true"}, rows)
    )
    for r in rows[:2]:
        our_write(latest, KV, r)
        our_write(fresh, KV, r)

    def drain(reader):  # everything available now, acknowledged batch by batch
        out = []
        if reader.cursor is None and (b := reader.start_batch()) is not None:
            out.append(b)
            reader.ack(b)
        while (b := reader.poll()) is not None:
            out.append(b)
            reader.ack(b)
        return out

    def ks(batches):
        return sorted(x["k"] for b in batches for x in b.rows.to_pylist())

    assert drain(StreamRead(latest)) == []
    first = drain(StreamRead(fresh, consumer_id="c"))
    assert [b.kind for b in first] == ["full"] and ks(first) == [0, 1]
    our_write(fresh, KV, rows[2])
    again = drain(StreamRead(fresh, consumer_id="c"))
    assert [b.kind for b in again] == ["full"] and ks(again) == [0, 1, 2]
    res = java.run(
        [
            {"op": "stream", "warehouse": wh, "table": "o.latest"},
            {"op": "stream", "warehouse": wh, "table": "o.fresh", "options": {"consumer-id": "c"}},
        ]
    )
    assert res[0]["rows"] == []
    assert sorted(r["k"] for r in res[1]["rows"]) == [0, 1, 2]
