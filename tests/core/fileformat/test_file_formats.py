"""Data files in Parquet, ORC and Avro (core/paimon_core/fileformat): the dispatcher, the layouts Java Paimon
uses (checked against hand-written expectations, not our reader), stats, and the refusals.
Java's reads of these files are in tests/interop/test_file_formats_interop.py."""

from __future__ import annotations

import datetime as dt
import decimal
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.errors import CorruptMetadata, InvalidInput
from paimon_core.fileformat import formats
from paimon_core.fileformat.avro import file_schema
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import SetOption
from paimon_core.ops.alter import alter_table
from paimon_core.storage.file_io import FileIO

COLS = (
    "id INT NOT NULL, ti TINYINT, s STRING, c CHAR(4), dec DECIMAL(10, 2), d DATE, tm TIME, ts TIMESTAMP(3),"
    " ts6 TIMESTAMP(6), ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, b BYTES, arr ARRAY<INT>, mp MAP<STRING, INT>,"
    " mi MAP<INT, DOUBLE>, rw ROW<x INT, y STRING>"
)


def _schema(columns: str = COLS) -> pa.Schema:
    return pa.schema(
        [pa.field(n, to_arrow_type(t), nullable=t.nullable) for n, t, _ in Schema.parse_columns(columns)]
    )


def _data(n: int = 6, base: int = 0) -> pa.Table:
    ids = list(range(base, base + n))
    cols = {
        "id": pa.array(ids, pa.int32()),
        "ti": pa.array([(i % 5) - 2 if i % 4 else None for i in ids], pa.int8()),
        "s": [f"s{i}" if i % 3 else None for i in ids],
        "c": ["ab" if i % 2 else "abcd" for i in ids],
        "dec": pa.array(
            [decimal.Decimal(f"{i}.25") * (-1 if i % 2 else 1) for i in ids], pa.decimal128(10, 2)
        ),
        "d": pa.array([dt.date(1969, 12, 31) + dt.timedelta(days=i) for i in ids], pa.date32()),
        "tm": pa.array([dt.time(12, 0, i % 60, 5000) for i in ids], pa.time32("ms")),
        "ts": pa.array(
            [dt.datetime(1969, 12, 31, 23, 59, 59, 999000) + dt.timedelta(seconds=i) for i in ids],
            pa.timestamp("ms"),
        ),
        "ts6": pa.array([dt.datetime(2024, 1, 1, 0, 0, 0, 123456 + i) for i in ids], pa.timestamp("us")),
        "ltz": pa.array(
            [dt.datetime(2030, 1, 1, 8, 0, i % 60, 500000) for i in ids], pa.timestamp("us", tz="UTC")
        ),
        "b": [bytes([i % 256, 0]) if i % 5 else None for i in ids],
        "arr": [[i, None] if i % 2 else None for i in ids],
        "mp": pa.array([[("k", i)] if i % 2 else [] for i in ids], pa.map_(pa.string(), pa.int32())),
        "mi": pa.array(
            [[(i, 0.5), (-i - 1, None)] if i % 3 else None for i in ids], pa.map_(pa.int32(), pa.float64())
        ),
        "rw": [{"x": i, "y": None} for i in ids],
    }
    schema = _schema()
    return pa.Table.from_arrays(
        [
            pa.array(cols[f.name], f.type)
            if not isinstance(cols[f.name], pa.Array)
            else cols[f.name].cast(f.type)
            for f in schema
        ],
        schema=schema,
    )


def _create(catalog, name: str, options: dict, pk: tuple = (), columns: str = COLS):
    return catalog.create_table(name, Schema(Schema.parse_columns(columns), primary_keys=pk, options=options))


def _files(table) -> list[Path]:
    return sorted(p for p in Path(table.path).rglob("bucket-*/*") if p.is_file())


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
@pytest.mark.parametrize("pk", [(), ("id",)])
def test_round_trip_and_extension(catalog, fmt, pk):
    t = _create(
        catalog,
        f"db.t_{fmt}_{len(pk)}",
        {"file.format": fmt, "bucket": "2", **({} if pk else {"bucket-key": "id"})},
        pk,
    )
    data = _data(12)
    t.write_arrow(data)
    got = catalog.get_table(t.identifier).read().sort_by("id")
    assert got.to_pylist() == data.cast(got.schema).to_pylist()
    assert {p.suffix for p in _files(t)} == {f".{fmt}"}


