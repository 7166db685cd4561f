"""One error hierarchy with a single root; the CLI maps each to one line and exit 1."""

from __future__ import annotations

from typing import TypeVar

_E = TypeVar("_E", bound="PaimonError")


class PaimonError(Exception):
    """Root of every error this library raises on purpose (bad input, missing entity, conflict).

    Messages speak of the table and of the library's own names (arguments, options), never of a
    front end's flags. An error whose fix a front end can name in its own terms carries a hint:
    ``hint_key`` (what to change, in library terms: "primary_key", "overwrite"...) and
    ``hint_values`` (the facts the advice needs). The CLI maps hint keys to flag-specific wording
    (``paimon_cli/errors.py``); other callers may ignore them."""

    hint_key: str | None = None
    hint_values: dict = {}

    def with_hint(self: _E, key: str, **values) -> _E:
        """This error with a hint (``raise InvalidInput(msg).with_hint("cascade")``)."""
        self.hint_key = key
        self.hint_values = values
        return self


class InvalidInput(PaimonError):
    """The caller gave something malformed: a type string, a schema, an option, a filter."""


class TypeStringError(InvalidInput):
    pass


class SchemaMismatch(InvalidInput):
    """Input data cannot be made to fit the table schema (missing column, impossible cast, NOT NULL)."""


class FilterError(InvalidInput):
    """A filter expression that cannot be parsed or bound to the table's columns. ``subject`` is
    what was bad (a "filter", or e.g. "partition 'dt=x'"), ``text`` the expression if known and
    ``detail`` what is wrong; the message is ``bad <subject> '<text>': <detail>``. A filter's error
    has hint "filter" with these three as values, so a front end can name its own flag."""

    def __init__(self, detail: str, text: str | None = None, subject: str = "filter"):
        quoted = f" '{text}'" if text is not None else ""
        super().__init__(f"bad {subject}{quoted}: {detail}")
        self.detail, self.text, self.subject = detail, text, subject
        if subject == "filter":
            self.with_hint("filter", detail=detail, text=text)

    def __reduce__(self):  # pickled (e.g. from a Spark task) with its parts, not its message
        return type(self), (self.detail, self.text, self.subject), self.__dict__


class SqlError(InvalidInput):
    """A mistake in a SQL query (unknown table or column, syntax, a failed cast...), in the
    query engine's own words."""


class NotFound(PaimonError):
    pass


class WarehouseNotFound(NotFound):
    def __init__(self, uri: str):
        super().__init__(f"warehouse '{uri}' does not exist (nothing at that path)")
        self.uri = uri


class DatabaseNotFound(NotFound):
    def __init__(self, name: str):
        super().__init__(f"database '{name}' does not exist")
        self.name = name


class TableNotFound(NotFound):
    def __init__(self, name: str):
        super().__init__(f"table '{name}' does not exist")
        self.name = name


class SnapshotNotFound(NotFound):
    pass


class AlreadyExists(PaimonError):
    pass


class TableAlreadyExists(AlreadyExists):
    def __init__(self, name: str):
        super().__init__(f"table '{name}' already exists")
        self.name = name


class DropFailed(PaimonError):
    """Deleting a table's files failed; the message says whether anything was deleted."""


class CommitConflict(PaimonError):
    """Another writer changed what this commit depends on; the commit was not made."""


class CorruptMetadata(PaimonError):
    """A metadata file is missing or unreadable; the message names the file."""


class NullMapKey(CorruptMetadata):
    """A data file holds a MAP whose keys include NULL (Paimon's MAP keys are NOT NULL; Arrow's
    maps cannot hold one, so it is refused, never dropped). ``column`` and ``path`` name where;
    readers that know the table add its name with ``in_table``."""

    def __init__(self, column: str, path: str, table: str | None = None):
        self.column, self.path, self.table = column, path, table
        where = f"table {table}: " if table else ""
        super().__init__(
            f"{where}data file {path} has a NULL key in MAP column {column}, which cannot be"
            " read (Paimon map keys are NOT NULL)"
        )

    def in_table(self, table: str) -> NullMapKey:
        return NullMapKey(self.column, self.path, table)


