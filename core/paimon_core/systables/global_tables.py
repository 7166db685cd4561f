"""The catalog's global system tables (database ``sys``), with Java's columns:
``all_table_options`` and ``catalog_options`` (2.0.0, 1.4.2 and 0.9: the same), ``tables`` and
``partitions`` (2.0.0 and 1.4.2; 0.9 has neither). ``catalog_options`` lists every catalog
option, passwords and tokens included: as Java 2.0.0, it exists only when the catalog option
``catalog-options-table.enabled`` is true (Java 1.4.2 and 0.9 served it always).

``tables`` and ``partitions`` are Java's ``CatalogUtils`` listings: a table's snapshot figures
come from a catalog that manages versions (REST: the server's ``snapshot`` endpoint; elsewhere
null), a table's partitions from the REST server's listing, else from the files (the figures of
``$partitions``, ``done`` false)."""

from __future__ import annotations

import re
from typing import Any

import pyarrow as pa

from paimon_core.errors import InvalidInput
from paimon_core.options.registry import TYPE
from paimon_core.options.view import OptionView
from paimon_core.systables.columns import fields, java_hashmap_order, java_objects_hash, to_table

ALL_TABLE_OPTIONS = fields(
    ("database_name", "STRING"), ("table_name", "STRING"), ("key", "STRING"), ("value", "STRING")
)
CATALOG_OPTIONS = fields(("key", "STRING NOT NULL"), ("value", "STRING NOT NULL"))
_STATS = (
    ("record_count", "BIGINT"),
    ("file_size_in_bytes", "BIGINT"),
    ("file_count", "BIGINT"),
    ("last_file_creation_time", "BIGINT"),
)
TABLES = fields(
    ("database_name", "STRING"),
    ("table_name", "STRING"),
    ("table_type", "STRING"),
    ("partitioned", "BOOLEAN"),
    ("primary_key", "BOOLEAN"),
    ("owner", "STRING"),
    ("created_at", "BIGINT"),
    ("created_by", "STRING"),
    ("updated_at", "BIGINT"),
    ("updated_by", "STRING"),
    *_STATS,
)
PARTITIONS = fields(
    ("database_name", "STRING"),
    ("table_name", "STRING"),
    ("partition_name", "STRING"),
    *_STATS,
    ("done", "BOOLEAN"),
)
_SNAPSHOT_KEYS = ("recordCount", "fileSizeInBytes", "fileCount", "lastFileCreationTime")


def _all_tables(catalog: Any):
    """(database, name, table) of every table, database by database, as the catalog lists them."""
    for db in catalog.list_databases():
        for name in catalog.list_tables(db):
            yield db, name, catalog.get_table(f"{db}.{name}")


def all_table_options(catalog: Any) -> pa.Table:
    """Every option of every table of the catalog, plus its ``path`` (as Java lists them)."""
    rows = []
    for db, name, table in _all_tables(catalog):
        opts = dict(table.schema.options)
        opts.setdefault("path", table.path)
        rows.extend((db, name, k, str(opts[k])) for k in java_hashmap_order(list(opts)))
    return to_table(ALL_TABLE_OPTIONS, rows)


def tables(catalog: Any) -> pa.Table:
    """One row per table: its type, whether partitioned and keyed, the audit options (owner,
    createdAt ...: a REST catalog's table response) and, where the catalog manages versions
    (``load_snapshot``: REST), the latest snapshot's figures; else null."""
    load_snapshot = getattr(catalog, "load_snapshot", None)
    rows = []
    for db, name, table in _all_tables(catalog):
        opts = {**table.schema.options, **getattr(table.env, "audit", {})}
        snap = load_snapshot(f"{db}.{name}") if load_snapshot is not None else None
        rows.append(
            (
                db,
                name,
                OptionView(table.schema.options).get(TYPE),
                bool(table.schema.partition_keys),
                bool(table.schema.primary_keys),
            )
            + (opts.get("owner"), _long(opts, "createdAt", table), opts.get("createdBy"))
            + (_long(opts, "updatedAt", table), opts.get("updatedBy"))
            + tuple(None if snap is None else snap.get(k) for k in _SNAPSHOT_KEYS)
        )
    return to_table(TABLES, rows)


def _long(opts: dict, key: str, table: Any) -> int | None:
    """A table option read as Java's ``Long.parseLong`` (None when absent); InvalidInput
    naming the table and option otherwise, as Java fails the listing."""
    text = opts.get(key)
    if text is None:
        return None
    if re.fullmatch(r"[+-]?[0-9]+", text) and -(2**63) <= int(text) < 2**63:
        return int(text)
    raise InvalidInput(f"table {table.identifier} has option {key}={text!r}, which is not a long")


def partitions(catalog: Any) -> pa.Table:
    """One row per partition of every partitioned table: ``k=v/k2=v2`` (Java's partition strings,
    ``partition.default-name`` for NULL) and its figures; tables in Java's order (a ``HashMap``
    of identifiers), partitions by name."""
    listed = getattr(catalog, "list_partitions", None)
    found: list[tuple[str, str, list[tuple]]] = []
    for db, name, table in _all_tables(catalog):
        if not table.schema.partition_keys:
            continue
        served = listed(f"{db}.{name}") if listed is not None else None
        found.append((db, name, _from_files(table) if served is None else _from_catalog(served)))
    order = java_hashmap_order(found, lambda f: java_objects_hash(f[0], f[1]))
    rows = [(db, name, *p) for db, name, parts in order for p in sorted(parts, key=lambda p: p[0])]
    return to_table(PARTITIONS, rows)


def _from_files(table: Any) -> list[tuple]:
    """Java's ``listPartitionsFromFileSystem``: the live files' figures per partition, not done."""
    from paimon_core.maintain.partitions import java_strings, partition_stats

    codec = table.partition_codec
    out = []
    for p in partition_stats(table):
        strings = java_strings(table, p.values)
        text = "/".join(f"{k}={codec.default_name if s is None else s}" for k, s in zip(codec.keys, strings))
        out.append(
            (text, p.record_count, p.file_size_in_bytes, p.file_count, p.last_file_creation_time, False)
        )
    return out


def _from_catalog(served: list[dict]) -> list[tuple]:
    """Rows of the catalog's ``Partition`` objects (the REST spec's JSON)."""
    return [
        (
            "/".join(f"{k}={'null' if v is None else v}" for k, v in (p.get("spec") or {}).items()),
            *(p.get(k) for k in _SNAPSHOT_KEYS),
            bool(p.get("done")),
        )
        for p in served
    ]


def catalog_options_enabled(catalog: Any) -> bool:
    """Whether ``sys.catalog_options`` exists in ``catalog`` (``catalog-options-table.enabled``)."""
    from paimon_core.options.catalog_options import CATALOG_OPTIONS_TABLE_ENABLED
    from paimon_core.options.view import OptionView

    return bool(OptionView(getattr(catalog, "options", None) or {}).get(CATALOG_OPTIONS_TABLE_ENABLED))


def catalog_options(catalog: Any) -> pa.Table:
    """The options the catalog was opened with: ``warehouse``, a metastore catalog's
    ``metastore`` kind, and every catalog option given."""
    opts = {"warehouse": catalog.warehouse}
    if getattr(catalog, "kind", "filesystem") != "filesystem":
        opts["metastore"] = catalog.kind
    opts.update({k: str(v) for k, v in (getattr(catalog, "options", None) or {}).items()})
    return to_table(CATALOG_OPTIONS, sorted(opts.items()))