def test_read_by_extension_not_option(catalog):
    """A table whose files are in three formats (file.format changed between writes) reads whole."""
    t = _create(catalog, "db.mixed", {"file.format": "parquet"})
    t.write_arrow(_data(4, 0))
    for i, fmt in enumerate(["orc", "avro"], start=1):
        alter_table(catalog.get_table("db.mixed"), [SetOption("file.format", fmt)])
        catalog.get_table("db.mixed").write_arrow(_data(4, 10 * i))
    t = catalog.get_table("db.mixed")
    assert sorted(p.suffix for p in _files(t)) == [".avro", ".orc", ".parquet"]
    assert sorted(t.read().column("id").to_pylist()) == [0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23]


def test_value_stats_as_for_parquet(catalog):
    """The manifest's value/key stats of an ORC or Avro file equal those of the same rows in Parquet."""
    stats = {}
    for fmt in ("parquet", "orc", "avro"):
        t = _create(catalog, f"db.st_{fmt}", {"file.format": fmt, "bucket": "1"}, ("id",))
        t.write_arrow(_data(9))
        (split,) = catalog.get_table(t.identifier).plan(catalog.get_table(t.identifier).snapshots.latest())
        (f,) = split.files
        stats[fmt] = (f.value_stats, f.key_stats, f.min_key, f.max_key, f.row_count)
    assert stats["orc"] == stats["parquet"] and stats["avro"] == stats["parquet"]


def test_avro_schema_is_javas():
    """The schema AvroSchemaConverter gives these Paimon types (written out by hand)."""
    arrow = pa.schema(
        [
            pa.field("id", pa.int32(), nullable=False),
            pa.field("ti", pa.int8()),
            pa.field("dec", pa.decimal128(10, 2)),
            pa.field("ts", pa.timestamp("ms")),
            pa.field("ltz", pa.timestamp("us", tz="UTC")),
            pa.field("tm", pa.time32("ms")),
            pa.field(
                "arr", pa.list_(pa.field("element", pa.struct([pa.field("a", pa.int64())]), nullable=True))
            ),
            pa.field("mp", pa.map_(pa.string(), pa.int32())),
            pa.field(
                "mi",
                pa.map_(
                    pa.field("key", pa.int32(), nullable=False),
                    pa.field("value", pa.string(), nullable=False),
                ),
            ),
            pa.field("rw", pa.struct([pa.field("x", pa.int32(), nullable=False)])),
        ]
    )
    R = "org.apache.paimon.avro.generated.record"
    expected = [
        "null",
        {
            "type": "record",
            "name": R,
            "fields": [
                {"name": "id", "type": "int"},
                {"name": "ti", "type": ["null", "int"], "default": None},
                {
                    "name": "dec",
                    "type": [
                        "null",
                        {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2},
                    ],
                    "default": None,
                },
                {
                    "name": "ts",
                    "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}],
                    "default": None,
                },
                {
                    "name": "ltz",
                    "type": ["null", {"type": "long", "logicalType": "local-timestamp-micros"}],
                    "default": None,
                },
                {
                    "name": "tm",
                    "type": ["null", {"type": "int", "logicalType": "time-millis"}],
                    "default": None,
                },
                {
                    "name": "arr",
                    "type": [
                        "null",
                        {
                            "type": "array",
                            "items": [
                                "null",
                                {
                                    "type": "record",
                                    "name": R + "_arr",
                                    "fields": [{"name": "a", "type": ["null", "long"], "default": None}],
                                },
                            ],
                        },
                    ],
                    "default": None,
                },
                {"name": "mp", "type": ["null", {"type": "map", "values": ["null", "int"]}], "default": None},
                {
                    "name": "mi",
                    "type": [
                        "null",
                        {
                            "type": "array",
                            "logicalType": "map",
                            "items": {
                                "type": "record",
                                "name": R + "_mi",
                                "fields": [
                                    {"name": "key", "type": "int"},
                                    {"name": "value", "type": "string"},
                                ],
                            },
                        },
                    ],
                    "default": None,
                },
                {
                    "name": "rw",
                    "type": [
                        "null",
                        {"type": "record", "name": R + "_rw", "fields": [{"name": "x", "type": "int"}]},
                    ],
                    "default": None,
                },
            ],
        },
    ]
    assert file_schema(arrow) == expected


