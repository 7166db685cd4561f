"""The REST catalog client: databases and tables of a Paimon REST catalog server (the OpenAPI
spec of apache/paimon ``docs/static/rest-catalog-open-api.yaml``), table files read and written
on the storage path the server gives for each table.

Tags and branches are created, deleted and fast-forwarded by the server (``RestVersions``),
as Java's client does when the catalog supports version management; views and functions are
the server's too (its ``views``/``functions`` endpoints).

Options (Paimon's REST catalog keys): ``uri`` (required), ``token`` with ``token.provider``
``bear`` (the default when a token is given) or ``token.provider=dlf`` with the ``dlf.*`` keys
(``rest.auth``), ``prefix`` (default: what ``/v1/config`` answers), ``header.NAME`` extra request
headers, ``data-token.enabled`` (table files through the credentials the server vends,
``rest.token_io``). Invariant: a commit of a main-branch table is decided by
the server (``POST .../commit``): the snapshot is created there or the commit retries on the new
latest; this client never creates a main-branch snapshot file itself.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from paimon_core.catalog.base import Catalog, DatabaseChange
from paimon_core.catalog.functions import Function, FunctionChange
from paimon_core.catalog.metastore.rest.auth import RestAuth
from paimon_core.catalog.metastore.rest.wire import changes_json, paged, schema_json
from paimon_core.catalog.names import parse_identifier
from paimon_core.catalog.objects import parse_function_identifier
from paimon_core.catalog.views import View, ViewChange
from paimon_core.errors import (
    AlreadyExists,
    CatalogUnavailable,
    CorruptMetadata,
    DatabaseNotFound,
    FunctionAlreadyExists,
    FunctionNotFound,
    InvalidInput,
    NotFound,
    SnapshotNotFound,
    TableAlreadyExists,
    TableNotFound,
    UnsupportedByCatalog,
    ViewAlreadyExists,
    ViewNotFound,
)
from paimon_core.metadata.branches import BranchAlreadyExists, BranchNotFound, is_main, with_branch
from paimon_core.metadata.schema import Schema, SchemaManager, TableSchema
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.metadata.table_context import CatalogEnvironment, TableContext, VersionCatalog
from paimon_core.metadata.tags import TagAlreadyExists, TagNotFound
from paimon_core.options.catalog_options import (
    AUTH_OPTIONS,
    DATA_TOKEN_ENABLED,
    PREFIX,
    REST_OPTIONS,
    URI,
    WAREHOUSE,
)
from paimon_core.options.view import OptionView
from paimon_core.storage.file_io import FileIO
from paimon_core.table import FileStoreTable

if TYPE_CHECKING:
    from paimon_core.metadata.schema_evolution import SchemaChange
    from paimon_core.metadata.table_context import SchemaCheck

_KNOWN = tuple(o.key for o in (*REST_OPTIONS, *AUTH_OPTIONS))


class RestEnvironment(CatalogEnvironment):
    """A table of a REST catalog: commits and schema changes go to the server; a branch's go to
    the branch's own address (``t$branch_b``, as Java's client sends them)."""

    def __init__(
        self, catalog: RestCatalog, db: str, name: str, table_id: str | None, audit: dict | None = None
    ):
        self.catalog, self.db, self.name, self.table_id = catalog, db, name, table_id
        self.audit: dict[str, str | None] = audit or {}  # Java's audit options (_audit_options)

    def table_path(self, table: TableContext) -> str:
        """``databases/<db>/tables/<t>`` (``<t>$branch_<b>`` for a branch of the table)."""
        name = self.name if is_main(table.branch) else with_branch(self.name, table.branch)
        return f"databases/{_q(self.db)}/tables/{_q(name)}"

    def versions(self) -> VersionCatalog:
        return RestVersions(self)

    def consumers(self) -> RestConsumers:
        """The table's consumers, kept by the server (``maintain.consumers.ConsumerCatalog``)."""
        return RestConsumers(self)

    def mark_done(self, table: TableContext, partitions: Sequence[tuple], action: str) -> None:
        """``done-partition``: the server marks the partitions done (``partitions/mark``, as
        Java's client sends it); other metastore actions are refused as elsewhere."""
        if action != "done-partition":
            super().mark_done(table, partitions, action)
            return
        if not partitions:
            return  # the check before any action runs: this one can
        from paimon_core.maintain.partitions import java_strings

        keys = table.partition_codec.keys
        default = table.partition_codec.default_name
        specs = [
            {k: default if v is None else v for k, v in zip(keys, java_strings(table, values))}
            for values in partitions
        ]
        self.catalog.call("POST", f"{self.table_path(table)}/partitions/mark", {"specs": specs})

    def commit_snapshot(self, table: TableContext, snapshot: Snapshot) -> bool:
        base = table.snapshots.snapshot(snapshot.id - 1).uuid if snapshot.id > 1 else None
        body = {
            "tableId": self.table_id,
            "baseSnapshotUuid": base,
            "snapshot": json.loads(snapshot.to_json()),
            "statistics": [],
        }
        answer = self.catalog.call("POST", f"{self.table_path(table)}/commit", body)
        return bool(answer and answer.get("success"))

    def commit_schema_changes(
        self, table: TableContext, changes: Sequence[SchemaChange], check: SchemaCheck
    ) -> TableSchema:
        """The changes are checked here against the latest schema and the stored data (as a
        dry run would), then sent to the alter-table endpoint; the server writes the schema."""
        from paimon_core.metadata.schema_evolution import apply_changes

        latest = table.schemas.latest() or table.schema
        new = apply_changes(latest, changes, has_snapshot=table.snapshots.latest() is not None)
        if check is not None:
            check(latest, new)
        self.catalog.call("POST", self.table_path(table), {"changes": changes_json(changes)})
        committed = table.schemas.latest()
        if committed is None or committed.id <= latest.id:
            raise CorruptMetadata(
                f"the REST catalog accepted the change of {table.identifier} but wrote no schema"
            )
        return committed


