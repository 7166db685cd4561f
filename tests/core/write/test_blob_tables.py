"""BLOB tables through our own writes (``write/blob_writer.py``, ``read/row_tracking.py``):
``.blob`` files roll beside each data file and take the row ids of its rows; a column update of
other columns and compactions (which keep the ``.blob`` files) read back as the model; ``.blob``
files that leave rows without values are refused by name."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import UnsupportedFeature
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.ops.update_columns import update_columns
from paimon_core.read.row_tracking import blob_sources

OPTIONS = {
    "row-tracking.enabled": "true",
    "data-evolution.enabled": "true",
    "blob.target-file-size": "1 kb",
}


def _table(catalog):
    cols = Schema.parse_columns("id INT, b BLOB, v STRING")
    return catalog.create_table("db.t", Schema(cols, options=OPTIONS))


def _batch(ids) -> pa.Table:
    blobs = [None if i % 3 == 0 else bytes([i]) * (300 * (i % 4)) for i in ids]
    return pa.table(
        {"id": pa.array(ids, pa.int32()), "b": pa.array(blobs, pa.binary()), "v": [f"v{i}" for i in ids]}
    )


def _rows(t):
    got = t.read(columns=["_ROW_ID", "id", "b", "v"]).to_pylist()
    return sorted((r["_ROW_ID"], r["id"], r["b"], r["v"]) for r in got)


def _files(t):
    return [e.file for e in live_entries(t.manifests, t.snapshots.latest())]


def test_blob_files_roll_and_take_their_data_files_row_ids(catalog):
    t = _table(catalog)
    t.write_arrow(_batch(list(range(10))))
    t = catalog.get_table("db.t")
    t.write_arrow(_batch(list(range(10, 16))))
    t = catalog.get_table("db.t")
    model = [(i, i, None if i % 3 == 0 else bytes([i]) * (300 * (i % 4)), f"v{i}") for i in range(16)]
    assert _rows(t) == model
    files = _files(t)
    data = sorted(
        (f.first_row_id, f.row_count, f.write_cols) for f in files if f.file_name.endswith(".parquet")
    )
    assert data == [(0, 10, ("id", "v")), (10, 6, ("id", "v"))]
    blobs = sorted((f.first_row_id, f.row_count) for f in files if f.file_name.endswith(".blob"))
    assert len(blobs) > 2 and sum(n for _, n in blobs) == 16  # rolled at 1 kB
    for (a, n), (b, _) in zip(blobs, blobs[1:]):
        assert a + n == b  # each continues the previous one
    assert all(
        f.write_cols == ("b",) and f.value_stats_cols == () for f in files if f.file_name.endswith(".blob")
    )


def test_update_of_other_columns_then_compaction_keeps_blobs(catalog):
    t = _table(catalog)
    for lo in (0, 5, 9):
        t.write_arrow(_batch(list(range(lo, lo + (5 if lo < 9 else 3)))))
        t = catalog.get_table("db.t")
    update_columns(t, pa.table({"_ROW_ID": pa.array([1, 7], pa.int64()), "v": ["X", "Y"]}), ["v"])
    t = catalog.get_table("db.t")
    want = _rows(t)
    assert [r[3] for r in want if r[0] in (1, 7)] == ["X", "Y"]
    blob_names = {f.file_name for f in _files(t) if f.file_name.endswith(".blob")}
    full_compact(t)
    t = catalog.get_table("db.t")
    assert _rows(t) == want
    after = _files(t)
    assert {f.file_name for f in after if f.file_name.endswith(".blob")} == blob_names
    data = [f for f in after if not f.file_name.endswith(".blob")]
    assert len(data) == 1 and data[0].write_cols == ("id", "v") and data[0].row_count == 13
    t.write_arrow(_batch([20, 21]))  # appends after a compaction continue the ids
    t = catalog.get_table("db.t")
    assert [r[:2] for r in _rows(t)][-2:] == [(13, 20), (14, 21)]


def test_blob_files_with_a_gap_are_refused(catalog):
    t = _table(catalog)
    t.write_arrow(_batch(list(range(10))))
    t = catalog.get_table("db.t")
    files = _files(t)
    blobs = sorted((f for f in files if f.file_name.endswith(".blob")), key=lambda f: f.first_row_id or 0)
    assert len(blobs) >= 2
    gap = [blobs[0]] + [f._replace(first_row_id=(f.first_row_id or 0) + 1) for f in blobs[1:]]
    with pytest.raises(UnsupportedFeature, match="without values"):
        blob_sources(t, gap, [1])
    assert [f.file_name for f in blob_sources(t, blobs, [1])[1]] == [f.file_name for f in blobs]
