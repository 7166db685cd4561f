"""Engines compute (write files, compact, read, export) and return CommitMessages or results;
the core commits.

``local`` runs in this process on pyarrow. ``spark`` (the only module that imports pyspark)
runs the same writers inside Spark tasks. Callers outside the core (the CLI) use engines
through this package only: ``get_engine``, the ``Engine`` protocol, ``ExportResult`` and
``sql_errors``.
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


__all__ = [
    "ChangesExport",
    "Engine",
    "ExportResult",
    "ExportTarget",
    "RowsExport",
    "get_engine",
    "sql_errors",
]
