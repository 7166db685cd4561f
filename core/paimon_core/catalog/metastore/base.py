"""What every metastore catalog (JDBC, Hive) shares: names are registered in a metastore, tables
live on the warehouse storage at ``<warehouse>/<db>.db/<table>`` as with the filesystem catalog.

Invariants:
* a table is listed, loaded and dropped by its registration; files on storage without one are
  reported as ``TableNotRegistered``, a registration without files as ``TableFilesMissing``;
* ``create_table`` writes ``schema-0`` first and registers second (Java Paimon's order); if the
  registration fails, the files and any database it registered are removed again, so a failed
  create leaves neither;
* commits of a table loaded here run under ``lock()`` when ``lock.enabled`` (default: on for
  object stores, as in Java Paimon), and call the catalog's hooks after a commit or schema change.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from paimon_core.catalog.base import Catalog, DatabaseChange, checked_change, not_empty
from paimon_core.catalog.names import parse_identifier
from paimon_core.errors import (
    AlreadyExists,
    DatabaseNotFound,
    InvalidInput,
    PaimonError,
    TableAlreadyExists,
    TableFilesMissing,
    TableNotFound,
    TableNotRegistered,
)
from paimon_core.metadata.schema import Schema, SchemaManager, TableSchema
from paimon_core.metadata.table_context import CatalogEnvironment, TableContext
from paimon_core.options.catalog_options import (
    LOCK_ACQUIRE_TIMEOUT,
    LOCK_CHECK_MAX_SLEEP,
    LOCK_ENABLED,
    METASTORE_COMMON,
    URI,
)
from paimon_core.options.registry import Option
from paimon_core.options.view import OptionView
from paimon_core.table import FileStoreTable

if TYPE_CHECKING:
    from paimon_core.commit.file_store_commit import CommitMessage
    from paimon_core.metadata.snapshot import Snapshot

COMMON_OPTIONS = tuple(o.key for o in METASTORE_COMMON)


class MetastoreEnvironment(CatalogEnvironment):
    """The environment of one table loaded through a metastore catalog."""

    def __init__(self, catalog: MetastoreCatalog, db: str, table: str):
        self.catalog, self.db, self.table = catalog, db, table

    def lock(self) -> contextlib.AbstractContextManager:
        return self.catalog.table_lock(self.db, self.table)

    def after_commit(
        self, table: TableContext, snapshot: Snapshot, messages: Sequence[CommitMessage]
    ) -> None:
        self.catalog.after_commit(self.db, self.table, table, snapshot, messages)

    def after_schema_change(self, table: TableContext, schema: TableSchema) -> None:
        self.catalog.after_schema_change(self.db, self.table, table, schema)

    def after_partitions_dropped(self, table: TableContext, partitions: Sequence[tuple]) -> None:
        self.catalog.after_partitions_dropped(self.db, self.table, table, partitions)

    def mark_done(self, table: TableContext, partitions: Sequence[tuple], action: str) -> None:
        if not self.catalog.mark_done(self.db, self.table, table, partitions, action):
            super().mark_done(table, partitions, action)


class MetastoreCatalog(Catalog):
    """Subclasses implement the registration primitives (``_db_*``, ``_table_*``) and may
    override ``table_lock`` and the hooks; everything else is shared."""

    extra_options: tuple[Option, ...] = ()  # the subclass's own options

    def __init__(self, warehouse: str, options: dict, storage_options: dict | None = None):
        super().__init__(warehouse, storage_options)
        known = COMMON_OPTIONS + tuple(o.key for o in self.extra_options)
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise InvalidInput(
                f"unknown {self.kind} catalog option(s): {', '.join(unknown)} (known: {', '.join(known)})"
            )
        self.options = dict(options)
        view = OptionView(options)
        uri = view.get(URI)
        if not uri:
            raise InvalidInput(f"the {self.kind} catalog needs a uri (catalog option uri=...)")
        self.uri = uri
        lock = view.get(LOCK_ENABLED)
        self.lock_enabled = lock if lock is not None else not self.io.is_local
        self.lock_acquire_timeout_ms = view.get(LOCK_ACQUIRE_TIMEOUT)
        self.lock_check_max_sleep_ms = view.get(LOCK_CHECK_MAX_SLEEP)

    # ---- primitives (subclasses)
    def _db_names(self) -> list[str]:
        raise NotImplementedError

    def _db_registered(self, db: str) -> bool:
        raise NotImplementedError

    def _db_register(self, db: str, properties: dict[str, str]) -> None:
        raise NotImplementedError

    def _db_properties(self, db: str) -> dict[str, str]:
        raise NotImplementedError

    def _db_unregister(self, db: str) -> None:
        raise NotImplementedError

    def _db_alter(self, db: str, updates: dict[str, str], removals: list[str]) -> None:
        """Set ``updates`` and remove ``removals`` (keys the database has) in one change."""
        raise NotImplementedError

    def _table_names(self, db: str) -> list[str]:
        raise NotImplementedError

    def _table_registered(self, db: str, table: str) -> bool:
        raise NotImplementedError

    def _table_register(self, db: str, table: str, schema: TableSchema) -> None:
        raise NotImplementedError

    def _table_register_at(self, db: str, table: str, schema: TableSchema, path: str) -> None:
        """Register a table found at ``path`` (``_registration_place``: its own place, unless the
        metastore keeps locations)."""
        self._table_register(db, table, schema)

    def _table_unregister(self, db: str, table: str) -> None:
        raise NotImplementedError

    def _table_rename(self, db: str, table: str, db2: str, table2: str) -> None:
        raise NotImplementedError

    # ---- lock and hooks (subclasses may override)
    def table_lock(self, db: str, table: str) -> contextlib.AbstractContextManager:
        raise NotImplementedError

    def after_commit(
        self, db: str, name: str, table: TableContext, snapshot: Snapshot, messages: Sequence[CommitMessage]
    ) -> None:
        pass

    def after_schema_change(self, db: str, name: str, table: TableContext, schema: TableSchema) -> None:
        pass

    def after_partitions_dropped(
        self, db: str, name: str, table: TableContext, partitions: Sequence[tuple]
    ) -> None:
        pass

    def mark_done(
        self, db: str, name: str, table: TableContext, partitions: Sequence[tuple], action: str
    ) -> bool:
        """Run a metastore mark-done action; False when this metastore has no such thing."""
        return False

    # ---- shared logic
    def info(self) -> dict:
        return {**super().info(), "uri": self._display_uri(), "lock.enabled": self.lock_enabled}

    def _display_uri(self) -> str:
        return re.sub(r"(//[^:/@]+:)[^@/]*@", r"\1***@", self.uri)

    def _check_name(self, what: str, name: str) -> None:
        if name != name.lower():
            raise InvalidInput(
                f"{what} '{name}': the {self.kind} catalog does not allow upper-case names "
                "(as in Java Paimon); use lower case"
            )

    def list_databases(self) -> list[str]:
        return sorted(set(self._db_names()))

    def database_exists(self, db: str) -> bool:
        return self._db_registered(db)

    def create_database(self, db: str, ignore_if_exists: bool = True, properties: dict | None = None) -> None:
        parse_identifier(f"{db}.x")  # name rules
        self._check_name("database", db)
        if self._db_registered(db):
            if ignore_if_exists:
                return
            raise AlreadyExists(f"database '{db}' already exists")
        self._db_register(db, {str(k): str(v) for k, v in (properties or {}).items()})

    def database_properties(self, db: str) -> dict[str, str]:
        if not self._db_registered(db):
            raise DatabaseNotFound(db)
        return self._db_properties(db)

    reserved_properties: tuple[str, ...] = ("location",)  # the catalog's own (tables stay put)

    def alter_database(self, db: str, updates: dict[str, str], removals: list[str]) -> DatabaseChange:
        if not self._db_registered(db):
            raise DatabaseNotFound(db)
        checked_change(updates, removals, self.reserved_properties)
        current = self._db_properties(db)
        removed = [k for k in dict.fromkeys(removals) if k in current]
        missing = [k for k in dict.fromkeys(removals) if k not in current]
        if updates or removed:
            self._db_alter(db, dict(updates), removed)
        return DatabaseChange(removed, list(updates), missing)

    def register_table(self, identifier: str, path: str) -> None:
        """Register the table whose schema files are at ``path`` (see ``Catalog.register_table``);
        its files are not touched."""
        db, name, where = self._registration_target(identifier, path)
        self._check_name("table", name)
        schema = SchemaManager(self.io, where).latest()
        if schema is None:
            raise InvalidInput(f"no Paimon table at {path}: it holds no schema files")
        self._table_register_at(db, name, schema, where)

    def drop_database(self, db: str, cascade: bool = False) -> None:
        if not self._db_registered(db):
            raise DatabaseNotFound(db)
        tables = self._table_names(db)
        objects = self._object_names(db)
        if (tables or objects) and not cascade:
            raise not_empty(db, sorted(tables), objects)
        for t in tables:
            self.drop_table(f"{db}.{t}", ignore_if_missing=True)
        self._drop_objects(db)
        self._db_unregister(db)
        self.io.delete_dir(self.db_path(db))

    def list_tables(self, db: str) -> list[str]:
        if not self._db_registered(db):
            raise DatabaseNotFound(db)
        return sorted(self._table_names(db))

    def table_exists(self, identifier: str) -> bool:
        db, name = parse_identifier(identifier)
        return self._table_registered(db, name)

    def _load(self, db: str, name: str) -> FileStoreTable:
        path = self.table_path(db, name)
        schema = SchemaManager(self.io, path).latest()
        if schema is None:
            raise TableFilesMissing(f"{db}.{name}", self.kind, self.io.uri(path))
        table = FileStoreTable(self.io, path, f"{db}.{name}", schema)
        table.env = MetastoreEnvironment(self, db, name)
        return table

    def _get_table(self, identifier: str) -> FileStoreTable:
        db, name = parse_identifier(identifier)
        if not self._table_registered(db, name):
            if self._on_storage(db, name):
                raise TableNotRegistered(f"{db}.{name}", self.kind, self.io.uri(self.table_path(db, name)))
            if not self._db_registered(db):
                raise DatabaseNotFound(db)
            raise TableNotFound(f"{db}.{name}")
        return self._load(db, name)

    def _refuse_upper_case(self, table_schema: TableSchema) -> None:
        upper = [f.name for f in table_schema.fields if f.name != f.name.lower()]
        if upper:
            raise InvalidInput(
                f"column '{upper[0]}': the {self.kind} catalog does not allow upper-case "
                "column names (as in Java Paimon); use lower case"
            )

    def replace_table(self, identifier: str, schema: Schema) -> TableSchema:
        self._refuse_upper_case(schema.to_table_schema(0))
        return super().replace_table(identifier, schema)

    def create_table(self, identifier: str, schema: Schema, ignore_if_exists: bool = False) -> FileStoreTable:
        db, name = parse_identifier(identifier)
        self._check_name("database", db)
        self._check_name("table", name)
        table_schema = schema.to_table_schema(0)  # validate before touching anything
        self._refuse_upper_case(table_schema)
        if self._table_registered(db, name):
            if ignore_if_exists:
                return self._load(db, name)
            raise TableAlreadyExists(f"{db}.{name}")
        self._refuse_view_name(db, name)
        path = self.table_path(db, name)
        if self._on_storage(db, name):
            raise AlreadyExists(
                f"cannot create table '{db}.{name}': a Paimon table's files already exist at "
                f"{self.io.uri(path)} but it is not registered; drop or move them first"
            )
        new_db = not self._db_registered(db)
        if new_db:
            self._db_register(db, {})
        wrote = False
        try:
            with self.table_lock(db, name):
                wrote = SchemaManager(self.io, path).commit(table_schema)
            if not wrote:
                raise TableAlreadyExists(f"{db}.{name}")
            self._table_register(db, name, table_schema)
        except BaseException as e:
            if wrote:
                self.io.delete_dir(path)
            if new_db:
                try:
                    self._db_unregister(db)
                except PaimonError:
                    pass
            if isinstance(e, TableAlreadyExists) and ignore_if_exists and self._table_registered(db, name):
                return self._load(db, name)
            raise
        return self._load(db, name)

    def drop_table(self, identifier: str, ignore_if_missing: bool = False) -> None:
        db, name = parse_identifier(identifier)
        if not self._table_registered(db, name):
            if ignore_if_missing:
                return
            if self._on_storage(db, name):
                raise TableNotRegistered(f"{db}.{name}", self.kind, self.io.uri(self.table_path(db, name)))
            if not self._db_registered(db):
                raise DatabaseNotFound(db)
            raise TableNotFound(f"{db}.{name}")
        self._table_unregister(db, name)
        self.io.delete_dir(self.table_path(db, name))

    def rename_table(self, identifier: str, new_identifier: str) -> None:
        db, name = parse_identifier(identifier)
        db2, name2 = parse_identifier(new_identifier)
        self._check_name("table", name2)
        if not self._table_registered(db, name):
            raise TableNotFound(f"{db}.{name}")
        if self._table_registered(db2, name2):
            raise TableAlreadyExists(f"{db2}.{name2}")
        self._refuse_view_name(db2, name2)
        if not self._db_registered(db2):
            raise DatabaseNotFound(db2)
        src, dst = self.table_path(db, name), self.table_path(db2, name2)
        if self.io.exists(dst):
            raise AlreadyExists(
                f"cannot rename to '{db2}.{name2}': {self.io.uri(dst)} already exists on storage"
            )
        self._table_rename(db, name, db2, name2)
        try:
            self._rename_dir(src, dst)
        except BaseException:
            self._table_rename(db2, name2, db, name)
            raise
