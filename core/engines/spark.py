"""The Spark engine: the core writers, compactors and readers run inside Spark tasks.

The only module that imports pyspark (lazily, in functions). The driver plans (input pieces,
splits, each bucket's highest sequence number), executors write files straight to the
warehouse and return pickled CommitMessages, and the caller commits once on the driver.

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
``spark_sql.diff_dataframe(spark, table, a, b)`` and ``spark_sql.sql(spark, catalog, query)``
(the query's DB.TABLE names become temporary views; time travel with ``VERSION AS OF`` /
``TIMESTAMP AS OF`` or ``` `db.t$snapshot=42` ```, changes with ``` `db.t$diff=A..B` ```).
``write_parquet_dir`` is the executors' side of ``read/diff/sql --out`` (a folder of part files).

Spark sessions: ``local[*]`` by default, ``spark://host:port``, or Spark Connect
``sc://host:port``. ``paimon_core`` is shipped to the cluster as a zip (``addPyFile``, or
``addArtifacts`` on Connect), so executors only need pyarrow, numpy and fsspec.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import sys
import tempfile
import threading
import uuid
from functools import partial
from typing import TYPE_CHECKING

from paimon_core.engines import spark_tasks as T
from paimon_core.engines.spark_frames import core_zip, is_connect, ship_core, splits_dataframe, to_dataframe
from paimon_core.engines.spark_types import spark_schema
from paimon_core.errors import PaimonError

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.table import FileStoreTable

PIECE_BYTES = 128 * 1024 * 1024  # input bytes per read task (Parquet is split at row groups)

_LOG4J2 = """\
status = error
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = stderr
appender.stderr.type = Console
appender.stderr.name = stderr
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = error
logger.native.name = org.apache.hadoop.util.NativeCodeLoader
logger.native.level = error
logger.netty.name = io.netty
logger.netty.level = error
logger.jetty.name = org.sparkproject.jetty
logger.jetty.level = error
"""

DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.python.worker.reuse": "true",
    "spark.sql.execution.arrow.maxRecordsPerBatch": "65536",
}


def log4j2_config_path() -> str:
    """A quiet log4j2 config (WARN to stderr, Spark/Hadoop chatter at ERROR) in a temp file."""
    path = os.path.join(
        tempfile.gettempdir(), f"paimon-log4j2-{hashlib.sha1(_LOG4J2.encode()).hexdigest()[:10]}.properties"
    )
    if not os.path.exists(path):
        tmp = f"{path}.{uuid.uuid4().hex}"
        with open(tmp, "w") as f:
            f.write(_LOG4J2)
        os.replace(tmp, path)
    return path


def create_session(master: str | None = None, remote: str | None = None, conf: dict | None = None):
    """Get or create a quiet SparkSession; ``remote`` (sc://host:port) means Spark Connect."""
    conf = dict(conf or {})
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYARROW_IGNORE_TIMEZONE", "1")
    from pyspark.sql import SparkSession

    # creating a Connect session sets environment variables that turn every later builder into
    # a Connect one; this engine picks the kind explicitly
    for var in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE", "SPARK_LOCAL_REMOTE"):
        os.environ.pop(var, None)
    if remote:
        builder = SparkSession.builder.remote(remote)
        for k, v in conf.items():
            builder = builder.config(k, v)
        return builder.getOrCreate()
    os.environ["PYSPARK_PYTHON"] = conf.get(
        "spark.pyspark.python", os.environ.get("PYSPARK_PYTHON") or sys.executable
    )
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

    log = f"-Dlog4j2.configurationFile=file:{log4j2_config_path()}"
    merged = dict(DEFAULT_CONF)
    merged["spark.driver.extraJavaOptions"] = log
    merged["spark.executor.extraJavaOptions"] = log
    merged.update(conf)
    builder = SparkSession.builder.master(master or "local[*]").appName("paimon")
    for k, v in merged.items():
        builder = builder.config(k, v)
    return _launch_filtered(builder.getOrCreate)


# lines the driver JVM prints whatever log4j says (the launcher adds --add-modules=jdk.incubator.vector)
_STDERR_NOISE = (b"WARNING: Using incubator modules",)


def _copy_filtered(read_fd: int, out_fd: int) -> None:
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        for line in iter(pipe.readline, b""):
            if not line.startswith(_STDERR_NOISE):
                try:
                    os.write(out_fd, line)
                except OSError:
                    pass


def _launch_filtered(launch):
    """Call ``launch`` (which may start the driver JVM) with stderr on a pipe: the JVM keeps that
    stderr for life, and a daemon thread copies it to the real stderr without the JVM's
    unconditional 'Using incubator modules' warning. Log4j output still comes through.
    ``PAIMON_SPARK_RAW_STDERR=1`` turns this off."""
    from pyspark import SparkContext

    if SparkContext._active_spark_context is not None or os.environ.get("PAIMON_SPARK_RAW_STDERR"):
        return launch()
    try:
        sys.stderr.flush()
        real = os.dup(2)
    except (OSError, ValueError):
        return launch()
    r, w = os.pipe()
    threading.Thread(target=_copy_filtered, args=(r, real), daemon=True, name="paimon-jvm-stderr").start()
    os.dup2(w, 2)
    os.close(w)
    try:
        return launch()
    finally:
        os.dup2(real, 2)  # our stderr is the real one again; only the JVM (and its children) hold the pipe


def write_parquet_dir(df, path: str) -> str:
    """Executors write ``df`` as a folder of Parquet part files at ``path`` (Spark's layout, with
    a ``_SUCCESS`` marker). An existing folder is replaced only if Spark wrote it (has
    ``_SUCCESS``) or it is empty; anything else existing at ``path`` is an error. Returns the
    absolute path (or URI) written."""
    import fsspec

    if "://" not in path:
        path = os.path.abspath(path)
    fs, fpath = fsspec.core.url_to_fs(path)
    mode = "errorifexists"
    if fs.exists(fpath):
        if not fs.isdir(fpath):
            raise PaimonError(
                f"{path} exists and is a file: the Spark engine writes a folder of Parquet part files"
            )
        names = [n.rstrip("/").rsplit("/", 1)[-1] for n in fs.ls(fpath, detail=False)]
        if names and "_SUCCESS" not in names:
            raise PaimonError(f"{path} is a folder Spark did not write (no _SUCCESS): not replacing it")
        mode = "overwrite"
    df.write.mode(mode).parquet(path)
    return path


_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Mismatch|Input|Conflict|Exit)): (.*)$")


