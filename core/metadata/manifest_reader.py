"""Decoding manifest files with a partition/bucket filter applied while they are decoded, and
reading many of them in parallel.

An ``EntryFilter`` tells from an entry's raw partition bytes and bucket whether it can
match; entries it rejects are never built into objects. When the filter knows the exact
serialized partitions that can match (``needles``), an Avro block in whose decompressed
bytes none of them occurs is skipped without decoding: a record of a matching partition
holds that partition's bytes verbatim, so the skip never drops a matching entry (a block
that does contain them is decoded and filtered entry by entry).

Complete decodes go to the process-wide cache (``manifest_cache``); a filtered read uses a
cached complete decode when there is one and never stores its partial result.

``read_many`` keeps the order of its input: ADD/DELETE folding must see entries in manifest
list order, whatever order the threads finish in.
"""

from __future__ import annotations

import gc
import io as _io
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import fastavro
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata import manifest_cache
from paimon_core.metadata.orc_records import is_orc, read_orc_records

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from paimon_core.storage.file_io import FileIO

    Build = Callable[[dict], object]

# reads in flight at once: a manifest read on S3 is one round trip, locally the GIL bounds it
PARALLELISM = 8


@dataclass(frozen=True)
class EntryFilter:
    """``keep(partition_bytes, bucket)``: whether an entry can match. ``needles``: when set,
    every entry ``keep`` accepts has one of these exact partition bytes."""

    keep: Callable[[bytes, int], bool]
    needles: tuple[bytes, ...] | None = None

    def accepts(self, record: dict) -> bool:
        return self.keep(record["_PARTITION"], record["_BUCKET"])


def read_entries(io: FileIO, path: str, build: Build, flt: EntryFilter | None = None) -> list:
    """The entries (``build(record)``: ManifestEntry.from_avro) of the manifest at ``path``
    that ``flt`` keeps (all without a filter), in file order; a missing or damaged file is
    CorruptMetadata naming it."""
    key = manifest_cache.key_of(io, path)
    cached = manifest_cache.get(key)
    if cached is not None:
        if flt is None:
            return list(cached)
        return [e for e in cached if flt.keep(e.partition, e.bucket)]
    data = _read(io, path)
    try:
        if is_orc(data):
            records = [r for r in read_orc_records(data)[0] if isinstance(r, dict)]
            out = [build(r) for r in records if flt is None or flt.accepts(r)]
        else:
            out = _avro_entries(data, build, flt)
    except CorruptMetadata:
        raise
    except Exception as e:  # fastavro and pyarrow raise many kinds on damaged input
        raise CorruptMetadata(f"manifest file {path} is unreadable: {e}") from None
    if flt is None:
        manifest_cache.put(key, tuple(out))
    return out


def _read(io: FileIO, path: str) -> bytes:
    try:
        return io.read_bytes(path)
    except FileNotFoundError:
        raise CorruptMetadata(f"manifest file {path} is missing") from None


def _avro_entries(data: bytes, build: Build, flt: EntryFilter | None) -> list:
    out = []
    needles = flt.needles if flt is not None else None
    for block in fastavro.block_reader(_io.BytesIO(data)):
        if needles is not None:
            raw = block.bytes_.getvalue()  # pyright: ignore[reportAttributeAccessIssue]
            if not any(n in raw for n in needles):
                continue
        for r in block:
            if r is None:
                continue
            if not isinstance(r, dict):
                raise CorruptMetadata("its values are not Avro records")
            if flt is None or flt.accepts(r):
                out.append(build(r))
    return out


def read_many(io: FileIO, paths: list[str], build: Build, flt: EntryFilter | None = None) -> list[list]:
    """``read_entries`` of each path, read by up to ``PARALLELISM`` threads; the result is in
    the order of ``paths``."""
    with gc_paused():
        if len(paths) <= 1 or PARALLELISM <= 1:
            return [read_entries(io, p, build, flt) for p in paths]
        with ThreadPoolExecutor(max_workers=min(PARALLELISM, len(paths))) as pool:
            return list(pool.map(lambda p: read_entries(io, p, build, flt), paths))


_pauses = 0
_pause_lock = threading.Lock()


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while manifests are decoded: decoding allocates
    millions of acyclic objects, and each allocation burst would otherwise trigger full
    collections over the whole heap. Nested and concurrent pauses are counted; the collector
    is enabled again when the last ends (if it was enabled before the first)."""
    global _pauses, _was_enabled
    with _pause_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()


_was_enabled = True
