"""Avro data files (fastavro), with the schema Java Paimon writes and reads.

Java Paimon's Avro schema for a row type (``AvroSchemaConverter``), mirrored here from Arrow:

* the file schema is ``["null", record]``, the record named
  ``org.apache.paimon.avro.generated.record``; a nested ROW field ``f`` of a record named R is a
  record named ``R_f``; ARRAY items and MAP values reuse the name of the field that holds them;
* a nullable type is the union ``["null", T]`` and its record field defaults to null; NOT NULL
  fields are plain ``T`` without default;
* BOOLEAN boolean; TINYINT, SMALLINT, INT int; BIGINT long; FLOAT float; DOUBLE double;
  CHAR/VARCHAR/STRING string; BINARY/VARBINARY/BYTES bytes; DECIMAL(p, s) bytes with logical
  type decimal (big-endian two's complement unscaled value); DATE int/date; TIME int/time-millis;
  TIMESTAMP(0..3) long/timestamp-millis, (4..6) long/timestamp-micros; TIMESTAMP WITH LOCAL TIME
  ZONE the same with local-timestamp-millis/-micros. Java refuses TIMESTAMP(7..9) and TIME(4..9)
  in Avro, and so do we (``check_types``);
* a MAP with CHAR/VARCHAR keys is an Avro map; any other key type makes an array of records
  ``{key, value}`` (named after the field, key/value schemas named ``_key``/``_value``) with the
  logical type ``map``.

fastavro encodes and decodes the values, record by record (Avro has no columnar reader). Avro's
snappy codec (Java 0.9 picks it for any file.compression other than zstd, where its jars can) is
registered with fastavro here for reading, on pyarrow's snappy, when fastavro's own needs a
package that is not installed. We do not write snappy: the Java 0.9 jar has no snappy codec.
"""

from __future__ import annotations

import io as _io
import struct
import zlib

import fastavro
import fastavro.write
import pyarrow as pa

from paimon_core.data.arrow_nesting import with_leaf_types
from paimon_core.errors import InvalidInput
from paimon_core.storage.file_io import FileIO

RECORD_NAME = "org.apache.paimon.avro.generated.record"

# file.compression -> Avro codec. Java: zstd is zstandard at file.compression.zstd-level; other
# names go to Avro's CodecFactory.fromString (1.x; 0.9 wrote snappy for every other value).
# formats.CODECS lists the ones written here (those the Java 0.9 jar reads).
CODECS = {
    "zstd": "zstandard",
    "null": "null",
    "none": "null",  # Paimon's name for no codec
    "deflate": "deflate",
    "snappy": "snappy",
    "bzip2": "bzip2",
    "xz": "xz",
    "zstandard": "zstandard",
}


# ------------------------------------------------------------------ snappy blocks (pyarrow's codec)
def _read_long(fo) -> int:
    n = shift = 0
    while True:
        b = fo.read(1)[0]
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return (n >> 1) ^ -(n & 1)


