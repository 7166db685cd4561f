"""Row counts answered from manifests where they are exact, as Java's count push-down does
(a split whose merged row count is known from its files' metas); from data otherwise.

A split's count is its files' ``_ROW_COUNT`` sum, minus the rows its deletion vectors mark
deleted, exactly when reading it returns every stored row unmerged:
- append tables (not data-evolution ones, whose files hold some columns each);
- primary-key tables with deletion vectors, when every file is above level 0 and holds no
  retract (-U/-D) rows (``_DELETE_ROW_COUNT`` = 0): then a key has one live row above level 0
  and the read is file by file (``TableRead._raw_convertible``);
- primary-key tables without deletion vectors, when every file is at one level above 0 (one
  sorted run: one row per key) and holds no retract rows.
A predicate keeps the answer exact only when it reads partition columns alone: it is then
evaluated on each split's partition values with the same Arrow kernels the data path uses.
Anything else (another predicate, an unknown ``_DELETE_ROW_COUNT``, level-0 files that must
be merged) is counted from data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.data.types import to_arrow_type
from paimon_core.data.values import internal_to_python
from paimon_core.metadata.deletion_vectors import DeletionVectorReader, dv_enabled
from paimon_core.read.predicate import filter_table
from paimon_core.read.row_tracking import data_evolution

if TYPE_CHECKING:
    from collections.abc import Sequence

    from paimon_core.metadata.table_context import TableContext
    from paimon_core.read.predicate import Predicate
    from paimon_core.read.scan import DataSplit


def metadata_count(
    table: TableContext, splits: Sequence[DataSplit], predicate: Predicate | None = None
) -> int | None:
    """The rows a read of ``splits`` filtered by ``predicate`` returns, from metadata alone;
    None when metadata cannot tell it exactly."""
    keys = table.partition_codec.keys
    if predicate is not None and not predicate.columns() <= set(keys):
        return None
    is_pk = bool(table.schema.primary_keys)
    if not is_pk and data_evolution(table.schema):
        return None
    dv_table = is_pk and dv_enabled(table)
    if not all(_exact(s, is_pk, dv_table) for s in splits):
        return None
    vectors: DeletionVectorReader | None = None
    total = 0
    for s in kept_splits(table, splits, predicate):
        total += s.row_count
        for _, df in s.deletion_files:
            if df.cardinality is None:
                vectors = vectors or DeletionVectorReader(table)
                total -= len(vectors.positions(df))
            else:
                total -= df.cardinality
    return total


def _exact(split: DataSplit, is_pk: bool, dv_table: bool) -> bool:
    if split.schema_branch is not None and split.deletion_files:
        return False  # another branch's vectors: counted from data
    if not is_pk:
        return True
    if not all(f.delete_row_count == 0 and f.level > 0 for f in split.files):
        return False
    if dv_table:
        return True
    return not split.deletion_files and len({f.level for f in split.files}) <= 1


def kept_splits(
    table: TableContext, splits: Sequence[DataSplit], predicate: Predicate | None
) -> list[DataSplit]:
    """The splits whose partition satisfies ``predicate``, a filter on partition columns alone
    (None: all), evaluated with the Arrow kernels the data path uses."""
    if predicate is None:
        return list(splits)
    codec = table.partition_codec
    distinct = {s.partition_bytes: s.partition for s in splits}
    order = list(distinct)
    columns = {}
    for i, (k, t) in enumerate(zip(codec.keys, codec.types)):
        values = [internal_to_python(distinct[b][i], t) for b in order]
        columns[k] = pa.array(values, type=to_arrow_type(t))
    marked = pa.table({**columns, "__pos": pa.array(range(len(order)), pa.int64())})
    kept = {order[i] for i in filter_table(marked, predicate).column("__pos").to_pylist()}
    return [s for s in splits if s.partition_bytes in kept]
