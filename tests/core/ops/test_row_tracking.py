"""Writes to row-tracking and data-evolution tables (``metadata/row_ids.py``): appends get row
ids at commit (``nextRowId``), sequence numbers are snapshot ids, and rewrites (compaction,
copy-on-write delete) keep every row's ``_ROW_ID``, stored in the new files as Java stores it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import UnsupportedFeature
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where

COLS = "id BIGINT, v STRING, p STRING"


def _table(catalog, **opts):
    options = {"row-tracking.enabled": "true", **opts}
    return catalog.create_table(
        "db.t", Schema(Schema.parse_columns(COLS), partition_keys=("p",), options=options)
    )


def tracked_batch(ids):
    """Rows with ids ``ids``, odd ones in partition a, even ones in b."""
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": [f"v{i}" for i in ids],
            "p": ["a" if i % 2 else "b" for i in ids],
        }
    )


def _ids(t):
    return sorted(
        (r["id"], r["_ROW_ID"], r["_SEQUENCE_NUMBER"])
        for r in t.read(columns=["id", "_ROW_ID", "_SEQUENCE_NUMBER"]).to_pylist()
    )


def test_appends_get_row_ids_and_snapshot_sequence_numbers(catalog):
    t = _table(catalog)
    t.write_arrow(tracked_batch([1, 2, 3]))
    t.write_arrow(tracked_batch([4, 5]))
    t = catalog.get_table("db.t")
    assert t.snapshots.latest().next_row_id == 5
    got = _ids(t)
    assert sorted(r for _, r, _ in got) == [0, 1, 2, 3, 4]  # unique, no gap
    assert {i: s for i, _, s in got} == {1: 1, 2: 1, 3: 1, 4: 2, 5: 2}
    files = sorted(
        (e.file.first_row_id, e.file.row_count) for e in live_entries(t.manifests, t.snapshots.latest())
    )
    assert [f for f, _ in files] == [
        sum(n for _, n in files[:i]) for i in range(len(files))
    ]  # ranges tile 0..5


def test_compaction_and_delete_keep_row_ids(catalog):
    t = _table(catalog)
    for ids in ([1, 2, 3], [4, 5], [6, 7, 8]):
        t.write_arrow(tracked_batch(ids))
    t = catalog.get_table("db.t")
    before = _ids(t)
    full_compact(t)
    t = catalog.get_table("db.t")
    assert _ids(t) == before
    entries = live_entries(t.manifests, t.snapshots.latest())
    # a file holds consecutive row ids only (first row id + position): ids 0..7 went to two
    # partitions by turns, so only runs of consecutive ids were merged (6 files -> 5)
    assert len(entries) == 5
    for e in entries:
        path = t.io.join(t.bucket_path(t.partition_codec.from_bytes(e.partition), 0), e.file.file_name)
        if e.file.file_source == 1:  # compacted: the ids are stored, as Java stores them
            stored = pq.read_table(path)
            assert stored.column_names[-2:] == ["_ROW_ID", "_SEQUENCE_NUMBER"]
            first = e.file.first_row_id
            assert stored.column("_ROW_ID").to_pylist() == list(range(first, first + e.file.row_count))
    delete_where(t, "id = 4")
    t = catalog.get_table("db.t")
    assert _ids(t) == [r for r in before if r[0] != 4]
    t.write_arrow(tracked_batch([9]))  # new ids continue after the last one given
    t = catalog.get_table("db.t")
    assert [r for r in _ids(t) if r[0] == 9] == [(9, 8, t.snapshots.latest_id())]


def test_data_evolution_table_takes_whole_row_appends(catalog):
    t = _table(catalog, **{"data-evolution.enabled": "true"})
    t.write_arrow(tracked_batch([1, 2]))
    t.write_arrow(tracked_batch([3]))
    t = catalog.get_table("db.t")
    assert [r for _, r, _ in _ids(t)] == [0, 1, 2]


@pytest.mark.parametrize("opt", ["row-tracking.enabled", "data-evolution.enabled"])
def test_row_tracking_needs_an_unaware_bucket_append_table(catalog, opt):
    cols = Schema.parse_columns("id BIGINT NOT NULL, v STRING")
    with pytest.raises(UnsupportedFeature, match=opt):
        catalog.create_table("db.k", Schema(cols, primary_keys=("id",), options={"bucket": "2", opt: "true"}))
    with pytest.raises(UnsupportedFeature, match=opt):
        catalog.create_table("db.b", Schema(cols, options={"bucket": "2", "bucket-key": "id", opt: "true"}))


def test_system_columns_are_not_user_columns(catalog):
    with pytest.raises(Exception, match="_ROW_ID"):
        catalog.create_table("db.x", Schema(Schema.parse_columns("_ROW_ID BIGINT")))
