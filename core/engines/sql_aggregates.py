"""``SELECT count(*) / min(c) / max(c) FROM db.t [WHERE <partition filter>]`` answered from
manifests, before any SQL engine starts, where the answer is exact (``read.count`` and
``read.min_max`` say where); every other statement, and these where metadata cannot tell, run on
the engine over the data.

Which statements qualify (anything else returns None from ``metadata_answer``):
- one SELECT whose items are ``count(*)``, ``min(col)``, ``max(col)`` (``col`` a bare name,
  bound case-insensitively as DuckDB binds it), each optionally aliased; no DISTINCT, FILTER,
  GROUP BY, ORDER BY, LIMIT, join or subquery;
- FROM one table reference of ``sql_refs`` (the latest snapshot, a snapshot, a tag, a time; a
  branch), without an alias;
- WHERE, if any, a filter on partition columns alone (named exactly), built of comparisons of a
  column with a literal of its own kind (a 'string' for a STRING/VARCHAR column, an integer in
  range for an integer column, TRUE/FALSE for a boolean), ``[NOT] IN (...)``, ``IS [NOT] NULL``,
  ``[NOT] BETWEEN``, AND, OR, NOT and parentheses: forms whose value DuckDB computes without a
  cast. ``PartitionFilter`` evaluates it on each split's partition values with SQL's
  three-valued logic (a partition is kept when it is TRUE), and prunes the plan with the same
  filter in the ``--where`` language.
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
from paimon_core.engines.sql_refs import find_refs, resolve
from paimon_core.errors import PaimonError
from paimon_core.read.predicate import parse_filter

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
    # the --where form prunes the plan (conservatively); ``keep`` decides each partition exactly
    try:
        predicate = None if keep is None else parse_filter(table.schema, keep.text)
    except PaimonError:  # not expected for these forms; DuckDB then says what it makes of it
        return None
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


# ---- the WHERE forms both languages read alike

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<int>-?\d+)(?![\w.])|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|<>|!=|=|<|>)|(?P<punct>[(),]))"
)
_INT_BITS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_COMPARE = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
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
    """A WHERE on partition columns: ``text`` in the ``--where`` language (to prune the plan)
    and ``holds``, its exact SQL value on one partition's values (True: its rows are kept)."""

    text: str
    test: Test

    def holds(self, values: dict) -> bool:
        return self.test(values) is True


class _NotOurs(Exception):
    """The filter is not one of the forms read alike (module docstring)."""


def partition_filter(where: str, schema: TableSchema) -> PartitionFilter | None:
    """``where`` (DuckDB SQL) as a ``PartitionFilter`` when it is a filter on partition columns
    of the forms in the module docstring; None otherwise."""
    tokens, pos, end = [], 0, len(where.rstrip())
    while pos < end:
        m = _TOKEN.match(where, pos)
        if m is None or m.end() == pos:
            return None
        kind = m.lastgroup
        assert kind is not None  # one alternative matched
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    types = {f.name: f.type for f in schema.fields if f.name in schema.partition_keys}
    parser = _Filter(tokens, types)
    try:
        text, test = parser.expr()
    except _NotOurs:
        return None
    return PartitionFilter(text, test) if parser.pos == len(tokens) else None


def _and(tests: list[Test]) -> Test:
    def test(values: dict) -> Truth:
        got = [t(values) for t in tests]
        return False if False in got else None if None in got else True

    return test


def _or(tests: list[Test]) -> Test:
    def test(values: dict) -> Truth:
        got = [t(values) for t in tests]
        return True if True in got else None if None in got else False

    return test


def _not(inner: Test) -> Test:
    def test(values: dict) -> Truth:
        v = inner(values)
        return None if v is None else not v

    return test


class _Filter:
    """Recursive descent over the tokens; each rule returns (``--where`` text, test)."""

    def __init__(self, tokens: list[tuple[str, str]], types: dict):
        self.tokens, self.pos, self.types = tokens, 0, types

    def _peek(self, word: str) -> bool:
        if self.pos >= len(self.tokens):
            return False
        kind, text = self.tokens[self.pos]
        return text.upper() == word if kind == "id" else text == word

    def _take(self, word: str) -> None:
        if not self._peek(word):
            raise _NotOurs
        self.pos += 1

    def _next(self) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise _NotOurs
        self.pos += 1
        return self.tokens[self.pos - 1]

    def expr(self) -> tuple[str, Test]:
        parts = [self.term()]
        while self._peek("OR"):
            self.pos += 1
            parts.append(self.term())
        if len(parts) == 1:
            return parts[0]
        return "(" + " OR ".join(p[0] for p in parts) + ")", _or([p[1] for p in parts])

    def term(self) -> tuple[str, Test]:
        parts = [self.factor()]
        while self._peek("AND"):
            self.pos += 1
            parts.append(self.factor())
        if len(parts) == 1:
            return parts[0]
        return "(" + " AND ".join(p[0] for p in parts) + ")", _and([p[1] for p in parts])

    def factor(self) -> tuple[str, Test]:
        if self._peek("NOT"):
            self.pos += 1
            text, test = self.factor()
            return f"(NOT {text})", _not(test)
        if self._peek("("):
            self.pos += 1
            inner = self.expr()
            self._take(")")
            return inner
        kind, name = self._next()
        if kind != "id" or name not in self.types:
            raise _NotOurs  # not a partition column (named exactly as in the table)
        t, col = self.types[name], f"`{name}`"
        if self._peek("IS"):
            self.pos += 1
            negated = self._peek("NOT")
            self.pos += negated
            self._take("NULL")
            text = f"({col} IS {'NOT ' if negated else ''}NULL)"
            return text, lambda values: (values[name] is None) != negated
        negated = self._peek("NOT")
        self.pos += negated
        if self._peek("IN"):
            self.pos += 1
            self._take("(")
            items = [self._literal(t)]
            while self._peek(","):
                self.pos += 1
                items.append(self._literal(t))
            self._take(")")
            members = {v for _, v in items}
            text = f"({col} {'NOT ' if negated else ''}IN ({', '.join(x for x, _ in items)}))"
            return text, lambda values: None if values[name] is None else (values[name] in members) != negated
        if self._peek("BETWEEN"):
            self.pos += 1
            (lo_text, lo), _, (hi_text, hi) = self._literal(t), self._take("AND"), self._literal(t)

            def between(values: dict) -> Truth:
                v = values[name]
                return None if v is None else (lo <= v <= hi) != negated

            return f"({'NOT ' if negated else ''}({col} BETWEEN {lo_text} AND {hi_text}))", between
        if negated:
            raise _NotOurs
        kind, op = self._next()
        if kind != "op":
            raise _NotOurs
        text, value = self._literal(t)
        compare = _COMPARE[op]
        return (
            f"({col} {op} {text})",
            lambda values: None if values[name] is None else compare(values[name], value),
        )

    def _literal(self, t) -> tuple[str, object]:
        """A literal of the column's own kind: its text and its internal value."""
        kind, text = self._next()
        root = t.root if isinstance(t, AtomicType) else None
        if kind == "str" and root == "VARCHAR":
            return text, text[1:-1].replace("''", "'")
        if kind == "int" and root in _INT_BITS:
            bits = _INT_BITS[root]
            if -(2 ** (bits - 1)) <= int(text) < 2 ** (bits - 1):  # else DuckDB's cast decides
                return text, int(text)
        if kind == "id" and text.upper() in ("TRUE", "FALSE") and root == "BOOLEAN":
            return text.upper(), text.upper() == "TRUE"
        raise _NotOurs
