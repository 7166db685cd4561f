"""A filesystem-catalog table's snapshots found by name without the table stack (no pyarrow), for
commands that only list snapshots and must start fast.

Same rules as ``FileSystemCatalog``: the table is ``<warehouse>/<db>.db/<table>`` and exists when
it has a ``schema/schema-N``; the errors are the ones ``get_table`` raises.
"""

from __future__ import annotations

import json

from paimon_core.catalog.names import DB_SUFFIX, parse_identifier
from paimon_core.errors import DatabaseNotFound, TableNotFound, WarehouseNotFound
from paimon_core.metadata.snapshot import SnapshotManager
from paimon_core.paths import SCHEMA_DIR, SCHEMA_PREFIX
from paimon_core.storage.file_io import FileIO


def table_snapshots(warehouse: str, storage: dict | None, identifier: str) -> SnapshotManager:
    """The SnapshotManager of table ``db.table`` in a filesystem catalog's warehouse."""
    db, name = parse_identifier(identifier)
    io = FileIO(warehouse, storage or None)
    db_path = io.join(io.root, db + DB_SUFFIX)
    path = io.join(db_path, name)
    if not io.list_numbered(io.join(path, SCHEMA_DIR), SCHEMA_PREFIX):
        if not io.is_dir(db_path):
            raise DatabaseNotFound(db) if io.is_dir(io.root) else WarehouseNotFound(warehouse)
        raise TableNotFound(f"{db}.{name}")
    return SnapshotManager(io, path)


def has_primary_key(snapshots: SnapshotManager) -> bool:
    """Whether the newest schema of the table ``snapshots`` belongs to has primary keys (its JSON
    read as is: no type system loaded)."""
    io = snapshots.io
    schema_dir = io.join(snapshots.dir.rsplit("/", 1)[0], SCHEMA_DIR)
    ids = io.list_numbered(schema_dir, SCHEMA_PREFIX)
    if not ids:
        return False
    return bool(json.loads(io.read_text(io.join(schema_dir, f"{SCHEMA_PREFIX}{ids[-1]}"))).get("primaryKeys"))
