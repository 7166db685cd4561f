"""``--where`` semantics against a plain Python model of SQL: exact numeric comparison with
promotion (a DECIMAL column against an integer, a BIGINT column against 100.5, a TINYINT column
against 1000), three-valued logic for nulls, and statistics pruning that never drops a file
holding a matching row."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pyarrow as pa
import pytest

from paimon_core.data.types import parse_type
from paimon_core.errors import FilterError
from paimon_core.read.predicate import ColumnRange, bind, filter_table, may_match, parse_where

D = Decimal

COLUMNS = {  # column -> (type, arrow type, values including the type's extremes and a null)
    "big": ("BIGINT", pa.int64(), [-(2**63), -1, 0, 100, 101, 2**63 - 1, None]),
    "tiny": ("TINYINT", pa.int8(), [-128, -1, 0, 127, None]),
    "amount": (
        "DECIMAL(5, 2)",
        pa.decimal128(5, 2),
        [D("-999.99"), D("0.00"), D("37.01"), D("99.99"), D("100.00"), D("999.99"), None],
    ),
}
LITERALS = [
    "0",
    "100",
    "100.5",
    "-0.5",
    "99.995",
    "37.01",
    "37.015",
    "127",
    "128",
    "-129",
    "999.99",
    "1000",
    "-1000",
    "1e3",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "1e30",
]
OPS = ["=", "!=", "<", "<=", ">", ">="]


def model_compare(x, op: str, lit: Decimal):
    """SQL on exact numbers: null for a null value, else the exact comparison."""
    if x is None:
        return None
    x = D(x)
    return {"=": x == lit, "!=": x != lit, "<": x < lit, "<=": x <= lit, ">": x > lit, ">=": x >= lit}[op]


def model_in(x, lits: list):
    if x is None:
        return None
    if any(lit is not None and D(x) == lit for lit in lits):
        return True
    return None if None in lits else False


def sql_not(v):
    return None if v is None else not v


def table_of(column: str) -> tuple[pa.Table, dict]:
    type_text, arrow_type, values = COLUMNS[column]
    return pa.table({column: pa.array(values, arrow_type)}), {column: parse_type(type_text)}


def selected(table: pa.Table, column: str, where: str, fields: dict) -> list:
    return filter_table(table, bind(parse_where(where), fields))[column].to_pylist()


def expected(values: list, truth) -> list:
    return [x for x in values if truth(x) is True]


@pytest.mark.parametrize("column", sorted(COLUMNS))
def test_comparisons_match_the_sql_model(column):
    table, fields = table_of(column)
    values = COLUMNS[column][2]
    for lit, op in itertools.product(LITERALS, OPS):
        where = f"{column} {op} {lit}"
        want = expected(values, lambda x, op=op, lit=lit: model_compare(x, op, D(lit)))
        assert selected(table, column, where, fields) == want, where
        # NOT keeps nulls out: NOT (null) is null
        want_not = expected(values, lambda x, op=op, lit=lit: sql_not(model_compare(x, op, D(lit))))
        assert selected(table, column, f"NOT {where}", fields) == want_not, f"NOT {where}"


@pytest.mark.parametrize("column", sorted(COLUMNS))
def test_between_and_in_match_the_sql_model(column):
    table, fields = table_of(column)
    values = COLUMNS[column][2]
    for lo, hi in itertools.product(["0", "10", "37.01", "-0.5", "1e3"], ["20", "100.5", "128", "-1000"]):
        want = expected(values, lambda x, lo=lo, hi=hi: None if x is None else D(lo) <= D(x) <= D(hi))
        assert selected(table, column, f"{column} BETWEEN {lo} AND {hi}", fields) == want
        want_not = expected(values, lambda x, lo=lo, hi=hi: None if x is None else not D(lo) <= D(x) <= D(hi))
        assert selected(table, column, f"{column} NOT BETWEEN {lo} AND {hi}", fields) == want_not
    for items in (["0", "37.01"], ["100.5", "127"], ["128", "1e30"], ["0", "NULL"], ["2.5", "NULL"]):
        lits = [None if i == "NULL" else D(i) for i in items]
        where = f"{column} IN ({', '.join(items)})"
        assert selected(table, column, where, fields) == expected(
            values, lambda x, lits=lits: model_in(x, lits)
        )
        want_not = expected(values, lambda x, lits=lits: sql_not(model_in(x, lits)))
        assert selected(table, column, f"{column} NOT IN ({', '.join(items)})", fields) == want_not


def test_the_readme_examples_on_a_decimal_column():
    table = pa.table(
        {
            "amount": pa.array(
                [D("0.00"), D("37.01"), D("100.00"), D("150.25"), D("15.00")], pa.decimal128(10, 2)
            )
        }
    )
    fields = {"amount": parse_type("DECIMAL(10, 2)")}
    assert selected(table, "amount", "amount > 100", fields) == [D("150.25")]
    assert selected(table, "amount", "amount = 0", fields) == [D("0.00")]
    assert selected(table, "amount", "amount BETWEEN 10 AND 20", fields) == [D("15.00")]
    assert selected(table, "amount", "amount IN (0, 37.01)", fields) == [D("0.00"), D("37.01")]


def test_double_columns_compare_with_the_literal_as_a_double():
    table = pa.table({"v": [0.1, 0.5, 1e3, None]})
    fields = {"v": parse_type("DOUBLE")}
    assert selected(table, "v", "v = 0.1", fields) == [0.1]
    assert selected(table, "v", "v >= 1e3", fields) == [1e3]
    assert selected(table, "v", "v < 1", fields) == [0.1, 0.5]


@pytest.mark.parametrize("column", sorted(COLUMNS))
def test_pruning_never_drops_a_file_with_a_matching_row(column):
    """Each value alone in a "file" (and all of them in one): whenever the model says a row
    matches, ``may_match`` on that file's min/max must say so too; and pruning does prune."""
    values = COLUMNS[column][2]
    fields = {column: parse_type(COLUMNS[column][0])}
    present = [v for v in values if v is not None]
    files = [[v] for v in values] + [values]
    pruned_somewhere = False
    for lit, op in itertools.product(LITERALS, OPS):
        pred = bind(parse_where(f"{column} {op} {lit}"), fields)
        for rows in files:
            non_null = [v for v in rows if v is not None]
            stats = ColumnRange(
                min(non_null) if non_null else None,
                max(non_null) if non_null else None,
                len(rows) - len(non_null),
                len(rows),
            )
            matches = any(model_compare(x, op, D(lit)) for x in rows)
            verdict = may_match(pred, {column: stats})
            assert verdict or not matches, f"{column} {op} {lit} pruned a file holding {rows}"
            pruned_somewhere |= not verdict
    assert pruned_somewhere and present