class RestVersions(VersionCatalog):
    """Tags and branches created and deleted, and rollbacks done, by the server (its tags,
    branches and rollback endpoints); each call is the whole change, decided there."""

    def __init__(self, env: RestEnvironment):
        self.env = env

    def _call(self, table: TableContext, method: str, tail: str, body: Any = None) -> None:
        self.env.catalog.call(method, f"{self.env.table_path(table)}/{tail}", body)

    def create_tag(
        self, table: TableContext, name: str, snapshot_id: int, time_retained_ms: int | None
    ) -> None:
        body: dict[str, Any] = {"tagName": name, "snapshotId": snapshot_id}
        if time_retained_ms is not None:
            body["timeRetained"] = f"{time_retained_ms}ms"
        self._call(table, "POST", "tags", body)

    def delete_tag(self, table: TableContext, name: str) -> None:
        self._call(table, "DELETE", f"tags/{_q(name)}")

    def create_branch(self, table: TableContext, name: str, tag: str | None) -> None:
        self._call(table, "POST", "branches", {"branch": name, "fromTag": tag})

    def delete_branch(self, table: TableContext, name: str) -> None:
        self._call(table, "DELETE", f"branches/{_q(name)}")

    def rename_branch(self, table: TableContext, name: str, new_name: str) -> None:
        self._call(table, "POST", f"branches/{_q(name)}/rename", {"toBranch": new_name})

    def fast_forward(self, table: TableContext, name: str) -> None:
        self._call(table, "POST", f"branches/{_q(name)}/forward", {})

    def rollback(self, table: TableContext, snapshot_id: int | None, tag: str | None) -> None:
        instant = (
            {"type": "tag", "tagName": tag}
            if tag is not None
            else {"type": "snapshot", "snapshotId": snapshot_id}
        )
        self._call(table, "POST", "rollback", {"instant": instant})


