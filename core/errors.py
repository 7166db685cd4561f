"""One error hierarchy with a single root; the CLI maps each to one line and exit 1."""

from __future__ import annotations


class PaimonError(Exception):
    """Root of every error this library raises on purpose (bad input, missing entity, conflict)."""


class InvalidInput(PaimonError):
    """The caller gave something malformed: a type string, a schema, an option, a filter."""


class TypeStringError(InvalidInput):
    pass


class SchemaMismatch(InvalidInput):
    """Input data cannot be made to fit the table schema (missing column, impossible cast, NOT NULL)."""


class FilterError(InvalidInput):
    pass


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
