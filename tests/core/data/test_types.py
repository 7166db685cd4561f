import pyarrow as pa
import pytest

from paimon_core.data.types import (
    ArrayType,
    AtomicType,
    RowType,
    assign_field_ids,
    from_arrow_type,
    implicitly_castable,
    parse_type,
    to_arrow_type,
    type_from_json,
)
from paimon_core.errors import TypeStringError


@pytest.mark.parametrize(
    "text, printed",
    [
        ("INT NOT NULL", "INT NOT NULL"),
        ("integer", "INT"),
        ("DECIMAL(10,2)", "DECIMAL(10, 2)"),
        ("DECIMAL", "DECIMAL(10, 0)"),
        ("STRING", "STRING"),
        ("VARCHAR(2147483647)", "STRING"),
        ("VARCHAR(20)", "VARCHAR(20)"),
        ("CHAR", "CHAR(1)"),
        ("BYTES", "BYTES"),
        ("BINARY(4)", "BINARY(4)"),
        ("TIMESTAMP", "TIMESTAMP(6)"),
        ("TIMESTAMP(3) NOT NULL", "TIMESTAMP(3) NOT NULL"),
        ("TIMESTAMP_LTZ(6)", "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
        ("timestamp(9) with local time zone", "TIMESTAMP(9) WITH LOCAL TIME ZONE"),
        ("TIME", "TIME(0)"),
        ("ARRAY<INT NOT NULL>", "ARRAY<INT NOT NULL>"),
        ("MAP<STRING, ARRAY<DOUBLE>>", "MAP<STRING, ARRAY<DOUBLE>>"),
        ("multiset<varchar(3)> not null", "MULTISET<VARCHAR(3)> NOT NULL"),
        ("ROW<a INT, b ROW<c STRING>> NOT NULL", "ROW<a INT, b ROW<c STRING>> NOT NULL"),
    ],
)
def test_parse_and_print(text, printed):
    t = parse_type(text)
    assert str(t) == printed
    assert str(parse_type(str(t))) == printed


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "INTT",
        "DECIMAL(40, 2)",
        "DECIMAL(5, 6)",
        "VARCHAR(0)",
        "ARRAY<INT",
        "MAP<INT>",
        "TIMESTAMP(10)",
        "INT NOT",
        "ROW<a>",
        "MULTISET<INT, INT>",
    ],
)
def test_bad_type_strings(bad):
    with pytest.raises(TypeStringError):
        parse_type(bad)


def test_json_form_of_nested_types_round_trips():
    t, last = assign_field_ids(parse_type("ROW<a INT, b ARRAY<ROW<c STRING>>>"), 4)
    assert last == 7
    assert [f.id for f in t.fields] == [5, 6]
    inner = t.fields[1].type.element
    assert inner.fields[0].id == 7
    js = t.to_json()
    assert js["type"] == "ROW" and js["fields"][1]["type"]["type"] == "ARRAY"
    assert type_from_json(js) == t
    m, last = assign_field_ids(parse_type("MULTISET<ROW<x INT>> NOT NULL"), 0)
    assert last == 1 and m.to_json() == {
        "type": "MULTISET NOT NULL",
        "element": {"type": "ROW", "fields": [{"id": 1, "name": "x", "type": "INT"}]},
    }
    assert type_from_json(m.to_json()) == m


def test_multiset_is_a_map_from_element_to_count_in_arrow():
    assert to_arrow_type(parse_type("MULTISET<STRING>")) == pa.map_(
        pa.field("key", pa.string(), nullable=False), pa.field("value", pa.int32(), nullable=False)
    )
    assert implicitly_castable(parse_type("MULTISET<INT>"), parse_type("MULTISET<BIGINT>"))
    assert not implicitly_castable(parse_type("MAP<INT, INT>"), parse_type("MULTISET<INT>"))


def test_arrow_mapping_round_trip():
    for s in [
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INT",
        "BIGINT",
        "FLOAT",
        "DOUBLE",
        "DECIMAL(20, 4)",
        "STRING",
        "BYTES",
        "DATE",
        "TIMESTAMP(3)",
        "TIMESTAMP(6)",
        "TIMESTAMP(9)",
        "TIMESTAMP(6) WITH LOCAL TIME ZONE",
        "ARRAY<INT>",
        "MAP<STRING, INT>",
    ]:
        t = parse_type(s)
        assert str(from_arrow_type(to_arrow_type(t))) == s
    assert to_arrow_type(parse_type("TIME")) == pa.time32("ms")
    assert to_arrow_type(parse_type("TIMESTAMP(9)")) == pa.timestamp("ns")


@pytest.mark.parametrize(
    "src, dst, ok",
    [
        ("INT", "BIGINT", True),
        ("BIGINT", "INT", False),
        ("TINYINT", "DOUBLE", True),
        ("FLOAT", "DOUBLE", True),
        ("DOUBLE", "FLOAT", False),
        ("INT", "DECIMAL(10, 0)", True),
        ("INT", "DECIMAL(5, 0)", False),
        ("DECIMAL(10, 2)", "DECIMAL(12, 2)", True),
        ("DECIMAL(10, 2)", "DECIMAL(10, 3)", False),
        ("VARCHAR(5)", "STRING", True),
        ("STRING", "INT", False),
        ("DATE", "TIMESTAMP(6)", True),
        ("TIMESTAMP(3)", "TIMESTAMP(6)", True),
        ("TIMESTAMP(6)", "TIMESTAMP(3)", False),
        ("ARRAY<INT>", "ARRAY<BIGINT>", True),
    ],
)
def test_implicit_widening(src, dst, ok):
    assert implicitly_castable(parse_type(src), parse_type(dst)) is ok


def test_types_are_values():
    assert parse_type("INT") == AtomicType(root="INT")
    assert isinstance(parse_type("ARRAY<INT>"), ArrayType)
    assert isinstance(parse_type("ROW<a INT>"), RowType)
