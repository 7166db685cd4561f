"""Choosing a catalog by name: ``filesystem`` (the zero-setup default, ``catalog.filesystem``;
its views and functions in the JDBC database ``catalog-objects.jdbc-uri`` names, if any),
``jdbc``, ``hive`` or ``rest`` (``catalog.metastore``). The top of the catalog package: the
interface (``catalog.base``) does not depend on the catalogs built on it."""

from __future__ import annotations

from paimon_core.catalog.base import Catalog
from paimon_core.catalog.filesystem import FileSystemCatalog
from paimon_core.errors import InvalidInput
from paimon_core.options.catalog_options import EVERY_CATALOG, OBJECTS_OPTIONS

CATALOG_KINDS = ("filesystem", "jdbc", "hive", "rest")


def create_catalog(
    kind: str | None, warehouse: str, options: dict | None = None, storage_options: dict | None = None
) -> Catalog:
    """The catalog named ``kind`` (default filesystem) with its options (Paimon's catalog option
    keys: ``uri``, ``lock.enabled``, ``catalog-key``, ...); unknown kinds and options are refused."""
    kind = (kind or "filesystem").strip().lower()
    options = dict(options or {})
    if kind == "filesystem":
        unknown = sorted(set(options) - {o.key for o in (*OBJECTS_OPTIONS, *EVERY_CATALOG)})
        if unknown:
            raise InvalidInput(
                f"the filesystem catalog takes no catalog options but {OBJECTS_OPTIONS[0].key} and "
                f"its catalog-objects.* keys, and {EVERY_CATALOG[0].key} (got {', '.join(unknown)})"
            )
        from paimon_core.catalog.metastore.jdbc_objects import open_objects_store

        catalog = FileSystemCatalog(warehouse, storage_options)
        catalog.options = options
        catalog.view_store = catalog.function_store = open_objects_store(options)
        return catalog
    if kind == "jdbc":
        from paimon_core.catalog.metastore.jdbc import JdbcCatalog

        return JdbcCatalog(warehouse, options, storage_options)
    if kind == "hive":
        from paimon_core.catalog.metastore.hive import HiveCatalog

        return HiveCatalog(warehouse, options, storage_options)
    if kind == "rest":
        from paimon_core.catalog.metastore.rest.catalog import RestCatalog

        return RestCatalog(warehouse, options, storage_options)
    raise InvalidInput(f"unknown catalog '{kind}': use one of {', '.join(CATALOG_KINDS)}")