def _snappy_length(data: bytes) -> int:
    """The uncompressed length a raw snappy stream starts with (a varint)."""
    n = shift = i = 0
    while True:
        b = data[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return n


def _snappy_read_block(fo):
    n = _read_long(fo)
    data, crc = fo.read(n - 4), fo.read(4)
    block = pa.decompress(data, decompressed_size=_snappy_length(data), codec="snappy", asbytes=True)
    if struct.unpack(">I", crc)[0] != zlib.crc32(block) & 0xFFFFFFFF:
        raise ValueError("snappy block CRC mismatch")
    return _io.BytesIO(block)


def _register_snappy() -> None:
    try:
        import cramjam  # noqa: F401  # pyright: ignore[reportMissingImports]  (optional; fastavro's own snappy works)
    except ImportError:
        from fastavro import _read

        _read.BLOCK_READERS["snappy"] = _snappy_read_block


_register_snappy()


def check_types(schema: pa.Schema) -> None:
    """Refuse the types Java Paimon cannot store in Avro (and so neither do we)."""

    def walk(name: str, t: pa.DataType) -> None:
        if pa.types.is_timestamp(t) and t.unit == "ns":
            raise InvalidInput(
                f"column '{name}': Avro files hold TIMESTAMP precision up to 6 (Java Paimon refuses"
                " TIMESTAMP(7..9) in Avro); use file.format parquet or orc"
            )
        if pa.types.is_list(t):
            walk(name, t.value_type)
        elif pa.types.is_map(t):
            walk(name, t.key_type)
            walk(name, t.item_type)
        elif pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(f"{name}.{t.field(i).name}", t.field(i).type)

    for f in schema:
        walk(f.name, f.type)


def _nullable(t, nullable: bool):
    return ["null", t] if nullable else t


def _avro_type(t: pa.DataType, nullable: bool, row_name: str):
    """Avro schema of an Arrow type, as AvroSchemaConverter builds it for the Paimon type."""
    if pa.types.is_boolean(t):
        s = "boolean"
    elif pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_int32(t):
        s = "int"
    elif pa.types.is_int64(t):
        s = "long"
    elif pa.types.is_float32(t):
        s = "float"
    elif pa.types.is_float64(t):
        s = "double"
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        s = "string"
    elif pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        s = "bytes"
    elif pa.types.is_decimal(t):
        s = {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
    elif pa.types.is_date32(t):
        s = {"type": "int", "logicalType": "date"}
    elif pa.types.is_time32(t) or pa.types.is_time64(t):
        s = {"type": "int", "logicalType": "time-millis"}
    elif pa.types.is_timestamp(t):
        unit = {"s": "millis", "ms": "millis", "us": "micros"}[t.unit]
        s = {"type": "long", "logicalType": f"{'local-timestamp' if t.tz else 'timestamp'}-{unit}"}
    elif pa.types.is_struct(t):
        fields = []
        for i in range(t.num_fields):
            f = t.field(i)
            field = {"name": f.name, "type": _avro_type(f.type, f.nullable, f"{row_name}_{f.name}")}
            if f.nullable:
                field["default"] = None
            fields.append(field)
        s = {"type": "record", "name": row_name, "fields": fields}
    elif pa.types.is_list(t):
        s = {"type": "array", "items": _avro_type(t.value_type, t.value_field.nullable, row_name)}
    elif pa.types.is_map(t):
        value = t.item_field
        if pa.types.is_string(t.key_type):
            s = {"type": "map", "values": _avro_type(value.type, value.nullable, row_name)}
        else:
            kv = {"name": "value", "type": _avro_type(value.type, value.nullable, row_name + "_value")}
            if value.nullable:
                kv["default"] = None
            entry = {
                "type": "record",
                "name": row_name,
                "fields": [{"name": "key", "type": _avro_type(t.key_type, False, row_name + "_key")}, kv],
            }
            s = {"type": "array", "items": entry, "logicalType": "map"}
    else:
        raise InvalidInput(f"no Avro encoding for Arrow type {t}")
    return _nullable(s, nullable)


def file_schema(schema: pa.Schema) -> list:
    """The Avro schema Java Paimon writes for a file with these columns: ``["null", record]``."""
    return _avro_type(pa.struct(list(schema)), True, RECORD_NAME)


def _physical_leaf(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_date32(t) or pa.types.is_time32(t) or pa.types.is_int8(t) or pa.types.is_int16(t):
        return pa.int32()
    return t


def _physical(t: pa.DataType) -> pa.DataType:
    """Arrow type whose Python values fastavro writes as Java does (epoch ints for time types)."""
    return with_leaf_types(t, _physical_leaf)


def _fixer(t: pa.DataType):
    """A function turning a Python value of Arrow type ``t`` (after ``_physical``) into what
    fastavro takes for the Avro type (maps: a dict, or a list of key/value records); None when
    the value needs no change."""
    if pa.types.is_map(t):
        fk, fv = _fixer(t.key_type) or (lambda v: v), _fixer(t.item_type) or (lambda v: v)
        if pa.types.is_string(t.key_type):
            return lambda v: None if v is None else {k: fv(x) for k, x in v}
        return lambda v: None if v is None else [{"key": fk(k), "value": fv(x)} for k, x in v]
    if pa.types.is_list(t):
        fe = _fixer(t.value_type)
        return None if fe is None else (lambda v: None if v is None else [fe(e) for e in v])
    if pa.types.is_struct(t):
        fixers = {t.field(i).name: _fixer(t.field(i).type) for i in range(t.num_fields)}
        fixers = {k: f for k, f in fixers.items() if f is not None}
        if not fixers:
            return None
        return lambda v: (
            None if v is None else {k: (fixers[k](x) if k in fixers else x) for k, x in v.items()}
        )
    return None


class AvroFileWriter:
    """Streams batches into one Avro file (one Avro block per batch)."""

    def __init__(
        self, fileio: FileIO, path: str, schema: pa.Schema, compression: str = "zstd", level: int | None = 1
    ):
        check_types(schema)
        self.path = path
        fileio.mkdirs(path.rsplit("/", 1)[0])
        self._arrow = schema
        self._physical = pa.schema([f.with_type(_physical(f.type)) for f in schema])
        self._fixers = [_fixer(f.type) for f in self._physical]
        codec = CODECS[compression.lower()]
        self._sink = fileio.arrow_fs.open_output_stream(path)
        self._writer = fastavro.write.Writer(
            self._sink,
            fastavro.parse_schema(file_schema(schema)),
            codec=codec,
            compression_level=level if codec == "zstandard" else None,
        )
        self.row_count = 0

    def write(self, table: pa.Table | pa.RecordBatch) -> None:
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        table = table.select(self._arrow.names).cast(self._physical)
        cols = []
        for name, fix in zip(self._physical.names, self._fixers):
            vals = table.column(name).to_pylist()
            cols.append([fix(v) for v in vals] if fix is not None else vals)
        names = self._physical.names
        for row in zip(*cols):
            self._writer.write(dict(zip(names, row)))
        self._writer.flush()
        self.row_count += table.num_rows

    @property
    def bytes_written(self) -> int:
        return self._sink.tell()

    def close(self) -> int:
        self._writer.flush()
        size = self._sink.tell()
        self._sink.close()
        return size


def _raw_type(t: pa.DataType) -> pa.DataType:
    """Arrow type that fastavro's decoded Python values convert to: the target type, except maps
    with non-string keys, which are lists of {key, value} records."""
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_raw_type(t.value_type)))
    if pa.types.is_map(t):
        key, item = (
            t.key_field.with_type(_raw_type(t.key_type)),
            t.item_field.with_type(_raw_type(t.item_type)),
        )
        if pa.types.is_string(t.key_type):
            return pa.map_(key, item)
        return pa.list_(
            pa.field("entry", pa.struct([key.with_name("key"), item.with_name("value")]), nullable=False)
        )
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_raw_type(t.field(i).type)) for i in range(t.num_fields)])
    return t


