"""Iceberg manifest files and manifest lists in Avro, with the schemas Java Paimon writes
(``IcebergManifestEntry``/``IcebergDataFileMeta``/``IcebergManifestFileMeta``: the same field
ids, names, record names and order; snappy by default, ``metadata.iceberg.manifest-compression``).

Records are the plain dicts fastavro reads and writes: an entry read back is written again
unchanged but for its ``status``. Invariants: entries of one manifest share a content (data or
deletes); a manifest list's meta counts its manifest's entries by status and summarises the
partition values of all of them (null seen, min, max as Iceberg bound bytes)."""

from __future__ import annotations

import io
import uuid
from dataclasses import dataclass, field

import fastavro

from paimon_core.data.types import AtomicType, DataField
from paimon_core.iceberg.bounds import to_bytes
from paimon_core.storage.file_io import FileIO

ADDED, EXISTING, DELETED = 1, 0, 2  # Iceberg's manifest entry status
FIRST_PARTITION_FIELD_ID = 1000

_AVRO_CODECS = {"snappy": "snappy", "zstd": "zstandard", "gzip": "deflate", "deflate": "deflate"}
_PARTITION_AVRO = {
    "BOOLEAN": "boolean",
    "INT": "int",
    "BIGINT": "long",
    "CHAR": "string",
    "VARCHAR": "string",
}


def _opt(field_id: int, name: str, t) -> dict:
    return {"field-id": field_id, "default": None, "name": name, "type": ["null", t]}


def _req(field_id: int, name: str, t) -> dict:
    return {"field-id": field_id, "name": name, "type": t}


def _map(field_id: int, name: str, kid: int, vid: int, vtype: str) -> dict:
    kv = {
        "type": "record",
        "name": f"k{kid}_v{vid}",
        "fields": [_req(kid, "key", "int"), _req(vid, "value", vtype)],
    }
    return _opt(field_id, name, {"logicalType": "map", "type": "array", "items": kv})


def _partition_avro(t: AtomicType):
    base = {"type": "int", "logicalType": "date"} if t.root == "DATE" else _PARTITION_AVRO[t.root]
    return ["null", base] if t.nullable else base


def entry_schema(partition_fields: list[DataField]) -> dict:
    """The Avro schema of a manifest entry for a table partitioned by ``partition_fields``."""
    part = []
    for i, f in enumerate(partition_fields):
        assert isinstance(f.type, AtomicType)
        col = _req(FIRST_PARTITION_FIELD_ID + i, f.name, _partition_avro(f.type))
        if f.type.nullable:
            col["default"] = None
        part.append(col)
    data_file = {
        "type": "record",
        "name": "r2",
        "fields": [
            _req(134, "content", "int"),
            _req(100, "file_path", "string"),
            _req(101, "file_format", "string"),
            _req(102, "partition", {"type": "record", "name": "r102", "fields": part}),
            _req(103, "record_count", "long"),
            _req(104, "file_size_in_bytes", "long"),
            _map(110, "null_value_counts", 121, 122, "long"),
            _map(125, "lower_bounds", 126, 127, "bytes"),
            _map(128, "upper_bounds", 129, 130, "bytes"),
            _opt(143, "referenced_data_file", "string"),
            _opt(144, "content_offset", "long"),
            _opt(145, "content_size_in_bytes", "long"),
        ],
    }
    return {
        "type": "record",
        "name": "manifest_entry",
        "fields": [
            _req(0, "status", "int"),
            _opt(1, "snapshot_id", "long"),
            _opt(3, "sequence_number", "long"),
            _opt(4, "file_sequence_number", "long"),
            _req(2, "data_file", data_file),
        ],
    }


_SUMMARY = {
    "type": "record",
    "name": "r508",
    "fields": [
        _req(509, "contains_null", "boolean"),
        _opt(518, "contains_nan", "boolean"),
        _opt(510, "lower_bound", "bytes"),
        _opt(511, "upper_bound", "bytes"),
    ],
}
LIST_SCHEMA = {
    "type": "record",
    "name": "manifest_file",
    "fields": [
        _req(500, "manifest_path", "string"),
        _req(501, "manifest_length", "long"),
        _req(502, "partition_spec_id", "int"),
        _req(517, "content", "int"),
        _req(515, "sequence_number", "long"),
        _req(516, "min_sequence_number", "long"),
        _opt(503, "added_snapshot_id", "long"),
        _req(504, "added_files_count", "int"),
        _req(505, "existing_files_count", "int"),
        _req(506, "deleted_files_count", "int"),
        _req(512, "added_rows_count", "long"),
        _req(513, "existing_rows_count", "long"),
        _req(514, "deleted_rows_count", "long"),
        _opt(507, "partitions", {"element-id": 508, "type": "array", "items": _SUMMARY}),
    ],
}


