"""Views and functions of a catalog: the stores that keep them (``ViewStore``, ``FunctionStore``)
and the catalog operations over them (``CatalogObjects``, which ``Catalog`` inherits).

Where each catalog keeps them (as Java's catalogs do, so Java sees the same views): JDBC in its
database (``paimon_views``, Java 2.0's table; ``paimon_functions``, ours); Hive views in the
metastore as ``VIRTUAL_VIEW`` tables; the filesystem catalog (and Hive for functions) only in a
JDBC database named by the catalog option ``catalog-objects.jdbc-uri``; REST on its server.

Invariants, as Java's JdbcCatalog keeps them: a view and a table of one database never share a
name; a view or function is created only in a database that exists; a catalog without a store
answers reads as Java's does (no views, none found) and refuses writes by name
(``UnsupportedByCatalog``, naming the option that gives it a store).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from paimon_core.catalog.functions import (
    Function,
    FunctionChange,
    apply_function_changes,
    check_function_name,
)
from paimon_core.catalog.names import NAME_PATTERN, parse_identifier
from paimon_core.catalog.views import View, ViewChange, apply_view_changes
from paimon_core.errors import (
    DatabaseNotFound,
    FunctionAlreadyExists,
    FunctionNotFound,
    InvalidInput,
    UnsupportedByCatalog,
    ViewAlreadyExists,
    ViewNotFound,
    WarehouseNotFound,
)

OBJECTS_OPTION = "catalog-objects.jdbc-uri"  # named in messages; read as options.catalog_options


class ViewStore(Protocol):
    """Where a catalog's views are kept. ``insert_view`` raises ViewAlreadyExists when the name
    is taken (a race lost to another writer); the others act on what is there."""

    def view(self, db: str, name: str) -> View | None: ...
    def view_names(self, db: str) -> list[str]: ...
    def insert_view(self, db: str, name: str, view: View) -> None: ...
    def update_view(self, db: str, name: str, view: View) -> None: ...
    def delete_view(self, db: str, name: str) -> None: ...
    def rename_view(self, db: str, name: str, db2: str, name2: str) -> None: ...


class FunctionStore(Protocol):
    """Where a catalog's functions are kept; ``insert_function`` raises FunctionAlreadyExists
    when the name is taken."""

    def function(self, db: str, name: str) -> Function | None: ...
    def function_names(self, db: str) -> list[str]: ...
    def insert_function(self, db: str, name: str, function: Function) -> None: ...
    def update_function(self, db: str, name: str, function: Function) -> None: ...
    def delete_function(self, db: str, name: str) -> None: ...


def parse_function_identifier(identifier: str) -> tuple[str, str]:
    """``db.name`` -> (db, name): the database before the first dot, the function name (which
    may hold dots, as Java allows) after it."""
    db, sep, name = (identifier or "").strip().partition(".")
    if not sep or not NAME_PATTERN.match(db):
        raise InvalidInput(f"bad function name '{identifier}': use DB.FUNCTION")
    return db, check_function_name(name)


class CatalogObjects:
    """The view and function operations every catalog shares, over ``view_store`` and
    ``function_store`` (None: the catalog keeps none). A catalog that serves them itself (REST)
    overrides the public methods."""

    kind = "?"
    view_store: ViewStore | None = None
    function_store: FunctionStore | None = None

    # what the catalog itself answers (Catalog implements these)
    def database_exists(self, db: str) -> bool:
        raise NotImplementedError

    def table_exists(self, identifier: str) -> bool:
        raise NotImplementedError

    def _database_missing(self, db: str) -> DatabaseNotFound | WarehouseNotFound:
        raise NotImplementedError

    def _check_name(self, what: str, name: str) -> None:
        """A catalog's own rule for names (metastores: lower case only)."""

    def _no_store(self, what: str, doing: str) -> UnsupportedByCatalog:
        return UnsupportedByCatalog(
            f"the {self.kind} catalog stores no {what}: {doing} (set the catalog option "
            f"{OBJECTS_OPTION} to a JDBC database, e.g. sqlite:///PATH/objects.db, to keep them there)"
        ).with_hint("objects_store", kind=self.kind, what=what, doing=doing)

    def _require_db(self, db: str) -> None:
        if not self.database_exists(db):
            raise self._database_missing(db)

    def _views(self, doing: str) -> ViewStore:
        if self.view_store is None:
            raise self._no_store("views", doing)
        return self.view_store

    def _functions(self, doing: str) -> FunctionStore:
        if self.function_store is None:
            raise self._no_store("functions", doing)
        return self.function_store

    def _object_names(self, db: str) -> list[str]:
        """The views and functions of ``db`` (what keeps a database from being dropped plainly)."""
        views = self.view_store.view_names(db) if self.view_store is not None else []
        funcs = self.function_store.function_names(db) if self.function_store is not None else []
        return [f"view {v}" for v in views] + [f"function {f}" for f in funcs]

    def _drop_objects(self, db: str) -> None:
        """Drop every view and function of ``db`` (a database dropped with cascade)."""
        if self.view_store is not None:
            for v in self.view_store.view_names(db):
                self.view_store.delete_view(db, v)
        if self.function_store is not None:
            for f in self.function_store.function_names(db):
                self.function_store.delete_function(db, f)

    def is_view(self, db: str, name: str) -> bool:
        return self.view_store is not None and self.view_store.view(db, name) is not None

    def _refuse_view_name(self, db: str, name: str) -> None:
        """A table cannot take a view's name (Java: TableAlreadyExistException)."""
        if self.is_view(db, name):
            raise ViewAlreadyExists(f"{db}.{name}")

    # ---- views
    def list_views(self, db: str) -> list[str]:
        """The names of ``db``'s views, sorted (none where the catalog keeps no views)."""
        self._require_db(db)
        return sorted(self.view_store.view_names(db)) if self.view_store is not None else []

    def get_view(self, identifier: str) -> View:
        db, name = parse_identifier(identifier)
        if self.view_store is None:
            self._require_db(db)
            raise ViewNotFound(f"{db}.{name}", f" (the {self.kind} catalog stores no views)")
        view = self.view_store.view(db, name)
        if view is None:
            self._require_db(db)
            raise ViewNotFound(f"{db}.{name}")
        return view

    def create_view(self, identifier: str, view: View, ignore_if_exists: bool = False) -> bool:
        """Create view ``db.name``; False when it (or a table of that name) existed and
        ``ignore_if_exists`` (as Java, nothing is changed then)."""
        db, name = parse_identifier(identifier)
        store = self._views(f"view '{db}.{name}' cannot be created")
        self._check_name("view", name)
        self._require_db(db)
        if not view.query.strip():
            raise InvalidInput(f"view '{db}.{name}' needs a query")
        taken = "table" if self.table_exists(f"{db}.{name}") else "view" if store.view(db, name) else None
        if taken is not None:
            if ignore_if_exists:
                return False
            raise ViewAlreadyExists(f"{db}.{name}", taken)
        store.insert_view(db, name, view)
        return True

    def drop_view(self, identifier: str, ignore_if_missing: bool = False) -> bool:
        """Drop view ``db.name``; False when there was none and ``ignore_if_missing``."""
        db, name = parse_identifier(identifier)
        store = self._views(f"view '{db}.{name}' cannot be dropped")
        if store.view(db, name) is None:
            if ignore_if_missing:
                return False
            self._require_db(db)
            raise ViewNotFound(f"{db}.{name}")
        store.delete_view(db, name)
        return True

    def rename_view(self, identifier: str, new_identifier: str) -> None:
        db, name = parse_identifier(identifier)
        db2, name2 = parse_identifier(new_identifier)
        store = self._views(f"view '{db}.{name}' cannot be renamed")
        self._check_name("view", name2)
        if store.view(db, name) is None:
            self._require_db(db)
            raise ViewNotFound(f"{db}.{name}")
        self._require_db(db2)
        if self.table_exists(f"{db2}.{name2}"):
            raise ViewAlreadyExists(f"{db2}.{name2}", "table")
        if store.view(db2, name2) is not None:
            raise ViewAlreadyExists(f"{db2}.{name2}")
        store.rename_view(db, name, db2, name2)

    def alter_view(self, identifier: str, changes: list[ViewChange]) -> View:
        """Apply ``changes`` to view ``db.name`` all at once; the view as stored after."""
        db, name = parse_identifier(identifier)
        store = self._views(f"view '{db}.{name}' cannot be altered")
        new = apply_view_changes(f"{db}.{name}", self.get_view(identifier), changes)
        store.update_view(db, name, new)
        return new

    # ---- functions
    def list_functions(self, db: str) -> list[str]:
        """The names of ``db``'s functions, sorted (none where the catalog keeps no functions)."""
        self._require_db(db)
        return sorted(self.function_store.function_names(db)) if self.function_store is not None else []

    def get_function(self, identifier: str) -> Function:
        db, name = parse_function_identifier(identifier)
        if self.function_store is None:
            self._require_db(db)
            raise FunctionNotFound(f"{db}.{name}", f" (the {self.kind} catalog stores no functions)")
        got = self.function_store.function(db, name)
        if got is None:
            self._require_db(db)
            raise FunctionNotFound(f"{db}.{name}")
        return got

    def create_function(self, identifier: str, function: Function, ignore_if_exists: bool = False) -> bool:
        """Create function ``db.name`` (``function.name`` is set to ``name``); False when it
        existed and ``ignore_if_exists``."""
        db, name = parse_function_identifier(identifier)
        store = self._functions(f"function '{db}.{name}' cannot be created")
        self._require_db(db)
        if store.function(db, name) is not None:
            if ignore_if_exists:
                return False
            raise FunctionAlreadyExists(f"{db}.{name}")
        store.insert_function(db, name, replace(function, name=name))
        return True

    def drop_function(self, identifier: str, ignore_if_missing: bool = False) -> bool:
        db, name = parse_function_identifier(identifier)
        store = self._functions(f"function '{db}.{name}' cannot be dropped")
        if store.function(db, name) is None:
            if ignore_if_missing:
                return False
            self._require_db(db)
            raise FunctionNotFound(f"{db}.{name}")
        store.delete_function(db, name)
        return True

    def alter_function(self, identifier: str, changes: list[FunctionChange]) -> Function:
        db, name = parse_function_identifier(identifier)
        store = self._functions(f"function '{db}.{name}' cannot be altered")
        new = apply_function_changes(f"{db}.{name}", self.get_function(identifier), changes)
        store.update_function(db, name, new)
        return new
