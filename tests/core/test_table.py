"""Append tables end to end through the core API: write, read, time travel, overwrite, rolling."""

import datetime as dt
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.errors import (
    InvalidInput,
    SchemaMismatch,
    SnapshotNotFound,
    TableAlreadyExists,
    TableNotFound,
)
from paimon_core.metadata.schema import Schema


def make(catalog, cols="id BIGINT NOT NULL, name STRING, dt STRING", partition=(), options=None, name="db.t"):
    return catalog.create_table(name, Schema(Schema.parse_columns(cols), tuple(partition), (), options or {}))


def rows(n, start=0, dt_values=("2024-01-01", "2024-01-02")):
    return pa.table(
        {
            "id": pa.array(range(start, start + n), pa.int64()),
            "name": [f"n{i}" for i in range(start, start + n)],
            "dt": [dt_values[i % len(dt_values)] for i in range(n)],
        }
    )


def test_write_read_time_travel(catalog):
    t = make(catalog, partition=["dt"])
    s1 = t.write_arrow(rows(10))
    s2 = t.write_arrow(rows(5, start=10))
    assert (s1.id, s2.id) == (1, 2)
    assert s2.total_record_count == 15 and s2.delta_record_count == 5
    assert t.read().num_rows == 15
    assert sorted(t.read(snapshot_id=1).column("id").to_pylist()) == list(range(10))
    assert t.read(as_of_millis=s1.time_millis).num_rows == 10
    with pytest.raises(SnapshotNotFound):
        t.read(snapshot_id=3)
    with pytest.raises(SnapshotNotFound):
        t.read(as_of_millis=s1.time_millis - 10_000)


def test_layout_and_metadata_files(catalog):
    t = make(catalog, partition=["dt"])
    t.write_arrow(rows(4))
    base = t.path
    assert sorted(os.listdir(base)) == ["dt=2024-01-01", "dt=2024-01-02", "manifest", "schema", "snapshot"]
    assert os.listdir(os.path.join(base, "dt=2024-01-01")) == ["bucket-0"]
    snap = json.load(open(os.path.join(base, "snapshot", "snapshot-1")))
    assert snap["version"] == 3 and snap["commitKind"] == "APPEND"
    assert snap["commitIdentifier"] == 9223372036854775807
    assert open(os.path.join(base, "snapshot", "LATEST")).read() == "1"
    schema = json.load(open(os.path.join(base, "schema", "schema-0")))
    assert schema["partitionKeys"] == ["dt"] and "comment" not in schema
    assert schema["options"]["bucket"] == "-1"


def test_partition_filter_prunes_and_where_filters(catalog):
    t = make(catalog, partition=["dt"])
    t.write_arrow(rows(10))
    pred = t.parse_filter("dt = '2024-01-01'")
    splits = t.plan(t.snapshots.latest(), pred)
    assert len(splits) == 1 and splits[0].partition == ("2024-01-01",)
    got = t.read(where="dt = '2024-01-01' AND id >= 4")
    assert sorted(got.column("id").to_pylist()) == [4, 6, 8]
    assert t.read(where="id IN (1, 3) OR name IS NULL").num_rows == 2


def test_value_stats_prune_files(catalog):
    t = make(catalog)
    t.write_arrow(rows(10))
    t.write_arrow(rows(10, start=100))
    pred = t.parse_filter("id > 50")
    splits = t.plan(t.snapshots.latest(), pred)
    assert sum(len(s.files) for s in splits) == 1
    assert t.read(where="id > 50").num_rows == 10


def test_overwrite_replaces_only_written_partitions(catalog):
    t = make(catalog, partition=["dt"])
    t.write_arrow(rows(10))
    snap = t.write_arrow(rows(2, start=50, dt_values=("2024-01-02",)), overwrite=True)
    assert snap.commit_kind == "OVERWRITE"
    got = t.read()
    assert sorted(got.column("id").to_pylist()) == [0, 2, 4, 6, 8, 50, 51]
    t.write_arrow(rows(1, start=70, dt_values=("2024-01-01",)), overwrite=True, partition="dt=2024-01-01")
    assert sorted(t.read().column("id").to_pylist()) == [50, 51, 70]
    with pytest.raises(SchemaMismatch):
        t.write_arrow(rows(1, dt_values=("2024-01-09",)), overwrite=True, partition="dt=2024-01-01")


