"""The data-file format dispatcher: which format a file is in, which format and codec a new file
gets, and one read/write entry point over the Parquet, ORC and Avro modules.

Invariants (as Java Paimon):
* a file is read in the format its name's extension names (``data-<uuid>-0.orc``), never the
  table option: a table may hold files of several formats (after ``file.format`` changed, or with
  ``file.format.per.level``);
* a new data file of LSM level L is written in ``file.format.per.level``'s format for L, else
  ``file.format``; a changelog file in ``changelog-file.format`` if set, else as a data file of
  its level. Codecs follow the same rule with ``file.compression.per.level`` /
  ``changelog-file.compression`` / ``file.compression``;
* the file extension is the format's name, so readers need no other hint.
"""

from __future__ import annotations

import io as _io
from collections.abc import Iterable, Mapping
from typing import overload

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from paimon_core.data.types import (
    ArrayType,
    AtomicType,
    DataField,
    DataType,
    MapType,
    RowType,
    to_arrow_type,
)
from paimon_core.errors import CorruptMetadata, InvalidInput, NullMapKey
from paimon_core.fileformat import avro, orc, parquet
from paimon_core.fileformat.field_ids import with_field_ids
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import (
    CHANGELOG_FILE_COMPRESSION,
    CHANGELOG_FILE_FORMAT,
    FILE_COMPRESSION,
    FILE_COMPRESSION_PER_LEVEL,
    FILE_FORMAT_PER_LEVEL,
    FILE_SUFFIX_INCLUDE_COMPRESSION,
    Option,
)
from paimon_core.storage.file_io import FileIO

FORMATS = ("parquet", "orc", "avro")

# file.compression values each format takes (Paimon passes the name to the format's own codec
# lookup; names a pyarrow/fastavro writer lacks, or Java Paimon 0.9 cannot read, are refused by
# name: its jar has no snappy-java, so snappy Parquet and Avro are read here but never written).
# ``none`` (Paimon's own name for no codec, which Java accepts in a table's options: ORC takes it
# as NONE) writes uncompressed files in every format: Parquet UNCOMPRESSED, Avro ``null``.
CODECS: dict[str, tuple[str, ...]] = {
    "parquet": ("zstd", "gzip", "uncompressed", "none"),
    "orc": tuple(orc.CODECS),
    "avro": ("zstd", "deflate", "null", "none"),
}

_WRITERS = {"parquet": parquet.ParquetFileWriter, "orc": orc.OrcFileWriter, "avro": avro.AvroFileWriter}


def format_of(file_name: str) -> str:
    """The format of a data file, from its extension (Java's ``DataFilePathFactory.formatIdentifier``)."""
    base = file_name.rstrip("/").rsplit("/", 1)[-1]
    if "." not in base:
        raise CorruptMetadata(f"data file {file_name} has no format extension")
    ext = base.rsplit(".", 1)[1].lower()
    if ext not in FORMATS:
        raise CorruptMetadata(
            f"data file {file_name} is in format '{ext}', which this tool does not read"
            f" ({', '.join(FORMATS)})"
        )
    return ext


def stored_columns(fileio: FileIO, path: str) -> list[str]:
    """The top-level column names a data file stores (from its footer or header only)."""
    fmt = format_of(path)
    try:
        if fmt == "parquet":
            with pq.ParquetFile(path, filesystem=fileio.arrow_fs) as pf:
                return list(pf.schema_arrow.names)
        if fmt == "orc":
            with fileio.arrow_fs.open_input_file(path) as f:
                return list(orc.open_file(f).schema.names)
        reader = fastavro.reader(_io.BytesIO(fileio.read_bytes(path)))
        schema = reader.writer_schema
        record = schema[-1] if isinstance(schema, list) else schema
        return [fld["name"] for fld in record["fields"]] if isinstance(record, dict) else []
    except FileNotFoundError:
        raise CorruptMetadata(f"data file {path} is missing (listed in a manifest)") from None
    except (pa.ArrowException, ValueError, KeyError, EOFError, OSError) as e:
        raise CorruptMetadata(f"data file {path} is unreadable: {e}") from None


# ------------------------------------------------------------------ options
def _level_map(options: dict[str, str], option: Option[str | None]) -> dict[int, str]:
    """``'0:avro,3:parquet'`` -> {0: 'avro', 3: 'parquet'} (Paimon's map option syntax)."""
    key = option.key
    raw = CoreOptions(options).get(option)
    out: dict[int, str] = {}
    if not raw or not str(raw).strip():
        return out
    for part in str(raw).split(","):
        if not part.strip():
            continue
        lvl, sep, val = part.partition(":")
        try:
            level = int(lvl.strip())
        except ValueError:
            level = -1
        if not sep or level < 0 or not val.strip():
            raise InvalidInput(
                f"option '{key}' has a bad entry '{part.strip()}' (expected LEVEL:VALUE, e.g. 0:avro,3:parquet)"
            )
        out[level] = val.strip().lower()
    return out


