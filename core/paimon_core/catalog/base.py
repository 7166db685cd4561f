"""``Catalog``, the interface every catalog implements, and the rules of names all share.

Tables live on the warehouse storage at ``<warehouse>/<db>.db/<table>`` whatever the catalog; a
table exists when its directory holds at least one ``schema/schema-N``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from paimon_core.catalog.names import DB_SUFFIX
from paimon_core.errors import (
    AlreadyExists,
    DatabaseNotFound,
    InvalidInput,
    WarehouseNotFound,
)
from paimon_core.metadata.branches import split_branch
from paimon_core.metadata.schema import Schema, SchemaManager
from paimon_core.storage.file_io import FileIO
from paimon_core.table import FileStoreTable

if TYPE_CHECKING:
    from paimon_core.systables import SystemTable


def not_empty(db: str, tables: list[str]) -> InvalidInput:
    """The refusal to drop a database that holds tables without cascade."""
    names = ", ".join(tables[:3]) + (f" and {len(tables) - 3} more" if len(tables) > 3 else "")
    return InvalidInput(
        f"database '{db}' is not empty ({len(tables)} table(s): {names}); drop it with --cascade to drop them too"
    )


class Catalog:
    """The catalog interface. Tables live on the warehouse storage at
    ``<warehouse>/<db>.db/<table>`` whatever the catalog; catalogs differ in where names are
    registered. Subclasses implement every method below; ``kind`` names the catalog."""

    kind = "?"

    def __init__(self, warehouse: str, storage_options: dict | None = None):
        self.warehouse = warehouse
        self.io = FileIO(warehouse, storage_options)
        self.root = self.io.root

    def db_path(self, db: str) -> str:
        return self.io.join(self.root, db + DB_SUFFIX)

    def table_path(self, db: str, table: str) -> str:
        return self.io.join(self.db_path(db), table)

    def info(self) -> dict:
        """What ``paimon catalog info`` shows: kind, warehouse and the catalog's own settings."""
        return {"catalog": self.kind, "warehouse": self.warehouse}

    def close(self) -> None:
        """Release connections; the catalog is not used afterwards."""

    def _on_storage(self, db: str, table: str) -> bool:
        return bool(SchemaManager(self.io, self.table_path(db, table)).list_ids())

    def _rename_dir(self, src: str, dst: str) -> None:
        if self.io.exists(dst):
            raise AlreadyExists(f"cannot rename: {dst} already exists on storage")
        if self.io.is_local:
            os.rename(src, dst)
        else:
            self.io.fs.mv(src, dst, recursive=True)

    def _database_missing(self, db: str) -> DatabaseNotFound | WarehouseNotFound:
        """The error for a database that does not exist: the warehouse itself may not (a typo)."""
        return DatabaseNotFound(db) if self.io.is_dir(self.root) else WarehouseNotFound(self.warehouse)

    def list_databases(self) -> list[str]:
        raise NotImplementedError

    def database_exists(self, db: str) -> bool:
        raise NotImplementedError

    def create_database(self, db: str, ignore_if_exists: bool = True, properties: dict | None = None) -> None:
        """Create database ``db`` with ``properties`` (Java's: ``comment``, ``location`` where the
        catalog takes it, any other key kept as given); an existing one is kept unchanged."""
        raise NotImplementedError

    def database_properties(self, db: str) -> dict[str, str]:
        """The properties ``db`` was created with (as the catalog stores them)."""
        raise NotImplementedError

    def drop_database(self, db: str, cascade: bool = False) -> None:
        """Drop ``db``; one that holds tables is refused by name unless ``cascade`` (then its
        tables are dropped first)."""
        raise NotImplementedError

    def list_tables(self, db: str) -> list[str]:
        raise NotImplementedError

    def table_exists(self, identifier: str) -> bool:
        raise NotImplementedError

    def get_table(self, identifier: str, branch: str | None = None) -> FileStoreTable:
        """The table ``db.t`` or ``db.t$branch_NAME`` (or ``branch``): every catalog opens a
        branch this way, through the main table it belongs to. Both spellings at once must agree."""
        name, named = split_branch(identifier)
        if named is not None and branch is not None and named != branch:
            raise InvalidInput(
                f"table '{identifier}' names branch '{named}' but branch '{branch}' was asked for"
            )
        table = self._get_table(name)
        return table.for_branch(named if named is not None else branch)

    def system_table(self, identifier: str) -> SystemTable:
        """System table ``db.t$snapshots`` (``db.t$branch_b$files``, ``sys.catalog_options``...):
        Java's columns, rows through ``to_arrow(columns, where, limit)`` or ``batches()``."""
        from paimon_core.systables import open_system_table

        return open_system_table(self, identifier)

    def _get_table(self, identifier: str) -> FileStoreTable:
        """The main branch of table ``db.t`` (each catalog's own lookup)."""
        raise NotImplementedError

    def create_table(self, identifier: str, schema: Schema, ignore_if_exists: bool = False) -> FileStoreTable:
        raise NotImplementedError

    def drop_table(self, identifier: str, ignore_if_missing: bool = False) -> None:
        raise NotImplementedError

    def rename_table(self, identifier: str, new_identifier: str) -> None:
        raise NotImplementedError
