"""Timestamp annotations in the footer of a Parquet file with a TIMESTAMP(7..9) column
(core/paimon_core/fileformat/parquet_footer.py): the TIMESTAMP(0..6) columns get the layout Java Paimon
writes (INT64, logical TIMESTAMP(MILLIS|MICROS, isAdjustedToUTC) and converted type
TIMESTAMP_MILLIS|MICROS, as in the footer of a Java 1.3 file with the same columns), every other
footer field is kept, the data streams through, and pyarrow reads back exactly what was written."""

from __future__ import annotations

import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.fileformat import thrift_compact as tc
from paimon_core.fileformat.parquet import ParquetFileWriter, file_type
from paimon_core.fileformat.parquet_footer import FooterError, FooterPatchingSink, annotate_timestamps
from paimon_core.storage.file_io import FileIO

# the schema elements of a Java 1.3 data file (fixture timestamps-parquet-1.3dev) without
# name and field id: (type, repetition, converted type, logical type)
MILLIS, MICROS = tc.Struct([(1, tc.STRUCT, tc.Struct())]), tc.Struct([(2, tc.STRUCT, tc.Struct())])


def _java(unit: tc.Struct, utc: bool, converted: int) -> list:
    ts = tc.Struct([(1, tc.bool_type(utc), utc), (2, tc.STRUCT, unit)])
    return [
        (1, tc.I32, 2),
        (3, tc.I32, 1),
        (6, tc.I32, converted),
        (10, tc.STRUCT, tc.Struct([(8, tc.STRUCT, ts)])),
    ]


JAVA = {
    "ts0": _java(MILLIS, False, 9),
    "ts3": _java(MILLIS, False, 9),
    "ts6": _java(MICROS, False, 10),
    "ts9": [(1, tc.I32, 3), (3, tc.I32, 1)],
    "ltz0": _java(MILLIS, True, 9),
    "ltz3": _java(MILLIS, True, 9),
    "ltz6": _java(MICROS, True, 10),
    "ltz9": [(1, tc.I32, 3), (3, tc.I32, 1)],
}
UNITS = {"0": "ms", "3": "ms", "6": "us", "9": "ns"}
ANNOTATED = [n for n in JAVA if not n.endswith("9")]


def _schema() -> pa.Schema:
    fields = []
    for i, name in enumerate(JAVA):
        tz = "UTC" if name.startswith("ltz") else None
        t = pa.timestamp(UNITS[name[-1]], tz=tz)
        fields.append(pa.field(name, t, metadata={b"PARQUET:field_id": str(i).encode()}))
    fields.append(pa.field("n", pa.list_(pa.timestamp("ms")), metadata={b"PARQUET:field_id": b"8"}))
    return pa.schema(fields)


def _table(schema: pa.Schema, rows: int, start: int = 0) -> pa.Table:
    cols = {}
    for f in schema:
        if pa.types.is_list(f.type):
            cols[f.name] = pa.array([[v, None] for v in range(start, start + rows)], f.type)
        else:  # negative, zero and positive epochs, and a null
            vals = [None if v % 7 == 3 else (v - 5) * 123_457 for v in range(start, start + rows)]
            cols[f.name] = pa.array(vals, pa.int64()).cast(f.type)
    return pa.table(cols, schema=schema)


def _footer(path) -> tc.Struct:
    data = open(path, "rb").read()
    (n,) = struct.unpack("<i", data[-8:-4])
    return tc.decode(data[-8 - n : -8])


def _write(tmp_path, tables: list[pa.Table]):
    path = str(tmp_path / "f.parquet")
    w = ParquetFileWriter(FileIO(str(tmp_path)), path, tables[0].schema)
    for t in tables:
        w.write(t)
    return path, w, w.close()


def test_columns_get_javas_layout_and_read_back_exactly(tmp_path):
    schema = _schema()
    tables = [_table(schema, 10), _table(schema, 5, start=10)]
    path, _, size = _write(tmp_path, tables)
    elements = {e.get(4).decode(): e for e in _footer(path).get(2).items[1:]}
    for i, (name, java) in enumerate(JAVA.items()):
        ours = [f for f in elements[name].fields if f[0] not in (4, 9)]
        assert ours == java, name
        assert elements[name].get(9) == i  # the field id survives
    back = pq.read_table(path)
    for name in ANNOTATED:  # exact types (the ARROW:schema entry agrees), field ids included
        assert back.schema.field(name) == schema.field(name)
    assert back.schema.field("n") == schema.field("n")  # a nested TIMESTAMP(3) is INT64 too
    # pyarrow restores no time zone of an INT96 column from ARROW:schema, as before this change:
    # the dispatcher casts them to the table's types
    assert back.cast(schema).equals(pa.concat_tables(tables))
    assert size == (tmp_path / "f.parquet").stat().st_size
    stats = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert (stats.min, stats.max) == (
        pa.scalar(-5 * 123_457, pa.timestamp("ms")).as_py(),
        tables[0]["ts0"][9].as_py(),
    )


