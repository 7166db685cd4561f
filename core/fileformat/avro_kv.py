"""Avro key-value files, the format Paimon's postpone-bucket writers use (``bucket-postpone``).

Java's ``PostponeBucketFileStoreWrite`` forces ``file.format=avro`` (and ``metadata.stats-mode
=none``) whenever the row type converts to Avro. A file is one record per row, written in arrival
order: ``_KEY_<k>...`` (NOT NULL), ``_SEQUENCE_NUMBER`` (long), ``_VALUE_KIND`` (int), then the
table columns, nullable ones as ``["null", T]`` unions; the record is
``org.apache.paimon.avro.generated.record`` and the container is zstd-compressed.

Only atomic column types are handled (``avro_supported`` says which); callers fall back to
Parquet for the rest, as Java falls back when the conversion fails.
"""

from __future__ import annotations

import io as _io

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
from paimon_core.data.types import AtomicType, DataType, to_arrow_type
from paimon_core.errors import CorruptMetadata, PaimonError
from paimon_core.storage.file_io import FileIO

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
KEY_PREFIX = "_KEY_"
_RECORD = "org.apache.paimon.avro.generated.record"
_UNIT = {"millis": "ms", "micros": "us", "nanos": "ns"}


def _avro_type(t: DataType):
    if not isinstance(t, AtomicType):
        return None
    r = t.root
    if r == "BOOLEAN":
        return "boolean"
    if r in ("TINYINT", "SMALLINT", "INT"):
        return "int"
    if r == "BIGINT":
        return "long"
    if r == "FLOAT":
        return "float"
    if r == "DOUBLE":
        return "double"
    if r in ("CHAR", "VARCHAR"):
        return "string"
    if r in ("BINARY", "VARBINARY"):
        return "bytes"
    if r == "DATE":
        return {"type": "int", "logicalType": "date"}
    if r == "DECIMAL":
        return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
    if r == "TIMESTAMP" and t.precision <= 6:
        unit = "millis" if t.precision <= 3 else "micros"
        return {"type": "long", "logicalType": f"timestamp-{unit}"}
    return None


def avro_supported(types: list[DataType]) -> bool:
    return all(_avro_type(t) is not None for t in types)


def _field(name: str, t: DataType, nullable: bool) -> dict:
    at = _avro_type(t)
    return {"name": name, "type": ["null", at], "default": None} if nullable else {"name": name, "type": at}


def write_kv_avro(fileio: FileIO, path: str, records: pa.Table, schema) -> int:
    """Write ``records`` (table columns + SEQ + KIND, in arrival order) as a KV Avro file; returns
    its size."""
    keys = schema.trimmed_primary_keys
    fields = [_field(KEY_PREFIX + k, schema.field(k).type, False) for k in keys]
    fields += [{"name": SEQ, "type": "long"}, {"name": KIND, "type": "int"}]
    fields += [_field(f.name, f.type, f.type.nullable) for f in schema.fields]
    avro_schema = fastavro.parse_schema({"type": "record", "name": _RECORD, "fields": fields})
    cols = {}
    for name, src in [(KEY_PREFIX + k, k) for k in keys] + [(SEQ, SEQ), (KIND, KIND)] + \
            [(n, n) for n in schema.field_names]:
        arr = records.column(src)
        if pa.types.is_timestamp(arr.type):
            arr = arr.cast(pa.int64())  # in the column's unit, which matches the logical type
        elif pa.types.is_date(arr.type):
            arr = arr.cast(pa.int32())
        elif src == KIND:
            arr = arr.cast(pa.int32())
        cols[name] = arr.to_pylist()
    names = list(cols)
    rows = [dict(zip(names, vals)) for vals in zip(*(cols[n] for n in names))]
    buf = _io.BytesIO()
    fastavro.writer(buf, avro_schema, rows, codec="zstandard")
    data = buf.getvalue()
    fileio.mkdirs(path.rsplit("/", 1)[0])
    fileio.write_bytes(path, data)
    return len(data)


def _logical(avro_type) -> str | None:
    for t in (avro_type if isinstance(avro_type, list) else [avro_type]):
        if isinstance(t, dict) and t.get("logicalType"):
            return t["logicalType"]
    return None


def _first(values):
    return next((v for v in values if v is not None), None)


def _raw_or_objects(values, raw_type: pa.DataType, object_type: pa.DataType) -> pa.Array:
    """fastavro may hand back raw numbers or decoded objects (dates, datetimes) for logical types."""
    return pa.array(values, raw_type if isinstance(_first(values), int) else object_type)


def _timestamps(values, unit: str, target: pa.DataType) -> pa.Array:
    """Epoch values (or UTC datetimes) of a timestamp logical type -> the column's Arrow type;
    Paimon stores TIMESTAMP as the wall-clock time read as UTC."""
    tz = target.tz if pa.types.is_timestamp(target) else None
    if isinstance(_first(values), int) or _first(values) is None:
        arr = pa.array(values, pa.int64()).cast(pa.timestamp(unit, tz))
    else:
        arr = pa.array(values, pa.timestamp(unit, "UTC"))
        arr = arr if tz else arr.cast(pa.timestamp(unit))
    return arr.cast(target) if arr.type != target else arr


def read_kv_avro(fileio: FileIO, path: str, columns: list[str], types: dict[str, DataType]) -> pa.Table:
    """``columns`` of a KV Avro file as Arrow; ``types`` gives the Paimon type of each table
    column (SEQ and KIND are int64/int8)."""
    try:
        data = fileio.read_bytes(path)
    except FileNotFoundError:
        raise CorruptMetadata(f"data file {path} is missing (listed in a manifest)") from None
    try:
        reader = fastavro.reader(_io.BytesIO(data))
        writer_schema = reader.writer_schema
        rows = list(reader)
    except Exception as e:  # fastavro raises many kinds on damaged input
        raise CorruptMetadata(f"data file {path} is unreadable: {e}") from None
    by_name = {f["name"]: f["type"] for f in writer_schema["fields"]}
    arrays, fields = [], []
    for c in columns:
        if c not in by_name:
            raise CorruptMetadata(f"data file {path} has no column '{c}'")
        values = [r[c] for r in rows]
        if c == SEQ:
            arr = pa.array(values, pa.int64())
        elif c == KIND:
            arr = pa.array(values, pa.int32()).cast(pa.int8())
        else:
            t = types[c]
            target = to_arrow_type(t)
            logical = _logical(by_name[c]) or ""
            if logical.startswith(("timestamp-", "local-timestamp-")):
                unit = _UNIT[logical.rsplit("-", 1)[1]]
                arr = _timestamps(values, unit, target)
            elif logical == "date":
                arr = _raw_or_objects(values, pa.int32(), pa.date32()).cast(pa.date32())
            elif logical.startswith("time-"):
                unit = _UNIT[logical.rsplit("-", 1)[1]]
                raw = _raw_or_objects(values, pa.int64(), pa.time64("us"))
                if pa.types.is_integer(raw.type):
                    raw = raw if unit == "ms" else pc.divide(raw, 1000)
                    arr = raw.cast(pa.int32()).cast(pa.time32("ms"))
                else:
                    arr = raw.cast(pa.time32("ms"))
            elif not isinstance(t, AtomicType):
                raise PaimonError(f"data file {path}: Avro column '{c}' of type {t} is not supported "
                                  "(only atomic types in Avro files)")
            else:
                arr = pa.array(values, target)
        arrays.append(arr)
        fields.append(pa.field(c, arr.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