class DamagedSnapshot(CorruptMetadata):
    """``snapshot-N`` exists but is not a snapshot (truncated, garbage). ``previous`` is the
    nearest older snapshot id (None if there is none): rolling back to it removes the damaged
    file, so the error carries the hint "damaged_snapshot" with ``id`` and ``previous``."""

    def __init__(self, snapshot_id: int, path: str, detail: str, previous: int | None):
        super().__init__(f"snapshot file {path} is damaged ({detail})")
        self.snapshot_id, self.path, self.detail, self.previous = snapshot_id, path, detail, previous
        if previous is not None:
            self.with_hint("damaged_snapshot", id=snapshot_id, previous=previous)

    def __reduce__(self):
        return type(self), (self.snapshot_id, self.path, self.detail, self.previous), self.__dict__


class UnsupportedFeature(PaimonError):
    """The table uses a Paimon feature this project does not implement; refused rather than
    read or written wrongly."""


class UnsupportedByCatalog(PaimonError):
    """The catalog has no such operation, or not in the form asked (a replace that changes the
    partition keys): Java's catalogs throw UnsupportedOperationException for it; nothing was
    changed."""


class EngineUnavailable(PaimonError):
    """The Spark master or Connect server asked for cannot be reached."""


class CatalogUnavailable(PaimonError):
    """The catalog's metastore cannot be used: unreachable, wrong credentials, missing database."""


class TableNotRegistered(TableNotFound):
    """A Paimon table is on storage but the catalog does not list it."""

    def __init__(self, name: str, kind: str, path: str):
        NotFound.__init__(
            self,
            f"table '{name}' is not registered in the {kind} catalog (its files are at {path}; "
            "register it or use the filesystem catalog)",
        )
        self.name = name


class TableFilesMissing(NotFound):
    """The catalog lists a table whose directory on storage has no schema."""

    def __init__(self, name: str, kind: str, path: str):
        super().__init__(
            f"table '{name}' is registered in the {kind} catalog but has no files at {path} "
            "(deleted outside the catalog?); drop it from the catalog"
        )
        self.name = name
        self.with_hint("drop_table")


class ViewNotFound(NotFound):
    def __init__(self, name: str, detail: str = ""):
        super().__init__(f"view '{name}' does not exist{detail}")
        self.name = name


class ViewAlreadyExists(AlreadyExists):
    """A view (or, as Java refuses it, a table) already has the name."""

    def __init__(self, name: str, what: str = "view"):
        super().__init__(
            f"{what} '{name}' already exists" + ("" if what == "view" else " (a view cannot take its name)")
        )
        self.name = name


class DialectNotFound(NotFound):
    def __init__(self, view: str, dialect: str):
        super().__init__(f"view '{view}' has no dialect '{dialect}'")
        self.name, self.dialect = view, dialect


class DialectAlreadyExists(AlreadyExists):
    def __init__(self, view: str, dialect: str):
        super().__init__(f"view '{view}' already has dialect '{dialect}'")
        self.name, self.dialect = view, dialect


class FunctionNotFound(NotFound):
    def __init__(self, name: str, detail: str = ""):
        super().__init__(f"function '{name}' does not exist{detail}")
        self.name = name


class FunctionAlreadyExists(AlreadyExists):
    def __init__(self, name: str):
        super().__init__(f"function '{name}' already exists")
        self.name = name


class DefinitionNotFound(NotFound):
    def __init__(self, function: str, definition: str):
        super().__init__(f"function '{function}' has no definition '{definition}'")
        self.name, self.definition = function, definition


class DefinitionAlreadyExists(AlreadyExists):
    def __init__(self, function: str, definition: str):
        super().__init__(f"function '{function}' already has definition '{definition}'")
        self.name, self.definition = function, definition