def test_without_arrow_schema_the_annotations_alone_give_the_types(tmp_path):
    schema = _schema()
    path, _, _ = _write(tmp_path, [_table(schema, 8)])
    bare = pq.ParquetFile(path).schema.to_arrow_schema()
    for name in ANNOTATED:
        tz = "UTC" if name.startswith("ltz") else None
        assert bare.field(name).type == pa.timestamp(UNITS[name[-1]], tz=tz)


def test_only_the_annotated_columns_and_arrow_schema_change(tmp_path):
    schema = _schema()
    plain = pa.schema([f.with_type(pa.int64()) if f.name in ("ts0", "ltz6") else f for f in schema])
    path = tmp_path / "p.parquet"
    pq.write_table(_table(schema, 6).cast(plain), path, use_deprecated_int96_timestamps=True)
    data = path.read_bytes()
    (n,) = struct.unpack("<i", data[-8:-4])
    before = tc.decode(data[-8 - n : -8])
    after = tc.decode(
        annotate_timestamps(
            data[-8 - n : -8], {"ts0": schema.field("ts0").type, "ltz6": schema.field("ltz6").type}
        )
    )
    assert [f for f in after.fields if f[0] not in (2, 5)] == [f for f in before.fields if f[0] not in (2, 5)]
    changed = [a.get(4) for a, b in zip(after.get(2).items, before.get(2).items, strict=True) if a != b]
    assert changed == [b"ts0", b"ltz6"]


def test_data_streams_through_before_the_footer(tmp_path):
    schema = _schema()
    inner = pa.BufferOutputStream()
    sink = FooterPatchingSink(inner, {"ts0": schema.field("ts0").type})
    layout = pa.schema([f.with_type(pa.int64()) if f.name == "ts0" else f for f in schema])
    w = pq.ParquetWriter(sink, layout, use_deprecated_int96_timestamps=True)
    for k in range(3):
        w.write_table(_table(schema, 1000, start=k * 1000).cast(layout), row_group_size=1000)
    assert inner.tell() > 0 and sink.tell() >= inner.tell()  # the row groups went on already
    sink.hold()
    w.close()
    sink.finish()
    back = pq.read_table(pa.BufferReader(inner.getvalue()))
    assert back.schema.field("ts0").type == pa.timestamp("ms") and back.num_rows == 3000


def test_an_empty_file_is_annotated_too(tmp_path):
    schema = _schema()
    path, _, _ = _write(tmp_path, [schema.empty_table()])
    back = pq.read_table(path)
    assert back.num_rows == 0 and all(back.schema.field(n) == schema.field(n) for n in ANNOTATED)


def test_footer_errors_name_the_column():
    footer = pq.ParquetFile(pa.BufferReader(_pq_bytes())).metadata
    data = _pq_bytes()
    (n,) = struct.unpack("<i", data[-8:-4])
    with pytest.raises(FooterError, match="column s is not stored as INT64"):
        annotate_timestamps(data[-8 - n : -8], {"s": pa.timestamp("ms")})
    with pytest.raises(FooterError, match=r"not in the Parquet footer: \['x'\]"):
        annotate_timestamps(data[-8 - n : -8], {"x": pa.timestamp("ms")})
    assert footer.num_rows == 1


def _pq_bytes() -> bytes:
    out = pa.BufferOutputStream()
    pq.write_table(pa.table({"s": ["a"], "i": [1]}), out)
    return out.getvalue().to_pybytes()