def test_avro_values_are_javas(tmp_path):
    """Decoded with fastavro's own logical types: epoch millis/micros, unscaled decimals, maps."""
    io = FileIO(str(tmp_path))
    path = str(tmp_path / "data-x-0.avro")
    w = formats.open_writer("avro", io, path, _data(3).schema)
    w.write(_data(3))
    w.close()
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        assert r.codec == "zstandard"
        recs = list(r)
    assert recs[1]["ts"] == dt.datetime(1970, 1, 1, 0, 0, 0, 999000, tzinfo=dt.timezone.utc)
    assert recs[1]["dec"] == decimal.Decimal("-1.25")
    assert recs[1]["tm"] == dt.time(12, 0, 1, 5000)
    assert recs[1]["mp"] == {"k": 1}
    assert recs[1]["mi"] == [{"key": 1, "value": 0.5}, {"key": -2, "value": None}]
    assert recs[0]["mi"] is None and recs[1]["rw"] == {"x": 1, "y": None}


def test_orc_layout(tmp_path):
    """TIME is an ORC int of milliseconds, LTZ an instant, decimals ORC decimals; zstd by default."""
    io = FileIO(str(tmp_path))
    path = str(tmp_path / "data-x-0.orc")
    w = formats.open_writer("orc", io, path, _data(3).schema)
    w.write(_data(3))
    w.close()
    f = orc.ORCFile(path)
    assert f.compression == "ZSTD"
    s = f.schema
    assert s.field("tm").type == pa.int32() and s.field("ltz").type == pa.timestamp("ns", tz="UTC")
    assert s.field("dec").type == pa.decimal128(10, 2) and s.field("ts").type == pa.timestamp("ns")
    assert f.read().column("tm").to_pylist()[0] == 12 * 3600_000 + 5


def test_orc_char_is_read_trimmed(tmp_path):
    """Java's ORC writer pads CHAR(n) and its reader trims it: we read CHAR trimmed, VARCHAR as is."""
    io = FileIO(str(tmp_path))
    path = str(tmp_path / "data-x-0.orc")
    raw = pa.table(
        {"c": ["ab  ", "abcd", None], "v": ["ab  ", "x", None], "r": [{"c": "z   "}, None, {"c": None}]}
    )
    w = formats.open_writer("orc", io, path, raw.schema)
    w.write(raw)
    w.close()
    types = {"c": parse_type("CHAR(4)"), "v": parse_type("VARCHAR(4)"), "r": parse_type("ROW<c CHAR(4)>")}
    got = formats.read_data_file(io, path, ["c", "v", "r"], types)
    assert got.column("c").to_pylist() == ["ab", "abcd", None]
    assert got.column("v").to_pylist() == ["ab  ", "x", None]
    assert got.column("r").to_pylist() == [{"c": "z"}, None, {"c": None}]


def test_orc_refuses_pre_1970_sub_millisecond(catalog):
    t = _create(catalog, "db.o", {"file.format": "orc"}, columns="id INT, ts TIMESTAMP(6)")
    bad = pa.table(
        {
            "id": pa.array([1, 2], pa.int32()),
            "ts": pa.array(
                [dt.datetime(2024, 1, 1), dt.datetime(1969, 12, 31, 23, 59, 59, 999999)], pa.timestamp("us")
            ),
        }
    )
    with pytest.raises(InvalidInput, match="column 'ts': ORC files here cannot hold timestamps before 1970"):
        t.write_arrow(bad)
    assert catalog.get_table("db.o").snapshots.latest() is None and not _files(t)
    ok = bad.set_column(
        1, "ts", pa.array([dt.datetime(1969, 12, 31, 23, 59, 59, 999000)] * 2, pa.timestamp("us"))
    )
    t.write_arrow(ok)  # whole milliseconds before 1970 are fine
    assert catalog.get_table("db.o").read().column("ts").to_pylist()[0] == dt.datetime(
        1969, 12, 31, 23, 59, 59, 999000
    )


