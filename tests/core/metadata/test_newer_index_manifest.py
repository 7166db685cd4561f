"""Index manifests of Paimon 1.x/2.0 (docs/format.md sections 9 and 15): tables whose index
manifest is written here with fastavro in the exact schema a Java release writes (spelled out
below from ``IndexManifestEntry.SCHEMA``, ``DeletionVectorMeta.SCHEMA`` and
``GlobalIndexMeta.SCHEMA`` through ``AvroSchemaConverter``), then written to, compacted,
deleted from, tagged and expired by us. Every foreign entry must come back with every field
value, and each rewritten index manifest must have the schema of the release that wrote the
table (or the newer one an entry's values need)."""

from __future__ import annotations

import copy
import io
import os
import struct

import fastavro
import pyarrow as pa
import pytest
from fastavro.schema import to_parsing_canonical_form

from paimon_core.compaction.compaction import compact
from paimon_core.data.binary_row import EMPTY_ROW
from paimon_core.errors import UnsupportedFeature
from paimon_core.maintain.expire import expire_snapshots
from paimon_core.maintain.orphans import remove_orphans
from paimon_core.maintain.tags import create_tag
from paimon_core.metadata.index_manifest import LAYOUTS, index_entry_schema, layout_of
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where

NS = "org.apache.paimon.avro.generated."
FAR_FUTURE = 10**15


def _opt(name, t):
    return {"name": name, "type": ["null", t], "default": None}


# Java 2.0: IndexManifestEntry.SCHEMA behind VersionedObjectSerializer's _VERSION, NOT NULL at
# the top (versionType builds RowType(false, ...)), nested rows named record_<FIELD>.
SPEC_2_0 = {
    "type": "record",
    "name": NS + "record",
    "fields": [
        {"name": "_VERSION", "type": "int"},
        {"name": "_KIND", "type": "int"},
        {"name": "_PARTITION", "type": "bytes"},
        {"name": "_BUCKET", "type": "int"},
        {"name": "_INDEX_TYPE", "type": "string"},
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_ROW_COUNT", "type": "long"},
        _opt(
            "_DELETIONS_VECTORS_RANGES",
            {
                "type": "array",
                "items": [
                    "null",
                    {
                        "type": "record",
                        "name": NS + "record__DELETIONS_VECTORS_RANGES",
                        "fields": [
                            {"name": "f0", "type": "string"},
                            {"name": "f1", "type": "int"},
                            {"name": "f2", "type": "int"},
                            _opt("_CARDINALITY", "long"),
                        ],
                    },
                ],
            },
        ),
        _opt("_EXTERNAL_PATH", "string"),
        _opt(
            "_GLOBAL_INDEX",
            {
                "type": "record",
                "name": NS + "record__GLOBAL_INDEX",
                "fields": [
                    {"name": "_ROW_RANGE_START", "type": "long"},
                    {"name": "_ROW_RANGE_END", "type": "long"},
                    {"name": "_INDEX_FIELD_ID", "type": "int"},
                    _opt("_EXTRA_FIELD_IDS", {"type": "array", "items": "int"}),
                    _opt("_INDEX_META", "bytes"),
                    _opt("_SOURCE_META", "bytes"),
                ],
            },
        ),
    ],
}


def _spec(version: str) -> dict:
    """The schema of an older release, from 2.0's by the removals the Java history shows."""
    s = copy.deepcopy(SPEC_2_0)
    fields = s["fields"]
    if version == "1.4":  # _SOURCE_META came with 2.0
        fields[10]["type"][1]["fields"].pop()
    if version in ("0.9", "1.0", "1.3"):
        fields.pop(10)  # _GLOBAL_INDEX: 1.4
    if version in ("0.9", "1.0"):
        fields.pop(9)  # _EXTERNAL_PATH: 1.3
    if version == "0.9":
        fields[8]["type"][1]["items"][1]["fields"].pop()  # _CARDINALITY: 1.0
    return s


def _canon(schema) -> str:
    return to_parsing_canonical_form(fastavro.parse_schema(schema, named_schemas={}))