def file_format(options: dict[str, str], level: int, changelog: bool = False) -> str:
    """The format a new file of this level (a changelog file if ``changelog``) is written in."""
    opts = CoreOptions(options)
    fmt = opts.get(CHANGELOG_FILE_FORMAT) if changelog else None
    if fmt:
        return fmt.strip().lower()
    per_level = _level_map(options, FILE_FORMAT_PER_LEVEL)
    if level in per_level:
        return per_level[level]
    return opts.file_format


def file_compression(options: dict[str, str], level: int, changelog: bool = False) -> str:
    """The codec name (``file.compression`` syntax) of a new file of this level."""
    opts = CoreOptions(options)
    codec = opts.get(CHANGELOG_FILE_COMPRESSION) if changelog else None
    if codec:
        return codec.strip().lower()
    per_level = _level_map(options, FILE_COMPRESSION_PER_LEVEL)
    if level in per_level:
        return per_level[level]
    return opts.get(FILE_COMPRESSION).strip().lower()


# file.suffix.include.compression: the codec's file extension goes before the format's (Paimon 1.x
# HadoopCompressionType: none adds nothing, unknown names are used as they are)
_CODEC_EXTENSIONS = {
    "none": None,
    "gzip": "gz",
    "bzip2": "bz2",
    "deflate": "deflate",
    "snappy": "snappy",
    "lz4": "lz4",
    "zstd": "zst",
}


def file_extension(options: dict[str, str], fmt: str) -> str:
    """``.orc``, or ``.zst.orc`` with ``file.suffix.include.compression`` (named after the table's
    ``file.compression``, as Java's path factory does, whatever codec the level uses)."""
    opts = CoreOptions(options)
    if opts.get(FILE_SUFFIX_INCLUDE_COMPRESSION):
        codec = opts.get(FILE_COMPRESSION).strip()
        ext = _CODEC_EXTENSIONS.get(codec.lower(), codec) if codec else None
        if ext:
            return f".{ext}.{fmt}"
    return f".{fmt}"


def _check_format(key: str, fmt: str) -> None:
    if fmt not in FORMATS:
        raise InvalidInput(f"option '{key}': file format '{fmt}' is not supported (use {', '.join(FORMATS)})")


def _check_codec(key: str, fmt: str, codec: str) -> None:
    if codec not in CODECS[fmt]:
        raise InvalidInput(
            f"option '{key}': compression '{codec}' is not supported for {fmt} files"
            f" (use {', '.join(CODECS[fmt])})"
        )


def check_options(options: dict[str, str], schema: pa.Schema) -> None:
    """Refuse, by name, any format/codec option this tool cannot write as Java Paimon would (each
    (format, codec) pair a file could get), and column types a chosen format cannot hold (Avro:
    TIMESTAMP(7..9)). Run at create-table and alter-table."""
    opts = CoreOptions(options)
    default_fmt = opts.file_format
    _check_format("file.format", default_fmt)
    codec = opts.get(FILE_COMPRESSION).strip().lower()
    fmt_per_level = _level_map(options, FILE_FORMAT_PER_LEVEL)
    codec_per_level = _level_map(options, FILE_COMPRESSION_PER_LEVEL)
    for fmt in fmt_per_level.values():
        _check_format("file.format.per.level", fmt)
    pairs = [("file.compression", default_fmt, codec)]  # levels named by neither map
    for lvl in sorted(set(fmt_per_level) | set(codec_per_level)):
        key = "file.compression.per.level" if lvl in codec_per_level else "file.compression"
        pairs.append((key, fmt_per_level.get(lvl, default_fmt), codec_per_level.get(lvl, codec)))
    changelog_fmt = (opts.get(CHANGELOG_FILE_FORMAT) or "").strip().lower()
    changelog_codec = (opts.get(CHANGELOG_FILE_COMPRESSION) or "").strip().lower()
    if changelog_fmt:
        _check_format("changelog-file.format", changelog_fmt)
    if changelog_fmt or changelog_codec:
        key = "changelog-file.compression" if changelog_codec else "file.compression"
        for fmt in [changelog_fmt] if changelog_fmt else {p[1] for p in pairs}:
            pairs.append((key, fmt, changelog_codec or codec))
    for key, fmt, c in sorted(set(pairs), key=lambda p: (FORMATS.index(p[1]), p[0])):
        _check_codec(key, fmt, c)
    if any(p[1] == "avro" for p in pairs):
        avro.check_types(schema)


