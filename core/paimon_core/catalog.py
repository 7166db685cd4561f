"""Catalogs: where a warehouse's databases and tables are listed, created and found.

``Catalog`` is the interface every catalog implements; ``FileSystemCatalog`` is the zero-setup
default: ``<warehouse>/<db>.db/<table>`` and no other metadata. A table exists when its
directory holds at least one ``schema/schema-N``; creating a table writes schema-0 only if
absent, so two concurrent creates cannot both succeed. The metastore catalogs (JDBC, Hive, in
``paimon_core.metastore``) keep the same layout on storage and register names in a metastore;
``create_catalog`` picks one by name.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from paimon_core.errors import (
    AlreadyExists,
    DatabaseNotFound,
    DropFailed,
    InvalidInput,
    TableAlreadyExists,
    TableNotFound,
    WarehouseNotFound,
)
from paimon_core.metadata.branches import split_branch
from paimon_core.metadata.schema import Schema, SchemaManager
from paimon_core.metadata.table_context import CatalogEnvironment  # noqa: F401  (re-exported)
from paimon_core.storage.file_io import FileIO
from paimon_core.table import FileStoreTable

if TYPE_CHECKING:
    from paimon_core.systables import SystemTable

DB_SUFFIX = ".db"
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*$")


def parse_identifier(identifier: str, default_db: str | None = None) -> tuple[str, str]:
    """'db.table' -> (db, table); a bare name uses ``default_db``."""
    if not identifier or not identifier.strip():
        raise InvalidInput("no table given (an identifier DB.TABLE)").with_hint("table")
    parts = identifier.strip().split(".")
    if len(parts) == 1 and default_db:
        parts = [default_db, parts[0]]
    if len(parts) != 2 or not all(_NAME.match(p) for p in parts):
        raise InvalidInput(f"bad table name '{identifier}': use DB.TABLE with letters, digits, _ or -")
    return parts[0], parts[1]


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


class FileSystemCatalog(Catalog):
    kind = "filesystem"

    # ---- databases
    def list_databases(self) -> list[str]:
        """Raises WarehouseNotFound when there is no warehouse at all (a mistyped path)."""
        if not self.io.is_dir(self.root):
            raise WarehouseNotFound(self.warehouse)
        return sorted(n[: -len(DB_SUFFIX)] for n in self.io.list_names(self.root) if n.endswith(DB_SUFFIX))

    def database_exists(self, db: str) -> bool:
        return self.io.is_dir(self.db_path(db))

    def create_database(self, db: str, ignore_if_exists: bool = True, properties: dict | None = None) -> None:
        if not _NAME.match(db):
            raise InvalidInput(f"bad database name '{db}'")
        if properties:  # Java's filesystem catalog drops them (with a log line): refuse instead
            raise InvalidInput(
                f"the filesystem catalog cannot store database properties ({', '.join(sorted(properties))}); "
                "use a JDBC or Hive catalog for them"
            )
        if self.database_exists(db):
            if ignore_if_exists:
                return
            raise AlreadyExists(f"database '{db}' already exists")
        self.io.mkdirs(self.db_path(db))

    def database_properties(self, db: str) -> dict[str, str]:
        if not self.database_exists(db):
            raise self._database_missing(db)
        return {}

    def drop_database(self, db: str, cascade: bool = False) -> None:
        if not self.database_exists(db):
            raise self._database_missing(db)
        tables = self.list_tables(db)
        if tables and not cascade:
            raise not_empty(db, tables)
        self.io.delete_dir(self.db_path(db))

    # ---- tables
    def list_tables(self, db: str) -> list[str]:
        if not self.database_exists(db):
            raise self._database_missing(db)
        out = []
        for name in self.io.list_names(self.db_path(db)):
            if SchemaManager(self.io, self.table_path(db, name)).list_ids():
                out.append(name)
        return sorted(out)

    def table_exists(self, identifier: str) -> bool:
        db, name = parse_identifier(identifier)
        return bool(SchemaManager(self.io, self.table_path(db, name)).list_ids())

    def _get_table(self, identifier: str) -> FileStoreTable:
        db, name = parse_identifier(identifier)
        path = self.table_path(db, name)
        schema = SchemaManager(self.io, path).latest()
        if schema is None:
            if not self.database_exists(db):
                raise self._database_missing(db)
            raise TableNotFound(f"{db}.{name}")
        return FileStoreTable(self.io, path, f"{db}.{name}", schema)

    def create_table(self, identifier: str, schema: Schema, ignore_if_exists: bool = False) -> FileStoreTable:
        db, name = parse_identifier(identifier)
        table_schema = schema.to_table_schema(0)  # validate before touching storage
        if self.table_exists(identifier):
            if ignore_if_exists:
                return self.get_table(identifier)
            raise TableAlreadyExists(f"{db}.{name}")
        self.create_database(db, ignore_if_exists=True)
        path = self.table_path(db, name)
        if not SchemaManager(self.io, path).commit(table_schema):
            if ignore_if_exists:
                return self.get_table(identifier)
            raise TableAlreadyExists(f"{db}.{name}")
        return FileStoreTable(self.io, path, f"{db}.{name}", table_schema)

    def drop_table(self, identifier: str, ignore_if_missing: bool = False) -> None:
        db, name = parse_identifier(identifier)
        if not self.table_exists(identifier):
            if ignore_if_missing:
                return
            if not self.database_exists(db):
                raise self._database_missing(db)
            raise TableNotFound(f"{db}.{name}")
        path = self.table_path(db, name)
        before = self.io.count_files(path)
        try:
            _delete_table_dir(self.io, path)
        except OSError as e:
            left = self.io.count_files(path)
            cause = f"{e.strerror}: {e.filename}" if e.strerror and e.filename else str(e)
            if left == 0:
                raise DropFailed(
                    f"dropped the files of table {db}.{name} but not its folder: {cause}"
                ) from None
            if left >= before:
                raise DropFailed(f"could not drop table {db}.{name}: {cause}; nothing was deleted") from None
            raise DropFailed(
                f"drop-table {db}.{name} stopped part-way: {cause}; {left} of {before} files "
                "remain (its snapshots and tags are gone, its schema is kept); run drop-table "
                "again once the cause is fixed"
            ) from None

    def rename_table(self, identifier: str, new_identifier: str) -> None:
        db, name = parse_identifier(identifier)
        db2, name2 = parse_identifier(new_identifier)
        if not self.table_exists(identifier):
            raise TableNotFound(f"{db}.{name}")
        if self.table_exists(new_identifier):
            raise TableAlreadyExists(f"{db2}.{name2}")
        self.create_database(db2, ignore_if_exists=True)
        self._rename_dir(self.table_path(db, name), self.table_path(db2, name2))


def _delete_table_dir(io: FileIO, path: str) -> None:
    """Snapshots, tags and branches first (the table then reads as empty), the schema last
    (until then the table exists, so drop-table can be run again after a partial failure)."""
    names = io.list_names(path)
    order = sorted(names, key=lambda n: 0 if n in _FIRST else 2 if n == "schema" else 1)
    for n in order:
        child = io.join(path, n)
        if io.is_dir(child):
            io.delete_dir(child)
        else:
            io.delete(child)
    io.delete_dir(path)


_FIRST = ("snapshot", "tag", "branch")