def _avro(schema: dict, records: list[dict], compression: str) -> bytes:
    out = io.BytesIO()
    codec = _AVRO_CODECS.get(compression.strip().lower(), "null")
    fastavro.writer(out, fastavro.parse_schema(schema), records, codec=codec)
    return out.getvalue()


def read_records(fileio: FileIO, path: str) -> list[dict]:
    return [dict(r) for r in fastavro.reader(io.BytesIO(fileio.read_bytes(path))) if isinstance(r, dict)]


def writer_schema(fileio: FileIO, path: str):
    """The Avro schema an Avro file was written with (its header)."""
    return fastavro.reader(io.BytesIO(fileio.read_bytes(path))).writer_schema


@dataclass
class IcebergFiles:
    """Names and writes the manifests and the manifest list of one Iceberg commit in
    ``metadata_dir``: ``<uuid>-m<N>.avro`` and ``snap-<N>-<uuid>.avro``, as Java names them."""

    io: FileIO
    metadata_dir: str
    partition_fields: list[DataField]
    compression: str = "snappy"
    prefix: str = field(default_factory=lambda: str(uuid.uuid4()))
    manifests: int = 0
    lists: int = 0

    def write_manifest(self, entries: list[dict], sequence_number: int, content: int = 0) -> dict:
        """Write ``entries`` as one manifest; returns its manifest-list record."""
        self.manifests += 1
        path = f"{self.metadata_dir}/{self.prefix}-m{self.manifests}.avro"
        data = _avro(entry_schema(self.partition_fields), entries, self.compression)
        self.io.write_bytes(path, data)
        counts = {ADDED: [0, 0], EXISTING: [0, 0], DELETED: [0, 0]}
        for e in entries:
            counts[e["status"]][0] += 1
            counts[e["status"]][1] += e["data_file"]["record_count"]
        seqs = [e["sequence_number"] for e in entries if e["sequence_number"] is not None]
        return {
            "manifest_path": path,
            "manifest_length": len(data),
            "partition_spec_id": 0,
            "content": content,
            "sequence_number": sequence_number,
            "min_sequence_number": min(seqs) if seqs else -1,
            "added_snapshot_id": sequence_number,
            "added_files_count": counts[ADDED][0],
            "existing_files_count": counts[EXISTING][0],
            "deleted_files_count": counts[DELETED][0],
            "added_rows_count": counts[ADDED][1],
            "existing_rows_count": counts[EXISTING][1],
            "deleted_rows_count": counts[DELETED][1],
            "partitions": self._summaries(entries),
        }

    def _summaries(self, entries: list[dict]) -> list[dict]:
        out = []
        for f in self.partition_fields:
            values = [e["data_file"]["partition"][f.name] for e in entries]
            present = [v for v in values if v is not None]
            lo = hi = None
            if present:
                lo, hi = min(present), max(present)
                if f.type.root == "DATE":  # type: ignore[union-attr]
                    lo, hi = _days(lo), _days(hi)
                lo, hi = to_bytes(f.type, lo), to_bytes(f.type, hi)
            out.append(
                {
                    "contains_null": len(present) < len(values),
                    "contains_nan": False,
                    "lower_bound": lo,
                    "upper_bound": hi,
                }
            )
        return out

    def write_list(self, metas: list[dict]) -> str:
        """Write the manifest list of ``metas``; returns its path."""
        self.lists += 1
        path = f"{self.metadata_dir}/snap-{self.lists}-{self.prefix}.avro"
        self.io.write_bytes(path, _avro(LIST_SCHEMA, metas, self.compression))
        return path


def _days(v) -> int:
    import datetime

    return v if isinstance(v, int) else (v - datetime.date(1970, 1, 1)).days


__all__ = [
    "ADDED",
    "DELETED",
    "EXISTING",
    "IcebergFiles",
    "LIST_SCHEMA",
    "entry_schema",
    "read_records",
    "writer_schema",
]
