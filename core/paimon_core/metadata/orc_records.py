"""Paimon metadata records (manifest entries, manifest lists, index manifests) in ORC files, for
tables with ``manifest.format = orc``.

One schema for both formats: the Avro schema of a record (``metadata/manifest.py``,
``metadata/index_manifest.py``) is turned into the ORC schema Java Paimon derives from the same
Paimon row type, so the records (dicts keyed by field name) are the same whichever format holds
them. Facts checked on files Java Paimon 1.0 and 1.4.2 wrote (docs/format.md section 15):

* Avro ``int`` is ORC ``int``, except ``_KIND`` and ``_FILE_SOURCE`` (Paimon TINYINT) which are
  ``tinyint``; ``long`` is ``bigint``, ``bytes`` ``binary``, ``string`` ``string``, an array a
  ``list``, a record a ``struct`` (field names as in Avro), ``timestamp-millis`` a ``timestamp``
  (a wall clock, like Avro's; read back as a UTC ``datetime`` as fastavro gives it);
* ORC has no NOT NULL: every column is nullable, as Java writes it;
* each type carries the attribute ``paimon.id`` (Java 1.3+ writes it, 1.0 did not): ``-1`` for
  ``_VERSION``, the field's position among the other fields of its record otherwise (so
  ``_KIND`` is 0), and ``2^29 + 1024 * parent id`` for a list's element;
* zstd compression (``manifest.compression``; ``none`` writes uncompressed ORC).

A file is ORC when it starts with ``ORC`` (Avro containers start with ``Obj\\x01``), so readers
take the format from the bytes, never from the option (a table whose ``manifest.format`` was
altered holds both kinds).
"""

from __future__ import annotations

import datetime as dt
import io as _io
from typing import Any

import pyarrow as pa

ORC_MAGIC = b"ORC"
_TINYINT_FIELDS = {"_KIND", "_FILE_SOURCE"}
_ELEMENT_ID_BASE = 1 << 29
_CODECS = {"zstd": "zstd", "zstandard": "zstd", "none": "uncompressed", "null": "uncompressed"}
_CODECS.update({c: c for c in ("zlib", "snappy", "lz4")})


def _orc():
    """``pyarrow.orc``, loaded when an ORC manifest is first read or written (through
    ``fileformat.orc.arrow_orc``, the one place it is imported): tables with Avro manifests never
    load it."""
    from paimon_core.fileformat.orc import arrow_orc

    return arrow_orc()


def is_orc(data: bytes) -> bool:
    return data[:3] == ORC_MAGIC


def orc_codec(name: str) -> str | None:
    """pyarrow's ORC codec for a ``manifest.compression`` value, None when ORC has none."""
    return _CODECS.get(str(name).strip().lower())


def _non_null(t: Any) -> Any:
    """The Avro type inside a ``["null", t]`` union (``t`` itself otherwise)."""
    if isinstance(t, list):
        rest = [u for u in t if u != "null"]
        return rest[0] if len(rest) == 1 else t
    return t


def _meta(field_id: int) -> dict[bytes, bytes]:
    return {b"paimon.id": str(field_id).encode()}


def _arrow_type(name: str, t: Any, field_id: int) -> pa.DataType:
    t = _non_null(t)
    if isinstance(t, dict):
        kind = t.get("type")
        if t.get("logicalType") == "timestamp-millis":
            return pa.timestamp("ms")
        if kind == "record":
            return pa.struct(_arrow_fields(t["fields"]))
        if kind == "array":
            item_id = _ELEMENT_ID_BASE + 1024 * field_id
            item = pa.field("item", _arrow_type("item", t["items"], item_id), metadata=_meta(item_id))
            return pa.list_(item)
        if isinstance(kind, (str, dict, list)):
            return _arrow_type(name, kind, field_id)
    if t == "int":
        return pa.int8() if name in _TINYINT_FIELDS else pa.int32()
    simple = {"long": pa.int64(), "string": pa.string(), "bytes": pa.binary(), "boolean": pa.bool_()}
    if t in simple:
        return simple[t]
    raise TypeError(f"no ORC type for Avro type {t!r} of {name}")


def _arrow_fields(fields: list[dict]) -> list[pa.Field]:
    out = []
    position = 0
    for f in fields:
        if f["name"] == "_VERSION":
            field_id = -1
        else:
            field_id = position
            position += 1
        out.append(pa.field(f["name"], _arrow_type(f["name"], f["type"], field_id), metadata=_meta(field_id)))
    return out


def arrow_schema(avro_schema: Any) -> pa.Schema:
    """The Arrow schema (written as ORC) of the records an Avro record schema describes."""
    record = _non_null(avro_schema)
    return pa.schema(_arrow_fields(record["fields"]))


def orc_bytes(avro_schema: Any, records: list[dict], compression: str = "zstd") -> bytes:
    """``records`` as an ORC file with the schema Java derives for ``avro_schema``."""
    schema = arrow_schema(avro_schema)
    table = pa.Table.from_pylist(records, schema=schema)
    buf = _io.BytesIO()
    _orc().write_table(table, buf, compression=orc_codec(compression) or "zstd")
    return buf.getvalue()


def _utc(v: Any) -> Any:
    """Timestamps come back naive (wall clock); fastavro gives them UTC-aware, and so do we."""
    if isinstance(v, dt.datetime) and v.tzinfo is None:
        return v.replace(tzinfo=dt.timezone.utc)
    if isinstance(v, dict):
        return {k: _utc(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_utc(x) for x in v]
    return v


def _millis(t: pa.DataType) -> pa.DataType:
    if pa.types.is_timestamp(t):
        return pa.timestamp("ms")
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_millis(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_millis(t.value_type)))
    return t


def _avro_like(t: pa.DataType) -> Any:
    """An Avro-shaped description of an Arrow type (field names and nesting only), so layout
    checks written against Avro writer schemas work on ORC files too."""
    if pa.types.is_struct(t):
        fields = [{"name": t.field(i).name, "type": _avro_like(t.field(i).type)} for i in range(t.num_fields)]
        return {"type": "record", "name": "record", "fields": fields}
    if pa.types.is_list(t):
        return {"type": "array", "items": _avro_like(t.value_type)}
    return str(t)


def read_orc_records(data: bytes) -> tuple[list[dict], dict]:
    """(records, Avro-shaped writer schema) of an ORC metadata file; raises what pyarrow raises on
    a damaged file (callers name the file)."""
    table = _orc().ORCFile(pa.BufferReader(data)).read()
    schema = pa.schema([f.with_type(_millis(f.type)) for f in table.schema])
    table = table.cast(schema)
    fields = [{"name": f.name, "type": _avro_like(f.type)} for f in schema]
    return [_utc(r) for r in table.to_pylist()], {"type": "record", "name": "record", "fields": fields}
