"""Catalogs: where a warehouse's databases and tables are listed, created and found.

Layers inside, each importing only those above it in this list: ``base`` (the ``Catalog``
interface, identifiers), ``filesystem`` (the zero-setup default), ``metastore/`` (JDBC, Hive and
REST catalogs: names registered in a metastore or served, the same layout on storage),
``factory`` (``create_catalog``: one by name). The names below are the package's public face.
"""

from paimon_core.catalog.base import Catalog, not_empty, parse_identifier
from paimon_core.catalog.factory import CATALOG_KINDS, create_catalog
from paimon_core.catalog.filesystem import FileSystemCatalog

__all__ = ["CATALOG_KINDS", "Catalog", "FileSystemCatalog", "create_catalog", "not_empty", "parse_identifier"]
