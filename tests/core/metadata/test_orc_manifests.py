"""Manifests, manifest lists and index manifests in ORC (``manifest.format = orc``): the schema
Java Paimon 1.3+ writes (names, types, ``paimon.id`` attributes, checked against its files in the
java-1x-2x fixtures), and every operation (write, compaction, expiry, orphan cleanup, streaming
reads) on a table whose metadata is ORC."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.orc as orc

from paimon_core.compaction.compaction import full_compact
from paimon_core.maintain import expire_snapshots, remove_orphans
from paimon_core.metadata.index_manifest import INDEX_SCHEMAS
from paimon_core.metadata.manifest import ENTRY_SCHEMA, LIST_SCHEMA
from paimon_core.metadata.orc_records import is_orc, orc_bytes
from paimon_core.metadata.schema import Schema
from tests.java1x import table_dir


def _java_file(fixture: str, prefix: str, suffix: str = "-0"):
    _, _, table = table_dir(fixture)
    return orc.ORCFile(
        str(
            next(
                p
                for p in (table / "manifest").iterdir()
                if p.name.startswith(prefix) and p.name.endswith(suffix)
            )
        )
    ).schema


def _common(ours: pa.Schema, java: pa.Schema) -> None:
    """Every field Java wrote is ours with the same type and attributes (we write the newer
    fields too, as the Avro layout does: Java reads ORC columns by name)."""
    for jf in java:
        f = ours.field(jf.name)
        if pa.types.is_struct(jf.type):
            _common(pa.schema(list(f.type)), pa.schema(list(jf.type)))
        else:
            assert f.type == jf.type, jf.name
        assert f.metadata == jf.metadata, jf.name


def _ours(avro_schema) -> pa.Schema:
    return orc.ORCFile(pa.BufferReader(orc_bytes(avro_schema, []))).schema


def test_schemas_are_javas():
    fixture = "data-evolution-alter-cast-orc-1.3"
    _common(_ours(ENTRY_SCHEMA), _java_file(fixture, "manifest-1f4e"))
    _common(_ours(LIST_SCHEMA), _java_file(fixture, "manifest-list-"))
    _common(_ours(INDEX_SCHEMAS["1.4"]), _java_file("global-bitmap-index-orc-1.3", "index-manifest-795a"))


def _all_orc(t) -> list[str]:
    from pathlib import Path

    names = sorted(p.name for p in (Path(t.path) / "manifest").iterdir())
    assert names
    for n in names:
        assert is_orc((Path(t.path) / "manifest" / n).read_bytes()), n
    return names


def test_every_operation_on_orc_metadata(catalog):
    opts = {"manifest.format": "orc", "bucket": "2", "deletion-vectors.enabled": "true"}
    schema = Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), primary_keys=("id",), options=opts)
    t = catalog.create_table("db.t", schema)
    t.write_arrow(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}))
    full_compact(t)
    t = catalog.get_table("db.t")
    t.write_arrow(pa.table({"id": [2], "v": ["B"]}))
    full_compact(t)  # deletion vectors: an index manifest, in ORC
    t = catalog.get_table("db.t")
    assert t.snapshots.latest().index_manifest
    names = _all_orc(t)
    assert any(n.startswith("index-manifest-") for n in names)
    want = [(1, "a"), (2, "B"), (3, "c")]
    assert sorted(zip(*t.read().select(["id", "v"]).to_pydict().values())) == want
    expire_snapshots(t, retain_max=1, retain_min=1, older_than_ms=0)
    remove_orphans(t, older_than_ms=0)
    t = catalog.get_table("db.t")
    _all_orc(t)
    assert sorted(zip(*t.read().select(["id", "v"]).to_pydict().values())) == want
    assert t.read(snapshot_id=t.snapshots.latest_id()).num_rows == 3
