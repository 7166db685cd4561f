"""Paimon as a PySpark (4.x) Python data source named ``paimon``: no Java connector.

Register once per session with ``paimon_core.engines.spark.register(spark, warehouse=...)``.

* ``spark.read.format("paimon").option("warehouse", W).load("db.t")``: the rows at the latest
  snapshot, or at option ``snapshot`` (id), ``tag`` or ``as-of`` (ISO time or epoch millis).
  One Spark partition per split; each task reads its split with the core reader. Option
  ``where`` (the core's filter syntax, as ``paimon read --where``) is pushed into planning
  (partition and file pruning) and reading; columns are chosen with option ``columns`` (or a
  ``.schema(...)`` naming a subset), as Python data sources get no column pruning from Spark.
  Spark's own filter pushdown for Python sources (``pushFilters``, 4.1) is not used: Spark
  reuses the scan planned for one query of a DataFrame in a later query on the same DataFrame
  that pushes no filter, so a pushed filter would leak into that query's result.
* Every DataFrame of this source starts with a ``_row_kind`` column (+I/-U/+U/-D): a batch read
  gives +I (or +U, the kind of a primary-key row's merged record), a stream the kinds of the
  changes. Option ``row-kind = false`` leaves it out of batch reads.
* ``load("db.t$snapshots")`` (any system table, ``db.t$branch_b$files``, ``sys.*``): Java's
  columns, built in one task; options ``where`` and ``columns`` as for a table.
* ``df.write.format("paimon").mode("append" | "overwrite").save("db.t")``: each task writes its
  rows with the core writer and returns its CommitMessages; the driver commits them once (then
  compacts and expires as any write). ``overwrite`` replaces the whole table. A ``_row_kind``
  column in the input gives the rows' kinds (CDC input for primary-key tables).
* ``spark.readStream.format("paimon")``: offsets are snapshot ids (``{"next": N}``: snapshots
  below N are read); a micro-batch holds the starting state (``scan.mode``, as ``paimon
  stream``) and/or the changes of one or more snapshots. With option ``consumer-id`` the
  progress is stored as a Paimon consumer after each committed micro-batch.
* ``df.writeStream.format("paimon")``: exactly-once per micro-batch: the commit user is stable
  for the query (option ``commit-user``, else derived from ``checkpointLocation``) and the
  commit identifier is ``batchId + 1``; a batch replayed after a restart from the checkpoint
  finds its identifier committed and commits nothing.

Refused by name: writes to dynamic-bucket primary-key tables (``bucket = -1``: tasks would
assign buckets independently) and to ``changelog-producer = lookup`` tables (each task would
compute its changelog alone).

Primary-key tables: two tasks may write the same bucket; task ``p`` numbers its records from
the bucket's committed maximum + 1 + ``p * 2**28`` (a task writing more rows than that in one
batch is refused), so sequence numbers never tie.
"""

from __future__ import annotations

import pickle
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)

from paimon_core.data.no_rows import no_rows
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import CONSUMER_IGNORE_PROGRESS, SCAN_MODE

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.read.scan import DataSplit
    from paimon_core.table import FileStoreTable

ROW_KIND = "_row_kind"
SEQ_STRIDE = 1 << 28


# ---------------------------------------------------------------- helpers (driver and tasks)
def _load(options, default_warehouse: str | None = None):
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.errors import InvalidInput

    wh = options.get("warehouse") or default_warehouse
    name = options.get("path") or options.get("table")
    if not wh:
        raise InvalidInput(
            "the paimon data source needs option 'warehouse' (or register(spark, warehouse=...))"
        )
    if not name:
        raise InvalidInput("the paimon data source needs a table: load('db.t') / save('db.t')")
    return FileSystemCatalog(wh).get_table(name, branch=options.get("branch"))


