"""Decoding manifest files with a partition/bucket filter applied while they are decoded, and
reading many of them (remote ones fetched in parallel).

An ``EntryFilter`` tells from an entry's raw partition bytes and bucket whether it can
match; entries it rejects are never built into objects. When the filter knows the exact
serialized partitions that can match (``needles``), an Avro block in whose decompressed
bytes none of them occurs is skipped without decoding: a record of a matching partition
holds that partition's bytes verbatim, so the skip never drops a matching entry (a block
that does contain them is decoded and filtered entry by entry).

Records become entries column by column (``EntryColumns``: each field's values once, from which
the entries and the disk cache's table are both built).

Complete decodes go to the process-wide cache (``manifest_cache``) and to the disk cache
shared by processes (``manifest_disk_cache``); a filtered read
uses a cached complete decode when there is one (from disk: only the entries it keeps are
built) and never stores its partial result.

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
from paimon_core.metadata import manifest_cache, manifest_disk_cache
from paimon_core.metadata.orc_records import is_orc, read_orc_records

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from paimon_core.metadata.manifest_columns import Columns, EntryColumns
    from paimon_core.storage.file_io import FileIO


# reads in flight at once: a manifest read on S3 is one round trip, locally the GIL bounds it
PARALLELISM = 8


@dataclass(frozen=True)
class EntryFilter:
    """``keep(partition_bytes)``: whether entries of that partition can match. ``needles``:
    when set, every partition ``keep`` accepts is one of these exact bytes."""

    keep: Callable[[bytes], bool]
    needles: tuple[bytes, ...] | None = None

    def accepts(self, record: dict) -> bool:
        return self.keep(record["_PARTITION"])


class Decoded:
    """A complete decode of one manifest as the cache holds it: its entries in file order and,
    built on first use, the positions of each partition's entries."""

    def __init__(self, entries: tuple):
        self.entries = entries
        self._by_partition: dict[bytes, list[int]] | None = None

    def select(self, flt: EntryFilter | None) -> list:
        """The entries ``flt`` keeps, in file order, looking at each distinct partition once."""
        if flt is None:
            return list(self.entries)
        if self._by_partition is None:
            index: dict[bytes, list[int]] = {}
            for i, e in enumerate(self.entries):
                index.setdefault(e.partition, []).append(i)
            self._by_partition = index
        index = self._by_partition
        parts = index if flt.needles is None else [n for n in flt.needles if n in index]
        positions = sorted(i for p in parts if flt.keep(p) for i in index[p])
        return [self.entries[i] for i in positions]


def read_entries(
    io: FileIO,
    path: str,
    columns: EntryColumns,
    flt: EntryFilter | None = None,
    data: bytes | None = None,
    size: int | None = None,
) -> list:
    """The entries (``columns``: manifest.ENTRY_COLUMNS) of the manifest at ``path`` that ``flt``
    keeps (all without a filter), in file order; ``data``: the file's bytes when the caller
    fetched them; ``size``: its size as the manifest list records it (keys the disk cache for
    a remote file). A missing or damaged file is CorruptMetadata naming it."""
    key = manifest_cache.key_of(io, path)
    cached = manifest_cache.get(key)
    if isinstance(cached, Decoded):
        return cached.select(flt)
    disk_key = manifest_disk_cache.key_of(key, size)
    if disk_key is not None:
        kept = manifest_disk_cache.load(disk_key)
        if kept is not None:
            if flt is not None:
                return columns.select(kept, flt.keep)
            out = columns.entries(kept)
            manifest_cache.put(key, Decoded(tuple(out)), len(out))
            return out
    if data is None:
        data = _read(io, path)
    cols: Columns = {}
    try:
        if is_orc(data):
            records = [r for r in read_orc_records(data)[0] if isinstance(r, dict)]
            blocks: Iterable[list[dict]] = [[r for r in records if flt is None or flt.accepts(r)]]
        else:
            blocks = avro_blocks(data, flt)
        for block in blocks:  # column by column: the entries and the cache file come from the same lists
            cols = columns.extend(cols, columns.columns_of(block))
        out = columns.entries_of(cols) if cols else []
    except CorruptMetadata:
        raise
    except Exception as e:  # fastavro and pyarrow raise many kinds on damaged input
        raise CorruptMetadata(f"manifest file {path} is unreadable: {e}") from None
    if flt is None:
        manifest_cache.put(key, Decoded(tuple(out)), len(out))
        if len(out) >= manifest_disk_cache.MIN_LOCAL_ENTRIES or not io.is_local:
            manifest_disk_cache.store(disk_key, cols, columns)
    return out


def _read(io: FileIO, path: str) -> bytes:
    try:
        return io.read_bytes(path)
    except FileNotFoundError:
        raise CorruptMetadata(f"manifest file {path} is missing") from None


