"""MIN and MAX of a column answered from the file statistics in manifests where they are exact,
as Java's aggregate push-down does (``PushDownUtils.minmaxAvailable``); from data otherwise.

A column's (min, max) over splits is the min of its files' mins and the max of their maxes
exactly when every row a read returns is a stored row of those files, each file's bounds are
its values' own (never widened) and every file states them:
- append tables only (Java refuses primary-key and deletion-vector tables; a split with
  deletion files, another branch's files or data-evolution files is refused too);
- types whose statistics are never truncated or approximate: BOOLEAN, TINYINT, SMALLINT, INT,
  BIGINT, DATE (Java's list without FLOAT/DOUBLE: a Parquet footer's float bounds leave NaN
  out, so a file with NaN would state a max below the one a read returns; strings and
  binaries are cut by ``truncate(N)``, and a file written before the mode became ``full``
  keeps its cut bounds; decimals and timestamps are excluded as in Java);
- each file states the column (``_VALUE_STATS_COLS``) with the same type it has now: a file
  whose bounds are NULL is all NULL there (its null count equals its row count) or the answer
  comes from data; a file whose schema lacks the column (added later) holds only NULL in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.data.binary_row import deserialize_row
from paimon_core.data.types import AtomicType
from paimon_core.metadata.deletion_vectors import dv_enabled
from paimon_core.read.row_tracking import data_evolution

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_core.data.types import DataField
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.read.scan import DataSplit

EXACT_TYPES = frozenset({"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "DATE"})


class _Unknown(Exception):
    """A file whose statistics cannot tell the column's bounds."""


def min_max_available(table: TableContext, column: str) -> bool:
    """Whether statistics can answer MIN/MAX of ``column`` on this table at all (Java's rules
    on the table and the type; ``metadata_min_max`` checks the files)."""
    schema = table.schema
    if schema.primary_keys or data_evolution(schema) or dv_enabled(table):
        return False
    if column not in schema.field_names:
        return False
    t = schema.field(column).type
    return isinstance(t, AtomicType) and t.root in EXACT_TYPES


def metadata_min_max(table: TableContext, splits: Sequence[DataSplit], column: str) -> tuple | None:
    """(min, max) of ``column`` (internal values; (None, None) when no row holds a value) over
    the rows a read of ``splits`` returns, from the files' statistics; None when they cannot
    tell it exactly."""
    if not min_max_available(table, column):
        return None
    current = table.schema.field(column)
    lo = hi = None
    for s in splits:
        if s.deletion_files or s.schema_branch is not None:
            return None
        for f in s.files:
            try:
                bounds = _file_bounds(table, f, current)
            except _Unknown:
                return None
            if bounds is None:
                continue  # only NULL in this file
            a, b = bounds
            lo = a if lo is None or a < lo else lo
            hi = b if hi is None or b > hi else hi
    return lo, hi


def _file_bounds(table: TableContext, f: DataFileMeta, current: DataField) -> tuple | None:
    """(min, max) of field ``current`` in file ``f``; None when it holds only NULL there;
    raises _Unknown when its statistics do not say."""
    schema = table.schema_for(f.schema_id)
    by_id = {fld.id: fld for fld in schema.fields}
    fld = by_id.get(current.id)
    if fld is None:
        return None  # the column was added after this file was written: NULL in every row
    if fld.type.with_nullable(True) != current.type.with_nullable(True):
        raise _Unknown  # retyped since: the stored bounds are of the old type
    cols = list(f.value_stats_cols) if f.value_stats_cols is not None else schema.field_names
    if fld.name not in cols:
        raise _Unknown from None
    i = cols.index(fld.name)
    by_name = {x.name: x.type for x in schema.fields}
    types = [by_name[c] for c in cols]
    try:
        lo = deserialize_row(f.value_stats.min_values, types)[i]
        hi = deserialize_row(f.value_stats.max_values, types)[i]
    except (ValueError, IndexError, UnicodeDecodeError):
        raise _Unknown from None
    nulls = f.value_stats.null_counts
    if lo is None or hi is None:
        if nulls is not None and i < len(nulls) and nulls[i] == f.row_count:
            return None
        raise _Unknown from None
    return lo, hi