def _system_table(options, default_warehouse: str | None = None):
    """The system table the options name (``db.t$snapshots``, ``sys.catalog_options``), else None."""
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.systables import is_system_table

    name = options.get("path") or options.get("table")
    wh = options.get("warehouse") or default_warehouse
    if not name or not wh or not is_system_table(name):
        return None
    return FileSystemCatalog(wh).system_table(name)


def _flag(options, key: str, default: bool) -> bool:
    v = options.get(key)
    return default if v is None else str(v).lower() == "true"


def _columns(table: FileStoreTable, options) -> list[str]:
    cols = [c.strip() for c in (options.get("columns") or "").split(",") if c.strip()]
    for c in cols:
        table.schema.field(c)
    return cols or table.schema.field_names


def _arrow_schema(table: FileStoreTable, columns, with_kind: bool):
    from paimon_core.engines.spark.types import spark_schema

    sschema, target = spark_schema(no_rows(table.schema.arrow_schema()).select(columns).schema)
    if with_kind:
        from pyspark.sql.types import StringType, StructField, StructType

        sschema = StructType([StructField(ROW_KIND, StringType(), False), *sschema.fields])
        target = target.insert(0, pa.field(ROW_KIND, pa.string(), False))
    return sschema, target


def _to_spark(rows: pa.Table, target: pa.Schema):
    from paimon_core.engines.spark.tasks import to_spark_arrow

    rows = rows.select(target.names)
    return to_spark_arrow(
        rows.cast(pa.schema([f.with_nullable(True) for f in rows.schema])), target
    ).to_batches()


def _at(table: FileStoreTable, options):
    """The table as the snapshot the read options name saw it (options snapshot, tag, as-of)."""
    sid = options.get("snapshot")
    return table.at(int(sid) if sid is not None else None, options.get("tag"), options.get("as-of"))


def _spec(table: FileStoreTable):
    from paimon_core.engines.spark.tasks import TableSpec

    return TableSpec.of(table)


# ---------------------------------------------------------------- batch read
class _SplitPartition(InputPartition):
    def __init__(self, split):
        super().__init__(None)
        self.split = split


class PaimonReader(DataSourceReader):
    def __init__(self, table: FileStoreTable, options, with_kind: bool, columns: list[str]):
        self.spec = _spec(table)
        self.options = dict(options)
        self.with_kind = with_kind
        self.columns = columns
        self.snapshot = _at(table, options).snapshot
        self.travel = any(options.get(k) is not None for k in ("snapshot", "tag", "as-of"))
        self.predicate = self._table().parse_filter(options.get("where"))  # core filter syntax

    def _table(self):
        t = self.spec.table()
        return t.for_snapshot(self.snapshot) if self.travel else t

    def partitions(self):
        if self.snapshot is None:
            return [_SplitPartition(None)]
        t = self._table()
        splits = [s for s in t.plan(self.snapshot, self.predicate) if s.files]
        return [_SplitPartition(s) for s in splits] or [_SplitPartition(None)]

    def read(self, partition):
        assert isinstance(partition, _SplitPartition)  # Spark hands back what partitions() made
        if partition.split is None:
            return
        t = self._table()
        reader = t.new_read(self.columns, self.predicate)
        _, target = _arrow_schema(t, self.columns, self.with_kind)
        rows, kinds = reader.read_split_with_kinds(partition.split)
        if not rows.num_rows:
            return
        if self.with_kind:
            import numpy as np

            from paimon_core.read.diff import with_row_kind

            rows = with_row_kind(rows, pa.array(np.zeros(rows.num_rows, np.int8)) if kinds is None else kinds)
        yield from _to_spark(rows, target)


class SystemTableReader(DataSourceReader):
    """A system table (``load("db.t$files")``): built in one task, Java's columns, the ``where``
    and ``columns`` options as for a table; no ``_row_kind`` column is added."""

    def __init__(self, options, default_warehouse: str | None, columns: list[str]):
        self.options = dict(options)
        self.warehouse = default_warehouse
        self.columns = columns

    def read(self, partition):
        from paimon_core.engines.spark.types import spark_schema

        st = _system_table(self.options, self.warehouse)
        assert st is not None  # the source chose this reader for a system table name
        rows = st.to_arrow(self.columns, self.options.get("where"))
        if rows.num_rows:
            yield from _to_spark(rows, spark_schema(rows.schema)[1])


