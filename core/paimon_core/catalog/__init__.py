"""Catalogs: where a warehouse's databases and tables are listed, created and found.

Layers inside, each importing only those above it in this list: ``names`` (identifiers),
``lookup`` (a table's snapshots by name, without the table stack), ``views`` and ``functions``
(what a view and a function are, and their changes), ``objects`` (their stores and the catalog
operations over them), ``replace`` (a table replaced in place: truncated, then a new schema),
``base`` (the ``Catalog`` interface), ``filesystem`` (the zero-setup default), ``metastore/`` (JDBC, Hive and REST
catalogs: names registered in a metastore or served, the same layout on storage), ``factory``
(``create_catalog``: one by name). The names below are the package's public face, imported on
first use (``__getattr__``), so that a lookup by name does not load pyarrow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.lazy_exports import lazy_exports

_EXPORTS = {
    "CATALOG_KINDS": "paimon_core.catalog.factory",
    "Catalog": "paimon_core.catalog.base",
    "FileSystemCatalog": "paimon_core.catalog.filesystem",
    "Function": "paimon_core.catalog.functions",
    "FunctionChange": "paimon_core.catalog.functions",
    "FunctionDefinition": "paimon_core.catalog.functions",
    "View": "paimon_core.catalog.views",
    "ViewChange": "paimon_core.catalog.views",
    "fields_from_columns": "paimon_core.catalog.views",
    "parse_function_identifier": "paimon_core.catalog.objects",
    "create_catalog": "paimon_core.catalog.factory",
    "has_primary_key": "paimon_core.catalog.lookup",
    "not_empty": "paimon_core.catalog.base",
    "parse_identifier": "paimon_core.catalog.names",
    "table_snapshots": "paimon_core.catalog.lookup",
}
__all__ = [
    "CATALOG_KINDS",
    "Catalog",
    "FileSystemCatalog",
    "Function",
    "FunctionChange",
    "FunctionDefinition",
    "View",
    "ViewChange",
    "create_catalog",
    "fields_from_columns",
    "has_primary_key",
    "not_empty",
    "parse_function_identifier",
    "parse_identifier",
    "table_snapshots",
]

if TYPE_CHECKING:  # a type checker sees each export's own type; at run time __getattr__ imports it
    from paimon_core.catalog.base import Catalog, not_empty
    from paimon_core.catalog.factory import CATALOG_KINDS, create_catalog
    from paimon_core.catalog.filesystem import FileSystemCatalog
    from paimon_core.catalog.functions import Function, FunctionChange, FunctionDefinition
    from paimon_core.catalog.lookup import has_primary_key, table_snapshots
    from paimon_core.catalog.names import parse_identifier
    from paimon_core.catalog.objects import parse_function_identifier
    from paimon_core.catalog.views import View, ViewChange, fields_from_columns


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
