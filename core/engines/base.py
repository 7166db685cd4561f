"""The Engine protocol and engine selection."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from paimon_core.engines.export import ChangesExport, ExportResult, RowsExport, point_bytes, split_bytes
from paimon_core.errors import InvalidInput

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.table import FileStoreTable

Progress = Callable[[int], None]  # called with a number of input bytes just processed

DEFAULT_SPARK_THRESHOLD = 1 << 30  # engine.spark-threshold: inputs above 1 GiB go to Spark under "auto"


class Engine(Protocol):
    name: str

    def write(
        self,
        table,
        inputs: list,
        progress: Progress | None = None,
        row_kind_column: str | None = None,
        on_rows: Callable[[int], None] | None = None,
    ) -> list:
        """Write the rows of ``inputs`` (InputFile list) into new files; return CommitMessages.
        ``on_rows(n)``: input rows read, called when the engine knows them (it may not).
        Must leave no files behind if it raises."""
        ...

    def compact(
        self, table: FileStoreTable, splits, full: bool = True, progress: Progress | None = None
    ) -> list:
        """Compaction messages for ``splits`` (from ``table.plan(snapshot, all_levels=True)``)."""
        ...

    def export_rows(self, request: RowsExport) -> ExportResult:
        """Save the rows the request names (see ``engines.export.RowsExport``)."""
        ...

    def export_changes(self, request: ChangesExport) -> ExportResult:
        """Save the changes the request names (``paimon_core.read.diff.diff``)."""
        ...


class AutoEngine:
    """``auto``: each write goes to Spark when its input is larger than ``threshold`` bytes and
    runs in-process otherwise. The Spark session is only started when first needed."""

    name = "auto"

    def __init__(self, threshold: int = DEFAULT_SPARK_THRESHOLD, **spark_options):
        self.threshold = threshold
        self.spark_options = spark_options
        self._spark = None
        self.chosen: str | None = None  # the engine the last call used

    def pick(self, nbytes: int):
        if nbytes > self.threshold:
            if self._spark is None:
                from paimon_core.engines.spark.engine import SparkEngine

                self._spark = SparkEngine(**self.spark_options)
            self.chosen = "spark"
            return self._spark
        from paimon_core.engines.local import LocalEngine

        self.chosen = "local"
        return LocalEngine()

    def write(
        self, table: FileStoreTable, inputs, progress=None, row_kind_column: str | None = None, on_rows=None
    ) -> list:
        eng = self.pick(sum(f.size for f in inputs))
        return eng.write(table, inputs, progress, row_kind_column=row_kind_column, on_rows=on_rows)

    def compact(self, table: FileStoreTable, splits, full: bool = True, progress=None) -> list:
        eng = self.pick(sum(f.file_size for s in splits for f in s.files))
        return eng.compact(table, splits, full, progress)

    def export_rows(self, request: RowsExport) -> ExportResult:
        return self.pick(split_bytes(request.splits)).export_rows(request)

    def export_changes(self, request: ChangesExport) -> ExportResult:
        return self.pick(point_bytes(request.table, request.end)).export_changes(request)


def _threshold(value) -> int:
    if value is None:
        return DEFAULT_SPARK_THRESHOLD
    if isinstance(value, int):
        return value
    from paimon_core.options import parse_size

    return parse_size(str(value))


def get_engine(
    name: str = "local",
    *,
    master: str | None = None,
    remote: str | None = None,
    conf: dict | None = None,
    spark_threshold=None,
    session=None,
) -> Engine:
    """``local``, ``spark`` (``master`` local[N] / spark://host:port, or ``remote`` sc://host:port,
    plus ``conf``) or ``auto`` (Spark above ``spark_threshold`` bytes or a size like '1gb',
    default 1 GiB; the Spark options are used only then)."""
    if name == "local":
        from paimon_core.engines.local import LocalEngine

        return LocalEngine()
    if name == "spark":
        from paimon_core.engines.spark.engine import SparkEngine

        return SparkEngine(master=master, remote=remote, conf=conf, session=session)
    if name == "auto":
        return AutoEngine(
            _threshold(spark_threshold), master=master, remote=remote, conf=conf, session=session
        )
    raise InvalidInput(f"unknown engine '{name}' (use local, spark or auto)")
