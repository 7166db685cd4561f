"""The table facade: what a user of the library (and the CLI, engines and catalogs) works with.

``FileStoreTable`` is a ``TableContext`` (``metadata/table_context.py``: files, schema, snapshots,
manifests) with the operations on top: time travel, scan, read, write, commit. Each method is a
thin call into the layer that does the work; no layer below this one calls these methods (they
take a ``TableContext`` and call those layers directly)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import CorruptMetadata
from paimon_core.metadata.branches import (
    MAIN,
    BranchNotFound,
    branch_path,
    is_main,
    split_branch,
    validate_branch_name,
    with_branch,
)
from paimon_core.metadata.live_files import expiry_checked
from paimon_core.metadata.schema import SchemaManager, TableSchema
from paimon_core.metadata.snapshot import Snapshot, SnapshotExpired
from paimon_core.metadata.table_context import BranchEnvironment, TableContext
from paimon_core.metadata.time_travel import SnapshotSpec, diff_point, parse_point, resolve_snapshot
from paimon_core.read import scan
from paimon_core.read.fallback import fallback_branch, with_fallback

if TYPE_CHECKING:
    from collections.abc import Collection

    import pyarrow as pa

    from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.time_travel import TimeArg
    from paimon_core.read.predicate import Predicate
    from paimon_core.read.scan import DataSplit, TableScan
    from paimon_core.read.table_read import TableRead
    from paimon_core.write.append_writer import AppendWriter
    from paimon_core.write.kv_writer import KeyValueWriter
    from paimon_core.write.postpone import PostponeWriter


# The facade names every operation; the modules that do the work are imported by the methods
# that call them, so that opening a table (or counting its rows from metadata) does not load
# the commit machinery, the writers, the row readers or the --where parser.


class TableAt:
    """A table as one snapshot saw it: the snapshot (None: an empty table) and the table viewed
    through the schema that snapshot was committed with. ``read`` and ``plan`` see only it."""

    def __init__(self, table: FileStoreTable, snapshot: Snapshot | None):
        self.table = table
        self.snapshot = snapshot

    def plan(self, predicate: Predicate | None = None) -> list[DataSplit]:
        """The splits a read sees (with ``scan.fallback-branch``: see ``read/fallback.py``)."""
        return with_fallback(
            self.table, self.snapshot, scan.plan(self.table, self.snapshot, predicate), predicate
        )

    def read(
        self, columns: list[str] | None = None, where: str | None = None, limit: int | None = None
    ) -> pa.Table:
        from paimon_core.read.table_read import read_rows

        predicate = self.table.parse_filter(where)
        if fallback_branch(self.table) is None:
            return read_rows(self.table, self.snapshot, columns, predicate, limit)
        reader = self.table.new_read(columns, predicate)
        with expiry_checked(self.table, self.snapshot):
            return reader.to_arrow(self.plan(predicate), limit)

    def count(self, where: str | None = None, partitions: Collection[tuple] | None = None) -> int:
        """The rows ``read(where=where)`` returns (of ``partitions`` alone, value tuples, when
        given): from the manifests' row counts where they are exact (``read/count.py``), from
        data otherwise."""
        from paimon_core.read.count import metadata_count

        predicate = self.table.parse_filter(where)
        with expiry_checked(self.table, self.snapshot):
            splits = self.plan(predicate)
            if partitions is not None:
                splits = [s for s in splits if s.partition in partitions]
            n = metadata_count(self.table, splits, predicate)
            if n is not None:
                return n
            reader = self.table.new_read(self.table.schema.field_names[:1], predicate)
            return sum(b.num_rows for b in reader.to_batches(splits))

    def expiry_checked(self):
        """A context around reading this snapshot's files: a file gone because another process
        expired the snapshot meanwhile raises SnapshotExpired ("run again"), not damage."""
        return expiry_checked(self.table, self.snapshot)

    def data_files(self) -> list[DataFileMeta]:
        """The data files this snapshot reads (every bucket, every level)."""
        from paimon_core.metadata.live_files import live_entries

        if self.snapshot is None:
            return []
        return [e.file for e in live_entries(self.table.manifests, self.snapshot)]

    def waiting_rows(self) -> int:
        """Rows written to ``bucket-postpone`` that no read sees until a compaction assigns them."""
        return scan.postpone_rows(self.table, self.snapshot)

    # ---- hand-offs: this snapshot's rows, projected to ``columns`` and filtered by ``where``
    # (the --where language); the table's own ``to_*`` methods pick the snapshot and call these
    def dataset(self, columns: list[str] | None = None, where: str | None = None):
        """A ``pyarrow.dataset.Dataset`` whose scans run this snapshot's scan with the scanner's
        columns and filter pushed down (``read/arrow_dataset.py``)."""
        from paimon_core.read.arrow_dataset import SnapshotDataset

        return SnapshotDataset(self.table, self.snapshot, columns, self.table.parse_filter(where))

    def to_arrow(self, columns: list[str] | None = None, where: str | None = None) -> pa.Table:
        """The rows as one Arrow table (``read``)."""
        return self.read(columns, where)

    def to_arrow_reader(
        self, columns: list[str] | None = None, where: str | None = None
    ) -> pa.RecordBatchReader:
        """The rows as a stream of Arrow batches, read as they are consumed."""
        return self.dataset(columns, where).to_reader()

    def to_pandas(self, columns: list[str] | None = None, where: str | None = None):
        """The rows as a pandas DataFrame."""
        return self.to_arrow(columns, where).to_pandas()

    def to_polars(self, columns: list[str] | None = None, where: str | None = None):
        """The rows as a polars DataFrame (polars takes the Arrow buffers without a copy where
        their layout allows). Needs polars installed."""
        try:
            import polars
        except ImportError as e:
            from paimon_core.errors import InvalidInput

            raise InvalidInput("to_polars needs polars: pip install polars") from e
        return polars.from_arrow(self.to_arrow(columns, where))

    def to_duckdb(
        self, con, columns: list[str] | None = None, where: str | None = None, name: str | None = None
    ):
        """A DuckDB relation on connection ``con`` over the rows: nothing is read until DuckDB
        runs it, and then only the columns and rows its query needs (DuckDB pushes its
        projection and filters into this table's scan). ``name`` also registers it as a view."""
        data = self.dataset(columns, where)
        if name is not None:
            con.register(name, data)
            return con.table(name)
        return con.from_arrow(data)


class FileStoreTable(TableContext):
    # ---- branches
    @property
    def main_identifier(self) -> str:
        """The table's name without its branch (``db.t``)."""
        return split_branch(self.identifier)[0]

    def for_branch(self, branch: str | None) -> FileStoreTable:
        """Branch ``branch`` of this table (None or ``main``: the main branch) at that branch's
        latest schema; the one way every caller opens ``table@branch``. BranchNotFound when the
        branch does not exist, or has no schema file (Java refuses such a branch as well)."""
        if is_main(branch) and self.is_main_branch:
            return self
        if not is_main(branch):
            validate_branch_name(branch or "")
        name = branch or MAIN
        base = self.main_identifier
        schema = SchemaManager(self.io, branch_path(self.path, name)).latest()
        if schema is None:
            if is_main(name):
                raise CorruptMetadata(f"table {base} has no schema file")
            raise BranchNotFound(name, base)
        other = FileStoreTable(self.io, self.path, with_branch(base, name), schema, name)
        main_env = self.env.main if isinstance(self.env, BranchEnvironment) else self.env
        other.env = main_env if is_main(name) else BranchEnvironment(main_env)
        return other

    # ---- time travel
    def at(self, snapshot: int | None = None, tag: str | None = None, time: TimeArg | None = None) -> TableAt:
        """The table as a snapshot saw it: by id, tag or time (epoch millis, or an ISO-8601 /
        epoch text); the latest snapshot when none is given. One of the three at most."""
        spec = SnapshotSpec.of(snapshot, tag, time)
        snap = resolve_snapshot(self, spec)
        return TableAt(self.for_snapshot(snap) if spec.travels else self, snap)

    def created_millis(self) -> int:
        """When the table was created: its first schema's time (its branches share it)."""
        return SchemaManager(self.io, self.path).schema(0).time_millis

    def point(self, text: str) -> SnapshotSpec:
        """The snapshot a text names: an id, a tag's name or a time (``time_travel.parse_point``)."""
        return parse_point(self, text)

    def diff_point(self, spec: SnapshotSpec) -> int | Snapshot:
        """An end of a diff: a snapshot id (0 = the empty table before the first snapshot), or a
        tag's Snapshot (readable after the snapshot itself expired)."""
        return diff_point(self, spec)

    def resolve_snapshot(
        self, snapshot_id: int | None = None, as_of_millis: int | None = None, tag: str | None = None
    ) -> Snapshot | None:
        """The snapshot a read should see; None for an empty table read at 'latest'."""
        return resolve_snapshot(self, SnapshotSpec.of(snapshot_id, tag, as_of_millis))

    def parse_filter(self, where: str | None) -> Predicate | None:
        """``where`` (the --where language) bound to this table's schema; None for None."""
        if not where:
            return None
        from paimon_core.read.predicate import parse_filter

        return parse_filter(self.schema, where)

    # ---- read
    def new_scan(
        self, snapshot: Snapshot | None, predicate: Predicate | None = None, all_levels: bool = False
    ) -> TableScan:
        self.require_readable()
        return scan.TableScan(self, snapshot, predicate, all_levels)

    def plan(
        self, snapshot: Snapshot | None, predicate: Predicate | None = None, all_levels: bool = False
    ) -> list[DataSplit]:
        """Splits to read (``read.scan.plan``); a read of main (not ``all_levels``, which is for
        maintenance) also gets the ``scan.fallback-branch`` splits (``read/fallback.py``)."""
        splits = scan.plan(self, snapshot, predicate, all_levels)
        return splits if all_levels else with_fallback(self, snapshot, splits, predicate)

    def postpone_rows(self, snapshot: Snapshot | None) -> int:
        """Rows waiting in ``bucket-postpone`` (``read.scan.postpone_rows``)."""
        return scan.postpone_rows(self, snapshot)

    def new_read(self, columns: list[str] | None = None, predicate: Predicate | None = None) -> TableRead:
        from paimon_core.read.table_read import TableRead

        return TableRead(self, columns, predicate)

    def read(
        self,
        snapshot_id: int | None = None,
        as_of_millis: int | None = None,
        columns: list[str] | None = None,
        where: str | None = None,
        limit: int | None = None,
        tag: str | None = None,
    ) -> pa.Table:
        """Rows visible at a snapshot (latest by default), filtered and projected. A read of the
        latest snapshot that another process expires meanwhile is run again on the new latest."""
        travel = snapshot_id is not None or as_of_millis is not None or tag is not None
        for attempt in range(3):
            try:
                return self.at(snapshot_id, tag, as_of_millis).read(columns, where, limit)
            except SnapshotExpired:
                if travel or attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def count(
        self,
        where: str | None = None,
        snapshot_id: int | None = None,
        as_of_millis: int | None = None,
        tag: str | None = None,
    ) -> int:
        """The number of rows ``read`` with the same arguments returns (``TableAt.count``)."""
        return self.at(snapshot_id, tag, as_of_millis).count(where)

    # ---- DataFrame hand-offs: each reads one snapshot (latest, or by id / tag / time) through
    # ``TableAt``'s hand-off of the same name: ``t.to_pandas(tag="v1")`` is
    # ``t.at(tag="v1").to_pandas()``
    def dataset(self, snapshot_id=None, columns=None, where=None, tag=None, as_of_millis=None):
        return self.at(snapshot_id, tag, as_of_millis).dataset(columns, where)

    def to_arrow(self, snapshot_id=None, columns=None, where=None, tag=None, as_of_millis=None) -> pa.Table:
        return self.read(snapshot_id, as_of_millis, columns, where, tag=tag)

    def to_arrow_reader(
        self, snapshot_id=None, columns=None, where=None, tag=None, as_of_millis=None
    ) -> pa.RecordBatchReader:
        return self.at(snapshot_id, tag, as_of_millis).to_arrow_reader(columns, where)

    def to_pandas(self, snapshot_id=None, columns=None, where=None, tag=None, as_of_millis=None):
        return self.to_arrow(snapshot_id, columns, where, tag, as_of_millis).to_pandas()

    def to_polars(self, snapshot_id=None, columns=None, where=None, tag=None, as_of_millis=None):
        return self.at(snapshot_id, tag, as_of_millis).to_polars(columns, where)

    def to_duckdb(
        self, con, snapshot_id=None, columns=None, where=None, tag=None, as_of_millis=None, name=None
    ):
        return self.at(snapshot_id, tag, as_of_millis).to_duckdb(con, columns, where, name)

    # ---- write
    def new_append_writer(self) -> AppendWriter:
        from paimon_core.write import table_write

        return table_write.new_append_writer(self)

    def new_writer(self) -> AppendWriter | KeyValueWriter | PostponeWriter:
        """A writer for this table: ``write(batch, kinds=None)``, ``prepare_commit()``, ``abort()``."""
        from paimon_core.write import table_write

        return table_write.new_writer(self)

    def new_commit(self, options: CommitOptions | None = None) -> FileStoreCommit:
        from paimon_core.commit.file_store_commit import FileStoreCommit

        self.require_writable()
        return FileStoreCommit(self, options)

    def commit(
        self, messages: list[CommitMessage], options: CommitOptions | None = None, kind: str | None = None
    ) -> Snapshot | None:
        """Commit-or-abort ``messages`` (``FileStoreCommit.commit``): one snapshot with all their
        files, or none and their files deleted. Callers never clean up after it."""
        from paimon_core.commit.file_store_commit import FileStoreCommit

        return FileStoreCommit(self, options).commit(messages, kind)

    def discard(self, messages: list[CommitMessage]) -> None:
        """Delete the files of messages a writer gives up before committing them."""
        from paimon_core.commit.file_store_commit import discard_files

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
            schema = self.schema_for(result.snapshot.schema_id) if result.snapshot else self.schemas.latest()
            if schema is None:
                raise CorruptMetadata(f"table {self.identifier} has no schema file after evolving its schema")
            self._adopt(schema)
        return result.snapshot

    def _adopt(self, schema: TableSchema) -> None:
        """Move this object to a newer schema of the same table (after it evolved the schema)."""
        self.schema = schema
        self._schema_cache.setdefault(schema.id, schema)
        self.__dict__.pop("partition_codec", None)
