"""``SELECT count(*) / min(c) / max(c) FROM db.t [WHERE <partition filter>]`` answered from
manifests, before any SQL engine starts, where the answer is exact (``read.count`` and
``read.min_max`` say where); every other statement, and these where metadata cannot tell, run on
the engine over the data.

Which statements qualify (anything else returns None from ``metadata_answer``):
- one SELECT whose items are ``count(*)``, ``min(col)``, ``max(col)`` (``col`` a bare name,
  bound case-insensitively as DuckDB binds it), each optionally aliased; no DISTINCT, FILTER,
  GROUP BY, ORDER BY, LIMIT, join or subquery;
- FROM one table reference of ``sql.refs`` (the latest snapshot, a snapshot, a tag, a time; a
  branch), without an alias;
- WHERE, if any, a filter on partition columns alone of the forms ``sql.partition_filter``
  evaluates exactly on each split's partition values (read by the ``--where`` parser; it also
  prunes the plan).
Invariant: the answer is the rows DuckDB would return over the data, column names and Arrow
types included (DuckDB names ``count(*)`` ``count_star()`` and ``min(c)`` ``min(c)`` as
written); tests/core/engines/test_sql_aggregates.py compares the two on random tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.data.types import AtomicType, to_arrow_type
from paimon_core.data.values import one_value_array
from paimon_core.engines.sql.partition_filter import PartitionFilter, partition_filter
from paimon_core.engines.sql.refs import find_refs, resolve

if TYPE_CHECKING:
    from paimon_core.catalog import Catalog
    from paimon_core.metadata.schema import TableSchema

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ITEM = re.compile(
    rf"\s*(?:(?P<count>count\s*\(\s*\*\s*\))|(?P<fn>min|max)\s*\(\s*(?P<col>{_NAME})\s*\))"
    rf"(?:\s+(?:AS\s+)?(?:(?P<alias>{_NAME})|\"(?P<qalias>(?:[^\"]|\"\")+)\"))?\s*(?:,|$)",
    re.I | re.S,
)
_SHAPE = re.compile(
    r"\s*SELECT\s+(?P<items>.+?)\s+FROM\s+\x00(?:\s+WHERE\s+(?P<where>.+?))?\s*;?\s*", re.I | re.S
)
_BIGINT = AtomicType(root="BIGINT")
_RESERVED = {"from", "where", "as", "select", "group", "order", "limit", "having", "union", "distinct"}
_TRAVEL = ("latest", "snapshot", "tag", "as_of")


@dataclass(frozen=True)
class _Item:
    func: str  # count | min | max
    column: str | None  # the table's column (min/max)
    name: str  # the output column's name, as DuckDB names it


def metadata_answer(catalog: Catalog, statement: str, exists: Callable[[str], bool]) -> pa.Table | None:
    """The result of ``statement`` from metadata when it qualifies (module docstring) and the
    metadata answer is exact; None otherwise (run it on the engine)."""
    refs = find_refs(statement, exists, "duckdb")
    if len(refs) != 1 or refs[0][2].kind not in _TRAVEL:
        return None
    start, end, ref = refs[0]
    shape = _SHAPE.fullmatch(statement[:start] + "\x00" + statement[end:])
    if shape is None:
        return None
    src = resolve(catalog, ref)
    table = src.at_table
    if table is None:
        return None
    items = _items(shape.group("items"), table.schema)
    if items is None:
        return None
    where = shape.group("where")
    keep = None if where is None else partition_filter(where, table.schema)
    if where is not None and keep is None:
        return None
    return _answer(table, src.snapshot, items, keep)


def _items(text: str, schema: TableSchema) -> list[_Item] | None:
    items, pos = [], 0
    by_lower: dict[str, list[str]] = {}
    for name in schema.field_names:
        by_lower.setdefault(name.lower(), []).append(name)
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None or m.end() == pos:
            return None
        pos = m.end()
        alias = m.group("alias")
        if alias is not None and alias.lower() in _RESERVED:
            return None
        if m.group("qalias") is not None:
            alias = m.group("qalias").replace('""', '"')
        if m.group("count"):
            items.append(_Item("count", None, alias or "count_star()"))
            continue
        fn, col = m.group("fn").lower(), m.group("col")
        matches = by_lower.get(col.lower(), [])
        if len(matches) != 1:
            return None  # unknown or ambiguous: DuckDB says what is wrong
        items.append(_Item(fn, matches[0], alias or f"{fn}({col})"))
    names = [i.name.lower() for i in items]
    return items if items and len(set(names)) == len(names) else None


def _answer(table, snapshot, items: list[_Item], keep: PartitionFilter | None) -> pa.Table | None:
    from paimon_core.metadata.live_files import expiry_checked
    from paimon_core.read.count import metadata_count
    from paimon_core.read.fallback import with_fallback
    from paimon_core.read.min_max import metadata_min_max, min_max_available
    from paimon_core.read.scan import plan

    if not all(i.column is None or min_max_available(table, i.column) for i in items):
        return None  # decided before planning
    # the bound predicate prunes the plan (conservatively); ``keep`` decides each partition exactly
    predicate = None if keep is None else keep.predicate
    with expiry_checked(table, snapshot):
        splits = with_fallback(table, snapshot, plan(table, snapshot, predicate), predicate)
    if keep is not None:
        keys = table.partition_codec.keys
        splits = [s for s in splits if keep.holds(dict(zip(keys, s.partition)))]
    columns, fields = [], []
    for item in items:
        if item.column is None:
            n = metadata_count(table, splits)
            if n is None:
                return None
            columns.append(one_value_array(n, _BIGINT))
            fields.append(pa.field(item.name, pa.int64()))
            continue
        bounds = metadata_min_max(table, splits, item.column)
        if bounds is None:
            return None
        t = table.schema.field(item.column).type
        value = bounds[0] if item.func == "min" else bounds[1]
        columns.append(one_value_array(value, t))
        fields.append(pa.field(item.name, to_arrow_type(t)))
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))