def test_unpartitioned_overwrite_replaces_everything(catalog):
    t = make(catalog)
    t.write_arrow(rows(10))
    t.write_arrow(rows(3, start=20), overwrite=True)
    assert sorted(t.read().column("id").to_pylist()) == [20, 21, 22]
    assert t.read(snapshot_id=1).num_rows == 10


def test_files_roll_at_target_size(catalog):
    t = make(catalog, options={"target-file-size": "64kb"})
    big = pa.table(
        {
            "id": pa.array(range(200_000), pa.int64()),
            "name": [f"name-{i:08d}" for i in range(200_000)],
            "dt": ["x"] * 200_000,
        }
    )
    from paimon_core.write.input_files import BATCH_ROWS

    assert BATCH_ROWS < 200_000
    t.write_arrow(pa.Table.from_batches(big.to_batches(max_chunksize=20_000)))
    files = [f for s in t.plan(t.snapshots.latest()) for f in s.files]
    assert len(files) > 1
    assert sum(f.row_count for f in files) == 200_000
    seqs = sorted((f.min_sequence_number, f.max_sequence_number) for f in files)
    assert seqs[0][0] == 0 and seqs[-1][1] == 199_999
    assert all(b[0] == a[1] + 1 for a, b in zip(seqs, seqs[1:]))
    assert t.read().num_rows == 200_000


def test_fixed_buckets_need_bucket_key_and_split_rows(catalog):
    with pytest.raises(InvalidInput):
        make(catalog, options={"bucket": "4"})
    t = make(catalog, options={"bucket": "4", "bucket-key": "id"})
    t.write_arrow(rows(100))
    splits = t.plan(t.snapshots.latest())
    assert {s.bucket for s in splits} == {0, 1, 2, 3}
    assert all(s.total_buckets == 4 for s in splits)
    assert t.read().num_rows == 100


def test_parquet_encodings_java_can_read(catalog):
    t = make(
        catalog,
        cols="d1 DECIMAL(9, 2), d2 DECIMAL(18, 2), d3 DECIMAL(30, 2), t6 TIMESTAMP(6), t9 TIMESTAMP(9)",
    )
    t.write_arrow(
        pa.table(
            {
                "d1": pa.array([1], pa.int64()),
                "d2": pa.array([2], pa.int64()),
                "d3": pa.array([3], pa.int64()),
                "t6": [dt.datetime(2024, 1, 1)],
                "t9": pa.array([1], pa.timestamp("ns")),
            }
        )
    )
    f = t.plan(t.snapshots.latest())[0].files[0]
    meta = pq.ParquetFile(os.path.join(t.bucket_path((), 0), f.file_name)).metadata
    phys = {meta.schema.column(i).name: meta.schema.column(i).physical_type for i in range(meta.num_columns)}
    assert phys == {"d1": "INT32", "d2": "INT64", "d3": "FIXED_LEN_BYTE_ARRAY", "t6": "INT64", "t9": "INT96"}
    got = t.read().to_pylist()[0]
    assert got["t6"] == dt.datetime(2024, 1, 1) and str(got["d3"]) == "3.00"


def test_conform_errors_leave_no_commit(catalog):
    t = make(catalog)
    with pytest.raises(SchemaMismatch, match="unknown column 'zzz'"):
        t.write_arrow(pa.table({"id": [1], "zzz": [1]}))
    with pytest.raises(SchemaMismatch, match="NOT NULL"):
        t.write_arrow(pa.table({"id": pa.array([1, None], pa.int64())}))
    with pytest.raises(SchemaMismatch, match="missing"):
        t.write_arrow(pa.table({"name": ["a"]}))
    with pytest.raises(SchemaMismatch, match="not a valid BIGINT"):
        t.write_arrow(pa.table({"id": ["x"]}))
    assert t.snapshots.latest() is None
    data_files = [f for _, _, fs in os.walk(t.path) for f in fs if f.startswith("data-")]
    assert data_files == []


def test_catalog_operations(catalog):
    make(catalog)
    make(catalog, name="db.u")
    make(catalog, name="other.v")
    assert catalog.list_databases() == ["db", "other"]
    assert catalog.list_tables("db") == ["t", "u"]
    with pytest.raises(TableAlreadyExists):
        make(catalog)
    catalog.drop_table("db.u")
    assert catalog.list_tables("db") == ["t"]
    with pytest.raises(TableNotFound):
        catalog.get_table("db.u")