class RestConsumers:
    """Consumers listed and reset by the server (``consumers``, ``consumers/reset``), as Java's
    ``RESTCatalog.listConsumersPaged``/``resetConsumer`` do."""

    def __init__(self, env: RestEnvironment):
        self.env = env

    def list_consumers(self, table: TableContext) -> dict[str, int]:
        items = self.env.catalog.list_all(f"{self.env.table_path(table)}/consumers", "consumers")
        return {c["consumerId"]: int(c["nextSnapshot"]) for c in items}

    def reset_consumer(self, table: TableContext, consumer_id: str, next_snapshot: int | None) -> None:
        body = {"consumerId": consumer_id, "nextSnapshotId": next_snapshot}
        self.env.catalog.call("POST", f"{self.env.table_path(table)}/consumers/reset", body)


def _q(name: str) -> str:
    return urllib.parse.quote(name, safe="")


class RestCatalog(Catalog):
    kind = "rest"

    def __init__(self, warehouse: str, options: dict, storage_options: dict | None = None):
        unknown = sorted(k for k in options if k not in _KNOWN and not k.startswith("header."))
        if unknown:
            raise InvalidInput(
                f"unknown rest catalog option(s): {', '.join(unknown)} (known: {', '.join(_KNOWN)}, header.*)"
            )
        view = OptionView(options)
        uri = (view.get(URI) or "").rstrip("/")
        if not uri.startswith(("http://", "https://")):
            raise InvalidInput("the rest catalog needs uri=http://HOST:PORT (catalog option 'uri')")
        self.auth = RestAuth(options)
        self.data_tokens = view.get(DATA_TOKEN_ENABLED)
        super().__init__(warehouse, storage_options)
        self.options = dict(options)
        self.uri = uri
        self.headers = {k[len("header.") :]: str(v) for k, v in options.items() if k.startswith("header.")}
        self.storage_options = storage_options
        params = {"warehouse": view.get(WAREHOUSE) or warehouse}
        config = self._request("GET", f"{uri}/v1/config", params=params) or {}
        merged = {**(config.get("defaults") or {}), **options, **(config.get("overrides") or {})}
        self.prefix = OptionView(merged).get(PREFIX) or ""

    def info(self) -> dict:
        return {"catalog": self.kind, "uri": self.uri, "prefix": self.prefix}

    # ---- HTTP
    def _request(self, method: str, url: str, body: Any = None, params: dict | None = None) -> Any:
        text = json.dumps(body) if body is not None else None
        path = urllib.parse.urlsplit(url).path
        # signed as Java signs them: each value URL-encoded once
        signed = {k: urllib.parse.quote_plus(v, safe="*") for k, v in (params or {}).items()}
        auth = self.auth.headers(method, path, signed, text)
        if params:
            url = f"{url}?{urllib.parse.urlencode(params)}"
        headers = {"Content-Type": "application/json", **self.headers, **auth}
        data = text.encode() if text is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raise _error(e.code, e.read()) from None
        except OSError as e:
            raise CatalogUnavailable(f"cannot reach the REST catalog at {self.uri}: {e}") from None
        return json.loads(raw) if raw else None

    def call(self, method: str, path: str, body: Any = None, query: dict | None = None) -> Any:
        prefix = f"/{_q(self.prefix)}" if self.prefix else ""
        tail = f"?{urllib.parse.urlencode(query)}" if query else ""
        return self._request(method, f"{self.uri}/v1{prefix}/{path}{tail}", body)

    def list_all(self, path: str, key: str, max_results: int | None = None) -> list:
        """Every item of the paged list at ``path`` (``nextPageToken`` followed), asking for
        pages of ``max_results`` (default: the server's page size)."""
        size = {"maxResults": str(max_results)} if max_results else {}
        return list(paged(lambda q: self.call("GET", path, query={**size, **q}), key))

    # ---- databases
    def list_databases(self) -> list[str]:
        return sorted(self.list_all("databases", "databases"))

    def database_exists(self, db: str) -> bool:
        try:
            self.call("GET", f"databases/{_q(db)}")
        except DatabaseNotFound:
            return False
        return True

    def create_database(self, db: str, ignore_if_exists: bool = True, properties: dict | None = None) -> None:
        try:
            self.call("POST", "databases", {"name": db, "options": dict(properties or {})})
        except AlreadyExists:
            if not ignore_if_exists:
                raise

    def database_properties(self, db: str) -> dict[str, str]:
        return dict(self.call("GET", f"databases/{_q(db)}").get("options") or {})

    def alter_database(self, db: str, updates: dict[str, str], removals: list[str]) -> DatabaseChange:
        body = {"removals": list(removals), "updates": dict(updates)}
        got = self.call("POST", f"databases/{_q(db)}", body) or {}
        return DatabaseChange(
            list(got.get("removed") or []), list(got.get("updated") or []), list(got.get("missing") or [])
        )

    def register_table(self, identifier: str, path: str) -> None:
        db, name = parse_identifier(identifier)
        body = {"identifier": {"database": db, "object": name}, "path": path}
        self.call("POST", f"databases/{_q(db)}/register", body)

    def drop_database(self, db: str, cascade: bool = False) -> None:
        from paimon_core.catalog.base import not_empty

        tables = self.list_tables(db)
        if tables and not cascade:
            raise not_empty(db, tables)
        self.call("DELETE", f"databases/{_q(db)}")

    # ---- tables
    def list_tables(self, db: str) -> list[str]:
        return sorted(self.list_all(f"databases/{_q(db)}/tables", "tables"))

    def table_exists(self, identifier: str) -> bool:
        try:
            self._get_table(identifier)
        except (TableNotFound, DatabaseNotFound):
            return False
        return True

    def _get_table(self, identifier: str) -> FileStoreTable:
        db, name = parse_identifier(identifier)
        try:
            got = self.call("GET", f"databases/{_q(db)}/tables/{_q(name)}")
        except TableNotFound:
            raise TableNotFound(f"{db}.{name}") from None
        io = self._file_io(db, name, got["path"])
        path = io.root  # the path in FileIO's own form (no scheme)
        schema = SchemaManager(io, path).latest()
        if schema is None:
            raise TableNotFound(f"{db}.{name}")
        table = FileStoreTable(io, path, f"{db}.{name}", schema)
        table.env = RestEnvironment(self, db, name, got.get("id"), _audit_options(got))
        return table

    def load_snapshot(self, identifier: str) -> dict | None:
        """The server's ``TableSnapshot`` of the table's latest snapshot (``recordCount``,
        ``fileSizeInBytes``, ``fileCount``, ``lastFileCreationTime``); None when it has none, the
        table is gone or the server does not serve it (as Java's ``sys.tables`` reads it)."""
        db, name = parse_identifier(identifier)
        try:
            got = self.call("GET", f"databases/{_q(db)}/tables/{_q(name)}/snapshot")
        except (NotFound, UnsupportedByCatalog):  # Java: no snapshot, table gone, not served
            return None
        return (got or {}).get("snapshot")

    def list_partitions(self, identifier: str) -> list[dict] | None:
        """The server's ``Partition`` listing of the table (``spec``, figures, ``done``); None
        where it does not list them (501: Java reads the files then), [] for a table gone."""
        db, name = parse_identifier(identifier)
        try:
            return self.list_all(f"databases/{_q(db)}/tables/{_q(name)}/partitions", "partitions")
        except NotFound:
            return []
        except UnsupportedByCatalog:
            return None

    def _file_io(self, db: str, name: str, path: str) -> FileIO:
        """The table's storage: with ``data-token.enabled``, through the credentials the server
        vends for it (``rest.token_io``); otherwise with this catalog's storage options."""
        if not self.data_tokens:
            return FileIO(path, self.storage_options)
        from paimon_core.catalog.metastore.rest.token_io import TokenFileIO

        def fetch() -> tuple[dict, int]:
            got = self.call("GET", f"databases/{_q(db)}/tables/{_q(name)}/token")
            expires = got.get("expiresAtMillis", got.get("expiresAt"))  # Java's key, the spec's
            return dict(got.get("token") or {}), int(expires)

        return TokenFileIO(path, self.storage_options, fetch)

    def create_table(self, identifier: str, schema: Schema, ignore_if_exists: bool = False) -> FileStoreTable:
        db, name = parse_identifier(identifier)
        ts = schema.to_table_schema(0)  # validated here, as the server will
        body = {
            "identifier": {"database": db, "object": name},
            "schema": schema_json(ts),
        }
        self.create_database(db, ignore_if_exists=True)
        try:
            self.call("POST", f"databases/{_q(db)}/tables", body)
        except AlreadyExists:
            if not ignore_if_exists:
                raise TableAlreadyExists(f"{db}.{name}") from None
        return self.get_table(f"{db}.{name}")

    def replace_table(self, identifier: str, schema: Schema) -> TableSchema:
        """The server replaces the table (``POST .../replace``, Java 2.0's ``ReplaceTableRequest``,
        outside the OpenAPI spec); the schema is validated here first, as for a create."""
        if "$" in identifier:
            return super().replace_table(identifier, schema)  # the refusal, by name
        db, name = parse_identifier(identifier)
        ts = schema.to_table_schema(0)
        try:
            self.call("POST", f"databases/{_q(db)}/tables/{_q(name)}/replace", {"schema": schema_json(ts)})
        except TableNotFound:
            raise TableNotFound(f"{db}.{name}") from None
        return self._get_table(f"{db}.{name}").schema

    def drop_table(self, identifier: str, ignore_if_missing: bool = False) -> None:
        db, name = parse_identifier(identifier)
        try:
            self.call("DELETE", f"databases/{_q(db)}/tables/{_q(name)}")
        except (TableNotFound, DatabaseNotFound):
            if not ignore_if_missing:
                raise TableNotFound(f"{db}.{name}") from None

    def rename_table(self, identifier: str, new_identifier: str) -> None:
        db, name = parse_identifier(identifier)
        db2, name2 = parse_identifier(new_identifier)
        body = {"source": {"database": db, "object": name}, "destination": {"database": db2, "object": name2}}
        self.call("POST", "tables/rename", body)

    # ---- views (the server's; ``CatalogObjects`` over REST)
    def list_views(self, db: str) -> list[str]:
        return sorted(self.list_all(f"databases/{_q(db)}/views", "views"))

    def get_view(self, identifier: str) -> View:
        db, name = parse_identifier(identifier)
        got = self._object_call("GET", f"databases/{_q(db)}/views/{_q(name)}", db, name)
        return View.from_json(got.get("schema"))

    def create_view(self, identifier: str, view: View, ignore_if_exists: bool = False) -> bool:
        db, name = parse_identifier(identifier)
        body = {"identifier": {"database": db, "object": name}, "schema": view.to_json()}
        try:
            self._object_call("POST", f"databases/{_q(db)}/views", db, name, body)
        except ViewAlreadyExists:
            if not ignore_if_exists:
                raise
            return False
        return True

    def drop_view(self, identifier: str, ignore_if_missing: bool = False) -> bool:
        db, name = parse_identifier(identifier)
        try:
            self._object_call("DELETE", f"databases/{_q(db)}/views/{_q(name)}", db, name)
        except ViewNotFound:
            if not ignore_if_missing:
                raise
            return False
        return True

    def rename_view(self, identifier: str, new_identifier: str) -> None:
        db, name = parse_identifier(identifier)
        db2, name2 = parse_identifier(new_identifier)
        body = {"source": {"database": db, "object": name}, "destination": {"database": db2, "object": name2}}
        self._object_call("POST", "views/rename", db, name, body, db2=db2, name2=name2)

    def alter_view(self, identifier: str, changes: list[ViewChange]) -> View:
        db, name = parse_identifier(identifier)
        body = {"changes": [c.to_json() for c in changes]}
        self._object_call("POST", f"databases/{_q(db)}/views/{_q(name)}", db, name, body)
        return self.get_view(identifier)

    # ---- functions
    def list_functions(self, db: str) -> list[str]:
        return sorted(self.list_all(f"databases/{_q(db)}/functions", "functions"))

    def get_function(self, identifier: str) -> Function:
        db, name = parse_function_identifier(identifier)
        got = self._object_call("GET", f"databases/{_q(db)}/functions/{_q(name)}", db, name)
        return Function.from_json(got, name)

    def create_function(self, identifier: str, function: Function, ignore_if_exists: bool = False) -> bool:
        db, name = parse_function_identifier(identifier)
        body = replace(function, name=name).to_json()
        try:
            self._object_call("POST", f"databases/{_q(db)}/functions", db, name, body)
        except FunctionAlreadyExists:
            if not ignore_if_exists:
                raise
            return False
        return True

    def drop_function(self, identifier: str, ignore_if_missing: bool = False) -> bool:
        db, name = parse_function_identifier(identifier)
        try:
            self._object_call("DELETE", f"databases/{_q(db)}/functions/{_q(name)}", db, name)
        except FunctionNotFound:
            if not ignore_if_missing:
                raise
            return False
        return True

    def alter_function(self, identifier: str, changes: list[FunctionChange]) -> Function:
        db, name = parse_function_identifier(identifier)
        body = {"changes": [c.to_json() for c in changes]}
        self._object_call("POST", f"databases/{_q(db)}/functions/{_q(name)}", db, name, body)
        return self.get_function(identifier)

    def _object_call(
        self, method: str, path: str, db: str, name: str, body: Any = None, db2: str = "", name2: str = ""
    ) -> Any:
        """A view or function call; errors name ``db.name`` (``db2.name2`` for a conflict of a
        rename), as the server sends only the object name."""
        try:
            return self.call(method, path, body)
        except (ViewNotFound, FunctionNotFound, ViewAlreadyExists, FunctionAlreadyExists) as e:
            target = f"{db2}.{name2}" if db2 and isinstance(e, ViewAlreadyExists) else f"{db}.{name}"
            named = type(e)(target)
            named.args = e.args  # the server's words (they name the database too)
            raise named from None


