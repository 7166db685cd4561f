"""The Iceberg table metadata JSON (``v<N>.metadata.json``, format version 2) with the keys and
order Java Paimon's ``IcebergMetadata`` writes; the schema JSON of a Paimon schema.

Invariants: Iceberg field ids are Paimon's field ids (so ``last-column-id`` is the highest);
the only partition spec is spec 0, identity on each partition key, its field ids from 1000; a
snapshot's id and sequence number are the Paimon snapshot id."""

from __future__ import annotations

import json

from paimon_core.data.system_columns import KEY_PREFIX, KIND, SEQ
from paimon_core.data.types import ArrayType, MapType, RowType
from paimon_core.fileformat.field_ids import element_id, map_key_id
from paimon_core.metadata.iceberg_options import iceberg_field
from paimon_core.metadata.schema import TableSchema

FORMAT_VERSION = 2
_INT_MAX = 2**31 - 1
_KEY_FIELD_ID_START = _INT_MAX // 2  # Java's SpecialFields


def schema_json(schema: TableSchema) -> dict:
    return {"type": "struct", "schema-id": schema.id, "fields": [iceberg_field(f) for f in schema.fields]}


def partition_spec(schema: TableSchema) -> dict:
    ids = {f.name: f.id for f in schema.fields}
    return {
        "spec-id": 0,
        "fields": [
            {"name": k, "transform": "identity", "source-id": ids[k], "field-id": 1000 + i}
            for i, k in enumerate(schema.partition_keys)
        ],
    }


def snapshot_json(
    snapshot_id: int, parent: int | None, time_ms: int, operation: str, manifest_list: str, schema_id: int
) -> dict:
    out: dict = {"sequence-number": snapshot_id, "snapshot-id": snapshot_id}
    if parent is not None:
        out["parent-snapshot-id"] = parent
    out.update(
        {
            "timestamp-ms": time_ms,
            "summary": {"operation": operation},
            "manifest-list": manifest_list,
            "schema-id": schema_id,
        }
    )
    return out


def metadata_json(
    *,
    format_version: int = FORMAT_VERSION,
    table_uuid: str,
    location: str,
    snapshot_id: int,
    time_ms: int,
    schemas: list[dict],
    schema_id: int,
    spec: dict,
    snapshots: list[dict],
    refs: dict,
    properties: dict,
) -> dict:
    last_column = max((f["id"] for f in schemas[-1]["fields"]), default=0)
    last_partition = max((f["field-id"] for f in spec["fields"]), default=999)
    return {
        "format-version": format_version,
        "table-uuid": table_uuid,
        "location": location,
        "last-sequence-number": snapshot_id,
        "last-updated-ms": time_ms,
        "last-column-id": last_column,
        "schemas": schemas,
        "current-schema-id": schema_id,
        "partition-specs": [spec],
        "default-spec-id": 0,
        "last-partition-id": last_partition,
        "sort-orders": [{"order-id": 0, "fields": []}],
        "default-sort-order-id": 0,
        "snapshots": snapshots,
        "current-snapshot-id": snapshot_id,
        "properties": properties,
        "refs": refs,
    }


def name_mapping(schemas: list[TableSchema]) -> str:
    """Iceberg's ``schema.name-mapping.default``: each field id with every name it had, nested
    fields (ROW fields, list ``element``, map ``key``/``value``) under their column. Data files
    written before Parquet field ids (ours before, Java 0.9's) carry none, so Iceberg readers
    find their columns through it; files with field ids are read by id."""
    top: dict[int, dict] = {}

    def entry(into: dict[int, dict], fid: int, name: str) -> dict:
        e = into.setdefault(fid, {"field-id": fid, "names": []})
        if name not in e["names"]:
            e["names"].append(name)
        return e

    def nested(e: dict, t, fid: int, depth: int) -> None:
        subs: dict[int, dict] = {int(x["field-id"]): x for x in e.get("fields", [])}
        if isinstance(t, RowType):
            for f in t.fields:
                nested(entry(subs, f.id, f.name), f.type, f.id, 0)
        elif isinstance(t, ArrayType):
            nested(entry(subs, element_id(fid, depth + 1), "element"), t.element, fid, depth + 1)
        elif isinstance(t, MapType):
            nested(entry(subs, map_key_id(fid, depth + 1), "key"), t.key, fid, depth + 1)
            nested(entry(subs, element_id(fid, depth + 1), "value"), t.value, fid, depth + 1)
        if subs:
            e["fields"] = list(subs.values())

    for schema in schemas:
        for f in schema.fields:
            nested(entry(top, f.id, f.name), f.type, f.id, 0)
        for k in schema.primary_keys:  # the key columns of primary-key data files (Java's ids)
            entry(top, _KEY_FIELD_ID_START + schema.field(k).id, KEY_PREFIX + k)
    if any(s.primary_keys for s in schemas):
        entry(top, _INT_MAX - 1, SEQ)
        entry(top, _INT_MAX - 2, KIND)
    return json.dumps([top[i] for i in sorted(top)])


def to_text(metadata: dict) -> bytes:
    return json.dumps(metadata, indent=2).encode("utf-8")


__all__ = [
    "FORMAT_VERSION",
    "metadata_json",
    "name_mapping",
    "partition_spec",
    "schema_json",
    "snapshot_json",
    "to_text",
]
