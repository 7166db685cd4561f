"""BLOB columns (Paimon 1.4) both ways: Java 1.4.2 writes a table with two BLOB columns whose
``.blob`` files roll (NULLs, values over the target size, two commits) and we read exactly what
Java reads; we write such a table (ingest, compaction, expiry) and after each step Java 1.4.2 and
pypaimon 2.1 read exactly our model, and Java's file layout (one data file without the BLOB
columns, ``.blob`` files per column rolled at ``blob.target-file-size``) is ours; pypaimon 2.1
writes one and we read it."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.maintain import expire_snapshots
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [
    {"name": "id", "type": "INT"},
    {"name": "a", "type": "BLOB"},
    {"name": "name", "type": "STRING"},
    {"name": "b", "type": "BLOB"},
]
OPTIONS = {
    "bucket": "-1",
    "row-tracking.enabled": "true",
    "data-evolution.enabled": "true",
    "blob.target-file-size": "4 kb",
}


def _batch(lo: int, hi: int) -> list[dict]:
    """Rows whose BLOBs are NULL, empty, small and over the 4 kB target, as canonical hex."""
    out = []
    for i in range(lo, hi):
        a = None if i % 4 == 0 else (bytes([i % 256]) * (1500 * (i % 3))).hex()
        b = None if i % 5 == 1 else bytes(range(i % 7, i % 7 + 3)).hex() * (700 if i % 2 else 1)
        out.append({"id": i, "a": a, "name": f"n{i}", "b": b})
    return out


def _arrow(rows: list[dict]) -> pa.Table:
    def col(k):
        return pa.array([None if r[k] is None else bytes.fromhex(r[k]) for r in rows], pa.binary())

    return pa.table(
        {
            "id": pa.array([r["id"] for r in rows], pa.int32()),
            "a": col("a"),
            "name": [r["name"] for r in rows],
            "b": col("b"),
        }
    )


def _ours(wh: str, ident: str, snapshot: int | None = None) -> list[dict]:
    t = FileSystemCatalog(wh).get_table(ident)
    return rows_from_arrow(t.read(snapshot_id=snapshot) if snapshot else t.read())


def test_java_writes_blobs_we_read_them(java14, tmp_path):
    wh, ident = str(tmp_path / "wh"), "j.blobs"
    base = {"warehouse": wh, "table": ident}
    res = java14.run(
        [
            {
                "op": "create_table",
                **base,
                "schema": SCHEMA,
                "primary_keys": [],
                "partition_keys": [],
                "options": OPTIONS,
            },
            {"op": "write", **base, "rows": _batch(0, 12)},
            {"op": "write", **base, "rows": _batch(12, 20)},
            {"op": "read", **base},
        ]
    )
    files = [p.name for p in (tmp_path / "wh" / "j.db" / "blobs" / "bucket-0").iterdir()]
    assert sum(n.endswith(".blob") for n in files) > 4, f"Java rolled no .blob files: {files}"
    assert_same_rows(res[-1]["rows"], _batch(0, 20), label_a="java 1.4.2", label_b="model")
    assert_same_rows(_ours(wh, ident), res[-1]["rows"], label_a="paimon-cli", label_b="java 1.4.2")
    got = FileSystemCatalog(wh).get_table(ident).read(columns=["_ROW_ID", "id"]).to_pylist()
    assert sorted((r["_ROW_ID"], r["id"]) for r in got) == [(i, i) for i in range(20)]


def test_we_write_blobs_java_and_pypaimon_read_them(java14, pypaimon, tmp_path):
    wh, ident = str(tmp_path / "wh"), "d.blobs"
    cat = FileSystemCatalog(wh)
    java14.run(
        [
            {
                "op": "create_table",
                "warehouse": wh,
                "table": ident,
                "schema": SCHEMA,
                "primary_keys": [],
                "partition_keys": [],
                "options": OPTIONS,
            }
        ]
    )
    t = cat.get_table(ident)
    t.write_arrow(_arrow(_batch(0, 12)))
    t = cat.get_table(ident)
    t.write_arrow(_arrow(_batch(12, 20)))
    model = _batch(0, 20)
    bucket = tmp_path / "wh" / "d.db" / "blobs" / "bucket-0"
    blob_files = [p for p in bucket.iterdir() if p.name.endswith(".blob")]
    assert len(blob_files) > 4 and max(p.stat().st_size for p in blob_files) < 4096 + 4300
    steps = {}
    t = cat.get_table(ident)
    steps["ingest"] = t.snapshots.latest_id()
    full_compact(t)
    t = cat.get_table(ident)
    steps["compact"] = t.snapshots.latest_id()
    assert steps["compact"] > steps["ingest"], "the compaction committed nothing"
    for step, snap in steps.items():
        ours = _ours(wh, ident, snap)
        assert_same_rows(ours, model, label_a=f"ours after {step}", label_b="model")
        theirs = java14.read(wh, ident, snapshot=snap)
        assert_same_rows(theirs, model, label_a=f"java 1.4.2 after our {step}", label_b="model")
        py = pypaimon.run([{"op": "read", "warehouse": wh, "table": ident, "snapshot": snap}])[0]["rows"]
        assert_same_rows(py, model, label_a=f"pypaimon 2.1 after our {step}", label_b="model")
    expire_snapshots(cat.get_table(ident), retain_max=1, retain_min=1, older_than_ms=0)
    assert_same_rows(_ours(wh, ident), model, label_a="ours after expire", label_b="model")
    assert_same_rows(java14.read(wh, ident), model, label_a="java 1.4.2 after our expire", label_b="model")
    py = pypaimon.run([{"op": "read", "warehouse": wh, "table": ident}])[0]["rows"]
    assert_same_rows(py, model, label_a="pypaimon 2.1 after our expire", label_b="model")
    live = {p.name for p in bucket.iterdir()}
    assert {p.name for p in blob_files} <= live, "expiry deleted .blob files still in use"


def _layout(wh: str, ident: str) -> list[tuple]:
    """Each live file as (kind, _WRITE_COLS, _FIRST_ROW_ID, rows, sequence numbers, size of a
    .blob file), in row-id order."""
    from paimon_core.metadata.live_files import live_entries

    t = FileSystemCatalog(wh).get_table(ident)
    out = []
    for e in live_entries(t.manifests, t.snapshots.latest()):
        f = e.file
        blob = f.file_name.endswith(".blob")
        out.append(
            (
                "blob" if blob else "data",
                f.write_cols,
                f.first_row_id,
                f.row_count,
                (f.min_sequence_number, f.max_sequence_number),
                f.file_size if blob else None,
                f.value_stats_cols if blob else None,
            )
        )
    return sorted(out, key=lambda x: (x[0], x[1] or (), x[2] or 0))


def test_our_blob_files_are_laid_out_as_javas(java14, tmp_path):
    """The same two commits written by Java 1.4.2 and by us give the same files: one data file
    per commit naming the other columns, and per BLOB column the same .blob files (rows, first
    row ids, sizes: the records are byte for byte Java's)."""
    tables = {"j.blobs": str(tmp_path / "java"), "o.blobs": str(tmp_path / "ours")}
    reqs = []
    for ident, wh in tables.items():
        base = {"warehouse": wh, "table": ident}
        spec = {"schema": SCHEMA, "primary_keys": [], "partition_keys": [], "options": OPTIONS}
        reqs.append({"op": "create_table", **base, **spec})
        if ident.startswith("j."):
            reqs += [
                {"op": "write", **base, "rows": _batch(0, 12)},
                {"op": "write", **base, "rows": _batch(12, 20)},
            ]
    java14.run(reqs)
    t = FileSystemCatalog(tables["o.blobs"]).get_table("o.blobs")
    t.write_arrow(_arrow(_batch(0, 12)))
    FileSystemCatalog(tables["o.blobs"]).get_table("o.blobs").write_arrow(_arrow(_batch(12, 20)))
    java, ours = _layout(tables["j.blobs"], "j.blobs"), _layout(tables["o.blobs"], "o.blobs")
    assert [x for x in ours if x[0] == "blob"] == [x for x in java if x[0] == "blob"]
    assert [x[1:5] for x in ours if x[0] == "data"] == [x[1:5] for x in java if x[0] == "data"]


def test_pypaimon_writes_blobs_we_read_them(pypaimon, tmp_path):
    wh, ident = str(tmp_path / "wh"), "p.blobs"
    base = {"warehouse": wh, "table": ident}
    res = pypaimon.run(
        [
            {
                "op": "create_table",
                **base,
                "schema": SCHEMA,
                "primary_keys": [],
                "partition_keys": [],
                "options": OPTIONS,
            },
            {"op": "write", **base, "rows": _batch(0, 12)},
            {"op": "write", **base, "rows": _batch(12, 20)},
            {"op": "read", **base},
        ]
    )
    files = [p.name for p in (tmp_path / "wh" / "p.db" / "blobs" / "bucket-0").iterdir()]
    assert any(n.endswith(".blob") for n in files), f"pypaimon wrote no .blob files: {files}"
    assert_same_rows(res[-1]["rows"], _batch(0, 20), label_a="pypaimon 2.1", label_b="model")
    assert_same_rows(_ours(wh, ident), _batch(0, 20), label_a="paimon-cli", label_b="model")


def test_descriptor_columns_read_as_java_reads_them(java14, tmp_path):
    """A BLOB column in ``blob-descriptor-field`` holds serialized descriptors in the data file:
    we read the bytes they point to on the table's file system, as Java 1.4.2 does; a
    descriptor pointing to other storage is refused naming it; writes are refused."""
    import json

    from paimon_core.errors import UnsupportedFeature
    from paimon_core.read.blob_descriptors import serialize

    payload = tmp_path / "payload.bin"
    payload.write_bytes(bytes(range(256)) * 4)
    wh, ident = str(tmp_path / "wh"), "d.desc"
    cat = FileSystemCatalog(wh)
    from paimon_core.metadata.schema import Schema

    cols = Schema.parse_columns("id INT, b BYTES")
    t = cat.create_table(ident, Schema(cols, options={k: v for k, v in OPTIONS.items() if k != "bucket"}))
    refs = [
        serialize(str(payload), 0, 16),
        None,
        serialize(f"file:{payload}", 1000, 24),
        serialize(str(payload), 1020, -1),
    ]
    t.write_arrow(pa.table({"id": pa.array([1, 2, 3, 4], pa.int32()), "b": pa.array(refs, pa.binary())}))
    schema_file = tmp_path / "wh" / "d.db" / "desc" / "schema" / "schema-0"
    obj = json.loads(schema_file.read_text())
    obj["fields"][1]["type"] = "BLOB"
    obj["options"]["blob-descriptor-field"] = "b"
    schema_file.write_text(json.dumps(obj))
    data = payload.read_bytes()
    model = [
        {"id": 1, "b": data[0:16].hex()},
        {"id": 2, "b": None},
        {"id": 3, "b": data[1000:1024].hex()},
        {"id": 4, "b": data[1020:].hex()},
    ]
    assert_same_rows(java14.read(wh, ident), model, label_a="java 1.4.2", label_b="model")
    assert_same_rows(_ours(wh, ident), model, label_a="paimon-cli", label_b="model")
    t = FileSystemCatalog(wh).get_table(ident)
    with pytest.raises(UnsupportedFeature, match="writing those BLOB columns"):
        t.write_arrow(pa.table({"id": pa.array([5], pa.int32()), "b": pa.array([b"x"])}))
    # a descriptor to other storage: refused naming the URI and why
    obj["fields"][1]["type"] = "BYTES"
    obj["options"].pop("blob-descriptor-field")
    schema_file.write_text(json.dumps(obj))
    remote = serialize("http://example.com/x.bin", 0, 4)
    t = FileSystemCatalog(wh).get_table(ident)
    t.write_arrow(pa.table({"id": pa.array([9], pa.int32()), "b": pa.array([remote])}))
    obj["fields"][1]["type"] = "BLOB"
    obj["options"]["blob-descriptor-field"] = "b"
    schema_file.write_text(json.dumps(obj))
    with pytest.raises(UnsupportedFeature, match=r"http://example.com/x.bin, in other storage \(http://\)"):
        FileSystemCatalog(wh).get_table(ident).read()
