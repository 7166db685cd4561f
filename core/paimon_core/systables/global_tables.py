"""The catalog's global system tables (database ``sys``): ``all_table_options`` and
``catalog_options``, with Java's columns (2.0.0, 1.4.2 and 0.9: the same). Java 2.0.0 serves
``catalog_options`` only with the catalog option ``catalog-options-table.enabled``; we always do."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from paimon_core.systables.columns import fields, java_hashmap_order, to_table

ALL_TABLE_OPTIONS = fields(
    ("database_name", "STRING"), ("table_name", "STRING"), ("key", "STRING"), ("value", "STRING")
)
CATALOG_OPTIONS = fields(("key", "STRING NOT NULL"), ("value", "STRING NOT NULL"))


def all_table_options(catalog: Any) -> pa.Table:
    """Every option of every table of the catalog, plus its ``path`` (as Java lists them)."""
    rows = []
    for db in catalog.list_databases():
        for name in catalog.list_tables(db):
            table = catalog.get_table(f"{db}.{name}")
            opts = dict(table.schema.options)
            opts.setdefault("path", table.path)
            rows.extend((db, name, k, str(opts[k])) for k in java_hashmap_order(list(opts)))
    return to_table(ALL_TABLE_OPTIONS, rows)


def catalog_options(catalog: Any) -> pa.Table:
    """The options the catalog was opened with: ``warehouse``, and for a metastore catalog its
    ``metastore`` kind and options."""
    opts = {"warehouse": catalog.warehouse}
    if getattr(catalog, "kind", "filesystem") != "filesystem":
        opts["metastore"] = catalog.kind
        opts.update({k: str(v) for k, v in (getattr(catalog, "options", None) or {}).items()})
    return to_table(CATALOG_OPTIONS, sorted(opts.items()))