def _table(catalog, name="db.d", dv=True):
    opts = {"dynamic-bucket.target-row-num": "30"}
    if dv:
        opts["deletion-vectors.enabled"] = "true"
    return catalog.create_table(
        name, Schema(Schema.parse_columns("k INT NOT NULL, v STRING"), (), ("k",), opts)
    )


def _write(t, ks, tag, model):
    t.write_arrow(pa.table({"k": pa.array(ks, pa.int32()), "v": [tag] * len(ks)}))
    model.update({k: tag for k in ks})


def _raw(t):
    """(writer schema, records) of the latest snapshot's index manifest."""
    name = t.snapshots.latest().index_manifest
    with open(os.path.join(t.path, "manifest", name), "rb") as f:
        reader = fastavro.reader(io.BytesIO(f.read()))
        return reader.writer_schema, list(reader)


def _plant(t, schema, extra_records, keep=True):
    """Replace the latest index manifest (in place, same name) by one written with ``schema``:
    its live entries as that release writes them, plus ``extra_records``."""
    name = t.snapshots.latest().index_manifest
    fields = {f["name"] for f in schema["fields"]}
    records = []
    if keep:
        for e in _live(t):
            r = {k: v for k, v in e.items() if k in fields}
            if r.get("_DELETIONS_VECTORS_RANGES") and "_CARDINALITY" not in str(schema):
                r["_DELETIONS_VECTORS_RANGES"] = [
                    {k: v for k, v in x.items() if k != "_CARDINALITY"}
                    for x in r["_DELETIONS_VECTORS_RANGES"]
                ]
            records.append(r)
    records += extra_records
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema, named_schemas={}), records, codec="zstandard")
    path = os.path.join(t.path, "manifest", name)
    os.remove(path)
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def _live(t):
    return _raw(t)[1]


# a valid ``_SOURCE_META`` (metadata/pk_index.py): level 3, one file no commit here adds or removes,
# so the payload is one of a level our writes leave alone and is carried as it is
SOURCE = struct.pack(">iiiH", 1, 3, 1, 19) + b"data-none-0.parquet" + struct.pack(">q", 100)


def _global(file_name, index_type, *, external=None, source=SOURCE, extra=(2,), size=5, bucket=0):
    return {
        "_VERSION": 1,
        "_KIND": 0,
        "_PARTITION": EMPTY_ROW,
        "_BUCKET": bucket,
        "_INDEX_TYPE": index_type,
        "_FILE_NAME": file_name,
        "_FILE_SIZE": size,
        "_ROW_COUNT": 100,
        "_DELETIONS_VECTORS_RANGES": None,
        "_EXTERNAL_PATH": external,
        "_GLOBAL_INDEX": {
            "_ROW_RANGE_START": 0,
            "_ROW_RANGE_END": 99,
            "_INDEX_FIELD_ID": 1,
            "_EXTRA_FIELD_IDS": None if extra is None else list(extra),
            "_INDEX_META": b"\x00meta\xff",
            "_SOURCE_META": source,
        },
    }


def _by_name(records) -> dict:
    return {r["_FILE_NAME"]: r for r in records}


def _model_rows(t) -> dict:
    return {r["k"]: r["v"] for r in t.read().to_pylist()}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_our_schemas_are_javas(layout):
    assert _canon(index_entry_schema(layout)) == _canon(_spec(layout))
    assert layout_of(_spec(layout)) == (layout, ())


def test_layout_of_names_fields_no_release_has():
    s = copy.deepcopy(SPEC_2_0)
    s["fields"].append(_opt("_FUTURE", "string"))
    s["fields"][10]["type"][1]["fields"].append(_opt("_NEXT", "long"))
    assert layout_of(s) == ("2.0", ("_FUTURE", "_GLOBAL_INDEX._NEXT"))


