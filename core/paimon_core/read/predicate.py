"""Row filters: the ``--where`` language, evaluation on Arrow, and pruning on file statistics.

Grammar (case-insensitive keywords)::

    expr    := term (OR term)*
    term    := factor (AND factor)*
    factor  := NOT factor | '(' expr ')' | col op literal | col [NOT] IN (lit, ...)
             | col IS [NOT] NULL | col [NOT] BETWEEN lit AND lit
             | col [NOT] LIKE 'pattern' [ESCAPE 'c']
    op      := = | == | != | <> | < | <= | > | >=
    col     := name | name.field[.field...]   (a field of a ROW column) | `quoted name`

``LIKE`` is SQL's: ``%`` any run of characters, ``_`` one character, the escape character
(backslash unless ``ESCAPE`` names another) makes the next ``%``, ``_`` or itself literal; the whole
value must match. On statistics it prunes only by the pattern's literal prefix. A field of a ROW
column is null where the row is null; it is never used to prune on statistics.

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
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.data.types import AtomicType, RowType, to_arrow_type
from paimon_core.data.values import internal_from_scalar
from paimon_core.errors import FilterError
from paimon_core.read.literals import exact_compare, exact_member, is_exact_numeric, to_scalar

if TYPE_CHECKING:
    import pyarrow.compute as pc

    from paimon_core.metadata.schema import TableSchema

_TOKENS = re.compile(
    r"\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<str>'(?:[^']|'')*')|(?P<qid>`(?:[^`]|``)*`)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_.]*)|(?P<op><=|>=|<>|!=|==|=|<|>)|(?P<punct>[(),]))"
)

_FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "=": "=", "!=": "!="}


# ---- AST ----------------------------------------------------------------------------------------


class Predicate:
    def columns(self) -> set[str]:
        """The table's (top-level) columns the predicate reads."""
        raise NotImplementedError


class _OnColumn(Predicate):
    """A predicate on one column or on a field of a ROW column (``path``, set by binding: the
    top-level column, then field names; empty before binding)."""

    column: str
    path: tuple[str, ...]

    def columns(self) -> set[str]:
        return {self.path[0] if self.path else self.column}

    @property
    def nested(self) -> bool:
        return len(self.path) > 1


@dataclass
class Compare(_OnColumn):
    column: str
    op: str  # = != < <= > >=
    literal: object
    scalar: pa.Scalar | None = None
    internal: object = None
    path: tuple[str, ...] = ()


@dataclass
class In(_OnColumn):
    column: str
    literals: list
    negated: bool = False
    scalars: list | None = None
    internals: list | None = None
    arrow_type: pa.DataType | None = None
    path: tuple[str, ...] = ()


@dataclass
class Always(_OnColumn):
    """A comparison whose answer is ``value`` for every non-null value of ``column`` (and null
    where the column is null), e.g. ``id = 100.5`` on BIGINT (always False)."""

    column: str
    value: bool
    path: tuple[str, ...] = ()


@dataclass
class IsNull(_OnColumn):
    column: str
    negated: bool = False
    path: tuple[str, ...] = ()


@dataclass
class Like(_OnColumn):
    """``column [NOT] LIKE pattern [ESCAPE escape]`` on a string column."""

    column: str
    pattern: str
    negated: bool = False
    escape: str = "\\"
    path: tuple[str, ...] = ()

    def regex(self) -> str:
        """The pattern as an anchored RE2 regex (``.`` matches newlines too)."""
        out, i, pat = [], 0, self.pattern
        while i < len(pat):
            c = pat[i]
            if c == self.escape:
                if i + 1 >= len(pat) or pat[i + 1] not in ("%", "_", self.escape):
                    raise FilterError(
                        f"LIKE pattern '{pat}': the escape character '{self.escape}' must be followed "
                        f"by %, _ or itself"
                    )
                out.append(re.escape(pat[i + 1]))
                i += 2
                continue
            out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
            i += 1
        return "(?s)^" + "".join(out) + "$"

    def prefix(self) -> str:
        """The literal text every match starts with (up to the first wildcard)."""
        out, i, pat = [], 0, self.pattern
        while i < len(pat):
            c = pat[i]
            if c == self.escape and i + 1 < len(pat):
                out.append(pat[i + 1])
                i += 2
                continue
            if c in ("%", "_"):
                break
            out.append(c)
            i += 1
        return "".join(out)


@dataclass
class And(Predicate):
    left: Predicate
    right: Predicate

    def columns(self) -> set[str]:
        return self.left.columns() | self.right.columns()


@dataclass
class Or(Predicate):
    left: Predicate
    right: Predicate

    def columns(self) -> set[str]:
        return self.left.columns() | self.right.columns()


@dataclass
class Not(Predicate):
    child: Predicate

    def columns(self) -> set[str]:
        return self.child.columns()


Leaf = Compare | In | Always | IsNull | Like  # the predicates on one column


def _leaf(p: Predicate) -> Leaf:
    if not isinstance(p, (Compare, In, Always, IsNull, Like)):
        raise TypeError(f"not a predicate on a column: {p!r}")
    return p


