"""Nested JSON lines in Arrow (write/text_input.py): ROW and ARRAY<ROW> columns are read by Arrow's
JSON parser and converted to the table's types in Arrow. The line-by-line path stays the
reference: every input reads to the same table on both paths, and every input the Arrow path
hands back reads to the same error, naming the same line."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paimon_core.errors import PaimonError
from paimon_core.metadata.schema import Schema
from paimon_core.write.conform import conform_table
from paimon_core.write.text_input import _lines, _read_json_in_arrow, _read_json_lines, read_json

SCHEMA = Schema(
    Schema.parse_columns(
        "id BIGINT NOT NULL, name STRING, "
        "addr ROW<city STRING, zip INT, since DATE, geo ROW<lat DOUBLE, lon DOUBLE>>, "
        "items ARRAY<ROW<sku STRING, qty INT, price DECIMAL(12, 2), at TIMESTAMP(3)>>, "
        "tags ARRAY<STRING>"
    ),
    (),
    ("id",),
    {"bucket": "1"},
).to_table_schema()


def _both(data: bytes):
    """(the Arrow path's table or None, read_json's table or error, the line path's table or error)."""

    def run(read):
        try:
            return conform_table(read(), SCHEMA)
        except PaimonError as e:
            return f"{type(e).__name__}: {e}"

    fast = _read_json_in_arrow(data, SCHEMA)
    got = run(lambda: read_json(data, SCHEMA, "in.jsonl"))
    ref = run(lambda: _read_json_lines(_lines(data, 1), SCHEMA, "in.jsonl", False))
    return fast, got, ref


def _jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


cities = st.one_of(st.none(), st.text(max_size=5))
addr = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "city": cities,
            "zip": st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)),
            "since": st.one_of(st.none(), st.dates().map(str)),
            "geo": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"lat": st.floats(-90, 90)})),
        },
    ),
)
item = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "sku": cities,
            "qty": st.one_of(st.none(), st.integers(0, 1000)),
            "price": st.one_of(st.none(), st.decimals("-9999999999.99", "9999999999.99", places=2).map(str)),
            "at": st.one_of(st.none(), st.just("2026-11-29 10:11:12.345"), st.just("2026-01-01T00:00:00")),
        },
    ),
)
record = st.fixed_dictionaries(
    {"id": st.integers(0, 2**40)},
    optional={
        "name": cities,
        "addr": addr,
        "items": st.one_of(st.none(), st.lists(item, max_size=3)),
        "tags": st.one_of(st.none(), st.lists(cities, max_size=2)),
    },
)


@given(st.lists(record, min_size=1, max_size=20))
def test_valid_nested_lines_read_the_same_in_arrow_as_line_by_line(records):
    fast, got, ref = _both(_jsonl(records))
    assert isinstance(ref, pa.Table), ref
    assert fast is not None, "valid input must take the Arrow path"
    assert got.equals(ref), (got.to_pylist()[:2], ref.to_pylist()[:2])


GOOD = {"id": 1, "addr": {"city": "x", "geo": {"lat": 1.5}}, "items": [{"sku": "a", "price": "1.25"}]}


@pytest.mark.parametrize(
    "bad",
    [
        {"id": 2, "addr": {"city": "x", "planet": "mars"}},  # a key the ROW lacks
        {"id": 2, "addr": {"geo": {"lat": 1.0, "alt": 3}}},  # ... one level down
        {"id": 2, "items": [{"sku": "a"}, {"sku": "b", "colour": None}]},  # ... in a list, even as null
        {"id": 2, "items": [{"price": "12.345"}]},  # a decimal that does not fit
        {"id": 2, "items": [None, {"price": "abc"}]},  # not a number
        {"id": 2, "items": [{"price": 1.25}]},  # a JSON number for a DECIMAL: the line path reads it
        {"id": 2, "addr": {"since": "2026-13-45"}},  # not a date
        {"id": 2, "addr": {"since": 20000}},  # days since 1970: the line path reads it
        {"id": 2, "addr": "Main Street"},  # not an object
        {"id": 2, "items": {"sku": "a"}},  # not a list
        {"id": 2, "addr": {"zip": 2**40}},  # out of INT's range
    ],
)
def test_what_the_arrow_path_hands_back_reads_as_line_by_line(bad):
    fast, got, ref = _both(_jsonl([GOOD, GOOD, bad, GOOD]))
    assert fast is None
    if isinstance(ref, str):
        assert got == ref and "line 3" in ref, (got, ref)
    else:
        assert got.equals(ref)


def test_a_value_the_table_refuses_later_names_the_same_row():
    """NULL in a NOT NULL column is the table's check (conform), after either path."""
    fast, got, ref = _both(_jsonl([GOOD, GOOD, {"id": None}]))
    assert fast is not None and got == ref and "row 3" in ref, (got, ref)


