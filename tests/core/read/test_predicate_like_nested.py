"""``LIKE`` (``%``, ``_``, escapes, ``ESCAPE``, ``NOT``, nulls) and fields of ROW columns
(``address.city = 'X'``) in ``--where``: evaluation against a plain-Python model of SQL, pruning
on statistics that never drops a matching file, and real tables read with the filter."""

from __future__ import annotations

import itertools

import pyarrow as pa
import pytest

from paimon_core.data.types import parse_type
from paimon_core.errors import FilterError
from paimon_core.metadata.schema import Schema
from paimon_core.read.predicate import ColumnRange, bind, filter_table, may_match, parse_where

VALUES = ["", "a", "ab", "abc", "a_c", "a%c", "axc", "a\\c", "ba", "ab\nc", "ABC", "_", "%", "zz", None]
PATTERNS = [
    ("a%", "\\"),
    ("%c", "\\"),
    ("a_c", "\\"),
    ("a\\_c", "\\"),
    ("a\\%c", "\\"),
    ("a\\\\c", "\\"),
    ("%", "\\"),
    ("_", "\\"),
    ("", "\\"),
    ("ab%c", "\\"),
    ("a!%c", "!"),
    ("a!_%", "!"),
    ("%b%", "\\"),
    ("ABC", "\\"),
]


def sql_like(value: str | None, pattern: str, escape: str) -> bool | None:
    """SQL LIKE by recursion over the pattern (the model): None for a null value."""
    if value is None:
        return None

    def match(v: int, p: int) -> bool:
        if p == len(pattern):
            return v == len(value)
        c = pattern[p]
        if c == escape:
            return v < len(value) and value[v] == pattern[p + 1] and match(v + 1, p + 2)
        if c == "%":
            return any(match(k, p + 1) for k in range(v, len(value) + 1))
        if c == "_":
            return v < len(value) and match(v + 1, p + 1)
        return v < len(value) and value[v] == c and match(v + 1, p + 1)

    return match(0, 0)


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def where(pattern: str, escape: str, negated: bool = False) -> str:
    esc = f" ESCAPE {quoted(escape)}" if escape != "\\" else ""
    return f"s {'NOT ' if negated else ''}LIKE {quoted(pattern)}{esc}"


FIELDS = {"s": parse_type("STRING")}


@pytest.mark.parametrize(("pattern", "escape"), PATTERNS)
def test_like_matches_the_sql_model(pattern, escape):
    t = pa.table({"s": VALUES})
    for negated in (False, True):
        pred = bind(parse_where(where(pattern, escape, negated)), FIELDS)
        got = filter_table(t, pred).column("s").to_pylist()
        model = [v for v in VALUES if (m := sql_like(v, pattern, escape)) is not None and m != negated]
        assert got == model, (pattern, escape, negated)


@pytest.mark.parametrize(("pattern", "escape"), PATTERNS)
def test_like_pruning_never_drops_a_matching_file(pattern, escape):
    pred = bind(parse_where(where(pattern, escape)), FIELDS)
    present = [v for v in VALUES if v is not None]
    for lo, hi in itertools.combinations_with_replacement(sorted(present), 2):
        inside = [v for v in present if lo <= v <= hi]
        if any(sql_like(v, pattern, escape) for v in inside):
            assert may_match(pred, {"s": ColumnRange(lo, hi, 0, len(inside))}), (pattern, lo, hi)
    # and it does prune by the literal prefix
    if pattern == "a%":
        assert not may_match(pred, {"s": ColumnRange("b", "c", 0, 2)})
        assert not may_match(pred, {"s": ColumnRange("0", "Z", 0, 2)})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("s LIKE 'a\\'", "the escape character"),
        ("s LIKE 5", "LIKE takes a 'quoted' pattern"),
        ("s LIKE 'a' ESCAPE 'xy'", "ESCAPE takes one"),
        ("s NOT = 'a'", "expected IN, LIKE or BETWEEN after NOT"),
    ],
)
def test_like_errors(text, message):
    with pytest.raises(FilterError, match=message):
        bind(parse_where(text), FIELDS)


def test_like_on_a_number_column_is_refused():
    with pytest.raises(FilterError, match="LIKE needs a string column"):
        bind(parse_where("n LIKE '1%'"), {"n": parse_type("INT")})


