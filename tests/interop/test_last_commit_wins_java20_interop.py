"""Two writers upsert the same keys of a primary-key table concurrently: both number their
records from the same base, and the one that commits last must win every key (it renumbers its
files above the other's before it commits, write/renumber.py). Our reads and Java 2.0's agree.
Deterministic interleavings here; tests/safety/test_concurrency.py races processes."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.write.table_write import write_tables

pytestmark = [pytest.mark.interop]

KEYS = 200


def _batch(tag: str, keys) -> pa.Table:
    keys = list(keys)
    return pa.table({"id": pa.array(keys, pa.int64()), "v": [f"{tag}{k}" for k in keys]})


def _table(tmp_path, options: dict):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cat.create_database("db")
    schema = Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), (), ("id",), options)
    return cat, cat.create_table("db.t", schema)


@pytest.mark.parametrize(
    "options",
    [
        {"bucket": "4"},
        {"bucket": "2", "changelog-producer": "input"},
        {"bucket": "-1"},
        {"bucket": "2", "deletion-vectors.enabled": "true"},
    ],
    ids=["fixed", "input-changelog", "dynamic", "dv"],
)
def test_the_commit_that_lands_last_wins_every_key(java20, tmp_path, options):
    cat, t = _table(tmp_path, options)
    t.write_arrow(_batch("old", range(KEYS)))
    # A and B both read the bucket state of snapshot 1 before either commits. B writes twice
    # as many rows, the shared keys last: numbered from the same base, B's number of each shared
    # key is above A's, so without renumbering B would win them although A lands last
    a = write_tables(cat.get_table("db.t"), [_batch("a", range(KEYS))])
    b = write_tables(cat.get_table("db.t"), [_batch("b", range(2 * KEYS - 1, -1, -1))])
    cat.get_table("db.t").commit(b)
    cat.get_table("db.t").commit(a)  # A lands last: A wins every key it wrote
    t = cat.get_table("db.t")
    want = sorted([(k, f"a{k}") for k in range(KEYS)] + [(k, f"b{k}") for k in range(KEYS, 2 * KEYS)])
    if "deletion-vectors.enabled" not in options:  # (a DV table shows level 0 once compacted)
        assert sorted((r["id"], r["v"]) for r in t.read().to_pylist()) == want
        rows = java20.call("read", warehouse=str(tmp_path / "wh"), table="db.t")["rows"]
        assert sorted((r["id"], r["v"]) for r in rows) == want
    # only the files the snapshots name are left: the replaced ones were deleted
    named = {
        e.file.file_name
        for i in t.snapshots.list_ids()
        for e in live_entries(t.manifests, t.snapshots.snapshot(i))
    }
    on_disk = {p.name for p in (tmp_path / "wh" / "db.db" / "t").rglob("data-*")}
    assert on_disk == named
    # and a full compaction (ours, then Java's reading it) keeps the winner
    from paimon_core.compaction.compaction import full_compact

    full_compact(t)
    assert sorted((r["id"], r["v"]) for r in cat.get_table("db.t").read().to_pylist()) == want
    rows = java20.call("read", warehouse=str(tmp_path / "wh"), table="db.t")["rows"]
    assert sorted((r["id"], r["v"]) for r in rows) == want


def test_no_concurrent_commit_rewrites_nothing(tmp_path):
    cat, t = _table(tmp_path, {"bucket": "2"})
    t.write_arrow(_batch("old", range(10)))
    a = write_tables(cat.get_table("db.t"), [_batch("a", range(10))])
    names = {f.file_name for m in a for f in m.new_files}
    snap = cat.get_table("db.t").commit(a)
    t = cat.get_table("db.t")
    assert {e.file.file_name for e in live_entries(t.manifests, snap)} >= names