def test_a_map_column_keeps_the_line_path():
    schema = Schema(Schema.parse_columns("id INT, m MAP<STRING, INT>"), (), (), {}).to_table_schema()
    assert _read_json_in_arrow(b'{"id": 1, "m": {"a": 1}}\n', schema) is None
    assert read_json(b'{"id": 1, "m": {"a": 1}}\n', schema, "in").column("m").to_pylist() == [[("a", 1)]]


# ---------------------------------------------------------------- blocks of a file


def test_blocks_cover_the_file_and_number_its_lines(tmp_path):
    """Whole lines per block, CR LF and blank lines included; each block's first line number is
    the whole file's (``bytes.splitlines``), compressed files too."""
    import gzip

    from paimon_core.write.input_files import json_blocks

    lines = [json.dumps({"id": i, "s": "x" * (i % 7)}).encode() for i in range(200)]
    text = b"".join(
        line + (b"\r\n" if i % 3 else b"\n") + (b"\n" if i % 11 == 0 else b"") for i, line in enumerate(lines)
    )
    for name, body in (("a.jsonl", text), ("a.jsonl.gz", gzip.compress(text))):
        path = tmp_path / name
        path.write_bytes(body)
        blocks = list(json_blocks(str(path), block_bytes=97))
        assert len(blocks) > 10 and b"".join(b for _, b in blocks) == text
        offset = 0
        for first, block in blocks:
            assert first == 1 + len(text[:offset].splitlines()) and block.endswith(b"\n")
            offset += len(block)


def _ingest(tmp_path, records, monkeypatch, evolve=False, schema="id BIGINT NOT NULL, addr ROW<city STRING>"):
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.ops.ingest import ingest_files
    from paimon_core.write import input_files

    monkeypatch.setattr(input_files, "JSON_BLOCK_BYTES", 120)  # a block per few lines
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cat.create_database("db")
    table = cat.create_table("db.t", Schema(Schema.parse_columns(schema), (), ("id",), {"bucket": "1"}))
    path = tmp_path / "in.jsonl"
    path.write_bytes(_jsonl(records))
    ingest_files(table, [str(path)], evolve=evolve)
    return cat.get_table("db.t")


def test_a_bad_value_in_a_later_block_names_its_line(tmp_path, monkeypatch):
    records = [{"id": i, "addr": {"city": f"c{i}"}} for i in range(30)]
    records[22] = {"id": 22, "addr": {"city": "x", "planet": "mars"}}
    with pytest.raises(PaimonError, match="line 23") as e:
        _ingest(tmp_path, records, monkeypatch)
    assert "planet" in str(e.value)


def test_a_new_column_in_a_later_block_evolves_the_table(tmp_path, monkeypatch):
    records = [{"id": i, "addr": {"city": f"c{i}"}} for i in range(30)]
    records[25]["rank"] = 7
    records[28]["rank"] = 7.5  # the type that holds every block's values: DOUBLE
    t = _ingest(tmp_path, records, monkeypatch, evolve=True)
    assert t.schema.field_names == ["id", "addr", "rank"]
    rows = sorted(t.read().to_pylist(), key=lambda r: r["id"])
    assert [r["rank"] for r in rows if r["rank"] is not None] == [7.0, 7.5] and len(rows) == 30
    assert rows[3]["addr"] == {"city": "c3"}


def test_a_new_column_in_a_later_block_is_refused_without_evolve(tmp_path, monkeypatch):
    records = [{"id": i} for i in range(30)]
    records[27]["late"] = "x"
    with pytest.raises(PaimonError, match="late"):
        _ingest(tmp_path, records, monkeypatch)


@pytest.mark.parametrize("ext", ["gz", "bz2", "zst"])
def test_compressed_json_lines_are_read(tmp_path, ext):
    """``x.jsonl.gz`` (.bz2, .zst) is JSON lines by its name, so it is read decompressed."""
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.ops.ingest import ingest_files

    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cat.create_database("db")
    table = cat.create_table(
        "db.t", Schema(Schema.parse_columns("id BIGINT, addr ROW<city STRING>"), (), (), {})
    )
    path = tmp_path / f"in.jsonl.{ext}"
    with pa.output_stream(str(path), compression={"gz": "gzip", "bz2": "bz2", "zst": "zstd"}[ext]) as out:
        out.write(_jsonl([{"id": 1, "addr": {"city": "x"}}, {"id": 2}]))
    ingest_files(table, [str(path)])
    assert sorted(cat.get_table("db.t").read().to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "addr": {"city": "x"}},
        {"id": 2, "addr": None},
    ]


def test_a_damaged_compressed_file_is_one_clear_error(tmp_path):
    """The columns pass reads through the same error mapping as the rows pass."""
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.errors import InvalidInput
    from paimon_core.ops.ingest import ingest_files

    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cat.create_database("db")
    table = cat.create_table("db.t", Schema(Schema.parse_columns("id BIGINT"), (), (), {}))
    path = tmp_path / "in.jsonl.gz"
    path.write_bytes(b"not gzip at all")
    with pytest.raises(InvalidInput, match="in.jsonl.gz: cannot read as JSON"):
        ingest_files(table, [str(path)])
    assert cat.get_table("db.t").snapshots.latest_id() is None
