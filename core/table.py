"""A Paimon table on a FileIO: its schema, snapshots, manifests, and the entry points to scan,
read, write and commit. Everything heavier lives in the modules these methods call."""

from __future__ import annotations

import contextlib
from functools import cached_property

import pyarrow as pa
from paimon_core import paths
from paimon_core.commit import CommitMessage, CommitOptions, FileStoreCommit, discard_files
from paimon_core.data.partition import PartitionCodec
from paimon_core.errors import SnapshotNotFound
from paimon_core.metadata.manifest import ManifestStore, manifest_codec
from paimon_core.metadata.schema import SchemaManager, TableSchema
from paimon_core.metadata.snapshot import Snapshot, SnapshotManager
from paimon_core.options import check_supported
from paimon_core.read.predicate import Predicate, bind, parse_where
from paimon_core.read.scan import DataSplit, TableScan, live_entries
from paimon_core.read.table_read import TableRead
from paimon_core.storage.file_io import FileIO


class CatalogEnvironment:
    """What a table loaded through a catalog needs from it at write time (Paimon's
    ``CatalogEnvironment``): a lock around snapshot and schema commits, and hooks that keep the
    metastore in step after a commit or a schema change. The default does nothing."""

    def lock(self):
        """A context manager held while ``snapshot-N`` or ``schema-N`` is created."""
        return contextlib.nullcontext()

    def after_commit(self, table: FileStoreTable, snapshot, messages) -> None:
        """Called once a snapshot is committed (e.g. to add metastore partitions)."""

    def after_schema_change(self, table: FileStoreTable, schema) -> None:
        """Called once a new schema version is committed (e.g. to mirror the columns)."""


NO_ENVIRONMENT = CatalogEnvironment()