# ------------------------------------------------------------------ read / write
def open_writer(
    fmt: str,
    fileio: FileIO,
    path: str,
    schema: pa.Schema,
    compression: str = "zstd",
    level: int | None = 1,
    types: dict[str, DataType] | None = None,
    fields: Iterable[DataField] = (),
):
    """A streaming writer (``write(table)``, ``bytes_written``, ``row_count``, ``close() -> size``)
    of one data file in format ``fmt``; ``types``: the Paimon types of the columns (ORC checks
    CHAR/VARCHAR lengths with them); ``fields``: the table's fields, whose ids Parquet columns
    carry (:mod:`.field_ids`)."""
    _check_format("file.format", fmt)
    _check_codec("file.compression", fmt, compression.lower())
    if fmt == "orc":
        return orc.OrcFileWriter(fileio, path, schema, compression, level, types)
    if fmt == "parquet":
        return parquet.ParquetFileWriter(fileio, path, with_field_ids(schema, fields), compression, level)
    return _WRITERS[fmt](fileio, path, schema, compression, level)


@overload
def read_data_file(
    fileio: FileIO, path: str, columns: list[str], types: Mapping[str, DataType], legacy_ltz: bool = ...
) -> pa.Table: ...


@overload  # with a deletion vector's positions: (table, keep mask)
def read_data_file(
    fileio: FileIO,
    path: str,
    columns: list[str],
    types: Mapping[str, DataType],
    legacy_ltz: bool = ...,
    *,
    deleted: np.ndarray,
) -> tuple[pa.Table, np.ndarray]: ...


def read_data_file(fileio, path, columns, types, legacy_ltz=True, deleted=None):  # typed by the overloads
    """The named columns of a data file (format by extension), with the Paimon ``types`` the
    file was written with: ORC and Avro columns come as those types' Arrow arrays, read as Java
    reads them; Parquet columns come as stored (the caller's casts apply as before).
    ``legacy_ltz``: the table's ``orc.timestamp-ltz.legacy.type`` (see orc.py).

    With ``deleted`` (a deletion vector's sorted row positions) the rows at those positions are
    left out, and the result is ``(table, keep mask over the file's rows)``."""
    try:
        if deleted is None:
            return _read(fileio, path, columns, types, legacy_ltz)
        if format_of(path) == "parquet":
            return parquet.read_kept(fileio, path, columns, deleted)
        data = _read(fileio, path, columns, types, legacy_ltz)
        keep = np.ones(data.num_rows, dtype=bool)
        keep[deleted[deleted < data.num_rows]] = False
        return (data if keep.all() else parquet.filter_columns(data, parquet.keep_bits(keep))), keep
    except FileNotFoundError:
        raise CorruptMetadata(f"data file {path} is missing (listed in a manifest)") from None
    except (pa.ArrowException, ValueError, KeyError, EOFError, OSError) as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "out of range for nanosecond resolution" in msg:
            raise InvalidInput(
                f"data file {path} holds a timestamp outside 1677..2262, which the ORC reader"
                f" used here cannot read ({msg})"
            ) from None
        raise CorruptMetadata(f"data file {path} is unreadable: {msg}") from None


def _read(
    fileio: FileIO, path: str, columns: list[str], types: Mapping[str, DataType], legacy_ltz: bool
) -> pa.Table:
    fmt = format_of(path)
    if fmt == "parquet":
        return parquet.read(fileio, path, columns)
    if fmt == "orc":
        if any(_has_map(types[c]) for c in columns):  # pyarrow aborts on a NULL map key
            bad = [c for c in orc.columns_with_null_map_keys(fileio, path) if c in columns]
            if bad:
                raise NullMapKey(bad[0], path)
        data = orc.read(fileio, path, columns)
        zone = None
        if legacy_ltz and any(_has_root(types[c], "TIMESTAMP_LTZ") for c in columns) and data.num_rows:
            zone = _zone(orc.writer_timezone(fileio, path), path)
        if not columns:
            return data
        return pa.Table.from_arrays(
            [_orc_column(data.column(c), types[c], zone) for c in columns], names=columns
        )
    return avro.read(fileio, path, columns, {c: to_arrow_type(types[c]) for c in columns})


