"""pyarrow filter expressions (as DuckDB pushes them) -> --where text, never narrower."""

from __future__ import annotations

import datetime

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from paimon_core.read.arrow_filter import referenced_columns, to_where

COLS = ["a", "b", "d", "ts", "s"]
f = pc.field


@pytest.mark.parametrize(
    "expr, where",
    [
        (f("a") == 2, "`a` = 2"),
        ((f("a") > 1) & (f("b") == 'it\'s "q"'), "(`a` > 1) AND (`b` = 'it''s \"q\"')"),
        ((f("a") == 1) | (f("b") == "z"), "(`a` = 1) OR (`b` = 'z')"),
        (f("b").is_null(), "`b` IS NULL"),
        (f("b").is_valid() & (f("a") <= 3), "(`b` IS NOT NULL) AND (`a` <= 3)"),
        (f("d") == pa.scalar(datetime.date(2024, 1, 2)), "`d` = '2024-01-02'"),
        (~(f("a") == 1), "NOT (`a` = 1)"),
        # a conjunct not understood is dropped (wider), an OR or NOT of one gives up
        ((f("ts") >= pa.scalar(datetime.datetime(2024, 1, 1))) & (f("a") == 1), "`a` = 1"),
        (f("a").isin([1, 2]) & (f("b") == "x"), "`b` = 'x'"),
        ((f("a") == 1) | f("a").isin([1, 2]), None),
        (~((f("ts") >= pa.scalar(datetime.datetime(2024, 1, 1))) & (f("a") == 1)), None),
        ((f("s", "x") == 1) & (f("a") == 1), "`a` = 1"),
        (f("zz") == 1, None),
        (None, None),
    ],
)
def test_to_where(expr, where):
    assert to_where(expr, COLS) == where


def test_referenced_columns_is_a_superset():
    e = (f("a") == 1) & (f("b") == "d")
    assert referenced_columns(e, COLS) == ["a", "b", "d"]
    assert referenced_columns(None, COLS) == []
