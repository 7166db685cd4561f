"""JDBC catalog: names in SQL tables shared with Java Paimon's ``JdbcCatalog`` (see jdbc_sql.py),
data on the warehouse storage. SQLite (``sqlite3``) and PostgreSQL (``pg8000``).

URIs: ``sqlite:///abs/path.db`` (the path after ``sqlite://``), ``postgresql://user:pw@host:port/db``,
or Java's ``jdbc:sqlite:PATH`` and ``jdbc:postgresql://host:port/db``; ``jdbc.user`` and
``jdbc.password`` give credentials as in Java. ``catalog-key`` (default ``jdbc``) separates
catalogs sharing one database. With ``lock.enabled`` a commit holds the row
``<catalog-key>.<db>.<table>`` of ``paimon_distributed_locks`` (insert to take, delete to
release, expired rows cleared first), Java's ``JdbcCatalogLock``.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import urllib.parse
from typing import TYPE_CHECKING

from paimon_core.catalog.metastore import jdbc_sql as Q
from paimon_core.catalog.metastore.base import MetastoreCatalog
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


class IntegrityViolation(Exception):
    """A statement broke a key or constraint (e.g. the row already exists)."""


class JdbcConnection:
    """One connection in autocommit mode; ``?`` parameters; errors become ``CatalogUnavailable``."""

    def __init__(self, uri: str, user: str | None, password: str | None, display: str):
        self.display = display
        if uri.startswith("jdbc:"):
            uri = uri[len("jdbc:") :]
        scheme = uri.split(":", 1)[0].lower()
        if scheme == "sqlite":
            self.dialect = "sqlite"
            path = uri[len("sqlite:") :]
            if path.startswith("//"):
                path = path[2:]
            if not path:
                raise InvalidInput(
                    "jdbc catalog uri: no SQLite file given (use sqlite:///path/to/catalog.db)"
                )
            self._open_sqlite(path)
        elif scheme in ("postgresql", "postgres"):
            self.dialect = "postgresql"
            self._open_postgres(uri, user, password)
        else:
            raise InvalidInput(
                f"jdbc catalog uri '{display}': use sqlite:///PATH.db or postgresql://HOST:PORT/DB"
            )

    def _open_sqlite(self, path: str) -> None:
        import sqlite3

        self._errors = (sqlite3.Error,)
        if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise CatalogUnavailable(
                f"cannot open the jdbc catalog {self.display}: folder "
                f"{os.path.dirname(os.path.abspath(path))} does not exist"
            )
        try:
            self.conn = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)
            self.conn.execute("SELECT 1")
        except sqlite3.Error as e:
            raise CatalogUnavailable(f"cannot open the jdbc catalog {self.display}: {e}") from None
        self._integrity = sqlite3.IntegrityError

    def _open_postgres(self, uri: str, user: str | None, password: str | None) -> None:
        try:
            import pg8000.dbapi
        except ImportError:
            raise InvalidInput(
                "the jdbc catalog on PostgreSQL needs the pg8000 package (pip install pg8000)"
            ) from None

        self._errors = (pg8000.dbapi.Error,)
        self._integrity = pg8000.dbapi.IntegrityError
        parts = urllib.parse.urlsplit(uri)
        query = dict(urllib.parse.parse_qsl(parts.query))
        user = user or (urllib.parse.unquote(parts.username) if parts.username else None) or query.get("user")
        password = (
            password
            or (urllib.parse.unquote(parts.password) if parts.password else None)
            or query.get("password")
        )
        database = parts.path.lstrip("/") or None
        try:
            port = parts.port or 5432
        except ValueError:
            raise InvalidInput(f"jdbc catalog uri '{self.display}': bad port") from None
        try:
            self.conn = pg8000.dbapi.connect(
                user=user or "postgres",
                password=password,
                host=parts.hostname or "localhost",
                port=port,
                database=database,
                timeout=30,
            )
        except pg8000.dbapi.InterfaceError as e:
            reason = _first_line(e).split(" (timeout is")[0]
            raise CatalogUnavailable(f"cannot reach the jdbc catalog {self.display}: {reason}") from None
        except pg8000.dbapi.DatabaseError as e:
            raise CatalogUnavailable(
                f"cannot use the jdbc catalog {self.display}: {_pg_message(e)}"
            ) from None
        self.conn.autocommit = True

    def _sql(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else sql.replace("?", "%s")

    def execute(self, sql: str, args=()) -> int:
        """Run one statement; the number of rows it changed. IntegrityError passes through."""
        try:
            cur = self.conn.cursor()
            cur.execute(self._sql(sql), tuple(args))
            return cur.rowcount
        except self._integrity as e:
            raise IntegrityViolation(_pg_message(e)) from None
        except self._errors as e:
            arg = e.args[0] if e.args else None
            if isinstance(arg, dict) and str(arg.get("C", "")).startswith("23"):  # SQLSTATE class 23
                raise IntegrityViolation(_pg_message(e)) from None
            raise CatalogUnavailable(f"jdbc catalog {self.display}: {_pg_message(e)}") from None

    def query(self, sql: str, args=()) -> list[tuple]:
        try:
            cur = self.conn.cursor()
            cur.execute(self._sql(sql), tuple(args))
            return list(cur.fetchall())
        except self._errors as e:
            raise CatalogUnavailable(f"jdbc catalog {self.display}: {_pg_message(e)}") from None

    def table_exists(self, name: str) -> bool:
        if self.dialect == "sqlite":
            return bool(self.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)))
        return bool(
            self.query(
                "SELECT 1 FROM information_schema.tables WHERE table_name = ? AND "
                "table_schema = ANY(current_schemas(false))",
                (name,),
            )
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def _pg_message(e: BaseException) -> str:
    """pg8000 errors carry a dict (S severity, C code, M message); others a plain text."""
    arg = e.args[0] if e.args else None
    if isinstance(arg, dict) and "M" in arg:
        return arg["M"]
    return _first_line(e)


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
        return [
            r[0]
            for sql in (Q.LIST_TABLE_DATABASES, Q.LIST_PROPERTY_DATABASES)
            for r in self.db.query(sql, (self.catalog_key,))
        ]

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
