"""The Spark engine: the core writers, compactors and readers run inside Spark tasks.

The driver plans (input pieces, splits, each bucket's highest sequence number: ``plan``),
executors write files straight to the warehouse and return pickled CommitMessages
(``tasks``), and the caller commits once on the driver. Sessions are made in
``session``, job progress and failed-job errors in ``progress`` / ``errors``.
Only the ``spark*`` modules import pyspark, lazily.

- ingest without a shuffle (the default for fixed-bucket tables fed Parquet, and for append
  tables without buckets): one task per input piece runs the core ``KeyValueWriter`` /
  ``AppendWriter`` over that piece (the writer buckets with the core hash), writing level-0
  files for every bucket the piece touches. The driver knows each Parquet piece's row count, so
  each piece gets a global row offset, and a bucket's sequence numbers in that piece start at
  (the bucket's maximum) + 1 + offset: unique per bucket and in input order across pieces.
  Several pieces in one bucket are several sorted runs (readers and compaction merge them).
- ingest with a shuffle (fixed buckets fed CSV/JSON, ``changelog-producer = lookup``, or
  ``shuffle_ingest``): read pieces -> bucket and input order per row -> repartition by
  (partition keys, bucket) -> sort by input order within each task -> one writer per task.
  Every (partition, bucket) lands in exactly one task, so sequence numbers continue from the
  bucket's maximum as in the local engine.
- ingest, PK table with dynamic buckets (``bucket = -1``): repartition by partition keys only;
  the index assigner runs in the one task that owns a partition (no driver data path).
- compaction and reads: one task per split (bucket).

Failure: a failed job leaves no commit; the driver deletes every file carrying the job's
file prefix (including files of killed attempts that never reported), then re-raises.

Python API for Spark users (no Java connector): ``to_dataframe(spark, table, snapshot)``,
``sql.diff_dataframe(spark, table, a, b)`` and ``sql.sql(spark, catalog, query)``
(the query's DB.TABLE names become temporary views; time travel with ``VERSION AS OF`` /
``TIMESTAMP AS OF`` or ``` `db.t$snapshot=42` ```, changes with ``` `db.t$diff=A..B` ```).
``spark_frames.write_parquet_dir`` is the executors' side of ``read/diff/sql --out`` (a folder of part files).

Spark sessions: ``local[*]`` by default, ``spark://host:port``, or Spark Connect
``sc://host:port``. ``paimon_core`` is shipped to the cluster as a zip (``addPyFile``, or
``addArtifacts`` on Connect), so executors only need pyarrow, numpy and fsspec.
"""

from __future__ import annotations

import pickle
import time
import uuid
from functools import partial
from typing import TYPE_CHECKING

from paimon_core.engines.export import ChangesExport, ExportResult, RowsExport
from paimon_core.engines.spark import tasks as T
from paimon_core.engines.spark.errors import task_error
from paimon_core.engines.spark.frames import (
    is_connect,
    ship_core,
    splits_dataframe,
    to_dataframe,
    write_parquet_dir,
)
from paimon_core.engines.spark.plan import (
    PIECE_BYTES,
    job_prefix,
    max_sequence_numbers,
    plan_pieces,
    sweep_job_files,
    with_offsets,
)
from paimon_core.engines.spark.progress import JobProgress
from paimon_core.engines.spark.session import create_session
from paimon_core.engines.spark.types import spark_schema
from paimon_core.errors import PaimonError
from paimon_core.options.bucket_mode import BucketMode

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.table import FileStoreTable


