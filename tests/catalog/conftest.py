"""Fixtures for the catalog tests: a real PostgreSQL server for the session (Debian's binaries,
127.0.0.1, a free port, stopped by pid), a fresh JDBC catalog database per test on SQLite or
PostgreSQL, and the Java Paimon 0.9 driver with the JDBC drivers (fetched from Maven Central into
the interop cache) on its classpath. A missing PostgreSQL server fails the tests that need it,
saying what to install: the catalog is never left untested silently."""

from __future__ import annotations

import atexit
import itertools
import os

import pytest

from tests.catalog import postgres
from tests.interop.conftest import java  # noqa: F401  (the session fixture, shared)

_ids = itertools.count()


def require_postgres() -> None:
    """Fail (never skip) the test when the PostgreSQL server binaries are missing."""
    if postgres.bin_dir() is None:
        pytest.fail(
            "no PostgreSQL server binaries under /usr/lib/postgresql: install them "
            "(apt-get install postgresql; .ci/run does)",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def pg_server():
    require_postgres()
    server = postgres.start()
    atexit.register(server.stop)
    yield server
    server.stop()


class JdbcBackend:
    """One fresh catalog database: ``options`` for our catalog (and, plus metastore=jdbc, Java's);
    ``connect()`` a raw DB-API connection to inspect it independently of the catalog."""

    def __init__(self, kind: str, tmp_path, pg=None):
        self.kind = kind
        if kind == "sqlite":
            self.path = str(tmp_path / "catalog.db")
            self.options = {"uri": f"jdbc:sqlite:{self.path}"}
        else:
            name = f"cat{os.getpid()}_{next(_ids)}"
            pg.create_database(name)
            self.pg, self.name = pg, name
            self.options = {
                "uri": f"jdbc:postgresql://127.0.0.1:{pg.port}/{name}",
                "jdbc.user": postgres.USER,
                "jdbc.password": postgres.PASSWORD,
            }

    def connect(self):
        if self.kind == "sqlite":
            import sqlite3

            return sqlite3.connect(self.path, isolation_level=None)
        import pg8000.dbapi

        conn = pg8000.dbapi.connect(
            user=postgres.USER,
            password=postgres.PASSWORD,
            host="127.0.0.1",
            port=self.pg.port,
            database=self.name,
        )
        conn.autocommit = True
        return conn

    def rows(self, sql: str) -> list[tuple]:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
        finally:
            conn.close()

    def execute(self, sql: str) -> None:
        conn = self.connect()
        try:
            conn.cursor().execute(sql)
        finally:
            conn.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def jdbc(request, tmp_path) -> JdbcBackend:
    pg = request.getfixturevalue("pg_server") if request.param == "postgresql" else None
    return JdbcBackend(request.param, tmp_path, pg)


@pytest.fixture(scope="session")
def java_jdbc(java):  # noqa: F811
    from tests.interop.harness.jdbc_jars import ensure_jdbc_jars

    return java.with_classpath(*ensure_jdbc_jars(java.cache_dir))


@pytest.fixture(scope="session")
def java_hive(java):  # noqa: F811
    """Java Paimon 0.9 with PySpark's Hive jars: its HiveCatalog talks to ``hive_ms``."""
    from tests.catalog import hive_metastore

    return java.with_classpath(f"{hive_metastore.pyspark_jars()}/*")
