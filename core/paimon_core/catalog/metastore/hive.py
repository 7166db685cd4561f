"""Hive Metastore catalog: databases and tables registered over Thrift (``uri =
"thrift://host:9083"``) as Java Paimon 0.9's ``HiveCatalog`` registers them (see hive_tables.py),
table files on the warehouse storage. The Thrift client is pymetastore's generated code.

* Databases get ``locationUri = <warehouse>/<db>.db``; a table's location is the one the
  metastore holds (``sd.location``), for tables created by other engines too.
* ``metastore.partitioned-table``: after each commit, the partitions of the files it added are
  registered (``add_partition`` if absent), as Java's ``AddPartitionCommitCallback`` does.
* A schema change rewrites the registered columns and parameters; if the metastore refuses, the
  new schema file is deleted again (Java's order and rollback).
* Views are metastore ``VIRTUAL_VIEW`` tables as Java writes them (hive_views.py); functions are
  kept only in the JDBC database ``catalog-objects.jdbc-uri`` names (Java's HiveCatalog has none).
* ``lock.enabled``: commits and schema changes hold a metastore EXCLUSIVE table lock
  (``lock``/``check_lock``/``unlock``), Java's ``HiveCatalogLock``.
"""

from __future__ import annotations

import contextlib
import copy
import getpass
import socket
import time
import urllib.parse
from typing import TYPE_CHECKING

from paimon_core.catalog.metastore import hive_tables as H
from paimon_core.catalog.metastore.base import MetastoreCatalog
from paimon_core.catalog.metastore.hive_views import HiveViews
from paimon_core.catalog.metastore.jdbc_objects import open_objects_store
from paimon_core.errors import (
    AlreadyExists,
    CatalogUnavailable,
    DatabaseNotFound,
    InvalidInput,
    TableAlreadyExists,
    TableNotFound,
)
from paimon_core.options.catalog_options import HIVE_OPTIONS, METASTORE_CLIENT_TIMEOUT
from paimon_core.options.view import OptionView

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


def _thrift():
    try:
        from pymetastore.hive_metastore import ThriftHiveMetastore, ttypes
        from thrift.protocol.TBinaryProtocol import TBinaryProtocol
        from thrift.Thrift import TException
        from thrift.transport import TSocket, TTransport
    except ImportError as e:
        raise InvalidInput(
            f"the hive catalog needs the pymetastore package (pip install pymetastore): {e}"
        ) from None

    return ThriftHiveMetastore, ttypes, TBinaryProtocol, TSocket, TTransport, TException


