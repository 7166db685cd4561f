"""Choosing a catalog by name: ``filesystem`` (the zero-setup default, ``paimon_core.catalog``),
``jdbc`` or ``hive`` (``paimon_core.metastore``). Kept apart from ``catalog`` so that the interface
module does not depend on the metastore catalogs built on it."""

from __future__ import annotations

from paimon_core.catalog import Catalog, FileSystemCatalog
from paimon_core.errors import InvalidInput

CATALOG_KINDS = ("filesystem", "jdbc", "hive", "rest")


def create_catalog(
    kind: str | None, warehouse: str, options: dict | None = None, storage_options: dict | None = None
) -> Catalog:
    """The catalog named ``kind`` (default filesystem) with its options (Paimon's catalog option
    keys: ``uri``, ``lock.enabled``, ``catalog-key``, ...); unknown kinds and options are refused."""
    kind = (kind or "filesystem").strip().lower()
    options = dict(options or {})
    if kind == "filesystem":
        if options:
            raise InvalidInput(
                f"the filesystem catalog takes no catalog options (got {', '.join(sorted(options))})"
            )
        return FileSystemCatalog(warehouse, storage_options)
    if kind == "jdbc":
        from paimon_core.metastore.jdbc import JdbcCatalog

        return JdbcCatalog(warehouse, options, storage_options)
    if kind == "hive":
        from paimon_core.metastore.hive import HiveCatalog

        return HiveCatalog(warehouse, options, storage_options)
    if kind == "rest":
        from paimon_core.metastore.rest.catalog import RestCatalog

        return RestCatalog(warehouse, options, storage_options)
    raise InvalidInput(f"unknown catalog '{kind}': use one of {', '.join(CATALOG_KINDS)}")
