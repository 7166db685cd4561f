"""ORC data files (pyarrow's ORC adapter), laid out the way Java Paimon writes and reads them.

Java Paimon maps its types to ORC as: TINYINT byte, SMALLINT short, INT int, BIGINT long,
FLOAT float, DOUBLE double, BOOLEAN boolean, DECIMAL(p, s) decimal(p, s), DATE date,
TIME int (milliseconds of the day), TIMESTAMP timestamp (a wall clock), TIMESTAMP WITH LOCAL
TIME ZONE timestamp with local time zone (an instant: Paimon's UTC value), CHAR/VARCHAR/STRING
char/varchar/string, BINARY/VARBINARY/BYTES binary, ARRAY list, MAP map, ROW struct; columns are
matched by name. pyarrow writes every string type as ORC ``string`` (Java reads it into its
CHAR/VARCHAR columns by ORC's string-group conversion) and timestamps with the GMT writer time
zone, so values are the same in any reader time zone.

pyarrow's ORC writer splits a timestamp into seconds and nanoseconds by truncating division, so a
value before 1970 with sub-millisecond digits gets negative nanoseconds, which Java's ORC reader
turns into an error (whole milliseconds before 1970 are read right): such values are refused.
Java Paimon writes TIMESTAMP WITH LOCAL TIME ZONE to ORC the "legacy" way (0.9, and 1.x unless
``orc.timestamp-ltz.legacy.type=false``): Paimon's UTC value is taken as a wall clock in the
writing JVM's time zone and stored as that instant; its reader undoes it in its own zone. Java
records the writer's zone in each stripe footer, so ``writer_timezone`` reads it (the stripe
footer is the one part of the file pyarrow does not expose; it is a small protobuf message) and the
reader takes the instant back to that zone's wall clock. Files we write carry GMT.

Java Paimon's ORC columns are char(n)/varchar(n) for CHAR(n)/VARCHAR(n): its writer truncates
longer values (and pads CHAR, which its reader trims again, as the dispatcher does), and its reader
truncates a longer ``string`` value written here to n. So a value longer than its column's length
is refused on write (Paimon does not check lengths otherwise).

pyarrow reads ORC timestamps as nanoseconds: a file with a timestamp outside 1677-09-21 ..
2262-04-11 cannot be read and is refused (pyarrow raises, nothing is returned wrong).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.arrow_nesting import with_leaf_types
from paimon_core.data.types import MAX_LENGTH, ArrayType, AtomicType, DataType, MapType, RowType
from paimon_core.errors import InvalidInput
from paimon_core.storage.file_io import FileIO


def arrow_orc():
    """``pyarrow.orc`` (liborc and the ``pyarrow.fs`` it loads), imported here when an ORC file is
    first read or written: tables of Parquet or Avro files never load it."""
    import pyarrow.orc

    return pyarrow.orc


def open_file(f):
    """An ``ORCFile`` over the open input file ``f``."""
    return arrow_orc().ORCFile(f)


# file.compression -> pyarrow's ORC codec; Java's ORC writer takes CompressionKind.valueOf(upper)
# (NONE, ZLIB, SNAPPY, LZO, LZ4, ZSTD); pyarrow has no LZO writer.
CODECS = {"none": "uncompressed", "zlib": "zlib", "snappy": "snappy", "lz4": "lz4", "zstd": "zstd"}


def physical_type(t: pa.DataType) -> pa.DataType:
    """The Arrow type written for a column of Arrow type ``t`` (TIME becomes int32 millis)."""
    return with_leaf_types(t, lambda x: pa.int32() if pa.types.is_time32(x) or pa.types.is_time64(x) else x)


def physical_schema(schema: pa.Schema) -> pa.Schema:
    return pa.schema([f.with_type(physical_type(f.type)) for f in schema])


def _timestamp_leaves(name: str, arr: pa.Array):
    """(column path, array) of every timestamp array in ``arr``, nested ones flattened."""
    t = arr.type
    if pa.types.is_timestamp(t):
        yield name, arr
    elif pa.types.is_list(t):
        yield from _timestamp_leaves(name, arr.flatten())
    elif pa.types.is_map(t):
        yield from _timestamp_leaves(name, arr.keys)
        yield from _timestamp_leaves(name, arr.items)
    elif pa.types.is_struct(t):
        for i in range(t.num_fields):
            yield from _timestamp_leaves(f"{name}.{t.field(i).name}", arr.field(i))


def check_timestamps(table: pa.Table) -> None:
    """Refuse timestamps before 1970 with sub-millisecond digits (see the module doc)."""
    for name in table.column_names:
        for chunk in table.column(name).chunks:
            for path, arr in _timestamp_leaves(name, chunk):
                per_ms = {"s": 1, "ms": 1, "us": 1000, "ns": 1_000_000}[arr.type.unit]
                if per_ms == 1 or len(arr) == 0:
                    continue
                v = arr.cast(pa.int64())
                bad = pc.and_(
                    pc.less(v, 0), pc.not_equal(pc.subtract(v, pc.multiply(pc.divide(v, per_ms), per_ms)), 0)
                )
                if pc.any(bad).as_py():
                    raise InvalidInput(
                        f"column '{path}': ORC files here cannot hold timestamps before 1970 with"
                        " sub-millisecond digits (Java Paimon cannot read them as pyarrow writes"
                        " them); use file.format parquet"
                    )


def _string_leaves(name: str, arr: pa.Array, t: DataType):
    """(column path, array, max length) of every CHAR(n)/VARCHAR(n < MAX) array in ``arr``."""
    if isinstance(t, AtomicType):
        if t.root in ("CHAR", "VARCHAR") and t.length is not None and t.length < MAX_LENGTH:
            yield name, arr, t.length
    elif isinstance(t, ArrayType):
        yield from _string_leaves(name, arr.flatten(), t.element)
    elif isinstance(t, MapType):
        yield from _string_leaves(name, arr.keys, t.key)
        yield from _string_leaves(name, arr.items, t.value)
    elif isinstance(t, RowType):
        for i, f in enumerate(t.fields):
            yield from _string_leaves(f"{name}.{f.name}", arr.field(i), f.type)


def check_lengths(table: pa.Table, types: dict[str, DataType]) -> None:
    """Refuse CHAR(n)/VARCHAR(n) values longer than n (see the module doc)."""
    for name, t in types.items():
        if name not in table.column_names:
            continue
        for chunk in table.column(name).chunks:
            for path, arr, n in _string_leaves(name, chunk, t):
                if len(arr) and (pc.max(pc.utf8_length(arr)).as_py() or 0) > n:
                    raise InvalidInput(
                        f"column '{path}': a value is longer than its type's {n} characters, which"
                        " an ORC file cannot hold as Java Paimon reads it (it would be cut);"
                        " widen the column or use file.format parquet"
                    )


class OrcFileWriter:
    """Streams batches into one ORC file; ``bytes_written`` grows as stripes are flushed."""

    def __init__(
        self,
        fileio: FileIO,
        path: str,
        schema: pa.Schema,
        compression: str = "zstd",
        level: int | None = 1,
        types: dict[str, DataType] | None = None,
    ):
        self.path = path
        self._types = types or {}
        fileio.mkdirs(path.rsplit("/", 1)[0])
        self._sink = fileio.arrow_fs.open_output_stream(path)
        self._schema = physical_schema(schema)
        # liborc through pyarrow takes no zstd level; Java's default level (1) is ORC's speed setting
        self._writer = arrow_orc().ORCWriter(
            self._sink, compression=CODECS[compression.lower()], compression_strategy="speed"
        )
        self.row_count = 0

    def write(self, table: pa.Table | pa.RecordBatch) -> None:
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        if table.schema != self._schema:
            table = table.cast(self._schema)
        check_timestamps(table)
        check_lengths(table, self._types)
        self._writer.write(table)
        self.row_count += len(table)

    @property
    def bytes_written(self) -> int:
        return self._sink.tell()

    def close(self) -> int:
        self._writer.close()
        size = self._sink.tell()
        self._sink.close()
        return size


def read(fileio: FileIO, path: str, columns: list[str] | None = None) -> pa.Table:
    """The named columns of an ORC data file, in the ORC reader's Arrow types (the dispatcher casts
    them to the table's types: int32 -> TIME, timestamp[ns] -> the column's precision)."""
    with fileio.arrow_fs.open_input_file(path) as f:
        file = open_file(f)
        if columns is not None and not columns:  # pyarrow gives 0 rows for 0 columns: keep the count
            return pa.table({"_": pa.nulls(file.nrows)}).drop_columns(["_"])
        return file.read(columns=columns)


# ------------------------------------------------------------------ the writer's time zone
def _varint(buf: bytes, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        if b < 0x80:
            return out, i
        shift += 7


def _pb_fields(buf: bytes) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of a protobuf message: ints for varints, bytes for the rest."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if num == 0:
            return
        if wire == 0:
            v, i = _varint(buf, i)
        elif wire == 2:
            n, i = _varint(buf, i)
            v, i = buf[i : i + n], i + n
        elif wire in (1, 5):
            n = 8 if wire == 1 else 4
            v, i = buf[i : i + n], i + n
        else:
            return
        yield num, v


def _zstd_decompress(data: bytes) -> bytes:
    try:
        from compression import zstd  # pyright: ignore[reportMissingImports]  # Python 3.14+ only
    except ImportError:
        from backports import zstd
    return zstd.decompress(data)


def _decompress(raw: bytes, kind: str, block_size: int) -> bytes:
    """An ORC stream: chunks with a 3-byte little-endian header (length << 1 | original)."""
    if kind == "UNCOMPRESSED":
        return raw
    out, i = bytearray(), 0
    while i + 3 <= len(raw):
        header = raw[i] | raw[i + 1] << 8 | raw[i + 2] << 16
        n, chunk = header >> 1, raw[i + 3 : i + 3 + (header >> 1)]
        i += 3 + n
        if header & 1:
            out += chunk
        elif kind == "ZLIB":
            out += zlib.decompress(chunk, -15)
        elif kind == "ZSTD":
            out += _zstd_decompress(chunk)
        elif kind == "SNAPPY":
            size, _ = _varint(chunk, 0)
            out += pa.decompress(chunk, decompressed_size=size, codec="snappy", asbytes=True)
        elif (
            kind == "LZ4"
        ):  # a raw LZ4 block: the size is not stored; bytes past the message are never parsed
            out += pa.decompress(chunk, decompressed_size=block_size, codec="lz4_raw", asbytes=True)
        else:
            raise InvalidInput(f"cannot read the stripe footer of an ORC file compressed with {kind}")
    return bytes(out)


def writer_timezone(fileio: FileIO, path: str) -> str | None:
    """The writer time zone recorded in the first stripe footer of an ORC file (None: no stripes
    or none recorded)."""
    with fileio.arrow_fs.open_input_file(path) as f:
        reader = open_file(f).reader
        kind, block = reader.compression(), reader.compression_size()
        tail = dict(_pb_fields(reader.serialized_file_tail()))
        footer = _pb_bytes(tail.get(2, b""))
        stripe = next((v for num, v in _pb_fields(footer) if num == 3), None)
        if stripe is None:
            return None
        info = dict(_pb_fields(_pb_bytes(stripe)))
        f.seek(_pb_int(info.get(1, 0)) + _pb_int(info.get(2, 0)) + _pb_int(info.get(3, 0)))
        raw = f.read(_pb_int(info.get(4, 0)))
    for num, v in _pb_fields(_decompress(raw, kind, block)):
        if num == 3:
            return _pb_bytes(v).decode("utf-8")
    return None


def _pb_bytes(v: int | bytes) -> bytes:
    """A length-delimited protobuf value; a varint where the ORC spec has bytes is a corrupt file."""
    if not isinstance(v, bytes):
        raise InvalidInput("corrupt ORC file tail: a number where a message or string belongs")
    return v


def _pb_int(v: int | bytes) -> int:
    """A varint protobuf value; bytes where the ORC spec has a number is a corrupt file."""
    if not isinstance(v, int):
        raise InvalidInput("corrupt ORC file tail: bytes where a number belongs")
    return v


# ------------------------------------------------------------------ map keys that are NULL
_ORC_MAP = 11  # Type.Kind.MAP in orc_proto


def _packed_ints(v: int | bytes) -> list[int]:
    if isinstance(v, int):
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = _varint(v, i)
        out.append(x)
    return out


def columns_with_null_map_keys(fileio: FileIO, path: str) -> list[str]:
    """Top-level columns of an ORC file holding a MAP whose keys include NULL, from the footer's
    column statistics (``hasNull`` of the key column, which Java's ORC writer records). Paimon's
    MAP keys are NOT NULL and pyarrow's reader aborts the process on such a file, so callers
    refuse it by name before reading it."""
    with fileio.arrow_fs.open_input_file(path) as f:
        tail = dict(_pb_fields(open_file(f).reader.serialized_file_tail()))
    footer = _pb_bytes(tail.get(2, b""))
    types, stats = [], []
    for num, v in _pb_fields(footer):
        if num == 4:
            t: dict[str, list] = {"kind": [], "sub": [], "names": []}
            for n, x in _pb_fields(_pb_bytes(v)):
                if n == 1:
                    t["kind"].append(_pb_int(x))
                elif n == 2:
                    t["sub"] += _packed_ints(x)
                elif n == 3:
                    t["names"].append(_pb_bytes(x).decode("utf-8"))
            types.append(t)
        elif num == 7:
            stats.append(dict(_pb_fields(_pb_bytes(v))))
    if not types or not stats:
        return []

    def has_null_keys(type_id: int) -> bool:
        t = types[type_id]
        if t["kind"] == [_ORC_MAP] and t["sub"]:
            key = t["sub"][0]
            if key < len(stats) and stats[key].get(10) == 1:
                return True
        return any(has_null_keys(s) for s in t["sub"] if s < len(types))

    root = types[0]
    return [name for name, sub in zip(root["names"], root["sub"]) if sub < len(types) and has_null_keys(sub)]