class HiveCatalog(MetastoreCatalog):
    kind = "hive"
    extra_options = HIVE_OPTIONS

    def __init__(self, warehouse: str, options: dict, storage_options: dict | None = None):
        super().__init__(warehouse, options, storage_options)
        parts = urllib.parse.urlsplit(self.uri)
        if parts.scheme != "thrift" or not parts.hostname:
            raise InvalidInput(f"hive catalog uri '{self.uri}': use thrift://HOST:PORT")
        self.host, self.port = parts.hostname, parts.port or 9083
        Client, self.T, Protocol, TSocket, TTransport, self.TException = _thrift()
        sock = TSocket.TSocket(self.host, self.port)
        sock.setTimeout(OptionView(self.options).get(METASTORE_CLIENT_TIMEOUT))
        self._transport = TTransport.TBufferedTransport(sock)
        try:
            self._transport.open()
        except TTransport.TTransportException as e:
            raise CatalogUnavailable(f"cannot reach the hive metastore {self.uri}: {_reason(e)}") from None
        self.client = Client.Client(Protocol(self._transport))
        self.view_store = HiveViews(self)
        self.function_store = open_objects_store(self.options)  # Java's HiveCatalog keeps none

    def close(self) -> None:
        super().close()
        with contextlib.suppress(Exception):
            self._transport.close()

    def _call(self, name: str, *args, missing=None):
        """One metastore call; NoSuchObjectException -> ``missing`` (or raised as is when None)."""
        try:
            return getattr(self.client, name)(*args)
        except self.T.NoSuchObjectException:
            if missing is None:
                raise
            return missing()
        except (self.T.MetaException, self.T.InvalidOperationException, self.T.AlreadyExistsException) as e:
            raise CatalogUnavailable(f"hive metastore {self.uri} refused {name}: {_reason(e)}") from None
        except self.TException as e:
            raise CatalogUnavailable(f"hive metastore {self.uri}: {name} failed: {_reason(e)}") from None

    # ---- locations
    def _to_path(self, location: str) -> str:
        """A metastore location URI as a path of this catalog's FileIO."""
        if ":" not in location:
            return location
        path = self.io.path_of(location)
        if path is None:
            raise InvalidInput(f"location {location} is not on the warehouse's storage ({self.warehouse})")
        return path

    def _table_or_none(self, db: str, table: str):
        return self._call("get_table", db, table, missing=lambda: None)

    def table_path(self, db: str, table: str) -> str:
        t = self._table_or_none(db, table)
        if t is not None and t.sd is not None and t.sd.location:
            return self._to_path(t.sd.location)
        d = self._call("get_database", db, missing=lambda: None)
        if d is not None and d.locationUri:
            return self.io.join(self._to_path(d.locationUri), table)
        return super().table_path(db, table)

    # ---- databases
    def _db_names(self) -> list[str]:
        return list(self._call("get_all_databases"))

    def _db_registered(self, db: str) -> bool:
        return self._call("get_database", db, missing=lambda: None) is not None

    def _db_register(self, db: str, properties: dict[str, str]) -> None:
        """As Java's HiveCatalog: ``comment`` becomes the description, ``location`` the location
        (made if missing; its tables go there), every other property a parameter."""
        params = {k: v for k, v in properties.items() if k not in ("comment", "location")}
        location = properties.get("location")
        if location is not None:
            self.io.mkdirs(self._to_path(location))
        database = self.T.Database(
            name=db,
            description=properties.get("comment"),
            locationUri=location if location is not None else self.io.uri(self.db_path(db)),
            parameters=params,
        )
        try:
            self.client.create_database(database)
        except self.T.AlreadyExistsException:
            pass  # created by another process meanwhile
        except self.TException as e:
            raise CatalogUnavailable(
                f"hive metastore {self.uri} refused create_database: {_reason(e)}"
            ) from None

    def _db_properties(self, db: str) -> dict[str, str]:
        d = self._call("get_database", db)
        out = dict(d.parameters or {})
        if d.description:
            out["comment"] = d.description
        if d.locationUri:
            out["location"] = d.locationUri
        return out

    def _db_unregister(self, db: str) -> None:
        self._call("drop_database", db, True, True, missing=lambda: None)

    def _db_alter(self, db: str, updates: dict[str, str], removals: list[str]) -> None:
        """As Java's alterDatabaseImpl: the parameters changed in place (``comment`` is the
        description, as at creation)."""
        d = self._call("get_database", db)
        params = dict(d.parameters or {})
        for k, v in updates.items():
            if k == "comment":
                d.description = v
            else:
                params[k] = v
        for k in removals:
            if k == "comment":
                d.description = None
            else:
                params.pop(k, None)
        d.parameters = params
        self._call("alter_database", db, d)

    # ---- tables
    def _table_names(self, db: str) -> list[str]:
        """Paimon tables only (Java lists a table only if it is a Paimon table with a schema)."""
        out = []
        for name in self._call("get_all_tables", db, missing=lambda: []):
            t = self._table_or_none(db, name)
            if t is not None and _is_paimon(t):
                out.append(name)
        return out

    def _table_registered(self, db: str, table: str) -> bool:
        t = self._table_or_none(db, table)
        return t is not None and _is_paimon(t)

    def _hms_table(self, db: str, name: str, schema, location: str):
        T = self.T
        cols, part_cols = H.hive_columns(schema)
        now = int(time.time())
        sd = T.StorageDescriptor(
            cols=[T.FieldSchema(n, t, c) for n, t, c in cols],
            location=location,
            inputFormat=H.INPUT_FORMAT,
            outputFormat=H.OUTPUT_FORMAT,
            serdeInfo=T.SerDeInfo(serializationLib=H.SERDE, parameters={}),
        )
        return T.Table(
            tableName=name,
            dbName=db,
            owner=getpass.getuser(),
            createTime=now,
            lastAccessTime=now,
            retention=2147483647,
            sd=sd,
            partitionKeys=[T.FieldSchema(n, t, c) for n, t, c in part_cols],
            parameters=H.table_parameters(schema),
            tableType="MANAGED_TABLE",
        )

    def _registration_place(self, db: str, name: str, path: str) -> str:
        """The metastore keeps each table's location: any folder on the warehouse's storage."""
        return self._storage_path(path)

    def _table_register(self, db: str, table: str, schema) -> None:
        self._table_register_at(db, table, schema, self.table_path(db, table))

    def _table_register_at(self, db: str, table: str, schema, path: str) -> None:
        location = self.io.uri(path)
        try:
            self.client.create_table(self._hms_table(db, table, schema, location))
        except self.T.AlreadyExistsException:
            raise TableAlreadyExists(f"{db}.{table}") from None
        except self.TException as e:
            raise CatalogUnavailable(
                f"hive metastore {self.uri} refused create_table: {_reason(e)}"
            ) from None

    def _table_unregister(self, db: str, table: str) -> None:
        self._call("drop_table", db, table, True, missing=lambda: None)

    def drop_table(self, identifier: str, ignore_if_missing: bool = False) -> None:
        from paimon_core.catalog.names import parse_identifier

        db, name = parse_identifier(identifier)
        path = self.table_path(db, name) if self._table_registered(db, name) else None
        if path is None:
            return super().drop_table(identifier, ignore_if_missing)
        self._table_unregister(db, name)
        self.io.delete_dir(path)

    def rename_table(self, identifier: str, new_identifier: str) -> None:
        from paimon_core.catalog.names import parse_identifier

        db, name = parse_identifier(identifier)
        db2, name2 = parse_identifier(new_identifier)
        self._check_name("table", name2)
        t = self._table_or_none(db, name)
        if t is None or not _is_paimon(t):
            raise TableNotFound(f"{db}.{name}")
        if self._table_or_none(db2, name2) is not None:
            raise TableAlreadyExists(f"{db2}.{name2}")
        if not self._db_registered(db2):
            raise DatabaseNotFound(db2)
        src = self._to_path(t.sd.location)
        new = copy.deepcopy(t)
        new.dbName, new.tableName = db2, name2
        self._call("alter_table", db, name, new)
        if self.io.exists(src):  # the metastore may have moved a managed table's folder itself
            d = self._call("get_database", db2)
            dst = self.io.join(self._to_path(d.locationUri), name2)
            if self.io.exists(dst):
                raise AlreadyExists(f"cannot rename: {self.io.uri(dst)} already exists on storage")
            self._rename_dir(src, dst)
            new.sd.location = self.io.uri(dst)
            self._call("alter_table", db2, name2, new)

    def _table_rename(
        self, db: str, table: str, db2: str, table2: str
    ) -> None:  # rename_table above does it all
        raise NotImplementedError

    # ---- partitions
    def create_partitions(
        self, identifier: str, specs: list[dict[str, str | None]], ignore_if_exists: bool = True
    ) -> tuple[list[int], list[int]]:
        """Metastore partitions of a ``metastore.partitioned-table`` table, registered without
        data (as Java's HiveCatalog.createPartitions); all or nothing when not
        ``ignore_if_exists`` (AlreadyExists names the first that exists)."""
        from paimon_core.catalog.names import parse_identifier
        from paimon_core.data.partition import escape_path_name

        table = self.get_table(identifier)
        if not H.partitioned_in_metastore(table.schema):
            return super().create_partitions(identifier, specs, ignore_if_exists)
        db, name = parse_identifier(identifier)
        keys = table.partition_codec.keys
        rows = []
        for spec in specs:
            if sorted(spec) != sorted(keys) or any(v is None for v in spec.values()):
                raise InvalidInput(f"partition {spec} must give a value for each of {', '.join(keys)}")
            values = [str(spec[k]) for k in keys]
            there = self._call("get_partition", db, name, values, missing=lambda: None) is not None
            rows.append((values, there))
        existed = [i for i, (_v, there) in enumerate(rows) if there]
        if existed and not ignore_if_exists:
            raise AlreadyExists(f"partition {specs[existed[0]]} of {db}.{name} already exists")
        hms = self._call("get_table", db, name)
        for values, there in rows:
            if not there:
                rel = "/".join(f"{k}={escape_path_name(v)}" for k, v in zip(keys, values))
                self._add_partition(db, name, hms, rel, values)
        return [i for i, (_v, there) in enumerate(rows) if not there], existed

    # ---- hooks
    def mark_done(
        self, db: str, name: str, table: TableContext, partitions: Sequence[tuple], action: str
    ) -> bool:
        """Java's Hive mark-done actions: ``done-partition`` registers the partition with
        ``.done`` after its last value (once; no files), ``mark-event`` marks it LOAD_DONE."""
        if action not in ("done-partition", "mark-event"):
            return False
        codec = table.partition_codec
        hms = self._call("get_table", db, name)
        for p in partitions:
            values = [_unescape(seg.split("=", 1)[1]) for seg in codec.path(p).split("/")]
            if action == "mark-event":
                spec = dict(zip(codec.keys, values))
                event = self.T.PartitionEventType.LOAD_DONE
                self._call("markPartitionForEvent", db, name, spec, event, missing=lambda: None)
                continue
            values[-1] += ".done"
            self._add_partition(
                db, name, hms, "/".join(f"{k}={v}" for k, v in zip(codec.keys, values)), values
            )
        return True

    def _add_partition(self, db: str, name: str, hms, rel: str, values: list[str]) -> None:
        """Register a partition at ``rel`` under the table's location unless it is there already."""
        if self._call("get_partition", db, name, values, missing=lambda: None) is not None:
            return
        sd = copy.deepcopy(hms.sd)
        sd.location = hms.sd.location.rstrip("/") + "/" + rel
        now = int(time.time())
        part = self.T.Partition(
            values=values, dbName=db, tableName=name, createTime=now, lastAccessTime=now, sd=sd
        )
        try:
            self.client.add_partition(part)
        except self.T.AlreadyExistsException:
            pass  # added by a concurrent writer

    def after_partitions_dropped(
        self, db: str, name: str, table: TableContext, partitions: Sequence[tuple]
    ) -> None:
        """Dropped partitions leave the metastore too (their files stay for time travel)."""
        if not H.partitioned_in_metastore(table.schema):
            return
        codec = table.partition_codec
        for p in partitions:
            values = [_unescape(seg.split("=", 1)[1]) for seg in codec.path(p).split("/")]
            self._call("drop_partition", db, name, values, False, missing=lambda: None)

    def after_commit(
        self, db: str, name: str, table: TableContext, snapshot: Snapshot, messages: Sequence[CommitMessage]
    ) -> None:
        if not H.partitioned_in_metastore(table.schema):
            return
        codec = table.partition_codec
        hms = self._call("get_table", db, name)
        seen = set()
        for m in messages:
            if not m.new_files or m.partition in seen:
                continue
            seen.add(m.partition)
            rel = codec.path(m.partition)
            values = [seg.split("=", 1)[1] for seg in rel.split("/")]
            values = [_unescape(v) for v in values]
            try:
                self._add_partition(db, name, hms, rel, values)
            except self.TException as e:
                raise CatalogUnavailable(
                    f"hive metastore {self.uri}: snapshot {snapshot.id} is committed, but "
                    f"adding partition {rel} failed: {_reason(e)}"
                ) from None

    def after_schema_change(self, db: str, name: str, table: TableContext, schema: TableSchema) -> None:
        try:
            hms = self._call("get_table", db, name)
            cols, part_cols = H.hive_columns(schema)
            T = self.T
            hms.parameters = {**(hms.parameters or {}), **H.table_parameters(schema)}
            hms.sd.cols = [T.FieldSchema(n, t, c) for n, t, c in cols]
            if part_cols:
                hms.partitionKeys = [T.FieldSchema(n, t, c) for n, t, c in part_cols]
            ctx = T.EnvironmentContext(properties={"CASCADE": "true"})
            self._call("alter_table_with_environment_context", db, name, hms, ctx)
        except BaseException:
            table.io.delete(table.schemas.path(schema.id))  # keep files and metastore in step
            raise

    # ---- lock
    @contextlib.contextmanager
    def table_lock(self, db: str, table: str) -> Iterator[None]:
        if not self.lock_enabled:
            yield
            return
        T = self.T
        # Java unsets operationType; a metastore in test mode refuses that, and NO_TXN says the same
        # (a lock outside any transaction)
        comp = T.LockComponent(
            type=T.LockType.EXCLUSIVE,
            level=T.LockLevel.TABLE,
            dbname=db,
            tablename=table,
            operationType=T.DataOperationType.NO_TXN,
            isTransactional=None,
            isDynamicPartitionWrite=None,
        )
        req = T.LockRequest(
            component=[comp], user=getpass.getuser(), hostname=socket.gethostname(), agentInfo=None
        )
        resp = self._call("lock", req)
        start, sleep = time.monotonic(), 0.05
        while resp.state == T.LockState.WAITING:
            sleep = min(sleep * 2, self.lock_check_max_sleep_ms / 1000)
            time.sleep(sleep)
            resp = self._call("check_lock", T.CheckLockRequest(lockid=resp.lockid))
            if (time.monotonic() - start) * 1000 > self.lock_acquire_timeout_ms:
                break
        if resp.state != T.LockState.ACQUIRED:
            if resp.state == T.LockState.WAITING:
                self._call("unlock", T.UnlockRequest(lockid=resp.lockid))
            raise CatalogUnavailable(
                f"could not take the hive metastore lock on {db}.{table} within "
                f"{self.lock_acquire_timeout_ms} ms (lock-acquire-timeout)"
            )
        try:
            yield
        finally:
            self._call("unlock", T.UnlockRequest(lockid=resp.lockid))


def _is_paimon(t) -> bool:
    sd = t.sd
    return sd is not None and sd.inputFormat == H.INPUT_FORMAT and sd.outputFormat == H.OUTPUT_FORMAT


def _reason(e: BaseException) -> str:
    msg = getattr(e, "message", None) or str(e) or type(e).__name__
    return msg.strip().splitlines()[0]


def _unescape(v: str) -> str:
    from paimon_core.data.partition import unescape_path_name

    return unescape_path_name(v)