NESTED = {
    "id": parse_type("INT"),
    "address": parse_type("ROW<city STRING, geo ROW<lat DOUBLE, lon DOUBLE>>"),
    "a.b": parse_type("INT"),
}
ROWS = [
    {"id": 1, "address": {"city": "X", "geo": {"lat": 1.0, "lon": 2.0}}, "a.b": 1},
    {"id": 2, "address": {"city": "Y", "geo": None}, "a.b": 2},
    {"id": 3, "address": None, "a.b": 3},
    {"id": 4, "address": {"city": None, "geo": {"lat": 5.0, "lon": None}}, "a.b": 4},
    {"id": 5, "address": {"city": "Xavier", "geo": {"lat": -1.0, "lon": 0.0}}, "a.b": 5},
]


def _city(r):
    return None if r["address"] is None else r["address"]["city"]


def _lat(r):
    a = r["address"]
    return None if a is None or a["geo"] is None else a["geo"]["lat"]


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("address.city = 'X'", lambda r: _city(r) == "X"),
        ("address.city != 'X'", lambda r: _city(r) is not None and _city(r) != "X"),
        ("NOT address.city = 'X'", lambda r: _city(r) is not None and _city(r) != "X"),
        ("address.city IS NULL", lambda r: _city(r) is None),
        ("address.city LIKE 'X%'", lambda r: _city(r) is not None and _city(r).startswith("X")),
        ("address.city IN ('Y', 'Xavier')", lambda r: _city(r) in ("Y", "Xavier")),
        ("address.geo.lat > 0", lambda r: _lat(r) is not None and _lat(r) > 0),
        ("`a.b` = 3", lambda r: r["a.b"] == 3),
        ("a.b = 3", lambda r: r["a.b"] == 3),  # a top-level column named with a dot wins
    ],
)
def test_nested_fields_match_the_model(text, model):
    schema = pa.schema(
        [
            ("id", pa.int32()),
            (
                "address",
                pa.struct(
                    [
                        ("city", pa.string()),
                        ("geo", pa.struct([("lat", pa.float64()), ("lon", pa.float64())])),
                    ]
                ),
            ),
            ("a.b", pa.int32()),
        ]
    )
    t = pa.Table.from_pylist(ROWS, schema=schema)
    pred = bind(parse_where(text), NESTED)
    assert pred.columns() <= {"id", "address", "a.b"}
    assert filter_table(t, pred).column("id").to_pylist() == [r["id"] for r in ROWS if model(r)]
    # a nested field never prunes: statistics are per top-level column
    assert may_match(pred, {"address": ColumnRange("zzz", "zzz", 0, 1)}) or "a.b" in text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("address.town = 'X'", "ROW column 'address' has no field 'town'"),
        ("id.x = 1", "'id' is INT, not a ROW"),
        ("address.geo = 1", "cannot be compared"),
        ("nope.x = 1", "unknown column 'nope.x'"),
    ],
)
def test_nested_field_errors(text, message):
    with pytest.raises(FilterError, match=message):
        bind(parse_where(text), NESTED)


def test_tables_read_with_like_and_nested_filters(tmp_path):
    from paimon_core.catalog import FileSystemCatalog

    cat = FileSystemCatalog(str(tmp_path / "wh"))
    t = cat.create_table(
        "db.t",
        Schema(Schema.parse_columns("id INT, name STRING, address ROW<city STRING, zip INT>"), (), (), {}),
    )
    names = ["alice", "al_x", "bob", "albert", "zed", None]
    rows = []
    for i, n in enumerate(names):  # one file each: pruning is exercised file by file
        r = {"id": i, "name": n, "address": None if i == 2 else {"city": f"c{i % 2}", "zip": i}}
        rows.append(r)
        t.write_arrow(pa.Table.from_pylist([r], schema=t.schema.arrow_schema()))
    got = sorted(r["id"] for r in t.read(where="name LIKE 'al%' AND address.city = 'c0'").to_pylist())
    assert got == [
        r["id"]
        for r in rows
        if r["name"] and r["name"].startswith("al") and r["address"] and r["address"]["city"] == "c0"
    ]
    got = sorted(r["id"] for r in t.read(where="name LIKE 'al\\_%'").to_pylist())
    assert got == [1]
    got = sorted(r["id"] for r in t.read(where="name NOT LIKE 'al%'").to_pylist())
    assert got == [2, 4]
