"""A process-wide cache of decoded manifests and manifest lists, bounded by entry count.

Manifest files are immutable once written (their names carry a UUID and no writer rewrites
one), so a decoded file can serve every later command of the same process: a streaming read
that plans each new snapshot, the Spark driver planning many queries, the commit that reads
the base list it just planned from. Keys are the file's path; on local disk the key also
holds the file's inode, size and modification time (one ``stat``), so a file that was
replaced or damaged on disk is read again rather than served from memory. Remote stores
are keyed by scheme, endpoint and path alone (a ``stat`` would cost the round trip the
cache saves).

Invariant: the cache holds only complete decodes (every record of the file); filtered reads
never populate it. At most ``MAX_ENTRIES`` records are held; the least recently used files
are dropped first.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paimon_core.storage.file_io import FileIO

MAX_ENTRIES = DEFAULT_MAX_ENTRIES = 300_000

_lock = threading.Lock()
_files: OrderedDict[tuple, tuple[object, int]] = OrderedDict()
_held = 0


def key_of(io: FileIO, path: str) -> tuple | None:
    """The cache key of ``path``; None when the file cannot be stat'ed (then it is read and
    the read reports what is wrong)."""
    if io.is_local:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return ("file", path, st.st_ino, st.st_size, st.st_mtime_ns)
    endpoint = io.storage_options.get("s3.endpoint") or io.storage_options.get("endpoint")
    return (io.scheme, endpoint, path)


def get(key: tuple | None) -> object | None:
    if key is None:
        return None
    with _lock:
        hit = _files.get(key)
        if hit is None:
            return None
        _files.move_to_end(key)
        return hit[0]


def put(key: tuple | None, value: object, size: int) -> None:
    """Remember ``value``, the complete decode of the file ``key`` (``size`` records); a file
    larger than the whole cache is not kept."""
    global _held
    if key is None or size > MAX_ENTRIES:
        return
    with _lock:
        old = _files.pop(key, None)
        if old is not None:
            _held -= old[1]
        _files[key] = (value, size)
        _held += size
        while _held > MAX_ENTRIES and _files:
            _, (_, dropped) = _files.popitem(last=False)
            _held -= dropped


def clear() -> None:
    global _held
    with _lock:
        _files.clear()
        _held = 0


def held() -> int:
    """Records held now (for tests of the bound)."""
    return _held