# ---------------------------------------------------------------- batch write
@dataclass
class PaimonCommitMessage(WriterCommitMessage):
    blob: bytes  # pickled list of core CommitMessages
    rows: int


def _check_writable(table: FileStoreTable) -> None:
    from paimon_core.errors import InvalidInput

    if table.schema.bucket_mode.is_dynamic:
        raise InvalidInput(
            f"table {table.identifier} has dynamic buckets (bucket = -1): the Spark data source "
            "cannot write it (tasks would assign buckets independently); use `paimon ingest`"
        )
    if table.is_primary_key_table and table.schema.core_options.changelog_producer == "lookup":
        raise InvalidInput(
            f"table {table.identifier} has changelog-producer = lookup: the Spark data source "
            "cannot write it (each task would compute its changelog alone); use `paimon ingest`"
        )


def _write_task(spec, batches) -> PaimonCommitMessage:
    from pyspark import TaskContext

    from paimon_core.errors import InvalidInput
    from paimon_core.write.conform import conform_table, split_row_kinds
    from paimon_core.write.sequence import sequence_restorer

    table = spec.table()
    ctx = TaskContext.get()
    offset = (ctx.partitionId() if ctx is not None else 0) * SEQ_STRIDE
    base = sequence_restorer(table)

    def restore(partition, bucket):
        return base(partition, bucket) + offset

    if table.is_primary_key_table:
        from paimon_core.write.kv_writer import KeyValueWriter

        writer = KeyValueWriter(table, restore)
    else:
        from paimon_core.write.append_writer import AppendWriter

        writer = AppendWriter(table, restore)
    rows = 0
    try:
        for rb in batches:
            t = pa.Table.from_batches([rb])
            t, kinds = split_row_kinds(t, ROW_KIND if ROW_KIND in t.column_names else None)
            rows += t.num_rows
            if table.is_primary_key_table and rows >= SEQ_STRIDE:
                raise InvalidInput(
                    f"a Spark task wrote more than {SEQ_STRIDE} rows in one batch; repartition the input"
                )
            writer.write(conform_table(t, table.schema), kinds)
        messages = writer.prepare_commit()
    except BaseException:
        writer.abort()
        raise
    return PaimonCommitMessage(pickle.dumps(messages, protocol=pickle.HIGHEST_PROTOCOL), rows)


def _messages(messages) -> list:
    out = []
    for m in messages:
        if m is not None:
            out.extend(pickle.loads(m.blob))
    return out


def _commit(table: FileStoreTable, messages, options) -> object:
    from paimon_core.ops.after_write import after_write

    snap = table.commit(messages, options)  # commit-or-abort: None left no files
    after_write(table, messages if snap is not None else [])
    return snap


class PaimonWriter(DataSourceArrowWriter):
    def __init__(self, table: FileStoreTable, overwrite: bool):
        from paimon_core.write.cross_partition_guard import refuse

        refuse(table, "the paimon Spark data source's write")
        _check_writable(table)
        self.spec = _spec(table)
        self.overwrite = overwrite
        self.commit_user = str(uuid.uuid4())  # made on the driver: commit and abort see the same

    def write(self, iterator):
        return _write_task(self.spec, iterator)

    def _options(self):
        from paimon_core.commit.file_store_commit import CommitOptions

        return CommitOptions(overwrite=self.overwrite, commit_user=self.commit_user)

    def commit(self, messages):
        _commit(self.spec.table(), _messages(messages), self._options())

    def abort(self, messages):
        # Spark also aborts after a failed commit: files of a snapshot that landed stay
        self.spec.table().new_commit(self._options()).abort(_messages(messages))


class PaimonStreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, table: FileStoreTable, options):
        from paimon_core.write.cross_partition_guard import refuse

        refuse(table, "the paimon Spark data source's streaming write")
        from paimon_core.errors import InvalidInput

        _check_writable(table)
        self.spec = _spec(table)
        user = options.get("commit-user")
        if not user:
            where = options.get("checkpointLocation") or options.get("checkpointlocation")
            if not where:
                raise InvalidInput(
                    "writeStream to paimon needs option 'checkpointLocation' (or 'commit-user'): "
                    "exactly-once commits are keyed by a commit user stable across restarts"
                )
            user = str(uuid.uuid5(uuid.NAMESPACE_URL, f"paimon-spark-stream:{table.identifier}:{where}"))
        self.commit_user = user

    def write(self, iterator):
        return _write_task(self.spec, iterator)

    def _options(self, batch_id: int):
        from paimon_core.commit.file_store_commit import CommitOptions

        return CommitOptions(commit_user=self.commit_user, commit_identifier=batch_id + 1)

    def commit(self, messages, batchId):
        _commit(self.spec.table(), _messages(messages), self._options(batchId))

    def abort(self, messages, batchId):
        # Spark also aborts after a failed commit: files of a snapshot that landed stay
        self.spec.table().new_commit(self._options(batchId)).abort(_messages(messages))


# ---------------------------------------------------------------- stream read
class _StreamPartition(InputPartition):
    def __init__(self, kind: str, snapshot_id: int, split: DataSplit | None = None):
        super().__init__(None)
        self.kind = kind  # full | changes
        self.snapshot_id = snapshot_id
        self.split = split


class PaimonStreamReader(DataSourceStreamReader):
    """Offsets ``{"next": N, "full": S}``: snapshots < N are read; ``full`` > 0 means the
    starting state (all rows of snapshot S) is still to be read before the changes from N."""

    def __init__(self, table: FileStoreTable, options, columns):
        from paimon_core.read.stream import StreamRead

        self.spec = _spec(table)
        self.columns = columns
        self.options = dict(options)
        start = options.get("scan.snapshot-id")
        self.consumer_id = options.get("consumer-id")
        self.max_snapshots = int(options.get("max-snapshots-per-trigger") or 0)
        self.recorded = None
        read_opts = CoreOptions(self.options)  # the read's own options, over the table's
        self.stream = StreamRead(
            table,
            mode=read_opts.get(SCAN_MODE) if read_opts.is_set(SCAN_MODE) else None,
            start=int(start) if start else None,
            consumer_id=self.consumer_id,
            columns=columns,
            ignore_progress=read_opts.get(CONSUMER_IGNORE_PROGRESS),
        )

    def initialOffset(self):
        first = self.stream.start_batch()  # decides the start; its rows are read by a task later
        if first is not None:
            return {"next": first.next_snapshot, "full": first.snapshot_id}
        return {"next": self.stream.cursor, "full": 0}

    def latestOffset(self, start=None, limit=None):
        table = self.spec.table()
        latest = table.snapshots.latest_id() or 0
        if start is None:
            return {"next": latest + 1, "full": 0}
        # Spark plans a batch from ``start`` only once the batch ending there is committed, and
        # calls commit(end) only when the next batch starts: record the progress already here
        self._record(start)
        nxt = max(int(start["next"]), latest + 1)
        if self.max_snapshots:
            nxt = min(nxt, int(start["next"]) + self.max_snapshots)
        if nxt == int(start["next"]) and not start.get("full"):
            return start
        return {"next": nxt, "full": 0}

    def partitions(self, start, end):
        table = self.spec.table()
        self.stream.table = table
        out = []
        if start.get("full"):
            at = table.at(snapshot=int(start["full"]))
            out += [_StreamPartition("full", int(start["full"]), s) for s in at.plan() if s.files]
        first, last = int(start["next"]), int(end["next"])
        if first < last:
            self.stream._check_gap(first)
        out += [_StreamPartition("changes", sid) for sid in range(first, last)]
        return out

    def read(self, partition):
        import numpy as np

        from paimon_core.read.diff import with_row_kind
        from paimon_core.read.stream import snapshot_changes

        assert isinstance(partition, _StreamPartition)  # Spark hands back what partitions() made
        table = self.spec.table()
        _, target = _arrow_schema(table, self.columns, True)
        if partition.kind == "full":
            assert partition.split is not None  # a "full" partition is one split of the snapshot
            view = table.at(snapshot=partition.snapshot_id).table
            rows, kinds = view.new_read(self.columns).read_split_with_kinds(partition.split)
            rows = with_row_kind(rows, pa.array(np.zeros(rows.num_rows, np.int8)) if kinds is None else kinds)
        else:
            rows = snapshot_changes(table, table.snapshots.snapshot(partition.snapshot_id), self.columns)
            if rows is None:
                return
        if rows.num_rows:
            yield from _to_spark(rows, target)

    def commit(self, end):
        self._record(end)

    def _record(self, offset) -> None:
        if self.consumer_id and not offset.get("full") and int(offset["next"]) != self.recorded:
            from paimon_core.metadata.consumer import consumer_manager

            consumer_manager(self.spec.table()).reset(self.consumer_id, int(offset["next"]))
            self.recorded = int(offset["next"])

    def stop(self):
        pass


