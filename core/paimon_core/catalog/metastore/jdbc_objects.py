"""Views and functions in a JDBC database (SQLite or PostgreSQL): ``paimon_views`` exactly as Java
2.0's JdbcCatalog keeps it (the ViewSchema JSON in ``view_schema``), ``paimon_functions`` as
this project keeps it (the function's JSON in ``function_json``); both keyed by
(catalog_key, database_name, name), created when missing (jdbc_sql.py has the statements).

The JDBC catalog keeps its own views and functions here, on its connection; the filesystem
catalog (and the Hive catalog, for functions) keep them here only when the catalog option
``catalog-objects.jdbc-uri`` names a database (``open_objects_store``).
"""

from __future__ import annotations

import json

from paimon_core.catalog.functions import Function
from paimon_core.catalog.metastore import jdbc_sql as Q
from paimon_core.catalog.metastore.jdbc_connection import IntegrityViolation, JdbcConnection
from paimon_core.catalog.views import View
from paimon_core.errors import CorruptMetadata, FunctionAlreadyExists, ViewAlreadyExists
from paimon_core.options.catalog_options import (
    OBJECTS_CATALOG_KEY,
    OBJECTS_JDBC_PASSWORD,
    OBJECTS_JDBC_URI,
    OBJECTS_JDBC_USER,
)
from paimon_core.options.view import OptionView


class JdbcObjects:
    """A ``ViewStore`` and ``FunctionStore`` over one connection; ``owns`` the connection when it
    opened it (then ``close`` closes it)."""

    def __init__(self, db: JdbcConnection, catalog_key: str, owns: bool = False):
        self.db, self.catalog_key, self.owns = db, catalog_key, owns
        for name, ddl in ((Q.VIEWS, Q.CREATE_VIEWS), (Q.FUNCTIONS, Q.CREATE_FUNCTIONS)):
            if self.db.table_exists(name):
                continue
            try:
                self.db.execute(ddl)
            except Exception:
                if not self.db.table_exists(name):  # not another process creating it meanwhile
                    raise

    def where(self) -> str:
        return self.db.display

    def close(self) -> None:
        if self.owns:
            self.db.close()

    def _parse(self, text: str, what: str, read):
        try:
            return read(json.loads(text))
        except ValueError as e:
            raise CorruptMetadata(
                f"{what} in the JDBC database {self.db.display} is not readable: {e}"
            ) from None

    # ---- views
    def view(self, db: str, name: str) -> View | None:
        rows = self.db.query(Q.GET_VIEW, (self.catalog_key, db, name))
        return self._parse(rows[0][3], f"view {db}.{name}", View.from_json) if rows else None

    def view_names(self, db: str) -> list[str]:
        return [r[0] for r in self.db.query(Q.LIST_VIEWS, (self.catalog_key, db))]

    def view_databases(self) -> list[str]:
        return [r[0] for r in self.db.query(Q.LIST_VIEW_DATABASES, (self.catalog_key,))]

    def insert_view(self, db: str, name: str, view: View) -> None:
        try:
            self.db.execute(Q.INSERT_VIEW, (self.catalog_key, db, name, json.dumps(view.to_json())))
        except IntegrityViolation:
            raise ViewAlreadyExists(f"{db}.{name}") from None

    def update_view(self, db: str, name: str, view: View) -> None:
        self.db.execute(Q.UPDATE_VIEW, (json.dumps(view.to_json()), self.catalog_key, db, name))

    def delete_view(self, db: str, name: str) -> None:
        self.db.execute(Q.DROP_VIEW, (self.catalog_key, db, name))

    def rename_view(self, db: str, name: str, db2: str, name2: str) -> None:
        try:
            self.db.execute(Q.RENAME_VIEW, (db2, name2, self.catalog_key, db, name))
        except IntegrityViolation:
            raise ViewAlreadyExists(f"{db2}.{name2}") from None

    # ---- functions
    def function(self, db: str, name: str) -> Function | None:
        rows = self.db.query(Q.GET_FUNCTION, (self.catalog_key, db, name))
        if not rows:
            return None
        return self._parse(rows[0][3], f"function {db}.{name}", lambda v: Function.from_json(v, name))

    def function_names(self, db: str) -> list[str]:
        return [r[0] for r in self.db.query(Q.LIST_FUNCTIONS, (self.catalog_key, db))]

    def insert_function(self, db: str, name: str, function: Function) -> None:
        text = json.dumps(function.to_json())
        try:
            self.db.execute(Q.INSERT_FUNCTION, (self.catalog_key, db, name, text))
        except IntegrityViolation:
            raise FunctionAlreadyExists(f"{db}.{name}") from None

    def update_function(self, db: str, name: str, function: Function) -> None:
        self.db.execute(Q.UPDATE_FUNCTION, (json.dumps(function.to_json()), self.catalog_key, db, name))

    def delete_function(self, db: str, name: str) -> None:
        self.db.execute(Q.DROP_FUNCTION, (self.catalog_key, db, name))


def open_objects_store(options: dict) -> JdbcObjects | None:
    """The store ``catalog-objects.*`` options name (None when ``catalog-objects.jdbc-uri`` is
    not given): a JDBC database of its own, with the URIs the JDBC catalog takes."""
    view = OptionView(options)
    uri = view.get(OBJECTS_JDBC_URI)
    if not uri:
        return None
    display = _hide_password(uri)
    conn = JdbcConnection(uri, view.get(OBJECTS_JDBC_USER), view.get(OBJECTS_JDBC_PASSWORD), display)
    return JdbcObjects(conn, view.get(OBJECTS_CATALOG_KEY), owns=True)


def _hide_password(uri: str) -> str:
    import re

    return re.sub(r"(//[^:/@]+:)[^@/]*@", r"\1***@", uri)
