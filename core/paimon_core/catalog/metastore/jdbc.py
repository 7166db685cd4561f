"""JDBC catalog: names in SQL tables shared with Java Paimon's ``JdbcCatalog`` (see jdbc_sql.py),
data on the warehouse storage. SQLite (``sqlite3``) and PostgreSQL (``pg8000``).

URIs: ``sqlite:///abs/path.db`` (the path after ``sqlite://``), ``postgresql://user:pw@host:port/db``,
or Java's ``jdbc:sqlite:PATH`` and ``jdbc:postgresql://host:port/db``; ``jdbc.user`` and
``jdbc.password`` give credentials as in Java. ``catalog-key`` (default ``jdbc``) separates
catalogs sharing one database. Views and functions are kept in the same database
(``jdbc_objects``: Java 2.0's ``paimon_views``, our ``paimon_functions``). With ``lock.enabled`` a commit holds the row
``<catalog-key>.<db>.<table>`` of ``paimon_distributed_locks`` (insert to take, delete to
release, expired rows cleared first), Java's ``JdbcCatalogLock``.
"""

from __future__ import annotations

import contextlib
import random
import time
from typing import TYPE_CHECKING

from paimon_core.catalog.metastore import jdbc_sql as Q
from paimon_core.catalog.metastore.base import MetastoreCatalog
from paimon_core.catalog.metastore.jdbc_connection import IntegrityViolation, JdbcConnection
from paimon_core.catalog.metastore.jdbc_objects import JdbcObjects
from paimon_core.errors import CatalogUnavailable, InvalidInput, TableAlreadyExists, TableNotFound
from paimon_core.options.catalog_options import (
    CATALOG_KEY,
    JDBC_OPTIONS,
    JDBC_PASSWORD,
    JDBC_USER,
    LOCK_KEY_MAX_LENGTH,
)
from paimon_core.options.view import OptionView

if TYPE_CHECKING:
    from collections.abc import Iterator