def _core_error_class(name: str, errors):
    """The class of ``paimon_core.errors`` that a task's error named ``name`` is (or derives
    from: ``InputRowError`` is a ``SchemaMismatch``); None for errors that are not ours."""
    stack, match = [PaimonError], None
    while stack and match is None:
        c = stack.pop()
        if c.__name__ == name:
            match = c
        stack.extend(c.__subclasses__())
    if match is None:
        return None
    return next(k for k in match.__mro__ if k.__module__ == errors.__name__)


def _task_error(e: BaseException) -> BaseException:
    """A failed Spark job as a core error: the last Python exception line of the failed task."""
    from paimon_core import errors

    found = None
    for line in str(e).splitlines():
        m = _EXC_LINE.match(line.strip())
        if m:
            found = m
    if found:
        name, msg = found.group(1).rsplit(".", 1)[-1], found.group(2)
        cls = _core_error_class(name, errors)
        if cls is not None:
            return cls(msg)
        return PaimonError(f"the Spark job failed: {name}: {msg[:500]}")
    first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return PaimonError(f"the Spark job failed: {first[:500]}")


class _Progress:
    """Feeds ``progress(bytes)`` from Spark's task counts of the jobs in one job group."""

    def __init__(self, spark, group: str, total: int, progress):
        self.spark, self.group, self.total, self.progress = spark, group, total, progress
        self.reported = 0
        self._stop = threading.Event()
        self._thread = None

    def __enter__(self):
        if self.progress and not is_connect(self.spark):
            self.spark.sparkContext.setJobGroup(self.group, "paimon", interruptOnCancel=True)
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _fraction(self) -> float:
        tracker = self.spark.sparkContext.statusTracker()
        stages = (
            set()
        )  # a stage shared by several jobs (AQE runs shuffle stages as jobs of their own) counts once
        for jid in tracker.getJobIdsForGroup(self.group):
            job = tracker.getJobInfo(jid)
            stages.update(job.stageIds if job else ())
        done = total = 0
        for sid in stages:
            st = tracker.getStageInfo(sid)
            if st:
                done += st.numCompletedTasks
                total += st.numTasks
        return done / total if total else 0.0

    def _report(self, upto: int) -> None:
        step = min(upto, self.total) - self.reported
        if step > 0 and self.progress:
            self.reported += step
            self.progress(step)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            try:
                self._report(int(self.total * self._fraction()))
            except Exception:  # noqa: BLE001 - progress is best effort
                pass

    def __exit__(self, exc_type, exc, tb):
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        if not is_connect(self.spark) and self.progress:
            self.spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        if exc is None:
            self._report(self.total)


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
            return max(1, int(self.spark.conf.get("spark.sql.shuffle.partitions")))
        except Exception:  # noqa: BLE001
            return 8

    def _run(
        self, table: FileStoreTable, df, prefix: str, progress=None, total: int = 0, swept_dirs=None
    ) -> list:
        """Collect the messages of ``df``; on failure delete the job's files and re-raise."""
        group = f"paimon-{prefix}"
        try:
            with _Progress(self.spark, group, total, progress):
                rows = df.collect()
        except BaseException as e:
            sweep_job_files(table, prefix, keep=set(), dirs=swept_dirs)
            if isinstance(e, (KeyboardInterrupt, SystemExit, PaimonError)):
                raise
            raise _task_error(e) from e
        messages = [pickle.loads(r[T.MSG]) for r in rows]
        if any(r[T.ATTEMPT] for r in rows):
            # a retried task: its failed attempts may have left files in the same buckets
            keep = {f.file_name for m in messages for f in m.new_files + m.compact_after + m.changelog_files}
            dirs = {table.bucket_path(m.partition, m.bucket) for m in messages}
            sweep_job_files(table, prefix, keep, dirs)
        return messages

    # ---- ingest
    def write(
        self, table: FileStoreTable, inputs, progress=None, row_kind_column: str | None = None, on_rows=None
    ) -> list:
        """Write ``inputs`` (InputFile list) into new files; return CommitMessages (not committed).
        ``on_rows`` hears the input row count when every input is Parquet (known from metadata)."""
        if table.schema.core_options.bucket == -2:
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

    def _direct_write(self, table: FileStoreTable, pieces) -> bool:
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
    def compact(self, table: FileStoreTable, splits, full: bool = True, progress=None) -> list:
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
        from paimon_core.engines.spark_sql import sql

        return sql(self.spark, catalog, query)

    def export_dataframe(self, df, out_path, on_plan=None, progress=None, total: int = 0):
        """The executors write ``df`` as a folder of Parquet part files at ``out_path``."""
        from paimon_core.engines.export import ExportResult

        if on_plan:
            on_plan(total)
        with _Progress(self.spark, f"paimon-export-{uuid.uuid4().hex[:8]}", total, progress):
            path = write_parquet_dir(df, str(out_path))
        return ExportResult(path, self.spark.read.parquet(path).count(), "folder")

    def export_rows(
        self,
        table,
        splits,
        columns=None,
        predicate=None,
        limit=None,
        out_path=None,
        fmt: str = "parquet",
        *,
        render=None,
        on_plan=None,
        progress=None,
    ):
        from paimon_core.engines.export import refuse_text_formats, split_bytes

        refuse_text_formats(out_path, fmt)
        reader = table.new_read(columns, predicate)  # validates the columns before Spark starts
        df = splits_dataframe(self.spark, table, splits, reader.columns, predicate)
        if limit is not None:
            df = df.limit(limit)
        return self.export_dataframe(df, out_path, on_plan, progress, split_bytes(splits))

    def export_changes(
        self,
        table,
        start,
        end,
        mode: str = "auto",
        per_snapshot: bool = False,
        columns=None,
        out_path=None,
        fmt: str = "parquet",
        *,
        render=None,
        on_plan=None,
        progress=None,
    ):
        from paimon_core.engines.export import point_bytes, refuse_text_formats
        from paimon_core.engines.spark_sql import diff_dataframe

        refuse_text_formats(out_path, fmt)
        df = diff_dataframe(self.spark, table, start, end, mode, per_snapshot, columns)
        return self.export_dataframe(df, out_path, on_plan, progress, point_bytes(table, end))