def _bound(values: list | None, p: In) -> list:
    """``p.scalars`` / ``p.internals``, which binding to the table's types fills in."""
    if values is None:
        raise ValueError(f"{p!r} is used before it was bound to the table's types")
    return values


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
                rest = text[pos:].strip()
                if rest[:1] in ("'", '"'):
                    raise FilterError(f"a string is not closed: {rest[:20]} (quote it as 'text')", text)
                raise FilterError(f"cannot read {rest[:12]!r}", text)
            kind = m.lastgroup
            assert kind is not None  # every alternative of _TOKENS is a named group
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def peek_kw(self, *words) -> bool:
        kind, val = self.peek()
        return kind == "id" and val is not None and val.upper() in words

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
            if not self.peek_kw("IN", "LIKE", "BETWEEN"):
                raise FilterError("expected IN, LIKE or BETWEEN after NOT", self.text)
        if self.peek_kw("LIKE"):
            self.take()
            pattern = self.literal()
            if not isinstance(pattern, str):
                raise FilterError("LIKE takes a 'quoted' pattern", self.text)
            escape = "\\"
            if self.peek_kw("ESCAPE"):
                self.take()
                escape = self.literal()
                if not isinstance(escape, str) or len(escape) != 1:
                    raise FilterError("ESCAPE takes one 'quoted' character", self.text)
            like = Like(col, pattern, neg, escape)
            like.regex()  # a bad escape is a parse error
            return like
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
            between = And(Compare(col, ">=", lo), Compare(col, "<=", hi))
            return Not(between) if neg else between
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


def parse_filter(schema: TableSchema, where: str | None) -> Predicate | None:
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
        p = _leaf(p)
        path, t = _resolve(p.column, fields)
        if isinstance(p, (Compare, In, Like)) and not isinstance(t, AtomicType):
            raise FilterError(f"column '{p.column}' of type {t} cannot be compared")
        if isinstance(p, Like) and not (isinstance(t, AtomicType) and t.is_string):
            raise FilterError(f"LIKE needs a string column; '{p.column}' is {t}")
        bound = _bind_compare(p, t) if isinstance(p, Compare) else _bind_in(p, t) if isinstance(p, In) else p
        leaf = _leaf(bound)
        leaf.path = path
        return leaf

    return visit(pred)


def _resolve(column: str, fields: dict) -> tuple[tuple[str, ...], object]:
    """(path, type) of a column name or a dotted field of a ROW column; a top-level column whose
    name has dots wins over a nested reading."""
    if column in fields:
        return (column,), fields[column]
    head, *rest = column.split(".")
    if head not in fields or not rest:
        raise FilterError(f"unknown column '{column}' (columns: {', '.join(fields)})")
    t = fields[head]
    for i, name in enumerate(rest):
        if not isinstance(t, RowType):
            raise FilterError(f"'{'.'.join([head, *rest[:i]])}' is {t}, not a ROW: it has no field '{name}'")
        sub = {f.name: f.type for f in t.fields}
        if name not in sub:
            raise FilterError(
                f"ROW column '{'.'.join([head, *rest[:i]])}' has no field '{name}' (fields: {', '.join(sub)})"
            )
        t = sub[name]
    return (head, *rest), t


# ---- evaluation on Arrow ------------------------------------------------------------------------


def to_expression(p: Predicate) -> pc.Expression:
    """``p`` as an Arrow expression (SQL's three-valued logic); ``pyarrow.compute`` is imported
    here, when rows are filtered, not when a predicate is parsed or prunes files."""
    import pyarrow.compute as pc

    if isinstance(p, And):
        return to_expression(p.left) & to_expression(p.right)
    if isinstance(p, Or):
        return to_expression(p.left) | to_expression(p.right)
    if isinstance(p, Not):
        return ~to_expression(p.child)
    p = _leaf(p)
    f = pc.field(*p.path) if p.path else pc.field(p.column)
    unknown = pc.scalar(pa.scalar(None, pa.bool_()))  # SQL's null truth value
    if isinstance(p, IsNull):
        return ~f.is_null() if p.negated else f.is_null()
    if isinstance(p, Like):
        e = pc.match_substring_regex(f, pattern=p.regex())
        return ~e if p.negated else e
    if isinstance(p, Always):  # Kleene logic: null where the column is null, else the constant
        return (f.is_valid() | unknown) if p.value else (f.is_null() & unknown)
    if isinstance(p, In):
        values = pa.array([s.as_py() for s in _bound(p.scalars, p)], type=p.arrow_type)
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
    p = _leaf(p)
    if p.nested:
        return True  # statistics are kept for top-level columns only
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
    if isinstance(p, Like):
        return _like_may_match(p, r)
    try:
        if isinstance(p, In):
            if p.negated:
                if None in p.literals:
                    return False  # NOT IN (..., NULL) is never true
                return not (r.min == r.max and r.min in _bound(p.internals, p))
            return any(r.min <= v <= r.max for v in _bound(p.internals, p))
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


def _like_may_match(p: Like, r: ColumnRange) -> bool:
    """Only a positive LIKE with a literal prefix prunes: every match lies in [prefix, the
    prefix with its last character raised)."""
    prefix = p.prefix()
    if p.negated or not prefix or not isinstance(r.min, str) or not isinstance(r.max, str):
        return True
    if r.max < prefix:
        return False
    last = ord(prefix[-1])
    if last >= 0x10FFFF:
        return True
    upper = prefix[:-1] + chr(last + 1)
    return r.min < upper


__all__ = [
    "Always",
    "ColumnRange",
    "Like",
    "Predicate",
    "bind",
    "filter_table",
    "may_match",
    "parse_where",
    "to_expression",
    "_FLIP",
]
