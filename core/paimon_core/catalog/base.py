"""``Catalog``, the interface every catalog implements, and the rules of names all share.

Tables live on the warehouse storage at ``<warehouse>/<db>.db/<table>`` whatever the catalog; a
table exists when its directory holds at least one ``schema/schema-N``.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.catalog.names import DB_SUFFIX, parse_identifier
from paimon_core.catalog.objects import CatalogObjects
from paimon_core.errors import (
    AlreadyExists,
    DatabaseNotFound,
    InvalidInput,
    TableAlreadyExists,
    UnsupportedByCatalog,
    WarehouseNotFound,
)
from paimon_core.metadata.branches import split_branch
from paimon_core.metadata.schema import Schema, SchemaManager, TableSchema
from paimon_core.storage.file_io import FileIO
from paimon_core.table import FileStoreTable

if TYPE_CHECKING:
    from paimon_core.systables import SystemTable


def not_empty(db: str, tables: list[str], objects: list[str] | None = None) -> InvalidInput:
    """The refusal to drop a database that holds tables (or views and functions: ``objects``,
    each named with its kind) without cascade."""
    held = [*tables, *(objects or [])]
    what = "table(s)" if not objects else "object(s)"
    names = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
    return InvalidInput(
        f"database '{db}' is not empty ({len(held)} {what}: {names}); drop it with --cascade to drop them too"
    )


@dataclass(frozen=True)
class DatabaseChange:
    """What ``alter_database`` did: keys removed, keys set, and removals naming no property."""

    removed: list[str]
    updated: list[str]
    missing: list[str]


def checked_change(updates: dict[str, str], removals: list[str], reserved: tuple[str, ...]) -> None:
    """Refuse a key both set and removed, or a ``reserved`` key (one the catalog keeps itself)."""
    both = sorted(set(updates) & set(removals))
    if both:
        raise InvalidInput(f"property '{both[0]}' is both set and removed")
    for key in (*updates, *removals):
        if key in reserved:
            raise InvalidInput(f"property '{key}' is kept by the catalog and cannot be altered")


class Catalog(CatalogObjects):
    """The catalog interface. Tables live on the warehouse storage at
    ``<warehouse>/<db>.db/<table>`` whatever the catalog; catalogs differ in where names are
    registered. Subclasses implement every method below; ``kind`` names the catalog. Views and
    functions: ``CatalogObjects`` (``catalog.objects``), over the stores a catalog sets."""

    kind = "?"

    def __init__(self, warehouse: str, storage_options: dict | None = None):
        self.warehouse = warehouse
        self.io = FileIO(warehouse, storage_options)
        self.root = self.io.root
        self.options: dict = {}  # the catalog options it was opened with (sys.catalog_options)

    def db_path(self, db: str) -> str:
        return self.io.join(self.root, db + DB_SUFFIX)

    def table_path(self, db: str, table: str) -> str:
        return self.io.join(self.db_path(db), table)

    def info(self) -> dict:
        """What ``paimon catalog info`` shows: kind, warehouse and the catalog's own settings."""
        return {"catalog": self.kind, "warehouse": self.warehouse}

    def close(self) -> None:
        """Release connections; the catalog is not used afterwards."""
        for store in {id(s): s for s in (self.view_store, self.function_store) if s is not None}.values():
            close = getattr(store, "close", None)
            if close is not None:
                close()

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

    def alter_database(self, db: str, updates: dict[str, str], removals: list[str]) -> DatabaseChange:
        """Set ``updates`` and remove ``removals`` among ``db``'s properties, all or nothing.
        Catalogs that store no properties refuse (UnsupportedByCatalog, as Java's
        FileSystemCatalog), except for an empty change, which Java accepts without a look."""
        if not self.database_exists(db):
            raise self._database_missing(db)
        if updates or removals:
            raise UnsupportedByCatalog(
                f"the {self.kind} catalog stores no database properties: database '{db}' cannot "
                "be altered (use a JDBC or Hive catalog)"
            )
        return DatabaseChange([], [], [])

    def register_table(self, identifier: str, path: str) -> None:
        """Register the Paimon table whose folder (schema files) is at ``path`` as
        ``identifier``. A catalog that places each table at ``<warehouse>/<db>.db/<t>`` takes
        only that path; TableAlreadyExists when the identifier is taken. The filesystem catalog
        lists every table found at its place, so there the answer is always "already exists"
        or a refusal: nothing is written."""
        self._registration_target(identifier, path)
        raise InvalidInput(f"no Paimon table at {path}: it holds no schema files")

    def _registration_target(self, identifier: str, path: str) -> tuple[str, str, str]:
        """(db, name, storage path) of a registration the catalog can take; the checks every
        catalog shares (the database exists, the identifier is free, the path is acceptable)."""
        db, name = parse_identifier(identifier)
        if not self.database_exists(db):
            raise self._database_missing(db)
        where = self._registration_place(db, name, path)
        if self.table_exists(identifier):
            raise TableAlreadyExists(f"{db}.{name}")
        return db, name, where

    def _registration_place(self, db: str, name: str, path: str) -> str:
        """Where table ``db.name`` may be registered from ``path``: here only its own place."""
        place = self._storage_path(self.io.uri(self.table_path(db, name)))
        if self._storage_path(path) != place:
            raise InvalidInput(
                f"the {self.kind} catalog keeps no table locations: table {db}.{name} is always at "
                f"{self.io.uri(place)}, so it cannot be registered at {path} (move the folder there)"
            )
        return place

    def _storage_path(self, path: str) -> str:
        """``path`` (a URI or a bare path) as a path of the warehouse's storage."""
        on = self.io.path_of(path) if path else None
        if not on:
            raise InvalidInput(f"table path {path!r} is not on the warehouse's storage ({self.warehouse})")
        return posixpath.normpath(on) if self.io.is_local else on.rstrip("/")

    def create_partitions(
        self, identifier: str, specs: list[dict[str, str | None]], ignore_if_exists: bool = True
    ) -> tuple[list[int], list[int]]:
        """Register partitions ``specs`` (each a ``{key: string}``) in the catalog: the indexes
        of the specs created and of those that existed. Only a catalog that manages a table's
        partitions can (a Hive table with ``metastore.partitioned-table``); elsewhere a
        partition exists through its data, and this is UnsupportedByCatalog."""
        raise UnsupportedByCatalog(
            f"table {identifier}: the {self.kind} catalog does not manage partitions (a partition "
            "exists once data is written to it)"
        )

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

    def replace_table(self, identifier: str, schema: Schema) -> TableSchema:
        """Replace table ``db.t`` by ``schema`` in place (Java 2.0's ``replaceTable``): a
        truncating commit, then ``schema`` as schema latest+1; the table keeps its history, so
        its older snapshots stay readable by time travel (``catalog/replace.py``). Returns the
        new schema. TableNotFound for a missing table; UnsupportedByCatalog for a change of the
        partition keys; InvalidInput for a branch, a system table or a schema that does not
        validate. A ``path`` option is refused as ``create_table`` refuses it, unless it names
        the table's own folder (a schema read back from the table may carry it): then dropped."""
        from paimon_core.catalog.replace import replace_table

        if "$" in identifier:
            raise InvalidInput(
                f"'{identifier}' is a branch or system table: replace-table replaces a whole table (DB.TABLE)"
            )
        table = self._get_table(identifier)
        return replace_table(table, self._without_own_path(table, schema))

    def _without_own_path(self, table: FileStoreTable, schema: Schema) -> Schema:
        path = schema.options.get("path")
        if path is None:
            return schema
        if self._storage_path(path) != self._storage_path(table.io.uri(table.path)):
            raise InvalidInput(
                f"the {self.kind} catalog places table {table.identifier} itself: option 'path' "
                f"({path}) cannot move it"
            )
        options = {k: v for k, v in schema.options.items() if k != "path"}
        return dataclasses.replace(schema, options=options)

    def drop_table(self, identifier: str, ignore_if_missing: bool = False) -> None:
        raise NotImplementedError

    def rename_table(self, identifier: str, new_identifier: str) -> None:
        raise NotImplementedError