_UTC_ZONES = {
    "",
    "UTC",
    "GMT",
    "Z",
    "UCT",
    "Universal",
    "Zulu",
    "GMT0",
    "Etc/UTC",
    "Etc/GMT",
    "Etc/UCT",
    "Etc/Universal",
    "Etc/Zulu",
    "Etc/GMT0",
    "Etc/GMT+0",
    "Etc/GMT-0",
    "GMT+0",
    "GMT-0",
}


def _zone(name: str | None, path: str) -> str | None:
    """An Arrow time zone for an ORC writer zone (None: UTC, nothing to undo). Java's custom
    ``GMT+08:00`` ids become offsets; a zone Arrow does not know is refused by name."""
    if name is None or name in _UTC_ZONES:
        return None
    zone = name[3:] if name.startswith("GMT") and name[3:4] in "+-" else name
    try:
        pa.array([0], pa.timestamp("ns", tz=zone)).cast(pa.timestamp("ns", tz="UTC"))
        pc.local_timestamp(pa.array([0], pa.timestamp("ns", tz=zone)))
    except (pa.ArrowException, ValueError):
        raise InvalidInput(
            f"data file {path} was written in time zone '{name}', which is needed to read its"
            " TIMESTAMP WITH LOCAL TIME ZONE values and is unknown here"
        ) from None
    return zone


def _orc_column(col: pa.ChunkedArray, t: DataType, zone: str | None = None) -> pa.ChunkedArray:
    """An ORC column as the table's type: TIME from int32 millis, timestamps from nanoseconds to
    the column's unit (a safe cast: a value finer than the precision is an error, never cut), and
    CHAR values without their trailing spaces (ORC pads CHAR; Java's ORC reader trims it).
    ``zone``: the writer's zone of a legacy LTZ file, whose instants go back to its wall clock."""
    if zone is not None and _has_root(t, "TIMESTAMP_LTZ"):
        writer_zone: str = zone
        col = pa.chunked_array(
            [_map_leaves(c, t, "TIMESTAMP_LTZ", lambda a: _wall_clock(a, writer_zone)) for c in col.chunks]
        )
    target = to_arrow_type(t)
    if col.type != target:
        col = col.cast(target)
    if _has_root(t, "CHAR"):
        col = pa.chunked_array(
            [_map_leaves(c, t, "CHAR", lambda a: pc.utf8_rtrim(a, characters=" ")) for c in col.chunks]
        ).cast(target)
    return col


def _wall_clock(arr: pa.Array, zone: str) -> pa.Array:
    """Instants (tz UTC) -> their wall clock in ``zone``, labelled UTC (Paimon's LTZ value)."""
    local = pc.local_timestamp(arr.cast(pa.timestamp(arr.type.unit, tz=zone)))
    return local.cast(pa.timestamp(arr.type.unit, tz="UTC"))


def _has_map(t: DataType) -> bool:
    if isinstance(t, MapType):
        return True
    if isinstance(t, ArrayType):
        return _has_map(t.element)
    if isinstance(t, RowType):
        return any(_has_map(f.type) for f in t.fields)
    return False


def _has_root(t: DataType, root: str) -> bool:
    if isinstance(t, ArrayType):
        return _has_root(t.element, root)
    if isinstance(t, MapType):
        return _has_root(t.key, root) or _has_root(t.value, root)
    if isinstance(t, RowType):
        return any(_has_root(f.type, root) for f in t.fields)
    return isinstance(t, AtomicType) and t.root == root


def _map_leaves(arr: pa.Array, t: DataType, root: str, fn) -> pa.Array:
    """``arr`` with ``fn`` applied to every leaf array of Paimon type ``root`` (nested ones too)."""
    if not _has_root(t, root):
        return arr
    if isinstance(t, AtomicType):
        return fn(arr)
    mask = arr.is_null() if arr.null_count else None
    if isinstance(t, ArrayType):
        values = _map_leaves(arr.values, t.element, root, fn)
        return pa.ListArray.from_arrays(arr.offsets, values, mask=mask)
    if isinstance(t, MapType):
        keys, items = _map_leaves(arr.keys, t.key, root, fn), _map_leaves(arr.items, t.value, root, fn)
        return pa.MapArray.from_arrays(arr.offsets, keys, items, mask=mask)
    assert isinstance(t, RowType)  # _has_root holds only for atomic, ARRAY, MAP and ROW types
    children = [_map_leaves(arr.field(i), f.type, root, fn) for i, f in enumerate(t.fields)]
    return pa.StructArray.from_arrays(children, names=[f.name for f in t.fields], mask=mask)
