"""``FileSystemCatalog``, the zero-setup default: ``<warehouse>/<db>.db/<table>`` and no other
metadata (views and functions only in a JDBC database named by ``catalog-objects.jdbc-uri``,
``catalog.objects``). Creating a table writes schema-0 only if absent, so two concurrent creates cannot both
succeed."""

from __future__ import annotations

from paimon_core.catalog.base import Catalog, not_empty
from paimon_core.catalog.names import DB_SUFFIX, NAME_PATTERN, parse_identifier
from paimon_core.errors import (
    AlreadyExists,
    DropFailed,
    InvalidInput,
    TableAlreadyExists,
    TableNotFound,
    WarehouseNotFound,
)
from paimon_core.metadata.schema import Schema, SchemaManager
from paimon_core.storage.file_io import FileIO
from paimon_core.table import FileStoreTable


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
        if not NAME_PATTERN.match(db):
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
        objects = self._object_names(db)
        if (tables or objects) and not cascade:
            raise not_empty(db, tables, objects)
        self._drop_objects(db)
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
        self._refuse_view_name(db, name)
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
        self._refuse_view_name(db2, name2)
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
