"""Spark SQL over Paimon tables without a Java connector: the tables a query names become
temporary views of ``to_dataframe`` (or of a diff), and the query is rewritten to use them.

Table references and their time-travel spellings are those of ``engines/sql/refs.py`` (the
same on DuckDB): ``db.t``, ``db.t VERSION AS OF 42`` / ``TIMESTAMP AS OF '...'``,
``` `db.t$snapshot=42` ```, ``` `db.t$tag=x` ```, ``` `db.t$as_of=...` ```, ``` `db.t$branch_b` ```,
``` `db.t$diff=A..B[,mode=...][,per_snapshot]` ```.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING

from paimon_core.engines.sql.refs import TableRef, catalog_exists, find_refs, in_user_terms, resolve, rewrite
from paimon_core.errors import InvalidInput, SqlError

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.table import FileStoreTable


def ref_dataframe(spark, catalog, ref: TableRef):
    from paimon_core.engines.spark.frames import to_dataframe

    if ref.kind == "system":  # a system table: built by the driver, handed over as Arrow
        rows = resolve(catalog, ref).system_rows()
        return spark.createDataFrame(rows.to_pandas(), schema=_spark_schema(rows.schema))
    src = resolve(catalog, ref)
    assert src.base is not None  # a table reference (system tables are handled above)
    if src.diff is not None:
        d = src.diff
        return diff_dataframe(spark, src.base, d.start, d.end, d.mode, d.per_snapshot)
    return to_dataframe(spark, src.base, src.snapshot)


def _spark_schema(schema):
    """The Spark schema of an Arrow schema (system tables: strings, integers, timestamps, arrays)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def sql(spark, catalog, query: str, exists: Callable[[str], bool] | None = None):
    """Run ``query`` on ``spark`` with the Paimon tables it names (see the module doc) registered
    as temporary views; returns the DataFrame (lazy). ``catalog``: a FileSystemCatalog."""
    if exists is None:
        exists = catalog_exists(catalog)
    refs = find_refs(query, exists)
    done = set()
    for _, _, ref in refs:
        if ref in done:
            continue
        ref_dataframe(spark, catalog, ref).createOrReplaceTempView(ref.view)
        done.add(ref)
    from pyspark.errors import AnalysisException

    try:
        return spark.sql(rewrite(query, refs))
    except AnalysisException as e:  # in the user's terms: their table names, their positions
        raise SqlError(in_user_terms(_first_line(e), query, refs)) from e


@contextmanager
def user_errors():
    """Spark's answers to mistakes in a query as one-line ``SqlError``s: analysis and parse
    errors (unknown table or column, syntax), and data errors (SQLSTATE class 22: a failed
    cast, a division by zero) keep the first line of Spark's message, without the query plan
    or the JVM stack trace. PySpark would also log each such error with its stack trace as
    JSON on stderr before raising it; those loggers are silenced here."""
    from pyspark.errors import AnalysisException, PySparkException
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True
    try:
        yield
    except AnalysisException as e:
        raise SqlError(_first_line(e)) from e
    except PySparkException as e:
        if (e.getSqlState() or "").startswith("22"):
            raise SqlError(_first_line(e)) from e
        raise


def _first_line(e: BaseException) -> str:
    line = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return line.rstrip(";").rstrip()


# ---- diffs on executors


def _diff_task(spec, jobs: list, mode: str, per_snapshot: bool, columns, target, batches):
    """Each job is (start, end): the core's diff of that range, cast to Spark's Arrow types."""
    from paimon_core.engines.spark.tasks import to_spark_arrow
    from paimon_core.read.diff import diff

    table = spec.table()
    for ids in batches:
        for j in ids.column(0).to_pylist():
            a, b = jobs[j]
            t = diff(table, a, b, mode, per_snapshot, columns)
            if t.num_rows:
                yield from to_spark_arrow(t, target).to_batches()


def diff_dataframe(
    spark, table: FileStoreTable, start, end, mode: str = "auto", per_snapshot: bool = False, columns=None
):
    """``paimon_core.read.diff.diff`` as a Spark DataFrame computed on the executors: one task per
    snapshot of (start, end] for changelog/delta modes and per-snapshot diffs, one task for a
    state-against-state diff. ``start``/``end``: snapshot ids or Snapshot objects (tags)."""
    from paimon_core.engines.spark import tasks as T
    from paimon_core.engines.spark.frames import ship_core
    from paimon_core.engines.spark.types import spark_schema
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.read import diff as D

    if mode not in D.MODES:
        raise InvalidInput(f"unknown diff mode '{mode}' (one of {', '.join(D.MODES)})")
    producer = table.schema.core_options.changelog_producer
    resolved = mode
    if mode == "auto":
        resolved = "changelog" if producer != "none" and table.is_primary_key_table else "diff"
    a_id = start.id if isinstance(start, Snapshot) else start
    b_id = end.id if isinstance(end, Snapshot) else end
    # the driver validates the range (as the core does) and builds the schema from an empty diff
    if resolved == "diff" and not per_snapshot:
        if a_id > b_id:
            raise D.range_error(a_id, b_id)
        if not isinstance(start, Snapshot) and not isinstance(end, Snapshot):
            D.check_range(table, a_id, b_id, need_all=False)
        jobs = [(start, end)]
    else:
        D.check_range(table, a_id, b_id, need_all=True)
        jobs = [(sid - 1, sid) for sid in range(a_id + 1, b_id + 1)]
    empty = D.empty_changes(table, columns or table.schema.field_names)
    if per_snapshot:
        import pyarrow as pa

        empty = empty.add_column(1, D.SNAPSHOT, pa.array([], pa.int64()))
    sschema, target = spark_schema(empty.schema)
    if not jobs:
        return spark.createDataFrame([], sschema)
    ship_core(spark)
    spec = T.TableSpec.of(table)
    return spark.range(0, len(jobs), 1, len(jobs)).mapInArrow(
        partial(_diff_task, spec, jobs, mode, per_snapshot, columns, target), sschema
    )