class FileStoreTable:
    def __init__(self, io: FileIO, path: str, identifier: str, schema: TableSchema):
        self.io = io
        self.path = path
        self.identifier = identifier
        self.schema = schema
        self.snapshots = SnapshotManager(io, path)
        self.schemas = SchemaManager(io, path)
        self.manifests = ManifestStore(io, path, schema.core_options.get("manifest.compression"))
        self._schema_cache: dict[int, TableSchema] = {schema.id: schema}
        self.env = NO_ENVIRONMENT  # the catalog that loads the table sets its own

    @cached_property
    def partition_codec(self) -> PartitionCodec:
        keys = list(self.schema.partition_keys)
        return PartitionCodec(
            keys, self.schema.types_of(keys), self.schema.core_options.partition_default_name
        )

    def require_readable(self) -> None:
        """Refuse (UnsupportedFeature) a table whose options would make our reads return wrong rows."""
        check_supported(self.schema.options, writing=False, what=f"table {self.identifier}")

    def require_writable(self) -> None:
        """Refuse a table whose options ask writers for something this project does not do."""
        check_supported(self.schema.options, writing=True, what=f"table {self.identifier}")
        manifest_codec(self.schema.core_options.get("manifest.compression"))  # before any file is written

    @property
    def is_primary_key_table(self) -> bool:
        return bool(self.schema.primary_keys)

    def schema_for(self, schema_id: int) -> TableSchema:
        if schema_id not in self._schema_cache:
            self._schema_cache[schema_id] = self.schemas.schema(schema_id)
        return self._schema_cache[schema_id]

    def with_schema(self, schema: TableSchema) -> FileStoreTable:
        """This table seen through another version of its schema (same files and snapshots)."""
        if schema is self.schema:
            return self
        other = FileStoreTable(self.io, self.path, self.identifier, schema)
        other._schema_cache = self._schema_cache
        other.env = self.env
        self._schema_cache.setdefault(schema.id, schema)
        return other

    def for_snapshot(self, snapshot: Snapshot | None) -> FileStoreTable:
        """The table as a snapshot saw it: reads of an older snapshot use the schema it was
        committed with (its columns, names and types); writes keep using the latest schema."""
        if snapshot is None or snapshot.schema_id == self.schema.id:
            return self
        return self.with_schema(self.schema_for(snapshot.schema_id))

    def bucket_path(self, partition: tuple, bucket: int) -> str:
        return paths.bucket_dir(self.path, self.partition_codec.path(partition), bucket)

    # ---- time travel
    def resolve_snapshot(
        self, snapshot_id: int | None = None, as_of_millis: int | None = None, tag: str | None = None
    ) -> Snapshot | None:
        """The snapshot a read should see; None for an empty table read at 'latest'."""
        if snapshot_id is not None:
            if snapshot_id < 1:
                raise SnapshotNotFound(f"snapshot {snapshot_id} does not exist (ids start at 1)")
            return self.snapshots.snapshot(snapshot_id)
        if as_of_millis is not None:
            return self.snapshots.at_or_before(as_of_millis)
        if tag is not None:
            from paimon_core.maintain.tags import snapshot_from_tag, tag_manager

            return snapshot_from_tag(tag_manager(self).snapshot(tag))
        return self.snapshots.latest()

    def parse_filter(self, where: str | None) -> Predicate | None:
        if not where:
            return None
        return bind(parse_where(where), {f.name: f.type for f in self.schema.fields})

    # ---- read
    def new_scan(
        self, snapshot: Snapshot | None, predicate: Predicate | None = None, all_levels: bool = False
    ) -> TableScan:
        self.require_readable()
        return TableScan(self, snapshot, predicate, all_levels)

    def plan(
        self, snapshot: Snapshot | None, predicate: Predicate | None = None, all_levels: bool = False
    ) -> list[DataSplit]:
        """Splits to read; ``all_levels`` includes level-0 files that batch reads of first-row
        tables skip (for compaction and other maintenance). Rows waiting in ``bucket-postpone``
        are in no split (``postpone_rows`` counts them); a table whose readers must merge them
        (``postpone.merge-on-read``, Flink only) is refused while rows wait."""
        from paimon_core.metadata.features import check_readable

        check_readable(self.schema)
        if not all_levels and self.schema.core_options.get("postpone.merge-on-read"):
            from paimon_core.write.postpone import check_merge_on_read

            check_merge_on_read(self.postpone_rows(snapshot))
        return self.new_scan(snapshot, predicate, all_levels).plan()

    def postpone_rows(self, snapshot: Snapshot | None) -> int:
        """Rows of a postpone-bucket table that wait in ``bucket-postpone`` (not read until a
        compaction assigns them to buckets); 0 for other tables."""
        if snapshot is None or self.schema.core_options.bucket != -2:
            return 0
        return sum(e.file.row_count for e in live_entries(self.manifests, snapshot) if e.bucket == -2)

    def new_read(self, columns: list[str] | None = None, predicate: Predicate | None = None) -> TableRead:
        return TableRead(self, columns, predicate)

    def read(
        self,
        snapshot_id: int | None = None,
        as_of_millis: int | None = None,
        columns=None,
        where: str | None = None,
        limit: int | None = None,
        tag: str | None = None,
    ) -> pa.Table:
        """Rows visible at a snapshot (latest by default), filtered and projected. A read of the
        latest snapshot that another process expires meanwhile is run again on the new latest."""
        from paimon_core.metadata.snapshot import SnapshotExpired
        from paimon_core.read.scan import expiry_checked

        travel = snapshot_id is not None or as_of_millis is not None or tag is not None
        for attempt in range(3):
            snap = self.resolve_snapshot(snapshot_id, as_of_millis, tag)
            view = self.for_snapshot(snap) if travel else self  # time travel: the snapshot's own schema
            pred = view.parse_filter(where)
            reader = view.new_read(columns, pred)
            try:
                with expiry_checked(view, snap):
                    return reader.to_arrow(view.plan(snap, pred), limit)
            except SnapshotExpired:
                if travel or attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    # ---- write
    def new_append_writer(self):
        from paimon_core.write.append_writer import AppendWriter

        self.require_writable()
        return AppendWriter(self, self._sequence_restorer())

    def new_writer(self):
        """A writer for this table: ``write(batch, kinds=None)``, ``prepare_commit()``, ``abort()``."""
        from paimon_core.metadata.features import check_writable

        check_writable(self.schema)
        if self.schema.core_options.bucket == -2:
            from paimon_core.write.postpone import PostponeWriter

            return PostponeWriter(self)
        if self.is_primary_key_table:
            from paimon_core.write.kv_writer import KeyValueWriter

            self.require_writable()
            return KeyValueWriter(self, self._sequence_restorer())
        return self.new_append_writer()

    def _sequence_restorer(self):
        cache: dict | None = None

        def restore(partition: tuple, bucket: int) -> int:
            nonlocal cache
            if cache is None:
                cache = {}
                for e in live_entries(self.manifests, self.snapshots.latest()):
                    k = (e.partition, e.bucket)
                    cache[k] = max(cache.get(k, -1), e.file.max_sequence_number)
            return cache.get((self.partition_codec.to_bytes(partition), bucket), -1)

        return restore

    def new_commit(self, options: CommitOptions | None = None) -> FileStoreCommit:
        self.require_writable()
        return FileStoreCommit(self, options)

    def commit(
        self, messages: list[CommitMessage], options: CommitOptions | None = None, kind: str | None = None
    ) -> Snapshot | None:
        """Commit-or-abort ``messages`` (``FileStoreCommit.commit``): one snapshot with all their
        files, or none and their files deleted. Callers never clean up after it."""
        return FileStoreCommit(self, options).commit(messages, kind)

    def discard(self, messages: list[CommitMessage]) -> None:
        """Delete the files of messages a writer gives up before committing them."""
        discard_files(self, messages)

    def write_arrow(
        self,
        data: pa.Table,
        overwrite: bool = False,
        partition: dict | None = None,
        row_kind_column: str | None = None,
        evolve: bool = False,
    ) -> Snapshot | None:
        """Write an Arrow table in one commit (see ``paimon_core.ops.ingest`` for the rules).
        ``evolve`` adds the input's new columns and widens types first; this table object then
        follows the new schema."""
        from paimon_core.ops.ingest import write_tables

        result = write_tables(
            self,
            [data],
            overwrite=overwrite,
            partition=partition,
            row_kind_column=row_kind_column,
            evolve=evolve,
        )
        if result.evolved:
            self._adopt(
                self.schema_for(result.snapshot.schema_id) if result.snapshot else self.schemas.latest()
            )
        return result.snapshot

    def _adopt(self, schema: TableSchema) -> None:
        """Move this object to a newer schema of the same table (after it evolved the schema)."""
        self.schema = schema
        self._schema_cache.setdefault(schema.id, schema)
        self.__dict__.pop("partition_codec", None)