class JdbcCatalog(MetastoreCatalog):
    kind = "jdbc"
    extra_options = JDBC_OPTIONS

    def __init__(self, warehouse: str, options: dict, storage_options: dict | None = None):
        super().__init__(warehouse, options, storage_options)
        view = OptionView(self.options)
        self.catalog_key = view.get(CATALOG_KEY)
        self.lock_key_max_length = view.get(LOCK_KEY_MAX_LENGTH)
        self.db = JdbcConnection(self.uri, view.get(JDBC_USER), view.get(JDBC_PASSWORD), self._display_uri())
        self._create_tables()
        self.objects = JdbcObjects(self.db, self.catalog_key)
        self.view_store = self.function_store = self.objects

    def _create_tables(self) -> None:
        wanted = [(Q.TABLES, Q.CREATE_TABLES), (Q.DATABASE_PROPERTIES, Q.CREATE_DATABASE_PROPERTIES)]
        if self.lock_enabled:
            wanted.append((Q.LOCKS, Q.CREATE_LOCKS % self.lock_key_max_length))
        for name, ddl in wanted:
            if self.db.table_exists(name):
                continue
            try:
                self.db.execute(ddl)
            except Exception:
                if not self.db.table_exists(name):  # not another process creating it at the same time
                    raise

    def info(self) -> dict:
        return {**super().info(), "catalog-key": self.catalog_key}

    def close(self) -> None:
        self.db.close()

    # ---- databases
    def _db_names(self) -> list[str]:
        """As Java 2.0: the databases of tables, of properties and of views."""
        return [
            r[0]
            for sql in (Q.LIST_TABLE_DATABASES, Q.LIST_PROPERTY_DATABASES)
            for r in self.db.query(sql, (self.catalog_key,))
        ] + self.objects.view_databases()

    def _db_registered(self, db: str) -> bool:
        return bool(
            self.db.query(Q.GET_DATABASE, (self.catalog_key, db))
            or self.db.query(Q.GET_DATABASE_PROPERTIES, (self.catalog_key, db))
        )

    def _db_register(self, db: str, properties: dict[str, str]) -> None:
        # Java's createDatabaseImpl: an "exists" marker, the given properties, the location
        if "location" in properties:  # Java stores it but keeps the tables under the warehouse
            raise InvalidInput(
                "the jdbc catalog keeps a database's tables under the warehouse: a 'location' property "
                "would not be where they are; leave it out"
            )
        props = {"exists": "true", **properties, "location": self.io.uri(self.db_path(db))}
        args = [a for k, v in props.items() for a in (self.catalog_key, db, k, v)]
        try:
            self.db.execute(Q.insert_properties(len(props)), args)
        except IntegrityViolation:
            pass  # registered by another process meanwhile

    def _db_properties(self, db: str) -> dict[str, str]:
        """As Java's loadDatabasePropertiesImpl: every stored key but the "exists" marker."""
        rows = self.db.query(Q.ALL_DATABASE_PROPERTIES, (self.catalog_key, db))
        return {r[2]: r[3] for r in rows if r[2] != "exists"}

    reserved_properties = ("location", "exists")  # "exists" marks a database without tables

    def _db_alter(self, db: str, updates: dict[str, str], removals: list[str]) -> None:
        """As Java's alterDatabaseImpl: new keys inserted, present ones updated, removals deleted
        (each a statement of its own, as there)."""
        current = self._db_properties(db)
        new = {k: v for k, v in updates.items() if k not in current}
        if new:
            args = [a for k, v in new.items() for a in (self.catalog_key, db, k, v)]
            self.db.execute(Q.insert_properties(len(new)), args)
        for k, v in updates.items():
            if k in current:
                self.db.execute(Q.UPDATE_DATABASE_PROPERTY, (v, self.catalog_key, db, k))
        for k in removals:
            self.db.execute(Q.DELETE_DATABASE_PROPERTY, (self.catalog_key, db, k))

    def _db_unregister(self, db: str) -> None:
        self.db.execute(Q.DELETE_TABLES, (self.catalog_key, db))
        self.db.execute(Q.DELETE_DATABASE_PROPERTIES, (self.catalog_key, db))

    # ---- tables
    def _table_names(self, db: str) -> list[str]:
        return [r[2] for r in self.db.query(Q.LIST_TABLES, (self.catalog_key, db))]

    def _table_registered(self, db: str, table: str) -> bool:
        return bool(self.db.query(Q.GET_TABLE, (self.catalog_key, db, table)))

    def _table_register(self, db: str, table: str, schema) -> None:
        try:
            self.db.execute(Q.INSERT_TABLE, (self.catalog_key, db, table))
        except IntegrityViolation as e:
            if self._table_registered(db, table):  # another process registered it first
                raise TableAlreadyExists(f"{db}.{table}") from None
            raise CatalogUnavailable(f"jdbc catalog {self.db.display}: {e}") from None

    def _table_unregister(self, db: str, table: str) -> None:
        self.db.execute(Q.DROP_TABLE, (self.catalog_key, db, table))

    def _table_rename(self, db: str, table: str, db2: str, table2: str) -> None:
        try:
            n = self.db.execute(Q.RENAME_TABLE, (db2, table2, self.catalog_key, db, table))
        except IntegrityViolation:
            raise TableAlreadyExists(f"{db2}.{table2}") from None
        if n == 0:
            raise TableNotFound(f"{db}.{table}")

    # ---- lock
    @contextlib.contextmanager
    def table_lock(self, db: str, table: str) -> Iterator[None]:
        if not self.lock_enabled:
            yield
            return
        lock_id = f"{self.catalog_key}.{db}.{table}"
        if len(lock_id) > self.lock_key_max_length:
            raise InvalidInput(
                f"lock key '{lock_id}' is longer than lock-key-max-length ({self.lock_key_max_length})"
            )
        start = time.monotonic()
        sleep = 0.05
        while not self._try_acquire(lock_id):
            if (time.monotonic() - start) * 1000 > self.lock_acquire_timeout_ms:
                raise CatalogUnavailable(
                    f"could not take the jdbc catalog lock {lock_id} within "
                    f"{self.lock_acquire_timeout_ms} ms (lock-acquire-timeout)"
                )
            sleep = min(sleep * 2, self.lock_check_max_sleep_ms / 1000)
            time.sleep(sleep * (0.5 + random.random() / 2))
        try:
            yield
        finally:
            self.db.execute(Q.LOCK_RELEASE, (lock_id,))

    def _try_acquire(self, lock_id: str) -> bool:
        self.db.execute(Q.LOCK_CLEAR_EXPIRED[self.db.dialect], (lock_id,))
        try:
            return self.db.execute(Q.LOCK_ACQUIRE, (lock_id, self.lock_acquire_timeout_ms // 1000)) > 0
        except IntegrityViolation:
            return False
