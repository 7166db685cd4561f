"""Errors as the REST spec's ``ErrorResponse`` bodies: ``{message, resourceType, resourceName,
code}`` with ``code`` equal to the HTTP status. Every failed request answers with one of these."""

from __future__ import annotations

from paimon_core.errors import (
    AlreadyExists,
    DatabaseNotFound,
    DefinitionAlreadyExists,
    DefinitionNotFound,
    DialectAlreadyExists,
    DialectNotFound,
    FunctionAlreadyExists,
    FunctionNotFound,
    InvalidInput,
    NotFound,
    PaimonError,
    SnapshotNotFound,
    TableAlreadyExists,
    TableNotFound,
    UnsupportedByCatalog,
    UnsupportedFeature,
    ViewAlreadyExists,
    ViewNotFound,
    WarehouseNotFound,
)

DATABASE, TABLE, SNAPSHOT, UNKNOWN = "DATABASE", "TABLE", "SNAPSHOT", "UNKNOWN"
TAG, BRANCH, PARTITION = "TAG", "BRANCH", "PARTITION"
VIEW, DIALECT, FUNCTION, DEFINITION = "VIEW", "DIALECT", "FUNCTION", "DEFINITION"


class RestError(Exception):
    """A request refused with HTTP ``status`` and the spec's error body."""

    def __init__(self, status: int, message: str, resource_type: str | None = None, name: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.resource_type = resource_type
        self.name = name

    def body(self) -> dict:
        return {
            "message": self.message,
            "resourceType": self.resource_type,
            "resourceName": self.name,
            "code": self.status,
        }


def bad_request(message: str) -> RestError:
    return RestError(400, message)


def from_core(error: PaimonError, database: str | None = None, table: str | None = None) -> RestError:
    """The REST answer to a core error raised while serving ``database``/``table``."""
    from paimon_core.maintain import BranchAlreadyExists, BranchNotFound, TagAlreadyExists, TagNotFound

    message = str(error)
    if isinstance(error, UnsupportedByCatalog):  # Java's UnsupportedOperationException
        return RestError(501, message)
    for kind, status, resource, name_of in _OBJECT_ERRORS:
        if isinstance(error, kind):
            return RestError(status, message, resource, name_of(error))
    if isinstance(error, TagNotFound):
        return RestError(404, message, TAG, error.name)
    if isinstance(error, BranchNotFound):
        return RestError(404, message, BRANCH, error.name)
    if isinstance(error, TagAlreadyExists):
        return RestError(409, message, TAG, error.name)
    if isinstance(error, BranchAlreadyExists):
        return RestError(409, message, BRANCH, error.name)
    if isinstance(error, TableNotFound):
        return RestError(404, message, TABLE, table)
    if isinstance(error, (DatabaseNotFound, WarehouseNotFound)):
        return RestError(404, message, DATABASE, database)
    if isinstance(error, SnapshotNotFound):
        return RestError(404, message, SNAPSHOT, table)
    if isinstance(error, NotFound):
        return RestError(404, message, UNKNOWN, table or database)
    if isinstance(error, TableAlreadyExists):
        return RestError(409, message, TABLE, table)
    if isinstance(error, AlreadyExists):
        return RestError(409, message, DATABASE if table is None else TABLE, table or database)
    if isinstance(error, (InvalidInput, UnsupportedFeature)):
        return RestError(400, message)
    return RestError(500, message)


def _object(error) -> str:
    """The object name of a view or function error (``db.name`` -> ``name``), as Java sends it."""
    return str(error.name).split(".", 1)[-1]


# view and function errors: (error, status, resourceType, resourceName), as Java's test server
_OBJECT_ERRORS = (
    (ViewNotFound, 404, VIEW, _object),
    (ViewAlreadyExists, 409, VIEW, _object),
    (DialectNotFound, 404, DIALECT, lambda e: e.dialect),
    (DialectAlreadyExists, 409, DIALECT, lambda e: e.dialect),
    (FunctionNotFound, 404, FUNCTION, _object),
    (FunctionAlreadyExists, 409, FUNCTION, _object),
    (DefinitionNotFound, 404, DEFINITION, lambda e: e.definition),
    (DefinitionAlreadyExists, 409, DEFINITION, lambda e: e.definition),
)