class SparkEngine:
    """Runs ingest, compaction and reads as Spark jobs; returns CommitMessages / DataFrames.

    ``master``: ``local[N]`` (default ``local[*]``) or ``spark://host:port``; ``remote``:
    ``sc://host:port`` (Spark Connect); ``conf``: extra Spark settings. ``session``: use an
    existing SparkSession instead. The session is created on first use.
    """

    name = "spark"

    def __init__(
        self, master: str | None = None, remote: str | None = None, conf: dict | None = None, session=None
    ):
        if master and remote:
            raise PaimonError("give a Spark master or a Spark Connect remote, not both")
        self.master, self.remote, self.conf = master, remote, dict(conf or {})
        self._spark = session
        self.fault: str | None = None  # test hook, see spark_tasks._fault
        self.shuffle_ingest = False  # True: bucketed ingest always shuffles by (partition, bucket)
        self.piece_bytes = PIECE_BYTES

    @property
    def spark(self):
        if self._spark is None:
            self._spark = create_session(self.master, self.remote, self.conf)
        ship_core(self._spark)
        return self._spark

    def stop(self) -> None:
        if self._spark is not None:
            self._spark.stop()
            self._spark = None

    def _shuffle_partitions(self) -> int:
        try:
            value = self.spark.conf.get("spark.sql.shuffle.partitions")
            return max(1, int(value)) if value is not None else 8
        except Exception:  # noqa: BLE001
            return 8

    def _run(
        self, table: TableContext, df, prefix: str, progress=None, total: int = 0, swept_dirs=None
    ) -> list:
        """Collect the messages of ``df``; on failure delete the job's files and re-raise."""
        group = f"paimon-{prefix}"
        try:
            with JobProgress(self.spark, group, total, progress):
                rows = df.collect()
        except BaseException as e:
            self._sweep_failed_job(table, prefix, swept_dirs)
            if isinstance(e, (KeyboardInterrupt, SystemExit, PaimonError)):
                raise
            raise task_error(e) from e
        messages = [pickle.loads(r[T.MSG]) for r in rows]
        if any(r[T.ATTEMPT] for r in rows):
            # a retried task: its failed attempts may have left files in the same buckets
            keep = {f.file_name for m in messages for f in m.new_files + m.compact_after + m.changelog_files}
            dirs = {table.bucket_path(m.partition, m.bucket) for m in messages}
            sweep_job_files(table, prefix, keep, dirs)
        return messages

    def _sweep_failed_job(self, table: TableContext, prefix: str, dirs) -> None:
        """Delete a failed job's files. Tasks of a failed job can outlive it for a moment (a
        cancelled Python worker is killed asynchronously), so the sweep runs again once the
        session has no active stage, until 2 s pass with nothing new (at most ~30 s; a Spark
        Connect client sees no stages and only sweeps). 0.5 s was too short: in ci42 a killed
        task's Python worker on the standalone cluster wrote its files after it."""
        sweep_job_files(table, prefix, keep=set(), dirs=dirs)
        deadline = time.monotonic() + 30
        connect = is_connect(self.spark)
        needed = 8  # empty sweeps in a row, 0.25 s apart
        if not connect:
            tracker = self.spark.sparkContext.statusTracker()
            while tracker.getActiveStageIds() and time.monotonic() < deadline:
                time.sleep(0.1)
        quiet = 0
        while quiet < needed and time.monotonic() < deadline:
            time.sleep(0.25)
            quiet = quiet + 1 if sweep_job_files(table, prefix, keep=set(), dirs=dirs) == 0 else 0

    # ---- ingest
    def write(
        self, table: TableContext, inputs, progress=None, row_kind_column: str | None = None, on_rows=None
    ) -> list:
        """Write ``inputs`` (InputFile list) into new files; return CommitMessages (not committed).
        ``on_rows`` hears the input row count when every input is Parquet (known from metadata)."""
        from paimon_core.write.cross_partition_guard import refuse

        refuse(table, "the Spark engine's write")
        if table.schema.bucket_mode is BucketMode.POSTPONE:
            from paimon_core.errors import UnsupportedFeature

            raise UnsupportedFeature(
                "postpone-bucket tables (bucket = -2) are written by the local engine only"
            ).with_hint("local_engine")
        from pyspark.sql import functions as F

        spark = self.spark
        pieces = plan_pieces(inputs, self.piece_bytes)
        if not pieces:
            return []
        if on_rows and all(p.rows is not None for p in pieces):
            on_rows(sum(p.rows for p in pieces))
        prefix = job_prefix(table)
        spec = T.TableSpec.of(table, prefix)
        max_seq = max_sequence_numbers(table)
        schema = table.schema
        n_buckets = schema.core_options.bucket
        ids = spark.range(0, len(pieces), 1, len(pieces))
        msg_schema = "msg binary, retried boolean"
        total = sum(p.size for p in pieces)
        if self._direct_write(table, pieces):
            if all(p.rows is not None for p in pieces):
                pieces = with_offsets(pieces)
            df = ids.mapInArrow(
                partial(T.ingest_direct_task, spec, pieces, max_seq, row_kind_column, self.fault), msg_schema
            )
            return self._run(table, df, prefix, progress, total)
        import pyarrow as pa

        # Spark timestamps hold microseconds: TIMESTAMP(7..9) columns cross the shuffle as their
        # int64 nanoseconds (the write task turns them back)
        fields = [
            pa.field(f.name, pa.int64(), f.nullable) if T.carried_as_nanos(f.type) else f
            for f in schema.arrow_schema()
        ]
        fields += [pa.field(T.BUCKET, pa.int32()), pa.field(T.ORDER, pa.int64())]
        if row_kind_column is not None:
            fields.append(pa.field(T.KIND_COL, pa.int8()))
        sschema, target = spark_schema(pa.schema(fields))
        mode = "fixed" if n_buckets > 0 else "dynamic"
        rows = ids.mapInArrow(
            partial(T.ingest_read_task, spec, pieces, row_kind_column, mode, target, self.fault), sschema
        )
        keys = [F.col(k) for k in schema.partition_keys]
        parts = self._shuffle_partitions()
        if mode == "fixed":
            if not keys:
                parts = min(parts, n_buckets)
            rows = rows.repartition(parts, *keys, F.col(T.BUCKET))
        else:
            rows = rows.repartition(parts, *keys) if keys else rows.repartition(1)
        rows = rows.sortWithinPartitions(*keys, F.col(T.BUCKET), F.col(T.ORDER))
        df = rows.mapInArrow(partial(T.ingest_write_task, spec, max_seq, self.fault), msg_schema)
        return self._run(table, df, prefix, progress, total)

    def _direct_write(self, table: TableContext, pieces) -> bool:
        """Whether ingest runs without a shuffle (one task per input piece, see
        ``spark_tasks.ingest_direct_task``): append tables without buckets always; fixed-bucket
        tables when every piece has a row count (Parquet), so each piece gets a global row offset
        for its sequence numbers. The shuffle stays for dynamic buckets (the index assigner must
        see all of a partition's keys), for ``changelog-producer = lookup`` (a bucket's
        changelog needs the bucket's whole input in one writer), for CSV/JSON inputs of bucketed
        tables, and when ``shuffle_ingest`` is set."""
        schema = table.schema
        n_buckets = schema.core_options.bucket
        if not table.is_primary_key_table and n_buckets <= 0:
            return True
        if self.shuffle_ingest or n_buckets <= 0:
            return False
        if table.is_primary_key_table and schema.core_options.changelog_producer == "lookup":
            return False
        return all(p.rows is not None for p in pieces)

    # ---- compaction
    def compact(self, table: TableContext, splits, full: bool = True, progress=None) -> list:
        """Compact each split (bucket) in its own task with the core's planner
        (``compact.compact_messages``); returns CommitMessages (not committed). ``splits`` should
        come from ``table.plan(snapshot, all_levels=True)``."""
        splits = [s for s in splits if s.files]
        if not splits:
            return []
        prefix = job_prefix(table)
        spec = T.TableSpec.of(table, prefix)
        df = self.spark.range(0, len(splits), 1, len(splits)).mapInArrow(
            partial(T.compact_task, spec, splits, full, self.fault), "msg binary, retried boolean"
        )
        dirs = {table.bucket_path(s.partition, s.bucket) for s in splits}
        return self._run(table, df, prefix, progress, len(splits), swept_dirs=dirs)

    def rewrite(self, table: TableContext, snapshot, splits: dict[tuple, list], transform) -> list:
        """Rewrite each partition in its own task (``compaction.partition_rewrite``: read its
        splits, ``transform``, write): the files the local engine writes, a partition per core."""
        groups = [splits[p] for p in sorted(splits, key=str) if splits[p]]
        if not groups:
            return []
        prefix = job_prefix(table)
        spec = T.TableSpec.of(table, prefix)
        df = self.spark.range(0, len(groups), 1, len(groups)).mapInArrow(
            partial(T.rewrite_task, spec, snapshot, groups, transform, self.fault),
            "msg binary, retried boolean",
        )
        dirs = {table.bucket_path(s.partition, s.bucket) for ss in groups for s in ss}
        return self._run(table, df, prefix, None, len(groups), swept_dirs=dirs)

    # ---- reads
    def read(self, table: FileStoreTable, splits, columns=None, predicate=None):
        """A Spark DataFrame of the splits, one task per split (lazy: nothing runs until an action)."""
        return splits_dataframe(self.spark, table, splits, columns, predicate)

    def to_dataframe(
        self, table: FileStoreTable, snapshot_id: int | None = None, columns=None, where: str | None = None
    ):
        return to_dataframe(self.spark, table, snapshot_id, columns, where)

    # ---- session, SQL and exports (the CLI reaches these through the Engine protocol)
    def start(self) -> None:
        """Start (or connect to) the Spark session now; it is otherwise started on first use."""
        self.spark  # noqa: B018 - the property creates the session

    def sql(self, catalog, query: str):
        """A Spark SQL query over ``catalog``'s tables as a DataFrame (see ``spark_sql.sql``)."""
        from paimon_core.engines.spark.sql import sql

        return sql(self.spark, catalog, query)

    def export_dataframe(self, df, out_path, on_plan=None, progress=None, total: int = 0):
        """The executors write ``df`` as a folder of Parquet part files at ``out_path``."""
        from paimon_core.engines.export import ExportResult

        if on_plan:
            on_plan(total)
        with JobProgress(self.spark, f"paimon-export-{uuid.uuid4().hex[:8]}", total, progress):
            path = write_parquet_dir(df, str(out_path))
        return ExportResult(path, self.spark.read.parquet(path).count(), "folder")

    def export_rows(self, request: RowsExport) -> ExportResult:
        from paimon_core.engines.export import refuse_text_formats, split_bytes

        r, t = request, request.target
        refuse_text_formats(t.path, t.fmt)
        reader = r.table.new_read(r.columns, r.predicate)  # validates the columns before Spark starts
        df = splits_dataframe(self.spark, r.table, r.splits, reader.columns, r.predicate)
        if r.limit is not None:
            df = df.limit(r.limit)
        return self.export_dataframe(df, t.path, t.on_plan, t.progress, split_bytes(r.splits))

    def export_changes(self, request: ChangesExport) -> ExportResult:
        from paimon_core.engines.export import point_bytes, refuse_text_formats
        from paimon_core.engines.spark.sql import diff_dataframe

        r, t = request, request.target
        refuse_text_formats(t.path, t.fmt)
        df = diff_dataframe(self.spark, r.table, r.start, r.end, r.mode, r.per_snapshot, r.columns)
        return self.export_dataframe(df, t.path, t.on_plan, t.progress, point_bytes(r.table, r.end))


def register(spark, warehouse: str | None = None) -> None:
    """Register the ``paimon`` Python data source on a session (PySpark 4): batch and streaming
    reads and writes of Paimon tables without a Java connector; see ``spark_source``.
    ``warehouse`` is used when a read or write gives no ``warehouse`` option."""
    from paimon_core.engines.spark.source import source_class

    ship_core(spark)
    spark.dataSource.register(source_class(warehouse))
