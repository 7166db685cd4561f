"""Interop test harness: drive Java Paimon (0.9, 1.4.2) and pypaimon 2.1.0 with JSON request batches and
compare rows in one canonical JSON encoding (see README.md)."""

from ._common import InteropError
from .canonical import arrow_from_rows, assert_same_rows, canonical_value, rows_from_arrow, sort_rows
from .java_paimon import JavaPaimon, ensure_java_classpath
from .pypaimon_env import PyPaimon, ensure_pypaimon_python

__all__ = [
    "arrow_from_rows",
    "InteropError",
    "JavaPaimon",
    "PyPaimon",
    "assert_same_rows",
    "canonical_value",
    "ensure_java_classpath",
    "ensure_pypaimon_python",
    "rows_from_arrow",
    "sort_rows",
]
