"""A pyarrow filter expression (what an Arrow consumer such as DuckDB pushes into a dataset scan)
as a ``--where`` text of ``read/predicate.py``, to prune files and partitions in our scan.

pyarrow expressions cannot be inspected from Python, so their printed form is parsed: the forms
a pushed filter takes are few (``(a == 1)``, ``((a > 1) and (b == "y"))``, ``(x or y)``,
``is_null(a, {...})``, ``is_valid(a)``, ``invert(x)``). The translation is conservative and
only ever widens: a conjunct it does not understand is dropped from an AND, an OR or NOT
of anything not understood exactly gives up (None). Only literals whose spelling is the same in
both languages are taken (integers, decimals, strings, booleans, dates); timestamps, nested
fields and IN lists are left to the consumer. The caller still applies the expression itself
to every row, so a wider predicate only reads more, never returns more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?\Z")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPS = {"==": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@dataclass(frozen=True)
class _Where:
    text: str
    exact: bool  # False: wider than the expression (a dropped conjunct)


class _Unknown(Exception):
    """A form this module does not translate."""


class _Parser:
    def __init__(self, text: str, columns: set[str]):
        self.s = text
        self.i = 0
        self.columns = columns

    def skip_ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def startswith(self, word: str) -> bool:
        self.skip_ws()
        return self.s.startswith(word, self.i)

    def expect(self, word: str) -> None:
        if not self.startswith(word):
            raise _Unknown(word)
        self.i += len(word)

    def expr(self) -> _Where | None:
        """One expression; None when it is not translated (skipped whole, so an AND keeps the
        other side)."""
        self.skip_ws()
        start = self.i
        try:
            return self.known()
        except _Unknown:
            self.i = start
            self.skip_balanced()
            return None

    def skip_balanced(self) -> None:
        """Past one expression: an optional function name, then (...) with strings skipped."""
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*").match(self.s, self.i)
        if m:
            self.i = m.end()
        depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                while self.i < len(self.s) and self.s[self.i] != '"':
                    self.i += 2 if self.s[self.i] == "\\" else 1
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth <= 0:
                    self.i += 1
                    if depth < 0:
                        raise _Unknown("unbalanced")
                    return
            elif depth == 0:
                return
            self.i += 1
        raise _Unknown("unbalanced")

    def known(self) -> _Where | None:
        for fn in ("is_null(", "is_valid(", "invert("):
            if self.startswith(fn):
                self.i += len(fn)
                return self.call(fn[:-1])
        if not self.startswith("("):
            raise _Unknown(self.s[self.i :])
        self.i += 1
        self.skip_ws()
        if not re.compile(r"[A-Za-z_][A-Za-z0-9_]* (==|!=|<=|>=|<|>) ").match(self.s, self.i):
            # (x and y) / (x or y)
            left = self.expr()
            self.skip_ws()
            m = re.compile(r"(and|or)\s").match(self.s, self.i)
            if not m:
                raise _Unknown(self.s[self.i :])
            self.i = m.end()
            right = self.expr()
            self.expect(")")
            return _combine(m.group(1), left, right)
        return self.compare()

    def call(self, fn: str) -> _Where | None:
        if fn == "invert":
            inner = self.expr()
            self.expect(")")
            if inner is None or not inner.exact:
                return None
            return _Where(f"NOT ({inner.text})", True)
        col = self.column()
        depth = 1  # skip the options ({nan_is_null=false}) up to the closing parenthesis
        while depth:
            if self.i >= len(self.s):
                raise _Unknown(fn)
            depth += {"(": 1, ")": -1}.get(self.s[self.i], 0)
            self.i += 1
        return _Where(f"{col} IS {'' if fn == 'is_null' else 'NOT '}NULL", True)

    def column(self) -> str:
        self.skip_ws()
        m = _NAME.match(self.s, self.i)
        if not m or m.group(0) not in self.columns:
            raise _Unknown(self.s[self.i :])
        self.i = m.end()
        return f"`{m.group(0)}`"

    def compare(self) -> _Where | None:
        col = self.column()
        self.skip_ws()
        m = re.compile(r"(==|!=|<=|>=|<|>) ").match(self.s, self.i)
        if not m:
            raise _Unknown(self.s[self.i :])
        self.i = m.end()
        literal = self.literal()
        self.expect(")")
        return None if literal is None else _Where(f"{col} {_OPS[m.group(1)]} {literal}", True)

    def literal(self) -> str | None:
        self.skip_ws()
        if self.s.startswith('"', self.i):
            out, j = [], self.i + 1
            while j < len(self.s) and self.s[j] != '"':
                if self.s[j] == "\\":
                    j += 1
                    if j >= len(self.s):
                        raise _Unknown("string")
                out.append(self.s[j])
                j += 1
            self.i = j + 1
            return "'" + "".join(out).replace("'", "''") + "'"
        j = self.s.find(")", self.i)
        if j < 0:
            raise _Unknown("literal")
        raw = self.s[self.i : j].strip()
        self.i = j
        if _NUMBER.match(raw):
            return raw
        if raw in ("true", "false"):
            return raw.upper()
        if _DATE.match(raw):
            return f"'{raw}'"
        return None  # timestamps, binary, ...: left to the consumer


def _combine(op: str, left: _Where | None, right: _Where | None) -> _Where | None:
    if op == "and":
        if left is None or right is None:
            kept = left or right
            return None if kept is None else _Where(kept.text, False)
        return _Where(f"({left.text}) AND ({right.text})", left.exact and right.exact)
    if left is None or right is None:
        return None
    return _Where(f"({left.text}) OR ({right.text})", left.exact and right.exact)


def to_where(expression: object, columns: list[str]) -> str | None:
    """A ``--where`` text every row matching ``expression`` (a pyarrow Expression, or None)
    also matches, over the top-level ``columns``; None when nothing can be said."""
    if expression is None:
        return None
    parser = _Parser(str(expression), set(columns))
    try:
        found = parser.expr()
        parser.skip_ws()
        if parser.i != len(parser.s):
            return None
    except _Unknown:
        return None
    return None if found is None else found.text


def referenced_columns(expression: object, columns: list[str]) -> list[str]:
    """The ``columns`` the printed ``expression`` may name (a superset: string literals that
    spell a column count too), in ``columns``' order."""
    if expression is None:
        return []
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(expression)))
    text = str(expression)
    return [c for c in columns if c in words or (not _NAME.fullmatch(c) and c in text)]
