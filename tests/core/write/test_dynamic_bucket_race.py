"""Dynamic-bucket writers that lose the commit race: the loser's hash index is rebased onto
the winner's, or, when both gave one new key different buckets, the write is redone against
the new index. Checked on the files themselves: every key lives in exactly one bucket, the
index agrees with the data, and no index file is left unreferenced."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.engines.local import LocalEngine
from paimon_core.metadata.index_manifest import IndexStore
from paimon_core.metadata.schema import Schema
from paimon_core.ops.ingest import _write_and_commit
from paimon_core.write.bucket import hash_columns
from paimon_core.write.index_rebase import BucketAssignmentConflict


@pytest.fixture
def table(catalog):
    schema = Schema(
        Schema.parse_columns("id BIGINT NOT NULL, v STRING, dt STRING NOT NULL"),
        ("dt",),
        ("id", "dt"),
        {"bucket": "-1", "dynamic-bucket.target-row-num": "4"},
    )
    return catalog.create_table("db.dyn", schema)


def batch(ids, tag: str, dt: str = "a") -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "v": [f"{tag}{i}" for i in ids], "dt": [dt] * len(ids)})


def written(table, data: pa.Table) -> list:
    """Messages of a writer that started from the table's latest snapshot (not committed)."""
    w = table.new_writer()
    w.write(data)
    return w.prepare_commit()


def key_buckets(table) -> dict[tuple, set[int]]:
    """(dt, id) -> the buckets whose live data files hold that key."""
    out = defaultdict(set)
    for split in table.plan(table.snapshots.latest(), all_levels=True):
        for f in split.files:
            path = table.io.join(table.bucket_path(split.partition, split.bucket), f.file_name)
            for i in pq.read_table(path, columns=["id"]).column("id").to_pylist():
                out[(split.partition[0], i)].add(split.bucket)
    return out


def check_buckets_and_index(table) -> None:
    buckets = key_buckets(table)
    spread = {k: b for k, b in buckets.items() if len(b) > 1}
    assert not spread, f"keys in several buckets: {spread}"
    store = IndexStore(table.io, table.path)
    live = store.read_manifest(table.snapshots.latest().index_manifest)
    index = defaultdict(dict)  # partition bytes -> hash -> bucket
    for e in live:
        for h in store.read_hashes(e).tolist():
            assert index[e.partition].setdefault(h, e.bucket) == e.bucket, "a hash indexed in two buckets"
    codec = table.partition_codec
    for (dt, i), (b,) in buckets.items():
        h = int(hash_columns([pa.array([i], pa.int64())], table.schema.types_of(["id"]))[0])
        assert index[codec.to_bytes((dt,))].get(h) == b, f"key {i} of {dt} not indexed in bucket {b}"
    referenced = {
        e.file_name
        for s in table.snapshots.list_ids()
        for e in store.read_manifest(table.snapshots.snapshot(s).index_manifest)
    }
    on_disk = set(table.io.list_names(store.index_dir))
    assert on_disk == referenced, f"unreferenced index files: {on_disk - referenced}"


def test_a_loser_with_other_keys_rebases_its_index(table):
    table.write_arrow(batch(range(0, 6), "base"))
    a = written(table, batch(range(100, 107), "a"))  # both start from snapshot 1 and fill
    b = written(table, batch(range(200, 209), "b"))  # bucket 1, then open buckets 2, 3...
    assert table.commit(a).id == 2
    assert table.commit(b).id == 3  # no conflict: the index was rebased
    check_buckets_and_index(table)
    got = {r["id"]: r["v"] for r in table.read().to_pylist()}
    assert got == {
        **{i: f"base{i}" for i in range(6)},
        **{i: f"a{i}" for i in range(100, 107)},
        **{i: f"b{i}" for i in range(200, 209)},
    }


def test_a_loser_that_updates_old_keys_and_adds_new_ones(table):
    table.write_arrow(batch(range(0, 8), "base"))
    a = written(table, batch([1, 2, 50, 51, 52], "a"))
    b = written(table, batch([3, 4, 60, 61, 62, 63, 64], "b", dt="a"))
    c = written(table, batch([70, 71], "c", dt="other"))  # another partition: untouched by the race
    table.commit(a)
    table.commit(c)
    table.commit(b)
    check_buckets_and_index(table)
    assert table.read().num_rows == 8 + 3 + 5 + 2


def test_the_same_new_key_in_two_buckets_is_refused_at_commit(table):
    """a puts key 9 in bucket 1 (after filling bucket 0), b puts it in bucket 0."""
    a = written(table, batch([1, 2, 3, 4, 9], "a"))
    b = written(table, batch([9], "b"))
    table.commit(a)
    with pytest.raises(BucketAssignmentConflict):
        table.commit(b)
    table.discard(b)  # what ingest does with a write that was not committed
    check_buckets_and_index(table)


def test_ingest_redoes_the_write_against_the_new_index(table):
    """The write that meets that conflict is written again and commits; its values win."""
    calls = []

    def write(read):
        messages = LocalEngine().write_tables(table, [batch([9, 10], "b")])
        if not calls:  # meanwhile another writer commits key 9 into another bucket
            table.write_arrow(batch([1, 2, 3, 4, 9], "a"))
        calls.append(1)
        return messages

    _, snap, _, _ = _write_and_commit(table, write, False, None)
    assert len(calls) == 2 and snap.id == 2
    check_buckets_and_index(table)
    got = {r["id"]: r["v"] for r in table.read().to_pylist()}
    assert got == {1: "a1", 2: "a2", 3: "a3", 4: "a4", 9: "b9", 10: "b10"}


def test_ingest_gives_up_with_a_precise_message(table, monkeypatch):
    import paimon_core.ops.ingest as ingest

    monkeypatch.setattr(ingest, "REWRITES", 1)
    rounds = iter(range(100))

    def write(read):
        n = next(rounds)
        messages = LocalEngine().write_tables(table, [batch([1000 + n], "b")])
        # another writer adds the same new key, in another bucket, every time
        table.write_arrow(batch([10 * n + k for k in range(1, 5)] + [1000 + n], "a", dt="a"))
        return messages

    with pytest.raises(BucketAssignmentConflict) as e:
        _write_and_commit(table, write, False, None)
    assert str(e.value) == (
        "db.dyn: other writers kept adding the same new keys at the same time and put them "
        "in other buckets (2 attempts); nothing was committed. Run the write again, or write "
        "those keys from one writer at a time"
    )
    check_buckets_and_index(table)
    assert {r["v"][0] for r in table.read().to_pylist()} == {"a"}  # none of the given-up write
