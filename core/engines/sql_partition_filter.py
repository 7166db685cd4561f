"""A SQL WHERE on partition columns that ``sql_aggregates`` evaluates on partition values, when it
is one of the forms whose value DuckDB computes without a cast: comparisons of a partition column
(named exactly as in the table) with a literal of its own kind (a 'string' for a STRING/VARCHAR
column, an integer within the type's range for an integer column, TRUE/FALSE for a BOOLEAN),
``[NOT] IN (...)``, ``IS [NOT] NULL``, ``[NOT] BETWEEN``, AND, OR, NOT and parentheses.

Invariant: ``PartitionFilter.holds`` is True for a partition exactly when the WHERE is TRUE on
its rows in DuckDB (SQL's three-valued logic: NULL compares to unknown, NOT unknown is unknown);
``text`` is the same filter in the ``--where`` language, used only to prune planning.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.data.types import AtomicType

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema

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
    """The filter is not one of the forms evaluated here (module docstring)."""


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