def _to_target(arr: pa.Array, t: pa.DataType) -> pa.Array:
    """Rebuild ``arr`` (of ``_raw_type(t)``) as type ``t``: list-encoded maps become MapArrays."""
    if arr.type == t:
        return arr
    if pa.types.is_map(t) and pa.types.is_list(arr.type):
        entries = arr.values
        keys = _to_target(entries.field("key"), t.key_type)
        items = _to_target(entries.field("value"), t.item_type)
        return pa.MapArray.from_arrays(
            arr.offsets, keys, items, type=t, mask=arr.is_null() if arr.null_count else None
        )
    if pa.types.is_map(t):
        keys = _to_target(arr.keys, t.key_type)
        items = _to_target(arr.items, t.item_type)
        return pa.MapArray.from_arrays(
            arr.offsets, keys, items, type=t, mask=arr.is_null() if arr.null_count else None
        )
    if pa.types.is_list(t):
        values = _to_target(arr.values, t.value_type)
        return pa.ListArray.from_arrays(
            arr.offsets, values, type=t, mask=arr.is_null() if arr.null_count else None
        )
    if pa.types.is_struct(t):
        children = [_to_target(arr.field(i), t.field(i).type) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(
            children, fields=list(t), mask=arr.is_null() if arr.null_count else None
        )
    return arr.cast(t)


def read(fileio: FileIO, path: str, columns: list[str], types: dict[str, pa.DataType]) -> pa.Table:
    """The named columns of an Avro data file as Arrow arrays of the given types."""
    reader = fastavro.reader(_io.BytesIO(fileio.read_bytes(path)))
    records = [r for r in reader if r is not None]
    if not columns:  # no columns, but the rows still count
        return pa.table({"_": pa.nulls(len(records))}).drop_columns(["_"])
    raw = pa.schema([pa.field(c, _raw_type(types[c])) for c in columns])
    table = pa.Table.from_pylist(records, schema=raw)
    arrays = [_to_target(table.column(c).combine_chunks(), types[c]) for c in columns]
    return pa.Table.from_arrays(arrays, names=columns)
