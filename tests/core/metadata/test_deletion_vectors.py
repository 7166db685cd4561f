"""Deletion vectors: the index file codec against byte layouts built by hand from the specs
(Paimon's index file framing, the portable Roaring format, the portable 64-bit layout), and
deletion-vector tables against plain Python models (primary-key writes with lookup compaction,
``delete_where`` on append tables, compaction keeping reads unchanged)."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.errors import CorruptMetadata, InvalidInput
from paimon_core.metadata.deletion_vectors import (
    MAGIC_V1,
    MAGIC_V2,
    build_index_file,
    decode_vector,
    deletion_files,
    dv_entries,
    encode_vector,
)
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where
from paimon_core.read.table_read import TableRead


# ---------------------------------------------------------------- hand-built portable Roaring
def _u16(*v):
    return struct.pack("<" + "H" * len(v), *v)


def _u32(*v):
    return struct.pack("<" + "I" * len(v), *v)


def portable_arrays(containers: dict[int, list[int]]) -> bytes:
    """A portable RoaringBitmap of array containers only (cookie 12346, offset header)."""
    keys = sorted(containers)
    header = _u32(12346, len(keys)) + b"".join(_u16(k, len(containers[k]) - 1) for k in keys)
    offset = len(header) + 4 * len(keys)
    offsets, body = [], b""
    for k in keys:
        offsets.append(offset + len(body))
        body += _u16(*containers[k])
    return header + _u32(*offsets) + body


def portable_one_run(start: int, length: int) -> bytes:
    """A portable RoaringBitmap of one run container under key 0 (cookie 12347, no offsets)."""
    return _u32(12347) + bytes([1]) + _u16(0, length - 1) + _u16(1, start, length - 1)


def frame(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload + struct.pack(">I", zlib.crc32(payload))


def test_v1_vector_bytes_match_the_spec():
    pos = np.array([1, 5, 100000])
    payload = struct.pack(">i", MAGIC_V1) + portable_arrays({0: [1, 5], 1: [100000 - 65536]})
    record, length = encode_vector(pos)
    assert record == frame(payload)
    assert length == len(payload)  # v1: the manifest length is the payload's
    assert decode_vector(b"\x01" + record, 1, length).tolist() == [1, 5, 100000]


def test_v1_run_container_as_java_writes_it():
    payload = struct.pack(">i", MAGIC_V1) + portable_one_run(0, 39)
    record, length = encode_vector(np.arange(39))
    assert record == frame(payload)
    # the bytes of a vector Java Paimon 0.9 wrote for rows 0..38
    java = bytes.fromhex("000000135e43f2d03b30000001000026000100000026009104b21e")
    assert record == java and length == 19
    assert decode_vector(b"\x01" + java, 1, 19).tolist() == list(range(39))


def test_v2_vector_bytes_match_the_spec():
    pos = np.array([3, (1 << 32) + 7])
    bitmap = struct.pack("<Q", 2) + _u32(0) + portable_arrays({0: [3]}) + _u32(1) + portable_arrays({0: [7]})
    payload = struct.pack("<i", MAGIC_V2) + bitmap
    record, length = encode_vector(pos, bitmap64=True)
    assert record == frame(payload)
    assert length == len(payload) + 8  # v2: the manifest length is the whole record's
    assert decode_vector(b"\x01" + record, 1, length).tolist() == [3, (1 << 32) + 7]


def test_v2_dense_layout_with_empty_bitmaps_is_read():
    """Java writes every high key from 0 up, empty bitmaps included."""
    empty = _u32(12346, 0)
    bitmap = struct.pack("<Q", 3) + _u32(0) + empty + _u32(1) + empty + _u32(2) + portable_arrays({0: [9]})
    record = frame(struct.pack("<i", MAGIC_V2) + bitmap)
    assert decode_vector(b"\x01" + record, 1, len(record)).tolist() == [(2 << 32) + 9]


def test_corrupt_vectors_are_refused():
    record, length = encode_vector(np.array([1, 2, 3]))
    data = bytearray(b"\x01" + record)
    with pytest.raises(CorruptMetadata, match="length"):
        decode_vector(bytes(data), 1, length + 1)
    data[-1] ^= 0xFF
    with pytest.raises(CorruptMetadata, match="checksum"):
        decode_vector(bytes(data), 1, length)
    with pytest.raises(CorruptMetadata, match="magic"):
        decode_vector(b"\x01" + struct.pack(">ii", 4, 12345) + b"\0" * 4, 1, 4)


def test_index_file_layout():
    data, ranges = build_index_file(
        {"b.parquet": np.array([7]), "a.parquet": np.array([0, 1]), "c": np.array([])}
    )
    assert data[0] == 1
    assert [r[0] for r in ranges] == ["a.parquet", "b.parquet"]  # empty vectors are not written
    (_, off_a, len_a, card_a), (_, off_b, len_b, card_b) = ranges
    assert off_a == 1 and off_b == 1 + 4 + len_a + 4 and off_b + 4 + len_b + 4 == len(data)
    assert (card_a, card_b) == (2, 1)
    assert decode_vector(data, off_b, len_b).tolist() == [7]


# ---------------------------------------------------------------- primary-key tables with DVs
ENGINES = {
    "deduplicate": {},
    "partial-update": {"merge-engine": "partial-update"},
    "aggregation": {
        "merge-engine": "aggregation",
        "fields.v.aggregate-function": "sum",
        "fields.name.aggregate-function": "last_non_null_value",
    },
}
op = st.tuples(
    st.sampled_from(["+I", "+U", "-D"]),
    st.integers(0, 15),
    st.one_of(st.none(), st.text(alphabet="abc", min_size=1, max_size=3)),
    st.one_of(st.none(), st.integers(-5, 5)),
)


def _apply(model: dict, engine: str, ops) -> None:
    for kind, k, name, v in ops:
        if engine == "deduplicate":
            if kind == "-D":
                model.pop(k, None)
            else:
                model[k] = (name, v)
        elif engine == "partial-update":
            old = model.get(k, (None, None))
            model[k] = (name if name is not None else old[0], v if v is not None else old[1])
        else:
            old = model.get(k, (None, None))
            model[k] = (
                name if name is not None else old[0],
                old[1] if v is None else (v if old[1] is None else old[1] + v),
            )


def _raw_rows_above_level0(t) -> pa.Table:
    """Every live row above level 0, unmerged (what Java's DV reader returns)."""
    reader = TableRead(t)
    parts = [reader.read_file(s, f, False) for s in t.plan(t.snapshots.latest()) for f in s.files]
    return pa.concat_tables(parts) if parts else t.schema.arrow_schema().empty_table()


@pytest.mark.parametrize("engine", list(ENGINES))
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    history=st.lists(st.lists(op, min_size=1, max_size=25), min_size=1, max_size=5),
    buckets=st.integers(1, 2),
    partitioned=st.booleans(),
    bitmap64=st.booleans(),
)
def test_dv_pk_table_matches_model(tmp_path_factory, engine, history, buckets, partitioned, bitmap64):
    """Each write is compacted out of level 0 in its own COMPACT snapshot; above level 0 every
    key has one live row (reads need no merge); a full compaction keeps the rows."""
    if engine != "deduplicate":
        history = [[o for o in ops if o[0] != "-D"] or [("+I", 0, "a", 1)] for ops in history]
    options = {
        "bucket": str(buckets),
        "write-buffer-size": "2kb",
        "deletion-vectors.enabled": "true",
        "deletion-vectors.bitmap64": str(bitmap64).lower(),
        **ENGINES[engine],
    }
    t = FileSystemCatalog(str(tmp_path_factory.mktemp("wh"))).create_table(
        "db.t",
        Schema(
            Schema.parse_columns("k INT NOT NULL, name STRING, v BIGINT, p STRING"),
            ("p",) if partitioned else (),
            ("k", "p") if partitioned else ("k",),
            options,
        ),
    )
    model: dict = {}
    seen_vectors = False
    # a big first run: later small writes compact alone into a level above it and mask the rows
    # they supersede there with vectors
    for ops in [[("+I", k, f"n{k}", k) for k in range(300)]] + history:
        t.write_arrow(
            pa.table(
                {
                    "k": pa.array([o[1] for o in ops], pa.int32()),
                    "name": pa.array([o[2] for o in ops], pa.string()),
                    "v": pa.array([o[3] for o in ops], pa.int64()),
                    "p": [f"p{o[1] % 2}" for o in ops],
                    "kind": [o[0] for o in ops],
                }
            ),
            row_kind_column="kind",
        )
        _apply(model, engine, ops)
        live = [e.file for e in t.new_scan(t.snapshots.latest(), all_levels=True).entries()]
        assert all(f.level > 0 for f in live), "a write left level-0 files"
        raw = _raw_rows_above_level0(t)
        assert raw.num_rows == len(set(raw.column("k").to_pylist())), "a key has two live rows"
        got = {r["k"]: (r["name"], r["v"]) for r in t.read().to_pylist()}
        assert got == model
        seen_vectors = seen_vectors or bool(dv_entries(t, t.snapshots.latest()))
    assert seen_vectors, "no write was compacted on its own with vectors"
    compact(t, full=True)
    assert {r["k"]: (r["name"], r["v"]) for r in t.read().to_pylist()} == model
    assert not dv_entries(t, t.snapshots.latest()), "a full compaction leaves no vectors"


