"""System tables over a table's metadata files: ``$snapshots``, ``$schemas``, ``$options``,
``$tags``, ``$branches``, ``$consumers``, ``$statistics``, ``$aggregation_fields``.

Each builder takes the table (a branch of it for ``db.t$branch_b$x``) and returns an Arrow
table with Java 2.0.0's columns (``columns.py``). Java 1.4.2's ``$snapshots`` has no
``operation``; Java 0.9's has no ``next_row_id`` either, and its ``$branches`` also has
``created_from_tag`` and ``created_from_snapshot`` (the interop test pins each difference).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.systables.columns import fields, java_duration, java_hashmap_order, local_wall, to_table

if TYPE_CHECKING:
    from paimon_core.table import FileStoreTable

SNAPSHOTS = fields(
    ("snapshot_id", "BIGINT NOT NULL"),
    ("schema_id", "BIGINT NOT NULL"),
    ("commit_user", "STRING NOT NULL"),
    ("commit_identifier", "BIGINT NOT NULL"),
    ("commit_kind", "STRING NOT NULL"),
    ("commit_time", "TIMESTAMP(3) NOT NULL"),
    ("base_manifest_list", "STRING NOT NULL"),
    ("delta_manifest_list", "STRING NOT NULL"),
    ("changelog_manifest_list", "STRING"),
    ("total_record_count", "BIGINT"),
    ("delta_record_count", "BIGINT"),
    ("changelog_record_count", "BIGINT"),
    ("watermark", "BIGINT"),
    ("next_row_id", "BIGINT"),
    ("operation", "STRING"),  # Java 2.0
)
SCHEMAS = fields(
    ("schema_id", "BIGINT NOT NULL"),
    ("fields", "STRING NOT NULL"),
    ("partition_keys", "STRING NOT NULL"),
    ("primary_keys", "STRING NOT NULL"),
    ("options", "STRING NOT NULL"),
    ("comment", "STRING"),
    ("update_time", "TIMESTAMP(3) NOT NULL"),
)
OPTIONS = fields(("key", "STRING NOT NULL"), ("value", "STRING NOT NULL"))
TAGS = fields(
    ("tag_name", "STRING NOT NULL"),
    ("snapshot_id", "BIGINT NOT NULL"),
    ("schema_id", "BIGINT NOT NULL"),
    ("commit_time", "TIMESTAMP(3) NOT NULL"),
    ("record_count", "BIGINT"),
    ("create_time", "TIMESTAMP(3)"),
    ("time_retained", "STRING"),
)
BRANCHES = fields(("branch_name", "STRING NOT NULL"), ("create_time", "TIMESTAMP(3) NOT NULL"))
CONSUMERS = fields(("consumer_id", "STRING NOT NULL"), ("next_snapshot_id", "BIGINT NOT NULL"))
STATISTICS = fields(
    ("snapshot_id", "BIGINT NOT NULL"),
    ("schema_id", "BIGINT NOT NULL"),
    ("mergedRecordCount", "BIGINT"),
    ("mergedRecordSize", "BIGINT"),
    ("colstat", "STRING"),
)
AGGREGATION_FIELDS = fields(
    ("field_name", "STRING NOT NULL"),
    ("field_type", "STRING NOT NULL"),
    ("function", "STRING"),
    ("function_options", "STRING"),
    ("comment", "STRING"),
)


def _java_options(options: dict) -> list[tuple[str, str]]:
    """A schema's options in the order Java holds them (a HashMap filled in file order)."""
    return [(k, str(options[k])) for k in java_hashmap_order(list(options))]