def test_pruning_with_a_literal_between_two_integers():
    """A file whose only id is 100: ``id < 100.5`` matches it. Rounding 100.5 to the nearest
    integer (100, half-even) and then comparing would prune the file."""
    fields = {"id": parse_type("BIGINT")}
    stats = {"id": ColumnRange(100, 100, 0, 1)}
    assert may_match(bind(parse_where("id < 100.5"), fields), stats)
    assert may_match(bind(parse_where("id <= 100.5"), fields), stats)
    assert not may_match(bind(parse_where("id > 100.5"), fields), stats)
    assert not may_match(bind(parse_where("id = 100.5"), fields), stats)
    decimal = {"amount": parse_type("DECIMAL(10, 2)")}
    stats = {"amount": ColumnRange(D("100.00"), D("100.00"), 0, 1)}
    assert may_match(bind(parse_where("amount > 99.995"), decimal), stats)


@pytest.mark.parametrize(
    "where, message",
    [
        ("id = 'abc'", "bad filter: 'abc' is not a valid BIGINT for column 'id'"),
        ("id = TRUE", "bad filter: TRUE is not a valid BIGINT for column 'id'"),
        ("d = 5.5", "bad filter: 5.5 is not a valid DATE for column 'd'"),
        ("d IN ('2024-01-01', 'x')", "bad filter: 'x' is not a valid DATE for column 'd'"),
    ],
)
def test_errors_quote_literals_as_sql_does(where, message):
    fields = {"id": parse_type("BIGINT"), "d": parse_type("DATE")}
    with pytest.raises(FilterError) as e:
        bind(parse_where(where), fields)
    assert str(e.value) == message


def test_decimal38_literals_keep_every_digit():
    """DECIMAL(38, 10) literals have more digits than Python's default decimal context (28)."""
    from paimon_core.data.types import parse_type
    from paimon_core.read.literals import exact_compare, exact_member

    t = parse_type("DECIMAL(38, 10)")
    big = "1234567890123456789012345678.0123456789"
    assert exact_compare("=", big, "d", t) == ("=", Decimal(big))
    assert exact_member("-9999999999999999999999999999.9999999999", "d", t) == Decimal(
        "-9999999999999999999999999999.9999999999"
    )


@pytest.mark.parametrize("literal", [Decimal("NaN"), Decimal("Infinity"), Decimal("-Infinity")])
def test_a_non_finite_decimal_literal_is_a_filter_error(literal):
    """A Decimal NaN/Infinity from the Python API is refused with the usual FilterError (its
    quoting in the message used to raise TypeError: a non-finite Decimal has no integer exponent)."""
    from paimon_core.read.predicate import Compare

    with pytest.raises(FilterError) as e:
        bind(Compare("amount", "=", literal), {"amount": parse_type("DECIMAL(10, 2)")})
    assert str(e.value) == f"bad filter: {literal} is not a valid DECIMAL(10, 2) for column 'amount'"