def test_dv_options_refused(catalog):
    cols = Schema.parse_columns("k INT NOT NULL, v STRING")
    for bad in ({"merge-engine": "first-row"}, {"changelog-producer": "full-compaction"}):
        with pytest.raises(InvalidInput, match="deletion vectors"):
            catalog.create_table(
                "db.x", Schema(cols, (), ("k",), {"bucket": "1", "deletion-vectors.enabled": "true", **bad})
            )


def test_time_travel_sees_the_vectors_of_its_snapshot(catalog):
    t = catalog.create_table(
        "db.t",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"),
            (),
            ("k",),
            {"bucket": "1", "deletion-vectors.enabled": "true"},
        ),
    )
    t.write_arrow(pa.table({"k": pa.array(range(10), pa.int32()), "v": ["a"] * 10}))
    first = t.snapshots.latest_id()
    t.write_arrow(
        pa.table({"k": pa.array([1, 2], pa.int32()), "v": ["b", "b"], "op": ["+U", "-D"]}),
        row_kind_column="op",
    )
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"])[:3] == [
        {"k": 0, "v": "a"},
        {"k": 1, "v": "b"},
        {"k": 3, "v": "a"},
    ]
    assert t.read(snapshot_id=first).num_rows == 10
    assert deletion_files({(e.partition, e.bucket): [e] for e in dv_entries(t, t.snapshots.latest())})


