"""The catalog's global system tables (database ``sys``): ``all_table_options`` and
``catalog_options``, with Java's columns (2.0.0, 1.4.2 and 0.9: the same). ``catalog_options``
lists every catalog option, passwords and tokens included: as Java 2.0.0, it exists only when the
catalog option ``catalog-options-table.enabled`` is true (Java 1.4.2 and 0.9 served it always)."""

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
