"""The low-level context every layer above metadata works on: one table's FileIO, path, schema,
snapshots, schemas and manifests, and the catalog environment it was loaded through. It reads and
writes nothing itself; the facade with the operations is ``paimon_core.table.FileStoreTable``.

Invariant: a context is a view of one branch of one table at one schema version; ``with_schema``
and ``for_snapshot`` give views of other versions sharing the same files and schema cache. The
branch decides where snapshots, schemas, tags, changelogs and consumers live (``branch_path``);
data, manifest and index files are the table's, shared by every branch (``path``)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Optional, TypeVar

from paimon_core import paths
from paimon_core.data.partition import PartitionCodec
from paimon_core.metadata.branches import MAIN, branch_path
from paimon_core.metadata.iceberg_options import check_iceberg_writable
from paimon_core.metadata.manifest import ManifestStore, check_manifest_format
from paimon_core.metadata.schema import SchemaManager, TableSchema
from paimon_core.metadata.snapshot import Snapshot, SnapshotManager
from paimon_core.options.registry import MANIFEST_COMPRESSION, MANIFEST_FORMAT
from paimon_core.options.validation import check_supported
from paimon_core.storage.file_io import FileIO

if TYPE_CHECKING:
    from collections.abc import Callable

    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.schema_evolution import SchemaChange

T = TypeVar("T", bound="TableContext")
# a check of a schema change (latest, new): raises to refuse it (ops/alter.py's stored-data check)
SchemaCheck = Optional["Callable[[TableSchema, TableSchema], None]"]


class CatalogEnvironment:
    """What a table loaded through a catalog needs from it at write time (Paimon's
    ``CatalogEnvironment``): a lock around snapshot and schema commits, and hooks that keep the
    metastore in step after a commit or a schema change. The default does nothing."""

    def lock(self) -> contextlib.AbstractContextManager:
        """A context manager held while ``snapshot-N`` or ``schema-N`` is created."""
        return contextlib.nullcontext()

    def commit_snapshot(self, table: TableContext, snapshot: Snapshot) -> bool:
        """Create ``snapshot-N`` (held under ``lock``); False when another writer got N. The
        default creates it on storage; a REST catalog sends it to the server's commit endpoint."""
        return table.snapshots.try_commit(snapshot)

    def commit_schema_changes(
        self, table: TableContext, changes: Sequence[SchemaChange], check: SchemaCheck
    ) -> TableSchema:
        """Commit ``changes`` to the table's schema and return the new schema. The default
        writes ``schema-(N+1)`` on storage under ``lock``; a REST catalog sends the changes to
        the server's alter-table endpoint (``check`` runs here first, on the table's data)."""
        from paimon_core.metadata.schema_evolution import commit_changes

        with self.lock():
            return commit_changes(table.io, table.branch_path, changes, check=check)

    def versions(self) -> VersionCatalog | None:
        """The catalog that creates and deletes the table's tags and branches (Java's
        ``supportsVersionManagement``: a REST catalog's server), or None: the core does it on
        storage. Reads and plans (``--dry-run``) are on storage either way."""
        return None

    def after_commit(
        self, table: TableContext, snapshot: Snapshot, messages: Sequence[CommitMessage]
    ) -> None:
        """Called once a snapshot is committed (e.g. to add metastore partitions)."""

    def after_schema_change(self, table: TableContext, schema: TableSchema) -> None:
        """Called once a new schema version is committed (e.g. to mirror the columns)."""

    def mark_done(self, table: TableContext, partitions: Sequence[tuple], action: str) -> None:
        """Run a metastore mark-done action (``done-partition``, ``mark-event``) on partitions;
        catalogs without a metastore that keeps them refuse by name."""
        from paimon_core.errors import UnsupportedFeature

        raise UnsupportedFeature(
            f"partition.mark-done-action '{action}' needs a Hive metastore catalog; table "
            f"{table.identifier} is not in one (use success-file)"
        ).with_hint("unsupported_option", option="partition.mark-done-action")

    def after_partitions_dropped(self, table: TableContext, partitions: Sequence[tuple]) -> None:
        """Called once a commit dropped these partitions (value tuples; e.g. to drop them from
        the metastore, as Java's partition expiry and drop partition do)."""