def test_global_index_entries_survive_every_rewrite(catalog, tmp_path):
    """A 2.0 primary-key table with global indexes (built from its files, so with
    ``_SOURCE_META``; one under an external path): our writes, lookup compaction, a delete,
    tags, expire and orphan cleanup keep both entries field for field, and their files."""
    t = _table(catalog)
    model: dict = {}
    _write(t, list(range(50)), "r0", model)
    ext_dir = tmp_path / "ext"
    ext_dir.mkdir()
    ext_file = ext_dir / "index-ext-0"
    g1 = _global("index-g1-0", "btree", extra=None)
    g2 = _global("index-g2-0", "full-text", external=f"file:{ext_file}", extra=(2, 3), size=7)
    for path, body in ((os.path.join(t.path, "index", "index-g1-0"), b"btree"), (ext_file, b"fulltxt")):
        with open(path, "wb") as f:
            f.write(body)
        os.utime(path, (1000, 1000))
    _plant(t, SPEC_2_0, [g1, g2])
    planted = _by_name(_live(t))

    names = set()

    def check(label, rewritten=True):
        name = t.snapshots.latest().index_manifest
        assert (name not in names) == rewritten, label
        names.add(name)
        schema, records = _raw(t)
        assert _canon(schema) == _canon(SPEC_2_0), label
        got = _by_name(records)
        assert got["index-g1-0"] == planted["index-g1-0"], label
        assert got["index-g2-0"] == planted["index-g2-0"], label
        assert {r["_INDEX_TYPE"] for r in records} >= {"HASH", "btree", "full-text"}, label
        assert _model_rows(t) == model, label

    t = catalog.get_table("db.d")
    first = t.snapshots.latest().index_manifest
    names.add(first)
    _write(t, list(range(20, 90)), "r1", model)  # new keys: the hash index changes
    check("after a write")
    compact(t, full=True)
    check("after a full compaction")
    assert delete_where(t, "k < 10").rows == 10
    for k in range(10):
        model.pop(k)
    check("after a delete (deletion vectors)")
    dvs = [r for r in _live(t) if r["_INDEX_TYPE"] == "DELETION_VECTORS"]
    assert dvs and all(x["_CARDINALITY"] is not None for r in dvs for x in r["_DELETIONS_VECTORS_RANGES"])
    create_tag(t, "t1")
    tagged = t.snapshots.latest().index_manifest
    at_tag = dict(model)
    _write(t, list(range(90, 120)), "r2", model)
    check("after a write on top of a tag")
    expire_snapshots(t, retain_min=1, now_ms=FAR_FUTURE)
    t = catalog.get_table("db.d")
    check("after expire", rewritten=False)
    manifests = set(os.listdir(os.path.join(t.path, "manifest")))
    assert first not in manifests  # expired: its snapshot is gone and no tag names it
    assert tagged in manifests
    remove_orphans(t, older_than_ms=0)
    check("after remove-orphans", rewritten=False)
    assert os.path.exists(os.path.join(t.path, "index", "index-g1-0"))
    assert ext_file.exists()
    assert t.resolve_snapshot(tag="t1").index_manifest == tagged
    assert {r["k"]: r["v"] for r in t.read(tag="t1").to_pylist()} == at_tag


def test_a_1_4_table_keeps_the_1_4_schema(catalog):
    t = _table(catalog, dv=False)
    model: dict = {}
    _write(t, list(range(40)), "r0", model)
    _plant(t, _spec("1.4"), [])
    t = catalog.get_table("db.d")
    _write(t, list(range(30, 80)), "r1", model)
    schema, records = _raw(t)
    assert _canon(schema) == _canon(_spec("1.4"))
    assert all(r["_GLOBAL_INDEX"] is None for r in records)
    assert _model_rows(t) == model


@pytest.mark.parametrize("dv,expected", [(False, "0.9"), (True, "1.0")])
def test_a_0_9_table_gets_the_0_9_schema_back(catalog, dv, expected):
    """Index manifests as Java 0.9 writes them: our rewrite keeps 0.9's schema, unless our
    deletion vectors carry ``_CARDINALITY``, which 1.0's schema added (0.9 skips it)."""
    t = _table(catalog, dv=dv)
    model: dict = {}
    _write(t, list(range(40)), "r0", model)
    _plant(t, _spec("0.9"), [])
    assert _canon(_raw(t)[0]) == _canon(_spec("0.9"))
    t = catalog.get_table("db.d")
    _write(t, list(range(30, 80)), "r1", model)
    if dv:
        assert delete_where(t, "k < 5").rows == 5
        for k in range(5):
            model.pop(k)
    assert _canon(_raw(t)[0]) == _canon(_spec(expected))
    assert _model_rows(t) == model