# (status, resourceType) -> the core error, made from the resource's name
_BY_NAME: dict[tuple[int, str | None], Callable[[str], Exception]] = {
    (404, "DATABASE"): DatabaseNotFound,
    (404, "TABLE"): TableNotFound,
    (404, "TAG"): TagNotFound,
    (404, "BRANCH"): BranchNotFound,
    (409, "TAG"): TagAlreadyExists,
    (409, "BRANCH"): BranchAlreadyExists,
    (404, "VIEW"): ViewNotFound,
    (409, "VIEW"): ViewAlreadyExists,
    (404, "FUNCTION"): FunctionNotFound,
    (409, "FUNCTION"): FunctionAlreadyExists,
}


def _audit_options(got: dict) -> dict[str, str | None]:
    """The options Java's client adds to a table from its ``GetTableResponse``
    (``putAuditOptionsTo``): ``owner`` as given, the others as text (an absent time is 0, an
    absent user the text ``null``)."""
    text = {k: "null" if got.get(k) is None else str(got[k]) for k in ("createdBy", "updatedBy")}
    times = {k: str(int(got.get(k) or 0)) for k in ("createdAt", "updatedAt")}
    return {"owner": got.get("owner"), **text, **times}


def _error(status: int, raw: bytes) -> Exception:
    """The core error for a REST error answer (the spec's ErrorResponse body)."""
    try:
        body = json.loads(raw)
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    message = str(body.get("message") or raw[:200].decode("utf-8", "replace"))
    kind, name = body.get("resourceType"), str(body.get("resourceName") or "")
    by_name = _BY_NAME.get((status, kind))
    if by_name is not None:
        error = by_name(name)
        if kind in ("VIEW", "FUNCTION") and body.get("message"):
            error.args = (message,)
        return error
    if kind in ("DIALECT", "DEFINITION") and status in (404, 409):  # the server's words name the view
        return (NotFound if status == 404 else AlreadyExists)(message)
    if status == 404 and kind == "SNAPSHOT":
        return SnapshotNotFound(message)
    if status == 409:
        return TableAlreadyExists(name) if kind == "TABLE" else AlreadyExists(message)
    if status == 501:
        return UnsupportedByCatalog(message)
    if status in (401, 403):
        return CatalogUnavailable(f"the REST catalog refused the request ({status}): {message}")
    if status == 400:  # the server's own words (this server: the backing catalog's error)
        return InvalidInput(message)
    return CatalogUnavailable(f"the REST catalog answered {status}: {message}")