class VersionCatalog:
    """Tag, branch and rollback changes done by a catalog instead of on storage (see
    ``CatalogEnvironment.versions``); ``table`` is the context (and branch) they apply to. Each
    either does the whole change or raises, changing nothing."""

    def create_tag(
        self, table: TableContext, name: str, snapshot_id: int, time_retained_ms: int | None
    ) -> None:
        raise NotImplementedError

    def delete_tag(self, table: TableContext, name: str) -> None:
        raise NotImplementedError

    def create_branch(self, table: TableContext, name: str, tag: str | None) -> None:
        raise NotImplementedError

    def delete_branch(self, table: TableContext, name: str) -> None:
        raise NotImplementedError

    def rename_branch(self, table: TableContext, name: str, new_name: str) -> None:
        raise NotImplementedError

    def fast_forward(self, table: TableContext, name: str) -> None:
        raise NotImplementedError

    def rollback(self, table: TableContext, snapshot_id: int | None, tag: str | None) -> None:
        """Make snapshot ``snapshot_id`` (or the tag ``tag``'s) the latest again."""
        raise NotImplementedError


NO_ENVIRONMENT = CatalogEnvironment()


class BranchEnvironment(CatalogEnvironment):
    """A branch of a catalog's table: the table's lock, and no metastore hooks (the metastore
    mirrors the main branch only, as in Java Paimon)."""

    def __init__(self, main: CatalogEnvironment):
        self.main = main

    def lock(self) -> contextlib.AbstractContextManager:
        return self.main.lock()

    def commit_snapshot(self, table: TableContext, snapshot: Snapshot) -> bool:
        """As the main table's catalog commits (``table`` is the branch's context)."""
        return self.main.commit_snapshot(table, snapshot)

    def versions(self) -> VersionCatalog | None:
        return self.main.versions()

    def commit_schema_changes(
        self, table: TableContext, changes: Sequence[SchemaChange], check: SchemaCheck
    ) -> TableSchema:
        return self.main.commit_schema_changes(table, changes, check)


class TableContext:
    """One table's files and metadata at one schema version (see the module docstring)."""

    def __init__(self, io: FileIO, path: str, identifier: str, schema: TableSchema, branch: str = MAIN):
        self.io = io
        self.path = path  # the table directory: data, manifest and index files of every branch
        self.identifier = identifier
        self.schema = schema
        self.branch = branch
        self.branch_path = branch_path(path, branch)  # snapshots, schemas, tags of this branch
        self.snapshots = SnapshotManager(io, self.branch_path)
        self.schemas = SchemaManager(io, self.branch_path)
        self.manifests = ManifestStore(
            io,
            path,
            schema.core_options.get(MANIFEST_COMPRESSION),
            schema.core_options.get(MANIFEST_FORMAT),
        )
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
        check_iceberg_writable(
            self.schema.options,
            self.schema.fields,
            self.schema.partition_keys,
            self.is_primary_key_table,
            f"table {self.identifier}",
        )
        opts = self.schema.core_options  # checked before any file is written
        check_manifest_format(opts.get(MANIFEST_FORMAT), opts.get(MANIFEST_COMPRESSION))

    @property
    def is_primary_key_table(self) -> bool:
        return bool(self.schema.primary_keys)

    def schema_for(self, schema_id: int) -> TableSchema:
        """Schema ``schema_id`` of this branch. A branch Java 0.9 made from a tag holds only the
        tag's schema file; the files it shares with main that an older schema wrote are read
        with main's schema file of that id (Java 1.x copies them all)."""
        if schema_id not in self._schema_cache:
            if not self.is_main_branch and not self.io.exists(self.schemas.path(schema_id)):
                main = SchemaManager(self.io, self.path)
                if self.io.exists(main.path(schema_id)):
                    self._schema_cache[schema_id] = main.schema(schema_id)
                    return self._schema_cache[schema_id]
            self._schema_cache[schema_id] = self.schemas.schema(schema_id)
        return self._schema_cache[schema_id]

    def with_schema(self: T, schema: TableSchema) -> T:
        """This table seen through another version of its schema (same files and snapshots)."""
        if schema is self.schema:
            return self
        other = type(self)(self.io, self.path, self.identifier, schema, self.branch)
        other._schema_cache = self._schema_cache
        other.env = self.env
        self._schema_cache.setdefault(schema.id, schema)
        return other

    @property
    def is_main_branch(self) -> bool:
        return self.branch == MAIN

    def for_snapshot(self: T, snapshot: Snapshot | None) -> T:
        """The table as a snapshot saw it: reads of an older snapshot use the schema it was
        committed with (its columns, names and types); writes keep using the latest schema."""
        if snapshot is None or snapshot.schema_id == self.schema.id:
            return self
        return self.with_schema(self.schema_for(snapshot.schema_id))

    def bucket_path(self, partition: tuple, bucket: int) -> str:
        return paths.bucket_dir(self.path, self.partition_codec.path(partition), bucket)