def test_per_level_and_changelog_formats(catalog):
    t = _create(
        catalog,
        "db.lv",
        {
            "bucket": "1",
            "file.format": "parquet",
            "file.format.per.level": "0:avro,5:orc",
            "changelog-producer": "input",
            "changelog-file.format": "orc",
            "changelog-file.compression": "lz4",
            "file.compression.per.level": "5:snappy",
        },
        ("id",),
    )
    t.write_arrow(_data(5))
    names = {p.name.split("-")[0] + p.suffix for p in _files(t)}
    assert names == {"data.avro", "changelog.orc"}
    full_compact(catalog.get_table("db.lv"))
    t = catalog.get_table("db.lv")
    (split,) = t.plan(t.snapshots.latest())
    assert [(f.level, f.file_name.rsplit(".", 1)[1]) for f in split.files] == [(5, "orc")]
    top = next(p for p in _files(t) if p.name == split.files[0].file_name)
    assert orc.ORCFile(str(top)).compression == "SNAPPY"
    log = next(p for p in _files(t) if p.name.startswith("changelog-"))
    assert orc.ORCFile(str(log)).compression == "LZ4"
    assert sorted(t.read().column("id").to_pylist()) == list(range(5))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"file.format": "csv"},
            "option 'file.format' has a bad value 'csv' \\(expected parquet | orc | avro\\)",
        ),
        ({"file.format.per.level": "0:json"}, "option 'file.format.per.level': file format 'json'"),
        (
            {"file.format.per.level": "zero:avro"},
            "option 'file.format.per.level' has a bad entry 'zero:avro'",
        ),
        ({"changelog-file.format": "csv"}, "option 'changelog-file.format': file format 'csv'"),
        (
            {"file.format": "orc", "file.compression": "lzo"},
            "compression 'lzo' is not supported for orc files",
        ),
        ({"file.compression": "brotli"}, "compression 'brotli' is not supported for parquet files"),
        ({"file.compression": "snappy"}, "compression 'snappy' is not supported for parquet files"),
        (
            {"file.format": "avro", "file.compression": "snappy"},
            "compression 'snappy' is not supported for avro files",
        ),
        (
            {"file.format": "avro", "file.compression": "lz4"},
            "compression 'lz4' is not supported for avro files",
        ),
        (
            {"file.format.per.level": "0:avro", "file.compression": "zlib"},
            "compression 'zlib' is not supported for parquet",
        ),
        (
            {"changelog-file.format": "avro", "changelog-file.compression": "zlib"},
            "option 'changelog-file.compression': compression 'zlib' is not supported for avro",
        ),
        ({"file.format": "avro"}, "column 'ts9': Avro files hold TIMESTAMP precision up to 6"),
        ({"file.format.per.level": "0:avro"}, "column 'ts9': Avro files hold TIMESTAMP precision up to 6"),
    ],
)
def test_refusals_at_create(catalog, options, message):
    with pytest.raises(InvalidInput, match=message):
        _create(catalog, "db.bad", options, columns="id INT, ts9 TIMESTAMP(9)")


def test_refusal_at_alter(catalog):
    t = _create(catalog, "db.a", {}, columns="id INT, ts9 TIMESTAMP(9)")
    with pytest.raises(InvalidInput, match="column 'ts9': Avro files hold TIMESTAMP precision up to 6"):
        alter_table(t, [SetOption("file.format", "avro")])


def test_unknown_extension_is_refused():
    with pytest.raises(CorruptMetadata, match="format 'csv', which this tool does not read"):
        formats.format_of("data-1-0.csv")
    assert formats.format_of("bucket-0/data-1-0.ORC") == "orc"


def test_per_level_codec_overrides_the_default_codec(catalog):
    """lz4 is no Avro codec, but level 0 (Avro) has its own codec: accepted, as in Paimon."""
    _create(
        catalog,
        "db.ok",
        {
            "file.format": "orc",
            "file.format.per.level": "0:avro",
            "file.compression": "lz4",
            "file.compression.per.level": "0:zstd",
        },
        columns="id INT",
    )
    with pytest.raises(InvalidInput, match="compression 'lz4' is not supported for avro"):
        _create(
            catalog,
            "db.bad",
            {"file.format": "orc", "file.format.per.level": "0:avro", "file.compression": "lz4"},
            columns="id INT",
        )


def test_orc_writer_zone_names():
    """Java's zone ids as Arrow zones; our own files say GMT (nothing to undo)."""
    assert formats._zone("GMT+08:00", "f") == "+08:00"
    assert formats._zone("Asia/Shanghai", "f") == "Asia/Shanghai"
    assert (
        formats._zone("GMT", "f") is None
        and formats._zone("UTC", "f") is None
        and formats._zone(None, "f") is None
    )
    with pytest.raises(InvalidInput, match="written in time zone 'Mars/Olympus'"):
        formats._zone("Mars/Olympus", "f")


