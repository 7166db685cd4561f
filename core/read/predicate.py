"""Row filters: the ``--where`` language, evaluation on Arrow, and pruning on file statistics.

Grammar (case-insensitive keywords)::

    expr    := term (OR term)*
    term    := factor (AND factor)*
    factor  := NOT factor | '(' expr ')' | col op literal | col [NOT] IN (lit, ...)
             | col IS [NOT] NULL | col BETWEEN lit AND lit
    op      := = | == | != | <> | < | <= | > | >=

Literals are numbers, 'quoted strings' (also for dates, times and decimals: they are cast to
the column's type), TRUE, FALSE. Numbers compare with numeric columns as in SQL, exactly and
with numeric promotion (``id > 100.5`` on BIGINT, ``amount = 0`` on DECIMAL; see ``literals``).
Nulls follow SQL's three-valued logic: a comparison with a null column is null, and so is its
negation, so ``NOT`` never lets a null row through. ``may_match`` is conservative: it answers
False only when the statistics prove that no row can match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
from paimon_core.data.types import AtomicType, to_arrow_type
from paimon_core.data.values import internal_from_scalar
from paimon_core.errors import FilterError
from paimon_core.read.literals import exact_compare, exact_member, is_exact_numeric, to_scalar

_TOKENS = re.compile(
    r"\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<str>'(?:[^']|'')*')|(?P<qid>`(?:[^`]|``)*`)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_.]*)|(?P<op><=|>=|<>|!=|==|=|<|>)|(?P<punct>[(),]))"
)

_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!="}


# ---- AST ----------------------------------------------------------------------------------------


class Predicate:
    def columns(self) -> set[str]:
        raise NotImplementedError


@dataclass
class Compare(Predicate):
    column: str
    op: str  # = != < <= > >=
    literal: object
    scalar: pa.Scalar | None = None
    internal: object = None

    def columns(self):
        return {self.column}


@dataclass
class In(Predicate):
    column: str
    literals: list
    negated: bool = False
    scalars: list | None = None
    internals: list | None = None
    arrow_type: pa.DataType | None = None

    def columns(self):
        return {self.column}


@dataclass
class Always(Predicate):
    """A comparison whose answer is ``value`` for every non-null value of ``column`` (and null
    where the column is null), e.g. ``id = 100.5`` on BIGINT (always False)."""

    column: str
    value: bool

    def columns(self):
        return {self.column}


@dataclass
class IsNull(Predicate):
    column: str
    negated: bool = False

    def columns(self):
        return {self.column}


@dataclass
class And(Predicate):
    left: Predicate
    right: Predicate

    def columns(self):
        return self.left.columns() | self.right.columns()


@dataclass
class Or(Predicate):
    left: Predicate
    right: Predicate

    def columns(self):
        return self.left.columns() | self.right.columns()


@dataclass
class Not(Predicate):
    child: Predicate

    def columns(self):
        return self.child.columns()


# ---- parsing ------------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            if not text[pos:].strip():
                break
            m = _TOKENS.match(text, pos)
            if not m:
                raise FilterError(f"cannot read '{text[pos:].strip()[:12]}'", text)
            kind = m.lastgroup
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def peek_kw(self, *words) -> bool:
        kind, val = self.peek()
        return kind == "id" and val.upper() in words

    def take(self):
        if self.i >= len(self.toks):
            raise FilterError("it ends too early", self.text)
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect_punct(self, p):
        kind, val = self.take()
        if val != p:
            raise FilterError(f"expected '{p}' but found '{val}'", self.text)

    def parse(self) -> Predicate:
        if not self.toks:
            raise FilterError("it is empty")
        e = self.expr()
        if self.i != len(self.toks):
            raise FilterError(f"unexpected '{self.toks[self.i][1]}'", self.text)
        return e

    def expr(self):
        left = self.term()
        while self.peek_kw("OR"):
            self.take()
            left = Or(left, self.term())
        return left

    def term(self):
        left = self.factor()
        while self.peek_kw("AND"):
            self.take()
            left = And(left, self.factor())
        return left

    def factor(self):
        if self.peek_kw("NOT"):
            self.take()
            return Not(self.factor())
        kind, val = self.peek()
        if val == "(":
            self.take()
            e = self.expr()
            self.expect_punct(")")
            return e
        col = self.column()
        if self.peek_kw("IS"):
            self.take()
            neg = False
            if self.peek_kw("NOT"):
                self.take()
                neg = True
            k, v = self.take()
            if not (k == "id" and v.upper() == "NULL"):
                raise FilterError("expected NULL after IS", self.text)
            return IsNull(col, neg)
        neg = False
        if self.peek_kw("NOT"):
            self.take()
            neg = True
            if not self.peek_kw("IN"):
                raise FilterError("expected IN after NOT", self.text)
        if self.peek_kw("IN"):
            self.take()
            self.expect_punct("(")
            items = [self.literal()]
            while self.peek()[1] == ",":
                self.take()
                items.append(self.literal())
            self.expect_punct(")")
            return In(col, items, neg)
        if self.peek_kw("BETWEEN"):
            self.take()
            lo = self.literal()
            k, v = self.take()
            if not (k == "id" and v.upper() == "AND"):
                raise FilterError("expected AND in BETWEEN", self.text)
            hi = self.literal()
            return And(Compare(col, ">=", lo), Compare(col, "<=", hi))
        k, op = self.take()
        if k != "op":
            raise FilterError(f"expected a comparison after '{col}' but found '{op}'", self.text)
        op = {"==": "=", "<>": "!="}.get(op, op)
        if self.peek()[0] in ("id", "qid") and not self.peek_kw("TRUE", "FALSE", "NULL"):
            raise FilterError("compare a column with a literal, not another column", self.text)
        lit = self.literal()
        if lit is None:
            raise FilterError("use IS NULL / IS NOT NULL to test for null", self.text)
        return Compare(col, op, lit)

    def column(self) -> str:
        kind, val = self.take()
        if kind == "id":
            return val
        if kind == "qid":
            return val[1:-1].replace("``", "`")
        raise FilterError(f"expected a column name but found '{val}'", self.text)

    def literal(self):
        kind, val = self.take()
        if kind == "num":  # Decimal keeps every digit; it becomes a float only for FLOAT/DOUBLE columns
            return Decimal(val) if any(c in val for c in ".eE") else int(val)
        if kind == "str":
            return val[1:-1].replace("''", "'")
        if kind == "id" and val.upper() in ("TRUE", "FALSE"):
            return val.upper() == "TRUE"
        if kind == "id" and val.upper() == "NULL":
            return None
        raise FilterError(f"expected a literal but found '{val}'", self.text)


def parse_where(text: str) -> Predicate:
    return _Parser(text).parse()


# ---- binding to a schema ------------------------------------------------------------------------


def _bind_compare(p: Compare, t) -> Predicate:
    if is_exact_numeric(t):
        bound = exact_compare(p.op, p.literal, p.column, t)
        if isinstance(bound, bool):
            return Always(p.column, bound)
        op, value = bound
        p = Compare(p.column, op, value)
    p.scalar = to_scalar(p.literal, p.column, t)
    p.internal = internal_from_scalar(p.scalar, t)
    return p


def _bind_in(p: In, t) -> Predicate:
    values = [v for v in p.literals if v is not None]
    if is_exact_numeric(t):  # a number the column cannot hold equals no row
        values = [m for m in (exact_member(v, p.column, t) for v in values) if m is not None]
    p.scalars = [to_scalar(v, p.column, t) for v in values]
    p.internals = [internal_from_scalar(s, t) for s in p.scalars]
    p.arrow_type = to_arrow_type(t)
    return p


def parse_filter(schema, where: str | None) -> Predicate | None:
    """A ``--where`` text bound to the columns of ``schema`` (a TableSchema); None for no filter."""
    if not where:
        return None
    return bind(parse_where(where), {f.name: f.type for f in schema.fields})


def bind(pred: Predicate, fields: dict) -> Predicate:
    """Check columns exist and bind literals to the column types (``fields``: name -> DataType).
    Returns the bound predicate (comparisons may be rewritten, see ``literals``)."""

    def visit(p):
        if isinstance(p, (And, Or)):
            return type(p)(visit(p.left), visit(p.right))
        if isinstance(p, Not):
            return Not(visit(p.child))
        if p.column not in fields:
            raise FilterError(f"unknown column '{p.column}' (columns: {', '.join(fields)})")
        t = fields[p.column]
        if isinstance(p, (Compare, In)) and not isinstance(t, AtomicType):
            raise FilterError(f"column '{p.column}' of type {t} cannot be compared")
        if isinstance(p, Compare):
            return _bind_compare(p, t)
        if isinstance(p, In):
            return _bind_in(p, t)
        return p

    return visit(pred)


# ---- evaluation on Arrow ------------------------------------------------------------------------


def to_expression(p: Predicate) -> pc.Expression:
    if isinstance(p, And):
        return to_expression(p.left) & to_expression(p.right)
    if isinstance(p, Or):
        return to_expression(p.left) | to_expression(p.right)
    if isinstance(p, Not):
        return ~to_expression(p.child)
    f = pc.field(p.column)
    unknown = pc.scalar(pa.scalar(None, pa.bool_()))  # SQL's null truth value
    if isinstance(p, IsNull):
        return ~f.is_null() if p.negated else f.is_null()
    if isinstance(p, Always):  # Kleene logic: null where the column is null, else the constant
        return (f.is_valid() | unknown) if p.value else (f.is_null() & unknown)
    if isinstance(p, In):
        values = pa.array([s.as_py() for s in p.scalars], type=p.arrow_type)
        e = f.isin(values) if p.scalars else pc.scalar(False)
        # is_in answers false for a null input; SQL answers null, and null for no match when
        # the list holds a NULL (so NOT IN with a NULL in the list is never true)
        e = (e | unknown) if None in p.literals else (e | (f.is_null() & unknown))
        return ~e if p.negated else e
    s = p.scalar
    return {"=": f == s, "!=": f != s, "<": f < s, "<=": f <= s, ">": f > s, ">=": f >= s}[p.op]


def filter_table(table: pa.Table, p: Predicate | None) -> pa.Table:
    if p is None or table.num_rows == 0:
        return table
    return table.filter(to_expression(p))


# ---- pruning on statistics ----------------------------------------------------------------------


@dataclass
class ColumnRange:
    """What statistics say about one column of a file/partition; min/max None = unknown."""

    min: object
    max: object
    null_count: int | None
    row_count: int


def may_match(p: Predicate, ranges: dict) -> bool:
    """False only when ``ranges`` (column -> ColumnRange) prove no row satisfies ``p``."""
    if isinstance(p, And):
        return may_match(p.left, ranges) and may_match(p.right, ranges)
    if isinstance(p, Or):
        return may_match(p.left, ranges) or may_match(p.right, ranges)
    if isinstance(p, Not):
        return True  # negation of a "maybe" is a "maybe"
    r = ranges.get(p.column)
    if r is None:
        return True
    all_null = r.null_count is not None and r.null_count == r.row_count
    if isinstance(p, Always):
        return p.value and not all_null
    if isinstance(p, IsNull):
        if p.negated:
            return not all_null
        return r.null_count is None or r.null_count > 0
    if all_null:
        return False
    if r.min is None or r.max is None:
        return True
    try:
        if isinstance(p, In):
            if p.negated:
                if None in p.literals:
                    return False  # NOT IN (..., NULL) is never true
                return not (r.min == r.max and r.min in p.internals)
            return any(r.min <= v <= r.max for v in p.internals)
        v = p.internal
        if p.op == "=":
            return r.min <= v <= r.max
        if p.op == "!=":
            return not (r.min == r.max == v)
        if p.op == "<":
            return r.min < v
        if p.op == "<=":
            return r.min <= v
        if p.op == ">":
            return r.max > v
        if p.op == ">=":
            return r.max >= v
    except TypeError:
        return True
    return True


__all__ = [
    "Always",
    "ColumnRange",
    "Predicate",
    "bind",
    "filter_table",
    "may_match",
    "parse_where",
    "to_expression",
    "_FLIP",
]
