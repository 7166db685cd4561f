"""A SQL WHERE on partition columns that ``sql.aggregates`` evaluates on partition values.

The WHERE is read by the one filter parser (``read.predicate.parse_where``); it qualifies when
every leaf of the parsed tree is one whose value DuckDB computes without a cast we would have to
model: a partition column (named exactly as in the table, unquoted) compared (``=``, ``<>``,
``<``..., ``[NOT] IN (...)``, ``[NOT] BETWEEN``) with literals of its own kind: a 'string' for a
STRING/VARCHAR column, an integer within the type's range for an integer column, TRUE/FALSE for a
BOOLEAN, a 'YYYY-MM-DD' string for a DATE (and NULL in an IN list); or ``IS [NOT] NULL``. AND,
OR, NOT and parentheses combine them. Anything else is left to DuckDB.

Invariant: ``PartitionFilter.holds`` is True for a partition exactly when the WHERE is TRUE on
its rows in DuckDB (SQL's three-valued logic: NULL compares to unknown, NOT unknown is unknown,
a partition whose values make the WHERE unknown is not kept); ``predicate`` is the same filter
bound to the table's columns, used only to prune planning.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paimon_core.data.types import AtomicType
from paimon_core.data.values import python_to_internal
from paimon_core.errors import PaimonError
from paimon_core.read.predicate import And, Compare, In, IsNull, Not, Or, Predicate, bind, parse_where

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema

_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

Truth = bool | None  # SQL's three values: True, False, None (unknown)
Test = Callable[[dict], Truth]


@dataclass(frozen=True)
class PartitionFilter:
    """A WHERE on partition columns: ``predicate`` bound to the table (to prune the plan) and
    ``test``, its exact SQL value on one partition's internal values (``holds``: its rows are kept)."""

    predicate: Predicate
    test: Test

    def holds(self, values: dict) -> bool:
        return self.test(values) is True


class _NotOurs(Exception):
    """The filter is not one of the forms evaluated here (module docstring)."""


def partition_filter(where: str, schema: TableSchema) -> PartitionFilter | None:
    """``where`` (DuckDB SQL) as a ``PartitionFilter`` when it is a filter on partition columns
    of the forms in the module docstring; None otherwise."""
    if "`" in where:  # a `quoted` name reads differently in DuckDB
        return None
    types = {f.name: f.type for f in schema.fields if f.name in schema.partition_keys}
    try:
        tree = parse_where(where)
        test = _test(tree, types)
        return PartitionFilter(bind(tree, {f.name: f.type for f in schema.fields}), test)
    except (PaimonError, _NotOurs):
        return None


def _test(p: Predicate, types: dict) -> Test:
    """``p``'s three-valued SQL value as a function of the partition's values."""
    if isinstance(p, (And, Or)):
        left, right = _test(p.left, types), _test(p.right, types)
        return _and(left, right) if isinstance(p, And) else _or(left, right)
    if isinstance(p, Not):
        inner = _test(p.child, types)
        return lambda values: _negate(inner(values))
    if not isinstance(p, (Compare, In, IsNull)) or p.column not in types:
        raise _NotOurs  # LIKE, or not a partition column
    name, t = p.column, types[p.column]
    if isinstance(p, IsNull):
        negated = p.negated
        return lambda values: (values[name] is None) != negated
    if isinstance(p, In):
        return _in(name, [_value(v, t) for v in p.literals if v is not None], None in p.literals, p.negated)
    value, compare = _value(p.literal, t), _COMPARE[p.op]
    return lambda values: None if values[name] is None else compare(values[name], value)


def _negate(v: Truth) -> Truth:
    return None if v is None else not v


def _and(left: Test, right: Test) -> Test:
    def test(values: dict) -> Truth:
        a, b = left(values), right(values)
        return False if False in (a, b) else None if None in (a, b) else True

    return test


def _or(left: Test, right: Test) -> Test:
    def test(values: dict) -> Truth:
        a, b = left(values), right(values)
        return True if True in (a, b) else None if None in (a, b) else False

    return test


def _in(name: str, members: list, null_member: bool, negated: bool) -> Test:
    """``x [NOT] IN (...)``: unknown for a NULL x, and for an x outside a list that holds a NULL."""

    def test(values: dict) -> Truth:
        x = values[name]
        if x is None:
            return None
        if x in members:
            return not negated
        return None if null_member else negated

    return test


def _value(literal: object, t) -> object:
    """A literal of the column's own kind as the column's internal value; _NotOurs otherwise
    (DuckDB's casts then decide)."""
    root = t.root if isinstance(t, AtomicType) else None
    if root == "VARCHAR" and isinstance(literal, str):
        return literal
    if root in _INT_BITS and type(literal) is int:
        bits = _INT_BITS[root]
        if -(2 ** (bits - 1)) <= literal < 2 ** (bits - 1):
            return literal
    if root == "BOOLEAN" and isinstance(literal, bool):
        return literal
    if root == "DATE" and isinstance(literal, str) and _ISO_DATE.fullmatch(literal):
        try:
            return python_to_internal(dt.date.fromisoformat(literal), t)
        except ValueError:
            pass  # not a date: DuckDB says so
    raise _NotOurs