def test_files_of_the_plain_int64_layout_still_read(catalog):
    """Files written before the annotation hold TIMESTAMP(0..6) beside INT96 as plain INT64 in
    their unit: the table read still casts them to the column's type."""
    from pathlib import Path

    from paimon_core.metadata.schema import Schema

    t = catalog.create_table(
        "db.old",
        Schema(
            Schema.parse_columns("ts0 TIMESTAMP(0), ltz6 TIMESTAMP(6) WITH LOCAL TIME ZONE, ts9 TIMESTAMP(9)")
        ),
    )
    rows = pa.table(
        {
            "ts0": pa.array([-5_000, None], pa.timestamp("ms")),
            "ltz6": pa.array([7, None], pa.timestamp("us", tz="UTC")),
            "ts9": pa.array([1, None], pa.timestamp("ns")),
        }
    )
    t.write_arrow(rows)
    (f,) = Path(t.path).rglob("bucket-0/*.parquet")
    stored = pq.read_table(f)
    old = stored.schema
    for name in ("ts0", "ltz6"):
        old = old.set(old.get_field_index(name), old.field(name).with_type(pa.int64()))
    pq.write_table(stored.cast(old), f, use_deprecated_int96_timestamps=True)
    assert pq.ParquetFile(f).schema_arrow.field("ts0").type == pa.int64()
    assert catalog.get_table("db.old").read().equals(rows)


def _leaves(path) -> dict[str, list]:
    """Each leaf schema element of the footer by its dotted path: (type, converted, logical)."""
    out, stack = {}, []
    for el in _footer(path).get(2).items[1:]:
        name = el.get(4).decode()
        while stack and stack[-1][1] == 0:
            stack.pop()
        if stack:
            stack[-1][1] -= 1
        full = ".".join([s[0] for s in stack] + [name])
        if el.get(5):
            stack.append([name, el.get(5)])
        else:
            out[full] = [el.get(1), el.get(6), el.get(10)]
    return out


def test_nested_timestamps_get_javas_leaf_layout(tmp_path):
    """ARRAY, MAP and ROW holding TIMESTAMP(0..6) beside a TIMESTAMP(9): the INT64 leaves carry
    Java's annotation (Java 1.4.2 writes ``a`` exactly so; Java 0.9 cannot read a nested INT96
    TIMESTAMP(3)), nanosecond leaves stay INT96, other INT64 leaves stay plain, and pyarrow reads
    back the types and values written, field ids included."""
    fid = lambda i: {b"PARQUET:field_id": str(i).encode()}  # noqa: E731
    ltz6 = pa.timestamp("us", tz="UTC")
    row = pa.struct(
        [
            pa.field("l6", ltz6, metadata=fid(10)),
            pa.field("t9", pa.timestamp("ns"), metadata=fid(11)),
            pa.field("b", pa.int64(), metadata=fid(12)),
        ]
    )
    schema = pa.schema(
        [
            pa.field("t9", pa.timestamp("ns"), metadata=fid(0)),
            pa.field(
                "a", pa.list_(pa.field("element", pa.timestamp("ms"), metadata=fid(20))), metadata=fid(1)
            ),
            pa.field("r", row, metadata=fid(2)),
            pa.field("m", pa.map_(pa.string(), pa.timestamp("ms")), metadata=fid(3)),
        ]
    )
    rows = [
        {"t9": 1, "a": [-1_500, None], "r": {"l6": -7, "t9": 5, "b": 3}, "m": [("k", 86_400_000)]},
        {"t9": None, "a": None, "r": None, "m": None},
        {"t9": 2, "a": [], "r": {"l6": None, "t9": None, "b": None}, "m": [("z", None)]},
    ]
    ints = pa.schema([f.with_type(file_type(f.type)) for f in schema])
    table = pa.Table.from_pylist(rows, schema=ints).cast(schema)
    path, _, _ = _write(tmp_path, [table])
    leaves = _leaves(path)
    millis = tc.Struct([(8, tc.STRUCT, tc.Struct([(1, tc.bool_type(False), False), (2, tc.STRUCT, MILLIS)]))])
    micros_utc = tc.Struct(
        [(8, tc.STRUCT, tc.Struct([(1, tc.bool_type(True), True), (2, tc.STRUCT, MICROS)]))]
    )
    assert leaves == {
        "t9": [3, None, None],
        "a.list.element": [2, 9, millis],
        "r.l6": [2, 10, micros_utc],
        "r.t9": [3, None, None],
        "r.b": [2, None, None],
        "m.key_value.key": [6, 0, leaves["m.key_value.key"][2]],
        "m.key_value.value": [2, 9, millis],
    }
    back = pq.read_table(path)
    assert back.schema.field("a").type.equals(schema.field("a").type, check_metadata=True)
    assert back.schema.field("m") == schema.field("m")
    assert back.schema.field("r").type.field("l6") == row.field("l6")
    assert back.cast(schema).equals(table)