def plan_pieces(inputs, piece_bytes: int = PIECE_BYTES) -> list:
    """Input files -> read tasks: Parquet split into runs of row groups of about ``piece_bytes``;
    CSV and JSON one task per file. Pieces keep the input order (it decides sequence numbers)."""
    import pyarrow.parquet as pq

    pieces = []
    for f in inputs:
        if f.format != "parquet":
            pieces.append(T.Piece(len(pieces), f.path, f.format, f.size))
            continue
        md = pq.ParquetFile(f.path).metadata
        if md.num_row_groups <= 1:
            pieces.append(
                T.Piece(len(pieces), f.path, f.format, f.size, tuple(range(md.num_row_groups)), md.num_rows)
            )
            continue
        total = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups)) or 1
        run, acc, nrows = [], 0, 0
        for i in range(md.num_row_groups):
            run.append(i)
            acc += md.row_group(i).total_byte_size
            nrows += md.row_group(i).num_rows
            if acc >= piece_bytes:
                pieces.append(
                    T.Piece(len(pieces), f.path, f.format, f.size * acc // total, tuple(run), nrows)
                )
                run, acc, nrows = [], 0, 0
        if run:
            pieces.append(T.Piece(len(pieces), f.path, f.format, f.size * acc // total, tuple(run), nrows))
    return pieces


def with_offsets(pieces: list) -> list:
    """The pieces (all with row counts) with their global row offsets: the rows of all earlier
    pieces, in input order."""
    from dataclasses import replace

    out, offset = [], 0
    for p in pieces:
        out.append(replace(p, offset=offset))
        offset += p.rows
    return out


def max_sequence_numbers(table: FileStoreTable) -> dict:
    """(partition bytes, bucket) -> highest sequence number in the latest snapshot."""
    from paimon_core.read.scan import live_entries

    out: dict = {}
    for e in live_entries(table.manifests, table.snapshots.latest()):
        k = (e.partition, e.bucket)
        out[k] = max(out.get(k, -1), e.file.max_sequence_number)
    return out


def job_prefix(table: FileStoreTable) -> str:
    """The file-name prefix of one job's data files: the table's prefix plus a job id."""
    return f"{table.schema.core_options.get('data-file.prefix')}{uuid.uuid4().hex[:12]}-"


_META_DIRS = {"snapshot", "manifest", "schema", "index", "changelog", "tag", "branch", "statistics"}


def sweep_job_files(table: FileStoreTable, prefix: str, keep: set, dirs=None) -> int:
    """Delete data files named ``<prefix>...`` not in ``keep``, in ``dirs`` or the whole table
    tree (bucket folders). Files with the job prefix belong to this job only and, when not
    kept, were never committed, so deleting them is always safe."""
    io = table.io
    removed = 0
    if dirs is None:
        dirs, stack = [], [table.path]
        while stack:
            d = stack.pop()
            for name in io.list_names(d):
                if d == table.path and name in _META_DIRS:
                    continue
                full = io.join(d, name)
                if name.startswith("bucket-"):
                    dirs.append(full)
                elif "=" in name and io.is_dir(full):
                    stack.append(full)
    for d in dirs:
        for name in io.list_names(d):
            if name.startswith(prefix) and name not in keep:
                io.delete(io.join(d, name))
                removed += 1
    return removed


__all__ = [
    "SparkEngine",
    "create_session",
    "write_parquet_dir",
    "core_zip",
    "ship_core",
    "to_dataframe",
    "splits_dataframe",
    "plan_pieces",
    "max_sequence_numbers",
    "sweep_job_files",
]


def register(spark, warehouse: str | None = None) -> None:
    """Register the ``paimon`` Python data source on a session (PySpark 4): batch and streaming
    reads and writes of Paimon tables without a Java connector; see ``spark_source``.
    ``warehouse`` is used when a read or write gives no ``warehouse`` option."""
    from paimon_core.engines.spark_source import source_class

    ship_core(spark)
    spark.dataSource.register(source_class(warehouse))
