"""Filter literals bound to column types, compared as SQL compares them.

SQL compares a column with a numeric literal after promoting both to a common type, so
``amount > 100`` on a DECIMAL(10, 2) column and ``id > 100.5`` on a BIGINT column compare
numbers, exactly. Here a comparison between an exact numeric column (TINYINT, SMALLINT, INT,
BIGINT, DECIMAL(p, s)) and a number is rewritten into an *equivalent* comparison whose literal
lies in the column's domain (a value the column can hold), or into a constant:

* a literal between two domain values ``F < L < C`` (``id > 100.5``): ``<``/``<=`` become
  ``<= F``, ``>``/``>=`` become ``>= C``, ``=`` is never true and ``!=`` always true;
* a literal beyond the domain's range (``tiny_col < 1000``): every comparison is a constant.

"Constant" means: the same answer for every non-null value, and null (no row) where the
column is null, as in SQL. Because the rewritten comparison is exact, statistics pruning on
it (min/max of the column's own values) stays correct with no special case.

Approximate columns (FLOAT, DOUBLE) get the literal converted to a float, as SQL does; other
types (strings, dates, timestamps...) get the literal cast from its text.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, InvalidOperation, localcontext
from typing import TypeGuard

import pyarrow as pa

from paimon_core.data.types import AtomicType, DataType, to_arrow_type
from paimon_core.errors import FilterError

_INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "INTEGER": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
}


def literal_text(value: object) -> str:
    """A literal as it reads in SQL (for messages): 'text', 100.5, TRUE, NULL."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent  # 'n', 'N' or 'F' for NaN, sNaN and Infinity
        return format(value, "f") if isinstance(exponent, int) and -30 <= exponent <= 30 else str(value)
    return str(value)


def _invalid(value, column: str, t: DataType, what: str) -> FilterError:
    return FilterError(
        f"{literal_text(value)} is not a valid {t.with_nullable(True)} for column '{column}'", subject=what
    )


def is_exact_numeric(t: DataType) -> TypeGuard[AtomicType]:
    return isinstance(t, AtomicType) and (t.root in _INT_RANGES or t.root == "DECIMAL")


def _domain(t: AtomicType) -> tuple[Decimal, Decimal, int]:
    """(min, max, scale) of the values an exact numeric type holds."""
    if t.root == "DECIMAL":
        precision, scale = t.declared_precision, t.declared_scale
        top = Decimal(10) ** (precision - scale) - Decimal(1).scaleb(-scale)
        return -top, top, scale
    lo, hi = _INT_RANGES[t.root]
    return Decimal(lo), Decimal(hi), 0


def _as_number(value, column: str, t: DataType, what: str) -> Decimal:
    """An exact finite number for ``value`` (int, Decimal, float or numeric text)."""
    if isinstance(value, bool):
        raise _invalid(value, column, t, what)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _invalid(value, column, t, what)
        return Decimal(repr(value))
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            raise _invalid(value, column, t, what) from None
    elif isinstance(value, Decimal):
        number = value
    else:
        raise _invalid(value, column, t, what)
    if not number.is_finite():
        raise _invalid(value, column, t, what)
    return number


def _domain_value(number: Decimal, t: AtomicType):
    if t.root != "DECIMAL":
        return int(number)
    with localcontext() as ctx:
        ctx.prec = 100  # DECIMAL(38, s) holds more digits than the default context's 28
        return number.quantize(Decimal(1).scaleb(-t.declared_scale))


def exact_member(value, column: str, t: AtomicType, what: str = "filter"):
    """``value`` as a value of exact numeric type ``t`` if the type holds it exactly, else None
    (no value of the column can equal it)."""
    number = _as_number(value, column, t, what)
    lo, hi, scale = _domain(t)
    if not lo <= number <= hi:
        return None
    with localcontext() as ctx:
        ctx.prec = 100
        if number != number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_FLOOR):
            return None
    return _domain_value(number, t)


def exact_compare(op: str, value, column: str, t: AtomicType, what: str = "filter"):
    """``column op value`` on exact numeric type ``t`` as ``(op, domain value)``, or a bool:
    True/False when the comparison has that answer for every non-null value."""
    number = _as_number(value, column, t, what)
    lo, hi, scale = _domain(t)
    if number > hi:
        return op in ("<", "<=", "!=")
    if number < lo:
        return op in (">", ">=", "!=")
    step = Decimal(1).scaleb(-scale)
    with localcontext() as ctx:
        ctx.prec = 100
        floor = number.quantize(step, rounding=ROUND_FLOOR)
        if floor == number:
            return op, _domain_value(number, t)
        ceil = number.quantize(step, rounding=ROUND_CEILING)
    if op == "=":
        return False
    if op == "!=":
        return True
    if op in ("<", "<="):
        return "<=", _domain_value(floor, t)
    return ">=", _domain_value(ceil, t)


def to_scalar(value: object, column: str, t: DataType, what: str = "filter") -> pa.Scalar:
    """``value`` (a literal) cast to the Arrow type of ``t``; FilterError names ``what``
    (``filter``, ``partition 'dt=x'``...) when the literal is not a valid value of the type."""
    arrow_type = to_arrow_type(t)
    if is_exact_numeric(t):
        member = exact_member(value, column, t, what)
        if member is None:
            raise _invalid(value, column, t, what)
        return pa.scalar(member, type=arrow_type)
    try:
        if isinstance(value, str) and pa.types.is_time(arrow_type):
            return pa.scalar(dt.time.fromisoformat(value.strip()), type=arrow_type)
        if (
            isinstance(value, (int, Decimal))
            and not isinstance(value, bool)
            and pa.types.is_floating(arrow_type)
        ):
            return pa.scalar(float(value)).cast(arrow_type)
        if isinstance(value, str) and pa.types.is_binary(arrow_type):
            return pa.scalar(value.encode()).cast(arrow_type)
        return pa.scalar(value).cast(arrow_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError, OverflowError):
        raise _invalid(value, column, t, what) from None


__all__ = ["exact_compare", "exact_member", "is_exact_numeric", "literal_text", "to_scalar"]
