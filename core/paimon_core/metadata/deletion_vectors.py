"""Deletion vectors: which rows of a data file are deleted, stored in Paimon's index files.

An index file of type ``DELETION_VECTORS`` is one version byte (1), then per data file::

    int32 BE  bitmapLength = len(payload)
    payload   magic + serialized roaring bitmap of the deleted row positions (0-based, file order)
    int32 BE  CRC32(payload)

v1 payload: int32 BE magic 1581511376 + a 32-bit RoaringBitmap (portable format, run-optimized).
v2 payload (``deletion-vectors.bitmap64``): int32 LE magic 1681511377 + a 64-bit roaring bitmap in
the portable layout (uint64 LE bucket count, then per bucket a uint32 LE high key and a portable
32-bit bitmap). Each data file's vector is located by a ``DeletionFile`` (index file, offset of
its length int, length); the length is ``len(payload)`` for v1 and ``4 + len(payload) + 4`` for v2.
The bitmap codecs are pyroaring's; this module only frames them.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from paimon_core.errors import CorruptMetadata, PaimonError
from paimon_core.metadata.manifest import ADD
from paimon_core.options.registry import (
    DELETION_VECTORS_BITMAP64,
    DELETION_VECTORS_ENABLED,
    INDEX_FILE_IN_DATA_FILE_DIR,
)

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

DELETION_VECTORS_INDEX = "DELETION_VECTORS"
VERSION = 1
MAGIC_V1 = 1581511376
MAGIC_V2 = 1681511377


@dataclass(frozen=True)
class DeletionFile:
    """Where the deletion vector of one data file is: an index file name, the offset of the
    vector's length int in it, the length as the index manifest records it, the cardinality."""

    index_file: str
    offset: int
    length: int
    cardinality: int | None = None
    external_path: str | None = None


# ---------------------------------------------------------------- payloads
def _bitmap32(positions: np.ndarray):
    from pyroaring import BitMap

    if len(positions) and int(positions.max()) > 0x7FFFFFFF:
        raise PaimonError("a data file has more than 2^31 rows: set deletion-vectors.bitmap64=true")
    bm = BitMap(np.asarray(positions, dtype=np.uint32))
    bm.run_optimize()
    return bm


def encode_vector(positions: np.ndarray, bitmap64: bool = False) -> tuple[bytes, int]:
    """One serialized vector (length, payload, CRC) and the length the index manifest records."""
    positions = np.unique(np.asarray(positions, dtype=np.int64))
    if bitmap64:
        from pyroaring import BitMap64

        bm = BitMap64(positions.astype(np.uint64))
        bm.run_optimize()
        payload = struct.pack("<i", MAGIC_V2) + bm.serialize()
    else:
        payload = struct.pack(">i", MAGIC_V1) + _bitmap32(positions).serialize()
    record = struct.pack(">i", len(payload)) + payload + struct.pack(">I", zlib.crc32(payload))
    return record, (len(record) if bitmap64 else len(payload))


def decode_vector(data: bytes, offset: int, length: int, where: str = "") -> np.ndarray:
    """The deleted positions (sorted int64) of the vector at ``offset`` in an index file's bytes."""
    if offset < 1 or offset + 8 > len(data):
        raise CorruptMetadata(
            f"deletion vector{where}: offset {offset} is outside the index file ({len(data)} bytes)"
        )
    (bitmap_len,) = struct.unpack_from(">i", data, offset)
    (magic_be,) = struct.unpack_from(">i", data, offset + 4)
    (magic_le,) = struct.unpack_from("<i", data, offset + 4)
    if magic_be == MAGIC_V1:
        v2, expected = False, length
    elif magic_le == MAGIC_V2:
        v2, expected = True, length - 8
    else:
        raise CorruptMetadata(f"deletion vector{where}: bad magic number {magic_be}")
    if bitmap_len != expected or offset + 8 + bitmap_len > len(data):
        raise CorruptMetadata(
            f"deletion vector{where}: length {bitmap_len} does not match the index manifest ({length})"
        )
    payload = data[offset + 4 : offset + 4 + bitmap_len]
    (crc,) = struct.unpack_from(">I", data, offset + 4 + bitmap_len)
    if crc != zlib.crc32(payload):
        raise CorruptMetadata(f"deletion vector{where}: checksum mismatch")
    try:
        if v2:
            from pyroaring import BitMap64

            bm = BitMap64.deserialize(payload[4:])
            return np.frombuffer(bm.to_array(), dtype=np.uint64).astype(np.int64)
        from pyroaring import BitMap

        bm = BitMap.deserialize(payload[4:])
        return np.frombuffer(bm.to_array(), dtype=np.uint32).astype(np.int64)
    except (ValueError, OverflowError) as e:
        raise CorruptMetadata(f"deletion vector{where}: bad bitmap ({e})") from None


