"""What each REST operation does, over a core ``Catalog`` (filesystem, JDBC or Hive) only.

Invariants: a refused request changes nothing; a commit creates ``snapshot-N`` through the
table's own commit primitive (``SnapshotManager.try_commit`` under the catalog's lock), so it is
atomic and a lost race is the spec's ``{"success": false}``, never an overwrite; a table's id is
``db.table.<schema-0 creation millis>``, so a table dropped and created again under the same name
refuses commits meant for the old one (404, as Java's server answers).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from paimon_cli.rest.errors import SNAPSHOT, TABLE, RestError, bad_request, from_core
from paimon_cli.rest.names import checked
from paimon_cli.rest.paging import like, page
from paimon_cli.rest.tokens import DEFAULT_LIFETIME_MS, table_token
from paimon_core.catalog.metastore.rest import wire
from paimon_core.errors import InvalidInput, PaimonError
from paimon_core.table import TableAt

if TYPE_CHECKING:
    from paimon_core.catalog import Catalog
    from paimon_core.table import FileStoreTable

T = TypeVar("T")


def _wire(read: Callable[..., T], *args) -> T:
    """``read(*args)`` of a ``wire`` reader; a malformed object is a 400 naming what is wrong."""
    try:
        return read(*args)
    except InvalidInput as e:
        raise bad_request(str(e)) from None


def _obj(body: Any, what: str) -> dict:
    return _wire(wire.obj, body, what)


def _field(body: dict, key: str, kind: type, what: str, required: bool = True) -> Any:
    return _wire(wire.field, body, key, kind, what, required)


class CatalogService:
    """The REST operations of one catalog; each returns the response body (None: no content).
    Lists are paged (``paging.py``): ``nextPageToken`` is null on the last page, as Java's test
    server sends it (pypaimon 2.1 needs the key; the spec types it string-only). Tags, branches
    and snapshots are ``versions.py``'s, partitions ``partitions.py``'s, views and functions
    ``views.py``'s and ``functions.py``'s."""

    def __init__(self, catalog: Catalog, prefix: str, token_lifetime_ms: int = DEFAULT_LIFETIME_MS):
        self.catalog = catalog
        self.prefix = prefix
        self.token_lifetime_ms = token_lifetime_ms

    def _core(self, fn, db: str | None = None, table: str | None = None):
        try:
            return fn()
        except PaimonError as e:
            raise from_core(e, db, table) from None

    core = _core  # for the endpoint modules

    @staticmethod
    def obj(body: Any, what: str) -> dict:
        return _obj(body, what)

    def require_database(self, db: str) -> None:
        if not self._core(lambda: self.catalog.database_exists(db), db):
            raise RestError(404, f"database '{db}' does not exist", "DATABASE", db)

    # ---- config
    def config(self) -> dict:
        return {"defaults": {"prefix": self.prefix}, "overrides": {}}

    # ---- databases
    def list_databases(self, query: dict) -> dict:
        matches = like(query.get("databaseNamePattern"))
        names = [n for n in self._core(self.catalog.list_databases) if matches(n)]
        chunk, token = page(names, query)
        return {"databases": chunk, "nextPageToken": token}

    def create_database(self, body: Any) -> None:
        body = _obj(body, "CreateDatabaseRequest")
        name = checked(body.get("name"), "database")
        options = body.get("options") or {}
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise bad_request("malformed request: 'options' must map names to strings")
        if self.catalog.database_exists(name):
            raise RestError(409, f"database '{name}' already exists", "DATABASE", name)
        self._core(lambda: self.catalog.create_database(name, False, options or None), name)

    def get_database(self, db: str) -> dict:
        props = self._core(lambda: self.catalog.database_properties(db), db)
        return {"id": db, "name": db, "location": self.catalog.db_path(db), "options": props}

    def drop_database(self, db: str) -> None:
        self._core(lambda: self.catalog.drop_database(db, cascade=True), db)

    # ---- tables
    def _table(self, db: str, name: str) -> FileStoreTable:
        """Table ``name`` of ``db``; ``t$branch_b`` is branch ``b`` of table ``t``."""
        return self._core(lambda: self.catalog.get_table(f"{db}.{name}"), db, name)

    table = _table  # for the endpoint modules

    def table_id(self, table: FileStoreTable) -> str:
        """The id of the table (its branches share it): ``db.t.<schema-0 creation millis>``."""
        return f"{table.main_identifier}.{table.created_millis()}"

    def get_table(self, db: str, name: str) -> dict:
        table = self._table(db, name)
        return {
            "id": self.table_id(table),
            "database": db,
            "name": name,
            "path": table.io.uri(table.path),  # with its scheme: s3://bucket/...
            "isExternal": False,
            "schemaId": table.schema.id,
            "schema": wire.schema_json(table.schema),
        }

    def create_table(self, db: str, body: Any) -> None:
        body = _obj(body, "CreateTableRequest")
        ident = _obj(body.get("identifier"), "identifier")
        if ident.get("database", db) != db:
            raise bad_request(f"identifier names database {ident.get('database')!r}, the path {db!r}")
        name = checked(ident.get("object"), "table")
        schema = _wire(wire.schema_from_json, _obj(body.get("schema"), "schema"))
        if "path" in schema.options:  # as Java's catalogs (validateCustomTablePath)
            raise bad_request(
                "this catalog does not support specifying the table path ('path' option) when creating "
                "a table: the catalog places the table in its database"
            )
        if not self.catalog.database_exists(db):
            raise RestError(404, f"database '{db}' does not exist", "DATABASE", db)
        self._core(lambda: self.catalog.create_table(f"{db}.{name}", schema), db, name)

    def drop_table(self, db: str, name: str) -> None:
        self._table(db, name)
        self._core(lambda: self.catalog.drop_table(f"{db}.{name}"), db, name)

    def rename_table(self, body: Any) -> None:
        body = _obj(body, "RenameTableRequest")
        src, dst = _obj(body.get("source"), "source"), _obj(body.get("destination"), "destination")
        sdb, sname = checked(src.get("database"), "database"), checked(src.get("object"), "table")
        ddb, dname = checked(dst.get("database"), "database"), checked(dst.get("object"), "table")
        self._table(sdb, sname)
        if self.catalog.table_exists(f"{ddb}.{dname}"):
            raise RestError(409, f"table '{ddb}.{dname}' already exists", TABLE, dname)
        self._core(lambda: self.catalog.rename_table(f"{sdb}.{sname}", f"{ddb}.{dname}"), ddb, dname)

    def alter_table(self, db: str, name: str, body: Any) -> None:
        body = _obj(body, "AlterTableRequest")
        changes = body.get("changes")
        if not isinstance(changes, list) or not changes:
            raise bad_request("malformed request: AlterTableRequest needs a non-empty 'changes' list")
        parsed = [_wire(wire.change_from_json, _obj(c, "a schema change")) for c in changes]
        table = self._table(db, name)
        from paimon_core.ops.alter import alter_table

        self._core(lambda: alter_table(table, parsed), db, name)

    def table_token(self, db: str, name: str) -> dict:
        """The storage credentials of the table (``rest.tokens``)."""
        return table_token(self._table(db, name).io, self.token_lifetime_ms)

    # ---- snapshots and commits
    def table_snapshot(self, db: str, name: str) -> dict:
        table = self._table(db, name)
        snap = table.snapshots.latest()
        if snap is None:
            raise RestError(404, f"table '{db}.{name}' has no snapshot", SNAPSHOT, name)
        files = self._core(lambda: TableAt(table, snap).data_files(), db, name)  # the snapshot just read
        created = [_millis(f.creation_time) for f in files]
        return {
            "snapshot": {
                "snapshot": json.loads(snap.to_json()),
                "recordCount": snap.total_record_count,
                "fileSizeInBytes": sum(f.file_size for f in files),
                "fileCount": len(files),
                "lastFileCreationTime": max(created, default=0),
            }
        }

    def commit(self, db: str, name: str, body: Any) -> dict:
        body = _obj(body, "CommitTableRequest")
        table_id = _field(body, "tableId", str, "CommitTableRequest", required=False)
        base = _field(body, "baseSnapshotUuid", str, "CommitTableRequest", required=False)
        snap = _wire(wire.snapshot_from_json, _obj(body.get("snapshot"), "snapshot"))
        table = self._table(db, name)
        if table_id is not None and table_id != self.table_id(table):
            raise RestError(404, f"table '{db}.{name}' is not the table {table_id}", TABLE, name)
        if snap.schema_id not in table.schemas.list_ids():  # the branch's own schemas on a branch
            raise bad_request(f"snapshot {snap.id} names schema {snap.schema_id}, which the table lacks")
        latest = table.snapshots.latest()
        # a client that names its base (Java 2.0) must have built on the latest; one that does not
        # (Java 1.4.2, whose snapshots have no uuid) is checked by the snapshot id alone, as the
        # filesystem catalog checks it
        stale_base = base is not None and (latest.uuid if latest else None) != base
        if stale_base or snap.id != (latest.id + 1 if latest else 1):
            return {"success": False}  # built on a snapshot that is no longer the latest
        with table.env.lock():
            ok = table.snapshots.try_commit(snap)
        return {"success": bool(ok)}


def _millis(value) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    return int(value.timestamp() * 1000)
