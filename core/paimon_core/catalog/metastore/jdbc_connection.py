"""One connection to a JDBC catalog's SQL database: SQLite (``sqlite3``) or PostgreSQL
(``pg8000``), autocommit, ``?`` parameters; driver errors become ``CatalogUnavailable`` and key
violations ``IntegrityViolation``. Shared by the JDBC catalog and the views-and-functions store
(``jdbc_objects``)."""

from __future__ import annotations

import contextlib
import os
import urllib.parse

from paimon_core.errors import CatalogUnavailable, InvalidInput


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