# ---------------------------------------------------------------- the source
class PaimonDataSource(DataSource):
    DEFAULT_WAREHOUSE: str | None = None

    @classmethod
    def name(cls):
        return "paimon"

    def _table(self):
        return _load(self.options, self.DEFAULT_WAREHOUSE)

    def schema(self):
        st = _system_table(self.options, self.DEFAULT_WAREHOUSE)
        if st is not None:
            from paimon_core.engines.spark.types import spark_schema

            cols = [c.strip() for c in (self.options.get("columns") or "").split(",") if c.strip()]
            return spark_schema(no_rows(st.schema).select(st.check_columns(cols)).schema)[0]
        t = self._table()
        return _arrow_schema(t, _columns(t, self.options), _flag(self.options, "row-kind", True))[0]

    def _chosen(self, table: FileStoreTable, schema) -> tuple[list[str], bool]:
        names = [f.name for f in schema.fields]
        with_kind = ROW_KIND in names
        cols = [n for n in names if n != ROW_KIND]
        for c in cols:
            table.schema.field(c)
        return cols, with_kind

    def reader(self, schema):
        if _system_table(self.options, self.DEFAULT_WAREHOUSE) is not None:
            return SystemTableReader(self.options, self.DEFAULT_WAREHOUSE, [f.name for f in schema.fields])
        t = self._table()
        cols, with_kind = self._chosen(t, schema)
        return PaimonReader(t, self.options, with_kind, cols)

    def writer(self, schema, overwrite):
        return PaimonWriter(self._table(), overwrite)

    def streamWriter(self, schema, overwrite):
        from paimon_core.errors import InvalidInput

        if overwrite:
            raise InvalidInput("writeStream to paimon supports the append output mode only")
        return PaimonStreamWriter(self._table(), self.options)

    def streamReader(self, schema):
        from paimon_core.errors import InvalidInput

        t = self._table()
        cols, with_kind = self._chosen(t, schema)
        if not with_kind:
            raise InvalidInput(
                "readStream from paimon needs the _row_kind column (do not set row-kind = false)"
            )
        return PaimonStreamReader(t, self.options, cols)


def source_class(warehouse: str | None = None):
    """The data source class; with ``warehouse`` a subclass using it when no option names one
    (defined here, so it is pickled by value to Spark's Python workers)."""
    if warehouse is None:
        return PaimonDataSource

    class PaimonWarehouseDataSource(PaimonDataSource):
        DEFAULT_WAREHOUSE = warehouse

    return PaimonWarehouseDataSource
