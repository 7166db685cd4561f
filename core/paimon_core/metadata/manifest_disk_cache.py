"""Decoded manifests kept on local disk between processes: a command-line tool plans the same
table again and again, and a manifest never changes once written.

Where: ``$PAIMON_MANIFEST_CACHE`` (a folder; ``off`` switches the cache off), else
``$XDG_CACHE_HOME/paimon-cli/manifests``, else ``~/.cache/paimon-cli/manifests``. How much: at
most ``$PAIMON_MANIFEST_CACHE_SIZE`` bytes of files (``1gb`` unless set, e.g. ``256mb``); the
least recently used go first (a hit touches its file's modification time).

A cache file is an Arrow IPC file (``manifest_columns``: the complete decode of one manifest,
every entry in file order), named by the SHA-256 of its key: the cache format, the manifest's
storage (scheme and endpoint, or the local file's identity from ``manifest_cache.key_of``), its
path and its size in bytes. Local manifests of fewer than ``MIN_LOCAL_ENTRIES`` entries are not
kept (they decode faster than a cache file loads); remote ones are (a hit saves a round trip).

Invariants: a file is written under a temporary name and renamed into place, so a reader sees a
whole file or none, and processes may share the folder; a file that cannot be read is a miss
(and is removed); the cache never fails a command (an unwritable folder only means no cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
import time
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.ipc as ipc

from paimon_core.metadata.manifest_columns import FORMAT_VERSION
from paimon_core.options.values import parse_size

if TYPE_CHECKING:
    from paimon_core.metadata.manifest_columns import Columns, EntryColumns

DEFAULT_SIZE = "1gb"
# a local manifest of fewer entries decodes faster than its cache file loads (about 1 ms
# either way at 100 entries; 14 ms against 3 ms at 1,000): only remote ones that small are kept
MIN_LOCAL_ENTRIES = 200
OFF = ("off", "0", "false", "no", "none")
_SUFFIX = ".arrow"
_lock = threading.Lock()
_written = 0  # bytes this process wrote since it last checked the folder's size


def folder() -> str | None:
    """The cache folder, or None when the cache is switched off."""
    where = os.environ.get("PAIMON_MANIFEST_CACHE", "").strip()
    if where.lower() in OFF:
        return None
    if where:
        return os.path.abspath(os.path.expanduser(where))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "paimon-cli", "manifests")


def max_bytes() -> int:
    """The size bound; a value that is not a size is the default (the cache never fails a command)."""
    text = os.environ.get("PAIMON_MANIFEST_CACHE_SIZE", DEFAULT_SIZE)
    try:
        return parse_size(text)
    except Exception:
        return parse_size(DEFAULT_SIZE)


def key_of(file_key: tuple | None, size: int | None) -> str | None:
    """The cache file name of a manifest: ``file_key`` is its ``manifest_cache.key_of`` (local
    files: path, inode, size, modification time; remote: scheme, endpoint, path), ``size`` its
    size in bytes (the manifest list's record of it; required for a remote file). None when the
    cache is off or the manifest cannot be keyed."""
    if file_key is None or folder() is None:
        return None
    if size is None:
        if file_key[0] != "file":
            return None
        size = file_key[3]
    text = repr((FORMAT_VERSION, file_key, size))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _path(root: str, key: str) -> str:
    return os.path.join(root, f"v{FORMAT_VERSION}", key[:2], key + _SUFFIX)


def exists(key: str | None) -> bool:
    root = folder()
    return key is not None and root is not None and os.path.exists(_path(root, key))


def load(key: str | None) -> pa.Table | None:
    """The cached decode under ``key``, or None (a miss; a damaged file is removed)."""
    root = folder()
    if key is None or root is None:
        return None
    path = _path(root, key)
    try:
        with pa.memory_map(path) as source:
            table = ipc.open_file(source, options=ipc.IpcReadOptions(use_threads=False)).read_all()
    except FileNotFoundError:
        return None
    except (OSError, pa.ArrowException):
        with contextlib.suppress(OSError):
            os.remove(path)
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # most recently used
    return table


def store(key: str | None, cols: Columns, columns: EntryColumns) -> None:
    """Keep the complete decode ``cols`` (``EntryColumns.columns_of`` a whole manifest) under
    ``key`` (nothing when the cache is off, a value cannot be kept exactly, or the folder
    cannot be written)."""
    global _written
    root = folder()
    if key is None or root is None:
        return
    table = columns.table_of_columns(cols)
    if table is None:
        return
    path = _path(root, key)
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "wb") as out:
                options = ipc.IpcWriteOptions(compression="lz4", use_threads=False)
                with ipc.new_file(out, table.schema, options=options) as writer:
                    writer.write_table(table)
                size = out.tell()
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(tmp)
            raise
    except (OSError, pa.ArrowException):
        return
    with _lock:
        _written += size
        check = _written * 10 >= max_bytes()  # look at the folder after each tenth of the bound
        if check:
            _written = 0
    if check:
        evict(root, max_bytes())


def evict(root: str, limit: int) -> None:
    """Remove the least recently used cache files until the folder holds at most ``limit``
    bytes (down to 90% of it, so that eviction does not run on every write)."""
    files = []
    total = 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            p = os.path.join(dirpath, name)
            try:
                st = os.stat(p)
            except OSError:
                continue
            if name.startswith(".tmp-") and st.st_mtime < time.time() - 3600:
                with contextlib.suppress(OSError):
                    os.remove(p)  # left by a process killed while writing
                continue
            if name.endswith(_SUFFIX):
                files.append((st.st_mtime, st.st_size, p))
                total += st.st_size
    if total <= limit:
        return
    files.sort()
    goal = limit * 9 // 10
    for _mtime, size, p in files:
        if total <= goal:
            break
        with contextlib.suppress(OSError):
            os.remove(p)
            total -= size


def usage() -> tuple[int, int]:
    """(files, bytes) in the cache folder."""
    root = folder()
    count = total = 0
    if root is None:
        return 0, 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            if name.endswith(_SUFFIX):
                with contextlib.suppress(OSError):
                    total += os.stat(os.path.join(dirpath, name)).st_size
                    count += 1
    return count, total


def clear() -> int:
    """Remove every cache file; how many were removed."""
    root = folder()
    removed = 0
    if root is None:
        return 0
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            if name.endswith(_SUFFIX) or name.startswith(".tmp-"):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(dirpath, name))
                    removed += 1
    return removed
