"""Primary-key indexes (Paimon 2.0 ``pk-btree.index.columns``, ``pk-bitmap.index.columns``): index
payloads built from a bucket's compacted data files, and the rule that keeps them true when this
project rewrites those files.

A payload is an index manifest entry whose ``_GLOBAL_INDEX`` carries ``_SOURCE_META``
(``index/pk/PrimaryKeyIndexSourceMeta``): the data level it covers and the source files (name and
row count, sorted by name) whose physical row positions its row ids are. A file is a source when
it came out of a compaction above level 0 (``_FILE_SOURCE = COMPACT``, level > 0;
``PrimaryKeyIndexSourcePolicy``). Java uses a level's payload only while its sources equal that
level's source files in the bucket exactly; deletion vectors are applied to what it finds, and
files no payload covers are read as usual, so a missing payload costs speed, never rows.

``_SOURCE_META`` bytes: int32 BE version (1), int32 BE data level (> 0), int32 BE file count, then
per file a uint16 BE length + the name in Java's modified UTF-8 and an int64 BE row count.

What a commit of ours does (``stale_payloads``): Java rebuilds a level's payload in the commit
that changes the level; we build none, so a commit that adds or removes a source file of a
level drops (DELETE) the payloads of that level in that bucket, which is also what Java's writer
does with a payload it finds stale when it restores a bucket (``BucketedSortedIndexMaintainer``
deletes rejected payloads at its next commit, then builds the uncovered levels). Levels the
commit leaves alone keep theirs, and the files of the dropped levels are read without an index
until Java's writer rebuilds it. Invariant: no live payload names sources other than its
level's current ones.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.errors import CorruptMetadata, UnsupportedFeature
from paimon_core.metadata.manifest import ADD, FILE_SOURCE_COMPACT

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_core.metadata.index_manifest import IndexEntry
    from paimon_core.metadata.manifest import ManifestEntry

SOURCE_META_VERSION = 1


@dataclass(frozen=True)
class SourceMeta:
    """The data level a primary-key index payload covers and its source files
    (``(name, row_count)``, in name order)."""

    level: int
    files: tuple[tuple[str, int], ...]

    @staticmethod
    def parse(data: bytes, where: str = "primary-key index") -> SourceMeta:
        try:
            version, level, count = struct.unpack_from(">iii", data, 0)
            if version != SOURCE_META_VERSION:
                raise UnsupportedFeature(
                    f"{where}: _SOURCE_META version {version} is not supported (only 1), so which "
                    "data files the index covers is unknown and the table cannot be written"
                )
            if level <= 0 or count < 0:
                raise ValueError(f"level {level}, {count} files")
            offset, files = 12, []
            for _ in range(count):
                (n,) = struct.unpack_from(">H", data, offset)
                name = _modified_utf8(data[offset + 2 : offset + 2 + n])
                (rows,) = struct.unpack_from(">q", data, offset + 2 + n)
                files.append((name, rows))
                offset += 2 + n + 8
            if offset != len(data):
                raise ValueError("trailing bytes")
        except (struct.error, ValueError, UnicodeDecodeError) as e:
            raise CorruptMetadata(f"{where}: bad _SOURCE_META ({e})") from None
        return SourceMeta(level, tuple(files))


def _modified_utf8(b: bytes) -> str:
    """Java's modified UTF-8 (``DataOutput.writeUTF``): UTF-8 of UTF-16 units, NUL as C0 80."""
    if b"\xed" not in b and b"\xc0\x80" not in b:
        return b.decode("utf-8")
    return (
        b.replace(b"\xc0\x80", b"\x00")
        .decode("utf-8", "surrogatepass")
        .encode("utf-16", "surrogatepass")
        .decode("utf-16")
    )


def is_payload(e: IndexEntry) -> bool:
    """A primary-key index payload (a global index entry with source files)."""
    return e.global_index is not None and e.global_index.source_meta is not None


def is_source(level: int, file_source: int | None) -> bool:
    """A data file a primary-key index may cover (``PrimaryKeyIndexSourcePolicy``)."""
    return level > 0 and file_source == FILE_SOURCE_COMPACT


def stale_payloads(live: Iterable[IndexEntry], data_changes: Iterable[ManifestEntry]) -> list[IndexEntry]:
    """The payloads of ``live`` that ``data_changes`` (this commit's data ADD/DELETE entries) make
    untrue: those of a (partition, bucket, level) where a source file is added or removed, and
    those naming a removed file. Returned as they are (the caller DELETEs them)."""
    touched: set[tuple[bytes, int, int]] = set()
    removed: set[tuple[bytes, int, str]] = set()
    for d in data_changes:
        f = d.file
        if is_source(f.level, f.file_source):
            touched.add((d.partition, d.bucket, f.level))
        if d.kind != ADD:
            removed.add((d.partition, d.bucket, f.file_name))
    if not touched and not removed:
        return []
    out = []
    for e in live:
        if not is_payload(e):
            continue
        gi = e.global_index
        assert gi is not None and gi.source_meta is not None
        meta = SourceMeta.parse(gi.source_meta, f"primary-key index file {e.file_name}")
        if (e.partition, e.bucket, meta.level) in touched or any(
            (e.partition, e.bucket, name) in removed for name, _ in meta.files
        ):
            out.append(e)
    return out
