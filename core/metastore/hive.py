"""Hive Metastore catalog: not implemented yet. ``catalog = "hive"`` is refused by name rather
than falling back to another catalog (tables would then be invisible to the other engines)."""

from __future__ import annotations

from paimon_core.errors import InvalidInput


class HiveCatalog:
    kind = "hive"

    def __init__(self, warehouse: str, options: dict, storage_options: dict | None = None):
        raise InvalidInput("the hive catalog is not implemented yet: use the jdbc or filesystem catalog")
