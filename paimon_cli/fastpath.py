"""Metadata lookups that avoid importing pyarrow, so `paimon snapshots` starts fast.

``paimon_core.catalog`` imports the whole table stack (pyarrow, about 0.3 s) at module level;
listing snapshots needs only FileIO and SnapshotManager. This module repeats the catalog's
two rules it needs (the ``<warehouse>/<db>.db/<table>`` layout, and "a table exists when it
has a ``schema/schema-N``") until the core offers a pyarrow-free catalog import; then it goes.
"""

from __future__ import annotations

import re

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*$")  # as paimon_core.catalog._NAME


def snapshot_manager(warehouse: str, storage: dict | None, identifier: str):
    """The SnapshotManager of table ``db.table``; raises like ``FileSystemCatalog.get_table``."""
    from paimon_core.errors import DatabaseNotFound, InvalidInput, TableNotFound, WarehouseNotFound
    from paimon_core.metadata.snapshot import SnapshotManager
    from paimon_core.paths import SCHEMA_DIR, SCHEMA_PREFIX
    from paimon_core.storage.file_io import FileIO

    parts = identifier.strip().split(".")
    if len(parts) != 2 or not all(_NAME.match(p) for p in parts):
        raise InvalidInput(f"bad table name '{identifier}': use DB.TABLE with letters, digits, _ or -")
    db, name = parts
    io = FileIO(warehouse, storage or None)
    db_path = io.join(io.root, db + ".db")
    path = io.join(db_path, name)
    schemas = io.list_names(io.join(path, SCHEMA_DIR))
    if not any(n.startswith(SCHEMA_PREFIX) and n[len(SCHEMA_PREFIX) :].isdigit() for n in schemas):
        if not io.is_dir(db_path):
            raise DatabaseNotFound(db) if io.is_dir(io.root) else WarehouseNotFound(warehouse)
        raise TableNotFound(f"{db}.{name}")
    return SnapshotManager(io, path)