def test_our_orc_files_record_gmt(tmp_path):
    from paimon_core.fileformat.orc import writer_timezone

    io = FileIO(str(tmp_path))
    for codec in ("zstd", "zlib", "snappy", "lz4", "none"):
        path = str(tmp_path / f"data-{codec}-0.orc")
        w = formats.open_writer("orc", io, path, _data(3).schema, codec)
        w.write(_data(3))
        w.close()
        assert writer_timezone(io, path) == "GMT", codec


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_columns_added_later_keep_the_row_count(catalog, fmt):
    """Selecting only a column added after a file was written reads no column of that file: its
    rows must still come back (as NULLs)."""
    from paimon_core.metadata.schema_evolution import AddColumn

    t = _create(catalog, f"db.add_{fmt}", {"file.format": fmt}, columns="id INT")
    t.write_arrow(pa.table({"id": pa.array([1, 2, 3], pa.int32())}))
    alter_table(catalog.get_table(t.identifier), [AddColumn("extra", parse_type("STRING"))])
    got = catalog.get_table(t.identifier).read(columns=["extra"])
    assert got.column("extra").to_pylist() == [None, None, None]


def test_file_suffix_include_compression(catalog):
    t = _create(
        catalog,
        "db.sfx",
        {"file.suffix.include.compression": "true", "file.format": "orc", "bucket": "1"},
        ("id",),
    )
    t.write_arrow(_data(3))
    (f,) = _files(t)
    assert f.name.endswith(".zst.orc")
    assert sorted(catalog.get_table("db.sfx").read().column("id").to_pylist()) == [0, 1, 2]
    assert (
        formats.file_extension(
            {"file.suffix.include.compression": "true", "file.compression": "none"}, "avro"
        )
        == ".avro"
    )
    assert (
        formats.file_extension({"file.suffix.include.compression": "true", "file.compression": "zlib"}, "orc")
        == ".zlib.orc"
    )
    assert (
        formats.file_extension(
            {"file.suffix.include.compression": "true", "file.compression": "gzip"}, "parquet"
        )
        == ".gz.parquet"
    )


def test_orc_refuses_strings_longer_than_their_type(catalog):
    """Java's ORC reader cuts a VARCHAR(n)/CHAR(n) value to n: an ORC write of a longer one is refused."""
    t = _create(
        catalog, "db.len", {"file.format": "orc"}, columns="id INT, v VARCHAR(3), r ROW<c CHAR(2)>, s STRING"
    )
    ok = pa.table({"id": pa.array([1], pa.int32()), "v": ["abc"], "r": [{"c": "xy"}], "s": ["long" * 100]})
    t.write_arrow(ok)
    with pytest.raises(InvalidInput, match="column 'v': a value is longer than its type's 3 characters"):
        t.write_arrow(ok.set_column(1, "v", pa.array(["abcd"])))
    with pytest.raises(InvalidInput, match="column 'r.c': a value is longer than its type's 2 characters"):
        t.write_arrow(ok.set_column(2, "r", pa.array([{"c": "xyz"}])))
    assert catalog.get_table("db.len").read().num_rows == 1


def test_full_compaction_changelog_in_the_output_levels_format(catalog):
    """Without changelog-file.format, a compaction's changelog gets its output level's format (as
    Java's createRollingChangelogFileWriter(outputLevel)); input changelogs that of level 0."""
    t = _create(
        catalog,
        "db.fc",
        {"bucket": "1", "file.format.per.level": "0:avro,5:orc", "changelog-producer": "full-compaction"},
        ("id",),
    )
    t.write_arrow(_data(4))
    full_compact(catalog.get_table("db.fc"))
    logs = [p for p in _files(t) if p.name.startswith("changelog-")]
    assert logs and {p.suffix for p in logs} == {".orc"}


def test_parquet_wide_decimals_are_not_dictionary_encoded(tmp_path):
    """DECIMAL(p>18) is fixed-length bytes: written plain (as Java's writer does), since Java
    1.4's Parquet filter finds no row of a dictionary-encoded one on `=` (interop:
    test_java_filter_keeps_files_with_matches[java14-dec38=...]); narrower columns keep theirs."""
    import pyarrow.parquet as pq

    from paimon_core.fileformat.parquet import writer_options

    schema = pa.schema([("w", pa.decimal128(38, 10)), ("n", pa.decimal128(18, 2)), ("s", pa.string())])
    rows = pa.table(
        {
            "w": pa.array([decimal.Decimal("0.0000000001")] * 3, pa.decimal128(38, 10)),
            "n": pa.array([decimal.Decimal("1.50")] * 3, pa.decimal128(18, 2)),
            "s": ["a", "a", "b"],
        },
        schema=schema,
    )
    path = tmp_path / "f.parquet"
    pq.write_table(rows, path, **writer_options(schema))
    rg = pq.ParquetFile(path).metadata.row_group(0)
    assert "RLE_DICTIONARY" not in rg.column(0).encodings
    assert "RLE_DICTIONARY" in rg.column(1).encodings and "RLE_DICTIONARY" in rg.column(2).encodings
