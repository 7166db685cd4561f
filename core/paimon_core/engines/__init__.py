"""Engines compute (write files, compact, read, export) and return CommitMessages or results;
the core commits.

``local`` runs in this process on pyarrow. ``spark`` (the only module that imports pyspark)
runs the same writers inside Spark tasks. ``duckdb_sql`` runs SQL in this process on DuckDB
(``duckdb_engine``); the ``sql`` package is what both SQL engines share. Callers outside the core (the CLI) use engines
through this package only: ``get_engine``, the ``Engine`` protocol, the exports, and the SQL
helpers below.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from paimon_core.engines.base import Engine, get_engine
from paimon_core.engines.export import ChangesExport, ExportResult, ExportTarget, RowsExport


@contextmanager
def sql_errors() -> Iterator[None]:
    """Spark's answers to mistakes in a SQL query as one-line ``SqlError``s (see
    ``spark.sql.user_errors``); needs pyspark."""
    from paimon_core.engines.spark.sql import user_errors

    with user_errors():
        yield


def duckdb_engine(catalog):
    """A ``duckdb_sql.DuckDbSql`` over ``catalog`` (DuckDB is imported by the first statement
    that needs it: counts and min/max answered from manifests never do)."""
    from paimon_core.engines.duckdb_sql import DuckDbSql

    return DuckDbSql(catalog)


@contextmanager
def local_sql_errors(engine, statement: str) -> Iterator[None]:
    """DuckDB's answers to mistakes in ``statement`` (also those raised while its result
    streams) as one-line ``SqlError``s in the statement's own table names."""
    try:
        yield
    except Exception as e:
        import duckdb  # here: a statement answered from manifests never loads DuckDB

        if not isinstance(e, duckdb.Error):
            raise
        from paimon_core.engines.duckdb_sql import as_sql_error

        query, refs = engine.last_refs
        refs = refs if query == statement else ()
        raise as_sql_error(e, statement, refs, list(engine.datasets.values())) from e


def sql_write(catalog, statement: str, run_query):
    """``statement`` run when it is an INSERT, DELETE or TRUNCATE (one commit; ``sql.writes.run_write``):
    its ``WriteSummary``, or None for a statement the engine runs itself."""
    from paimon_core.engines.sql.writes import run_write

    return run_write(catalog, statement, run_query)


def split_statements(script: str) -> list[str]:
    """A SQL script's statements, split at each ``;`` outside quotes and comments."""
    from paimon_core.engines.sql.script import split

    return split(script)


def statement_is_complete(text: str) -> bool:
    """Whether ``text`` ends a statement (a ``;`` outside quotes and comments): the prompt's rule."""
    from paimon_core.engines.sql.script import is_complete

    return is_complete(text)


def write_result_file(batches, schema, path, fmt: str, render=None) -> int:
    """Rows of a query into one file (``export.write_file``: it appears only when complete)."""
    from paimon_core.engines.export import write_file

    return write_file(batches, schema, path, fmt, render)


__all__ = [
    "ChangesExport",
    "Engine",
    "ExportResult",
    "ExportTarget",
    "RowsExport",
    "duckdb_engine",
    "get_engine",
    "local_sql_errors",
    "split_statements",
    "sql_errors",
    "sql_write",
    "statement_is_complete",
    "write_result_file",
]
