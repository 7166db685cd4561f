"""The Engine protocol and engine selection."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from paimon_core.engines.export import ChangesExport, ExportResult, RowsExport, point_bytes, split_bytes
from paimon_core.errors import InvalidInput

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.read.scan import DataSplit
    from paimon_core.write.input_files import InputFile

Progress = Callable[[int], None]  # called with a number of input bytes just processed

DEFAULT_SPARK_THRESHOLD = 1 << 30  # engine.spark-threshold: inputs above 1 GiB go to Spark under "auto"


class Engine(Protocol):
    name: str

    def write(
        self,
        table: TableContext,
        inputs: list[InputFile],
        progress: Progress | None = None,
        row_kind_column: str | None = None,
        on_rows: Callable[[int], None] | None = None,
    ) -> list:
        """Write the rows of ``inputs`` (InputFile list) into new files; return CommitMessages.
        ``on_rows(n)``: input rows read, called when the engine knows them (it may not).
        Must leave no files behind if it raises."""
        ...

    def compact(
        self,
        table: TableContext,
        splits: list[DataSplit],
        full: bool = True,
        progress: Progress | None = None,
    ) -> list:
        """Compaction messages for ``splits`` (from ``table.plan(snapshot, all_levels=True)``)."""
        ...

    def rewrite(self, table: TableContext, snapshot, splits: dict[tuple, list], transform) -> list:
        """CommitMessages (not committed) of ``compaction.partition_rewrite.write_partitions``
        over ``splits`` (partition -> its splits of ``snapshot``): the same files' contents and
        order as that function gives in this process. Must leave no files behind if it raises."""
        ...

    def export_rows(self, request: RowsExport) -> ExportResult:
        """Save the rows the request names (see ``engines.export.RowsExport``)."""
        ...

    def export_changes(self, request: ChangesExport) -> ExportResult:
        """Save the changes the request names (``paimon_core.read.diff.diff``)."""
        ...


def _size(n: int) -> str:
    for unit, step in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= step:
            return f"{n / step:.1f} {unit}"
    return f"{n} bytes"


def _cluster(master: str | None, remote: str | None, session) -> str | None:
    """The Spark that can beat the in-process engine: a cluster (``spark://``, ``yarn``,
    ``k8s://`` master), a Spark Connect server, or a session handed in; never ``local[N]``, which
    shares this machine's cores with nothing to gain (1.6x slower than in-process on 2 cores,
    ``scripts/bench_spark.py``)."""
    if session is not None:
        return "the given Spark session"
    if remote:
        return remote
    if master and not master.startswith("local"):
        return master
    return None


class AutoEngine:
    """``auto``: a job goes to Spark when its input is larger than ``threshold`` bytes and a
    Spark cluster is configured (see ``_cluster``), and runs in-process otherwise. The Spark
    session is only started when first needed. ``notice(text)`` hears which engine a job that
    could have gone either way got, and why."""

    name = "auto"

    def __init__(
        self,
        threshold: int = DEFAULT_SPARK_THRESHOLD,
        notice: Callable[[str], None] | None = None,
        **spark_options,
    ):
        self.threshold = threshold
        self.notice = notice
        self.spark_options = spark_options
        self.cluster = _cluster(
            spark_options.get("master"), spark_options.get("remote"), spark_options.get("session")
        )
        self._spark = None
        self.chosen: str | None = None  # the engine the last call used
        self.reason = ""  # why

    def pick(self, nbytes: int) -> Engine:
        size = f"{_size(nbytes)} of input"
        if nbytes > self.threshold and self.cluster:
            if self._spark is None:
                from paimon_core.engines.spark.engine import SparkEngine

                self._spark = SparkEngine(**self.spark_options)
            self.chosen = "spark"
            self.reason = f"{size}, above engine.spark-threshold ({_size(self.threshold)}), on {self.cluster}"
            self._tell()
            return self._spark
        from paimon_core.engines.local import LocalEngine

        self.chosen = "local"
        if nbytes > self.threshold:
            self.reason = (
                f"{size}, above engine.spark-threshold, but no Spark cluster is configured "
                "(--spark-master spark://... or --spark-remote sc://...): in-process is faster on one machine"
            )
            self._tell()
        else:
            self.reason = f"{size}, below engine.spark-threshold ({_size(self.threshold)})"
        return LocalEngine()

    def _tell(self) -> None:
        if self.notice is not None:
            self.notice(f"engine: {self.chosen} ({self.reason})")

    def write(
        self, table: TableContext, inputs, progress=None, row_kind_column: str | None = None, on_rows=None
    ) -> list:
        eng = self.pick(sum(f.size for f in inputs))
        return eng.write(table, inputs, progress, row_kind_column=row_kind_column, on_rows=on_rows)

    def compact(self, table: TableContext, splits, full: bool = True, progress=None) -> list:
        eng = self.pick(sum(f.file_size for s in splits for f in s.files))
        return eng.compact(table, splits, full, progress)

    def rewrite(self, table: TableContext, snapshot, splits: dict[tuple, list], transform) -> list:
        eng = self.pick(sum(f.file_size for ss in splits.values() for s in ss for f in s.files))
        return eng.rewrite(table, snapshot, splits, transform)

    def export_rows(self, request: RowsExport) -> ExportResult:
        return self.pick(split_bytes(request.splits)).export_rows(request)

    def export_changes(self, request: ChangesExport) -> ExportResult:
        return self.pick(point_bytes(request.table, request.end)).export_changes(request)


def _threshold(value: int | str | None) -> int:
    if value is None:
        return DEFAULT_SPARK_THRESHOLD
    if isinstance(value, int):
        return value
    from paimon_core.options.values import parse_size

    return parse_size(str(value))


def get_engine(
    name: str = "local",
    *,
    master: str | None = None,
    remote: str | None = None,
    conf: dict | None = None,
    spark_threshold: int | str | None = None,
    session=None,
    notice: Callable[[str], None] | None = None,
) -> Engine:
    """``local``, ``spark`` (``master`` local[N] / spark://host:port, or ``remote`` sc://host:port,
    plus ``conf``) or ``auto`` (Spark above ``spark_threshold`` bytes or a size like '1gb',
    default 1 GiB, when a cluster is configured; the Spark options are used only then).
    ``notice`` hears auto's choices (see ``AutoEngine``)."""
    if name == "local":
        from paimon_core.engines.local import LocalEngine

        return LocalEngine()
    if name == "spark":
        from paimon_core.engines.spark.engine import SparkEngine

        return SparkEngine(master=master, remote=remote, conf=conf, session=session)
    if name == "auto":
        return AutoEngine(
            _threshold(spark_threshold), notice, master=master, remote=remote, conf=conf, session=session
        )
    raise InvalidInput(f"unknown engine '{name}' (use local, spark or auto)")