def avro_blocks(data: bytes, flt: EntryFilter | None) -> Iterator[list[dict]]:
    """The records of an Avro manifest that ``flt`` keeps, a list per Avro block. With needles,
    a block is decoded only while it may hold more of them: each matching record holds a
    needle in bytes of its own, so the needles' (non-overlapping, leftmost-first) occurrence
    count bounds the matching records, and the decode of a block stops once that many records
    had a needle partition."""
    needles = flt.needles if flt is not None else None
    wanted = frozenset(needles) if needles is not None else frozenset()
    for block in fastavro.block_reader(_io.BytesIO(data)):
        left = -1  # records with a needle partition the block may still hold; -1: no bound
        if needles is not None:
            raw = block.bytes_.getvalue()  # pyright: ignore[reportAttributeAccessIssue]
            left = sum(raw.count(n) for n in needles)
            if left == 0:
                continue
        out = []
        for r in block:
            if r is None:
                continue
            if not isinstance(r, dict):
                raise CorruptMetadata("its values are not Avro records")
            if flt is None or flt.accepts(r):
                out.append(r)
            if left > 0 and r["_PARTITION"] in wanted:
                left -= 1
                if left == 0:
                    break
        yield out


def read_many(
    io: FileIO,
    paths: list[str],
    columns: EntryColumns,
    flt: EntryFilter | None = None,
    sizes: list[int] | None = None,
) -> list[list]:
    """``read_entries`` of each path, in the order of ``paths`` (``sizes``: their sizes as the
    manifest list records them). Remote files in neither cache are fetched concurrently
    first (one batch on an async store such as S3, else up to ``PARALLELISM`` threads). Local
    files are decoded one after another here (decoding holds the GIL, so threads would only
    add switching; worker processes were measured slower on the whole plan, see
    docs/architecture.md)."""
    known: list[int | None] = list(sizes) if sizes is not None else [None] * len(paths)
    large = flt is None and _decoded_bytes(io, paths, known) >= LARGE_DECODE_BYTES
    with gc_paused(large):
        if len(paths) <= 1 or io.is_local:
            return [read_entries(io, p, columns, flt, size=n) for p, n in zip(paths, known)]
        missing = [p for p, n in zip(paths, known) if not _held(io, p, n)]
        fetched = _fetch_all(io, missing)
        return [read_entries(io, p, columns, flt, fetched.get(p), n) for p, n in zip(paths, known)]


def _decoded_bytes(io: FileIO, paths: list[str], sizes: Sequence[int | None]) -> int:
    """The manifest bytes among ``paths`` not decoded in memory yet (as far as sizes are known)."""
    return sum(
        n or 0
        for p, n in zip(paths, sizes)
        if n and not isinstance(manifest_cache.get(manifest_cache.key_of(io, p)), Decoded)
    )


def _held(io: FileIO, path: str, size: int | None) -> bool:
    """Whether the decode of ``path`` is in memory or on disk (its bytes need no fetch)."""
    key = manifest_cache.key_of(io, path)
    if isinstance(manifest_cache.get(key), Decoded):
        return True
    return manifest_disk_cache.exists(manifest_disk_cache.key_of(key, size))


def _fetch_all(io: FileIO, paths: list[str]) -> dict[str, bytes]:
    """The bytes of ``paths`` fetched concurrently; a path that failed is absent (its
    ``read_entries`` then reads it again and reports the error)."""
    if not paths:
        return {}
    fs = io.fs
    if getattr(fs, "async_impl", False):
        got = fs.cat(paths, on_error="return", **io.whole_file_options)
        return {p: v for p, v in got.items() if isinstance(v, bytes)} if isinstance(got, dict) else {}

    def one(p: str) -> bytes | None:
        try:
            return io.read_bytes(p)
        except OSError:
            return None

    with ThreadPoolExecutor(max_workers=min(PARALLELISM, len(paths))) as pool:
        return {p: v for p, v in zip(paths, pool.map(one, paths)) if v is not None}


_pauses = 0
_freeze = False
_was_enabled = False
_pause_lock = threading.Lock()

# a decode of at least this many manifest bytes (about 100k entries) is large: see gc_paused
LARGE_DECODE_BYTES = 4 << 20


@contextmanager
def gc_paused(large: bool = False) -> Iterator[None]:
    """The cyclic garbage collector off while manifests are decoded: decoding allocates
    millions of acyclic objects, and each allocation burst would otherwise trigger full
    collections over the whole heap. Nested and concurrent pauses are counted; the collector
    is enabled again when the last ends (if it was enabled before the first).

    A ``large`` decode (``LARGE_DECODE_BYTES``) collects first and, when the last pause ends,
    moves every object then alive to the permanent generation (``gc.freeze``): the decoded
    entries hold no reference cycles, so reference counting still frees them, but the collector
    no longer walks millions of them again and again (a 1M-entry plan left 3 s of collections
    to whatever ran next). The collection before the decode means only cycles made during the
    pause (by other threads) can be frozen with them."""
    global _pauses, _was_enabled, _freeze
    with _pause_lock:
        if large and not _freeze:
            gc.collect()
            _freeze = True
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0:
                if _freeze:
                    gc.freeze()
                    _freeze = False
                if _was_enabled:
                    gc.enable()