# ---------------------------------------------------------------- append tables: delete_where
@pytest.mark.parametrize("dv", [True, False])
def test_delete_where_on_append_tables(catalog, dv):
    t = catalog.create_table(
        "db.a",
        Schema(
            Schema.parse_columns("id BIGINT, v STRING, p STRING"),
            ("p",),
            (),
            {"deletion-vectors.enabled": str(dv).lower()},
        ),
    )
    ids = np.arange(300)
    for lo in (0, 100, 200):
        t.write_arrow(
            pa.table(
                {
                    "id": ids[lo : lo + 100],
                    "v": [f"v{i}" for i in ids[lo : lo + 100]],
                    "p": [f"p{i % 3}" for i in ids[lo : lo + 100]],
                }
            )
        )
    model = set(ids.tolist())
    dry = delete_where(t, "id < 40 OR id IN (150, 151, 299)", dry_run=True)
    assert dry.rows == 43 and dry.snapshot is None and t.read().num_rows == 300
    res = delete_where(t, "id < 40 OR id IN (150, 151, 299)")
    model -= set(range(40)) | {150, 151, 299}
    assert res.rows == 43 and res.snapshot.commit_kind == ("COMPACT" if dv else "OVERWRITE")
    assert set(t.read().column("id").to_pylist()) == model
    again = delete_where(t, "id < 45 AND p = 'p1'")  # rows already deleted do not count again
    model -= {i for i in range(40, 45) if i % 3 == 1}
    assert again.rows == len({i for i in range(40, 45) if i % 3 == 1})
    assert set(t.read().column("id").to_pylist()) == model
    assert bool(dv_entries(t, t.snapshots.latest())) == dv
    compact(t, full=True)
    assert set(t.read().column("id").to_pylist()) == model
    assert delete_where(t, "id > 1000").rows == 0


def test_delete_where_on_pk_tables(catalog):
    t = catalog.create_table(
        "db.k",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"),
            (),
            ("k",),
            {"bucket": "2", "deletion-vectors.enabled": "true"},
        ),
    )
    t.write_arrow(pa.table({"k": pa.array(range(50), pa.int32()), "v": ["a"] * 50}))
    assert delete_where(t, "k >= 45", dry_run=True).rows == 5
    assert delete_where(t, "k >= 45").rows == 5
    assert sorted(r["k"] for r in t.read().to_pylist()) == list(range(45))
    agg = catalog.create_table(
        "db.g",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v BIGINT"),
            (),
            ("k",),
            {"bucket": "1", "merge-engine": "aggregation"},
        ),
    )
    with pytest.raises(InvalidInput, match="merge-engine=aggregation"):
        delete_where(agg, "k = 1")


def test_dv_mode_of_a_pk_table_with_data_cannot_change(catalog):
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    t = catalog.create_table(
        "db.t", Schema(Schema.parse_columns("k INT NOT NULL, v STRING"), (), ("k",), {"bucket": "1"})
    )
    t.write_arrow(pa.table({"k": pa.array([1], pa.int32()), "v": ["a"]}))
    with pytest.raises(InvalidInput, match="deletion-vectors.enabled"):
        alter_table(t, [SetOption("deletion-vectors.enabled", "true")])


