"""Table index files and the index manifest (Avro) that lists them.

The index manifest a snapshot references is the complete current set: each new one is the
previous set with this commit's DELETE/ADD changes applied (docs/format.md section 9). We write
HASH indexes (dynamic bucket mode); other index types are carried forward untouched.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import numpy as np
from paimon_core import paths
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata.manifest import ADD, DELETE, avro_bytes, java_record_schema, read_avro
from paimon_core.storage.file_io import FileIO

HASH_INDEX = "HASH"

INDEX_ENTRY_SCHEMA = java_record_schema(
    [
        {"name": "_VERSION", "type": "int"},
        {"name": "_KIND", "type": "int"},
        {"name": "_PARTITION", "type": "bytes"},
        {"name": "_BUCKET", "type": "int"},
        {"name": "_INDEX_TYPE", "type": "string"},
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_ROW_COUNT", "type": "long"},
        {
            "name": "_DELETIONS_VECTORS_RANGES",
            "default": None,
            "type": [
                "null",
                {
                    "type": "array",
                    "items": [
                        "null",
                        {
                            "type": "record",
                            "name": "record__DELETIONS_VECTORS_RANGES",
                            "fields": [
                                {"name": "f0", "type": "string"},
                                {"name": "f1", "type": "int"},
                                {"name": "f2", "type": "int"},
                                {"name": "_CARDINALITY", "type": ["null", "long"], "default": None},
                            ],
                        },
                    ],
                },
            ],
        },
        {"name": "_EXTERNAL_PATH", "type": ["null", "string"], "default": None},
    ]
)


@dataclass(frozen=True)
class IndexEntry:
    kind: int
    partition: bytes
    bucket: int
    index_type: str
    file_name: str
    file_size: int
    row_count: int
    dv_ranges: tuple | None = None
    external_path: str | None = None

    @property
    def identifier(self) -> tuple:
        return (self.partition, self.bucket, self.index_type, self.file_name)

    def to_avro(self) -> dict:
        ranges = (
            None
            if self.dv_ranges is None
            else [
                {"f0": r[0], "f1": r[1], "f2": r[2], "_CARDINALITY": r[3] if len(r) > 3 else None}
                for r in self.dv_ranges
            ]
        )
        return {
            "_VERSION": 1,
            "_KIND": self.kind,
            "_PARTITION": self.partition,
            "_BUCKET": self.bucket,
            "_INDEX_TYPE": self.index_type,
            "_FILE_NAME": self.file_name,
            "_FILE_SIZE": self.file_size,
            "_ROW_COUNT": self.row_count,
            "_DELETIONS_VECTORS_RANGES": ranges,
            "_EXTERNAL_PATH": self.external_path,
        }

    @staticmethod
    def from_avro(d: dict) -> IndexEntry:
        ranges = d.get("_DELETIONS_VECTORS_RANGES")
        if ranges is not None:
            ranges = tuple(
                (r["f0"], r["f1"], r["f2"], r.get("_CARDINALITY")) for r in ranges if r is not None
            )
        return IndexEntry(
            d["_KIND"],
            d["_PARTITION"],
            d["_BUCKET"],
            d["_INDEX_TYPE"],
            d["_FILE_NAME"],
            d["_FILE_SIZE"],
            d["_ROW_COUNT"],
            ranges,
            d.get("_EXTERNAL_PATH"),
        )

    def as_delete(self) -> IndexEntry:
        return IndexEntry(
            DELETE,
            self.partition,
            self.bucket,
            self.index_type,
            self.file_name,
            self.file_size,
            self.row_count,
            self.dv_ranges,
            self.external_path,
        )


class IndexStore:
    """Index files in ``<table>/index`` and index manifests in ``<table>/manifest``."""

    def __init__(self, fileio: FileIO, table_path: str):
        self.io = fileio
        self.index_dir = fileio.join(table_path, paths.INDEX_DIR)
        self.manifest_dir = fileio.join(table_path, paths.MANIFEST_DIR)
        self._prefix = str(uuid.uuid4())
        self._counter = 0

    def _name(self, kind: str) -> str:
        name = f"{kind}-{self._prefix}-{self._counter}"
        self._counter += 1
        return name

    def read_manifest(self, name: str | None) -> list[IndexEntry]:
        """The live entries of an index manifest (ADDs not cancelled by a later DELETE)."""
        if not name:
            return []
        records = read_avro(self.io, self.io.join(self.manifest_dir, name), "index manifest")
        live: dict = {}
        for r in records:
            e = IndexEntry.from_avro(r)
            if e.kind == ADD:
                live[e.identifier] = e
            else:
                live.pop(e.identifier, None)
        return list(live.values())

    def write_manifest(self, entries: list[IndexEntry]) -> str:
        name = self._name("index-manifest")
        self.io.write_bytes(
            self.io.join(self.manifest_dir, name),
            avro_bytes(INDEX_ENTRY_SCHEMA, [e.to_avro() for e in entries]),
        )
        return name

    def read_hashes(self, entry: IndexEntry) -> np.ndarray:
        path = self.io.join(self.index_dir, entry.file_name)
        try:
            data = self.io.read_bytes(path)
        except FileNotFoundError:
            raise CorruptMetadata(f"hash index file {path} is missing") from None
        return np.frombuffer(data, dtype=">i4").astype(np.int32)

    def write_hashes(self, partition: bytes, bucket: int, hashes: np.ndarray) -> IndexEntry:
        name = self._name("index")
        data = np.asarray(hashes, dtype=">i4").tobytes()
        self.io.write_bytes(self.io.join(self.index_dir, name), data)
        return IndexEntry(ADD, partition, bucket, HASH_INDEX, name, len(data), int(len(hashes)))

    def delete_file(self, entry: IndexEntry) -> None:
        self.io.delete(self.io.join(self.index_dir, entry.file_name))