def build_index_file(vectors: dict[str, np.ndarray], bitmap64: bool = False) -> tuple[bytes, list[tuple]]:
    """An index file holding ``vectors`` (data file name -> deleted positions), in name order;
    returns its bytes and the ranges ``(data file, offset, length, cardinality)``."""
    parts = [bytes([VERSION])]
    ranges = []
    offset = 1
    for name in sorted(vectors):
        pos = np.unique(np.asarray(vectors[name], dtype=np.int64))
        if not len(pos):
            continue
        record, length = encode_vector(pos, bitmap64)
        ranges.append((name, offset, length, int(len(pos))))
        parts.append(record)
        offset += len(record)
    return b"".join(parts), ranges


# ---------------------------------------------------------------- index files on a table
def dv_enabled(table: TableContext) -> bool:
    return bool(table.schema.core_options.get(DELETION_VECTORS_ENABLED))


def index_path(table: TableContext, index_file: str, external_path: str | None = None) -> str:
    if external_path:  # outside the table directory: on the table's file system, any URI form
        from paimon_core.metadata.features import external_path as resolve

        return resolve(table, external_path, "deletion vector index file")
    return table.io.join(table.path, "index", index_file)


def deleted_rows(entries) -> int | None:
    """The rows the deletion vectors of index ``entries`` delete: their ranges' cardinalities
    summed; None once a range does not record its cardinality (unknown, not 0)."""
    total = 0
    for e in entries:
        for r in e.dv_ranges or ():
            if len(r) < 4 or r[3] is None:
                return None
            total += r[3]
    return total


def dv_entries(table: TableContext, snapshot: Snapshot | None) -> list:
    """The live DELETION_VECTORS entries of a snapshot's index manifest."""
    if snapshot is None or not snapshot.index_manifest:
        return []
    from paimon_core.metadata.index_manifest import IndexStore

    return [
        e
        for e in IndexStore(table.io, table.path).read_manifest(snapshot.index_manifest)
        if e.index_type == DELETION_VECTORS_INDEX
    ]


def deletion_files(by_bucket: dict[tuple, list]) -> dict[tuple, dict[str, DeletionFile]]:
    """(partition bytes, bucket) -> {data file name: DeletionFile}, from the DV index entries of
    each bucket."""
    out: dict[tuple, dict[str, DeletionFile]] = {}
    for e in (e for entries in by_bucket.values() for e in entries):
        files = out.setdefault((e.partition, e.bucket), {})
        for r in e.dv_ranges or ():
            if r[0] in files:
                raise CorruptMetadata(
                    f"data file {r[0]} has two deletion vectors ({files[r[0]].index_file}, {e.file_name})"
                )
            files[r[0]] = DeletionFile(e.file_name, r[1], r[2], r[3] if len(r) > 3 else None, e.external_path)
    return out


class DeletionVectorReader:
    """Reads vectors of one table, caching index file bytes (one index file holds many)."""

    def __init__(self, table: TableContext):
        if table.schema.core_options.get(INDEX_FILE_IN_DATA_FILE_DIR):
            raise PaimonError(
                "index-file-in-data-file-dir=true (index files in bucket directories) is not supported"
            )
        self.table = table
        self._cache: dict[str, bytes] = {}

    def positions(self, df: DeletionFile) -> np.ndarray:
        data = self._cache.get(df.index_file)
        if data is None:
            path = index_path(self.table, df.index_file, df.external_path)
            try:
                data = self.table.io.read_bytes(path)
            except FileNotFoundError:
                raise CorruptMetadata(f"deletion vector index file {path} is missing") from None
            if not data or data[0] != VERSION:
                raise CorruptMetadata(
                    f"deletion vector index file {path}: unknown version {data[0] if data else None}"
                )
            self._cache[df.index_file] = data
        return decode_vector(data, df.offset, df.length, f" in {df.index_file}")


def write_bucket_index(
    table: TableContext,
    partition_bytes: bytes,
    bucket: int,
    vectors: dict[str, np.ndarray],
    old_entries: list,
) -> tuple[tuple, tuple, str | None]:
    """Replace a bucket's deletion vector index files by one holding ``vectors`` (possibly none).
    Returns (new index entries, deleted index entries, path written or None)."""
    from paimon_core.metadata.index_manifest import IndexEntry

    bitmap64 = bool(table.schema.core_options.get(DELETION_VECTORS_BITMAP64))
    deleted = tuple(e.as_delete() for e in old_entries)
    data, ranges = build_index_file({k: v for k, v in vectors.items() if len(v)}, bitmap64)
    if not ranges:
        return (), deleted, None
    name = f"index-{uuid.uuid4()}-0"
    path = table.io.join(table.path, "index", name)
    table.io.write_bytes(path, data)
    entry = IndexEntry(
        ADD, partition_bytes, bucket, DELETION_VECTORS_INDEX, name, len(data), len(ranges), tuple(ranges)
    )
    return (entry,), deleted, path