def test_dynamic_bucket_pk_table_with_dvs(catalog):
    t = catalog.create_table(
        "db.d",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"),
            (),
            ("k",),
            {"deletion-vectors.enabled": "true", "dynamic-bucket.target-row-num": "30"},
        ),
    )
    model = {}
    for r in range(4):
        ks = list(range(r * 20, r * 20 + 50))
        t.write_arrow(pa.table({"k": pa.array(ks, pa.int32()), "v": [f"r{r}"] * len(ks)}))
        model.update({k: f"r{r}" for k in ks})
    assert delete_where(t, "k < 10").rows == 10
    for k in range(10):
        model.pop(k)
    assert {r["k"]: r["v"] for r in t.read().to_pylist()} == model


def test_overwrite_drops_the_vectors_of_overwritten_partitions(catalog):
    t = catalog.create_table(
        "db.o",
        Schema(Schema.parse_columns("id BIGINT, p STRING"), ("p",), (), {"deletion-vectors.enabled": "true"}),
    )
    t.write_arrow(pa.table({"id": pa.array(range(20), pa.int64()), "p": [f"p{i % 2}" for i in range(20)]}))
    delete_where(t, "id < 6")
    assert {e.partition for e in dv_entries(t, t.snapshots.latest())} == {
        t.partition_codec.to_bytes(("p0",)),
        t.partition_codec.to_bytes(("p1",)),
    }
    t.write_arrow(pa.table({"id": pa.array([100], pa.int64()), "p": ["p0"]}), overwrite=True)
    assert [e.partition for e in dv_entries(t, t.snapshots.latest())] == [t.partition_codec.to_bytes(("p1",))]
    assert sorted(t.read().column("id").to_pylist()) == [7, 9, 11, 13, 15, 17, 19, 100]


def test_concurrent_index_change_is_a_conflict(catalog):
    """A compaction planned before another commit replaced the bucket's vectors must not commit
    (its index would drop the other commit's deletions)."""
    from paimon_core.compaction.bucket_compaction import compact_messages
    from paimon_core.errors import CommitConflict

    t = catalog.create_table(
        "db.c",
        Schema(Schema.parse_columns("id BIGINT, v STRING"), (), (), {"deletion-vectors.enabled": "true"}),
    )
    for lo in (0, 10):
        t.write_arrow(pa.table({"id": pa.array(range(lo, lo + 10), pa.int64()), "v": ["a"] * 10}))
    delete_where(t, "id = 0")
    messages = compact_messages(t, t.plan(t.snapshots.latest(), all_levels=True), full=True)
    assert any(m.deleted_index for m in messages)
    delete_where(t, "id = 15")  # wins the race: replaces the bucket's index
    with pytest.raises(CommitConflict):
        t.commit(messages, kind="COMPACT")
    t.discard(messages)
    assert sorted(t.read().column("id").to_pylist()) == [i for i in range(1, 20) if i != 15]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=st.lists(st.lists(op, min_size=1, max_size=20), min_size=1, max_size=4))
def test_lookup_changelog_with_dvs_equals_without(tmp_path_factory, history):
    """changelog-producer=lookup on a DV table: the same changelog as on a table without
    vectors (whose lookup changelog the interop tests check against Java)."""
    from paimon_core.read.diff import diff

    cat = FileSystemCatalog(str(tmp_path_factory.mktemp("wh")))
    tables = [
        cat.create_table(
            f"db.t{dv}",
            Schema(
                Schema.parse_columns("k INT NOT NULL, name STRING, v BIGINT"),
                (),
                ("k",),
                {"bucket": "2", "changelog-producer": "lookup", "deletion-vectors.enabled": dv},
            ),
        )
        for dv in ("true", "false")
    ]
    # a big first run: later small writes are compacted alone into a level above it, so the
    # rows they supersede there are masked by vectors, not rewritten
    base = [("+I", k, f"n{k}", k) for k in range(400)]
    for ops in [base] + history:
        data = pa.table(
            {
                "k": pa.array([o[1] for o in ops], pa.int32()),
                "name": pa.array([o[2] for o in ops], pa.string()),
                "v": pa.array([o[3] for o in ops], pa.int64()),
                "kind": [o[0] for o in ops],
            }
        )
        for t in tables:
            t.write_arrow(data, row_kind_column="kind")
    logs = [
        sorted(diff(t, 0, t.snapshots.latest_id(), mode="changelog").to_pylist(), key=repr) for t in tables
    ]
    assert logs[0] == logs[1]
    assert sorted(tables[0].read().to_pylist(), key=repr) == sorted(tables[1].read().to_pylist(), key=repr)