def test_a_table_without_an_index_manifest_gets_the_1_3_schema(catalog):
    t = _table(catalog, dv=False)
    _write(t, [1, 2, 3], "r0", {})
    assert _canon(_raw(t)[0]) == _canon(_spec("1.3"))


def test_a_global_index_over_row_ids_refuses_writes_by_name(catalog):
    """Without ``_SOURCE_META`` a global index covers row ids: a row-tracking table's, whatever
    its options say. Reads are plain; writes and compactions are refused, nothing committed."""
    t = _table(catalog, dv=False)
    model: dict = {}
    _write(t, list(range(40)), "r0", model)
    _plant(t, SPEC_2_0, [_global("index-bt-0", "btree", source=None)])
    t = catalog.get_table("db.d")
    latest = t.snapshots.latest().id
    assert _model_rows(t) == model
    with pytest.raises(UnsupportedFeature, match=r"global index over row ids \(btree index file index-bt-0"):
        t.write_arrow(pa.table({"k": pa.array([100], pa.int32()), "v": ["x"]}))
    with pytest.raises(UnsupportedFeature, match="global index over row ids"):
        compact(t, full=True)
    assert t.snapshots.latest().id == latest


@pytest.mark.parametrize("where", ["top", "nested"])
def test_fields_no_release_has_are_refused_not_dropped(catalog, where):
    t = _table(catalog, dv=False)
    _write(t, list(range(40)), "r0", {})
    s = copy.deepcopy(SPEC_2_0)
    g = _global("index-g-0", "btree")
    if where == "top":
        s["fields"].append(_opt("_FUTURE", "string"))
        g["_FUTURE"] = "x"
        field = "_FUTURE"
    else:
        s["fields"][10]["type"][1]["fields"].append(_opt("_NEXT", "long"))
        g["_GLOBAL_INDEX"]["_NEXT"] = 7
        field = "_GLOBAL_INDEX._NEXT"
    _plant(t, s, [g])
    t = catalog.get_table("db.d")
    latest = t.snapshots.latest().id
    with pytest.raises(UnsupportedFeature, match=f"fields this version does not know \\({field}\\)"):
        t.write_arrow(pa.table({"k": pa.array([100], pa.int32()), "v": ["x"]}))
    assert t.snapshots.latest().id == latest


def test_entry_versions_other_than_1_are_refused(catalog):
    t = _table(catalog, dv=False)
    _write(t, list(range(10)), "r0", {})
    g = _global("index-g-0", "btree")
    g["_VERSION"] = 2
    _plant(t, SPEC_2_0, [g])
    t = catalog.get_table("db.d")
    with pytest.raises(UnsupportedFeature, match="index manifest entry version 2"):
        t.write_arrow(pa.table({"k": pa.array([100], pa.int32()), "v": ["x"]}))


@pytest.mark.parametrize("form", ["file:{}", "file://{}", "{}"])
def test_deletion_vectors_under_an_external_path_are_applied(catalog, tmp_path, form):
    """A DELETION_VECTORS entry whose file lives outside the table (``_EXTERNAL_PATH``, 1.3+), in
    Hadoop's ``file:/x`` form as Java writes it, a URI or a plain path: reads apply it."""
    t = _table(catalog)
    model: dict = {}
    _write(t, list(range(60)), "r0", model)
    assert delete_where(t, "k < 7").rows == 7
    for k in range(7):
        model.pop(k)
    ext_dir = tmp_path / "dv-ext"
    ext_dir.mkdir()
    moved = []
    records = []
    for r in _live(t):
        if r["_INDEX_TYPE"] == "DELETION_VECTORS":
            target = ext_dir / r["_FILE_NAME"]
            os.replace(os.path.join(t.path, "index", r["_FILE_NAME"]), target)
            r = {**r, "_EXTERNAL_PATH": form.format(target)}
            moved.append(target)
        records.append(r)
    assert moved
    _plant(t, SPEC_2_0, records, keep=False)
    t = catalog.get_table("db.d")
    assert _model_rows(t) == model