def _flat_json(obj) -> str:
    """Java's ``JsonSerdeUtil.toFlatJson``: compact, keys in the order given."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def snapshots(table: FileStoreTable) -> pa.Table:
    """Every snapshot of the branch, by id."""
    rows = [
        (
            s.id,
            s.schema_id,
            s.commit_user,
            s.commit_identifier,
            s.commit_kind,
            local_wall(s.time_millis),
            s.base_manifest_list,
            s.delta_manifest_list,
            s.changelog_manifest_list,
            s.total_record_count,
            s.delta_record_count,
            s.changelog_record_count,
            s.watermark,
            s.next_row_id,
            s.operation,
        )
        for s in table.snapshots.snapshots()
    ]
    return to_table(SNAPSHOTS, rows)


def schemas(table: FileStoreTable) -> pa.Table:
    """Every schema file of the branch, by id."""
    rows = []
    for sid in table.schemas.list_ids():
        s = table.schema_for(sid)
        rows.append(
            (
                s.id,
                _flat_json([f.to_json() for f in s.fields]),
                _flat_json(list(s.partition_keys)),
                _flat_json(list(s.primary_keys)),
                _flat_json(dict(_java_options(s.options))),
                s.comment,
                local_wall(s.time_millis),
            )
        )
    return to_table(SCHEMAS, rows)


def options(table: FileStoreTable) -> pa.Table:
    """The options of the latest schema, in Java's order."""
    return to_table(OPTIONS, _java_options(table.schema.options))


def tags(table: FileStoreTable) -> pa.Table:
    """Every tag of the branch, by name; ``create_time``/``time_retained`` where the tag file
    records them (a tag made with a time to live; Java 1.x records every tag's creation)."""
    from paimon_core.metadata.tags import tag_manager, tag_times

    rows = []
    for name, snap in sorted(tag_manager(table).tagged().items()):
        created, retained = tag_times(snap)
        rows.append(
            (
                name,
                snap.id,
                snap.schema_id,
                local_wall(snap.time_millis),
                snap.total_record_count,
                local_wall(created),
                None if retained is None else java_duration(retained),
            )
        )
    return to_table(TAGS, rows)


def branches(table: FileStoreTable) -> pa.Table:
    """Every branch of the table (main not listed); ``create_time`` is the branch directory's
    modification time, as Java reads it."""
    from paimon_core.maintain.used_names import branch_names
    from paimon_core.metadata.branches import branch_path

    rows = [
        (name, local_wall(table.io.mtime_millis(branch_path(table.path, name))))
        for name in branch_names(table)
    ]
    return to_table(BRANCHES, rows)


def consumers(table: FileStoreTable) -> pa.Table:
    from paimon_core.metadata.consumer import consumer_manager

    return to_table(CONSUMERS, sorted(consumer_manager(table).consumers().items()))


def statistics(table: FileStoreTable) -> pa.Table:
    """The statistics file the latest snapshot names (Java's ANALYZE); no row without one."""
    from paimon_core import paths

    snap = table.snapshots.latest()
    if snap is None or not snap.statistics:
        return to_table(STATISTICS, [])
    stats = json.loads(table.io.read_text(paths.join(table.path, "statistics", snap.statistics)))
    col = stats.get("colStats")
    row = (
        stats.get("snapshotId", snap.id),
        stats.get("schemaId", snap.schema_id),
        stats.get("mergedRecordCount"),
        stats.get("mergedRecordSize"),
        None if col is None else _flat_json(col),
    )
    return to_table(STATISTICS, [row])


def aggregation_fields(table: FileStoreTable) -> pa.Table:
    """Per column of the latest schema: the values and keys of its ``fields.<column>.*``
    options, as Java's list texts (``[sum]``, ``[fields.v.aggregate-function]``)."""
    by_field: dict[str, list[tuple[str, str]]] = {}
    for key, value in _java_options(table.schema.options):
        parts = key.split(".")
        if len(parts) > 2 and parts[0] == "fields":
            by_field.setdefault(parts[1], []).append((key, value))
    rows = []
    for f in table.schema.fields:
        opts = by_field.get(f.name, [])
        rows.append(
            (
                f.name,
                str(f.type),
                "[" + ", ".join(v for _, v in opts) + "]",
                "[" + ", ".join(k for k, _ in opts) + "]",
                f.description,
            )
        )
    return to_table(AGGREGATION_FIELDS, rows)
