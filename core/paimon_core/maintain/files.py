"""File plumbing shared by the maintenance operations: where a manifest entry's file lives,
listing a table directory with sizes and modification times, and the one deletion function.

Every deletion made by expire, rollback and remove-orphans goes through :func:`delete_file`,
so a test can interrupt a run after k deletions, and a missing file is never an error (an
interrupted run is finished by running it again).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core import paths
from paimon_core.options.registry import INDEX_FILE_IN_DATA_FILE_DIR
from paimon_core.storage.file_io import FileIO, mtime_ms_of

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class PlannedFile:
    """A file an operation will delete (or would, in a dry run)."""

    path: str  # full path in the FileIO's form
    size: int  # bytes; -1 when unknown
    kind: str  # data | changelog | manifest | manifest-list | index-manifest | index | statistics | snapshot | tag | other


FileProgress = Callable[[PlannedFile], None]  # called after each file an operation deleted


@dataclass(frozen=True)
class FileInfo:
    path: str
    size: int
    mtime_ms: int


def delete_file(io: FileIO, path: str) -> None:
    """Delete one file; a file that is already gone is fine."""
    io.delete(path)


def entry_path(
    table: TableContext, partition: bytes, bucket: int, file_name: str, external_path: str | None = None
) -> str:
    """Where a data or changelog file named by a manifest entry lives."""
    if external_path:  # outside the table directory (Paimon 1.x data-file.external-paths)
        from paimon_core.metadata.features import external_path as resolve

        return resolve(table, external_path)
    return table.io.join(table.bucket_path(table.partition_codec.from_bytes(partition), bucket), file_name)


def extra_paths(table: TableContext, partition: bytes, bucket: int, extra_files) -> list[str]:
    """Extra files (file indexes) sit next to their data file in the bucket directory."""
    d = table.bucket_path(table.partition_codec.from_bytes(partition), bucket)
    return [table.io.join(d, f) for f in extra_files]


def manifest_path(table: TableContext, name: str) -> str:
    return paths.manifest_file(table.path, name)


def index_path(table: TableContext, name: str) -> str:
    return paths.index_file(table.path, name)


def index_entry_path(table: TableContext, entry) -> str:
    """Where an index manifest entry's file lives: its ``_EXTERNAL_PATH`` when set (global
    indexes under ``global-index.external-path``, 1.3+), the bucket directory with
    ``index-file-in-data-file-dir`` (1.3+), else ``<table>/index``."""
    if entry.external_path:
        from paimon_core.metadata.features import external_path as resolve

        return resolve(table, entry.external_path, "index file")
    if table.schema.core_options.get(INDEX_FILE_IN_DATA_FILE_DIR):
        return entry_path(table, entry.partition, entry.bucket, entry.file_name)
    return index_path(table, entry.file_name)


def statistics_path(table: TableContext, name: str) -> str:
    return paths.statistics_file(table.path, name)


def safe_size(io: FileIO, path: str) -> int:
    try:
        return io.size(path)
    except (FileNotFoundError, OSError):
        return -1


def _mtime_ms(info: dict) -> int:
    """0 when unknown: treated as young unless the caller says so (see orphans.py)."""
    return mtime_ms_of(info)


def walk_files(io: FileIO, root: str) -> list[FileInfo]:
    """Every file below ``root`` (recursively) with its size and modification time."""
    out: list[FileInfo] = []
    if io.is_local:
        for dirpath, _dirs, names in os.walk(root):
            for n in names:
                p = os.path.join(dirpath, n)
                try:
                    st = os.stat(p)
                except FileNotFoundError:
                    continue
                out.append(FileInfo(p, st.st_size, int(st.st_mtime * 1000)))
        return out
    try:
        found = io.fs.find(root, detail=True, withdirs=False)
    except FileNotFoundError:
        return []
    assert isinstance(found, dict)  # detail=True: {path: info}
    for p, info in found.items():
        if info.get("type", "file") != "file":
            continue
        out.append(FileInfo(p, int(info.get("size") or 0), _mtime_ms(info)))
    return out


def list_dir(io: FileIO, directory: str) -> tuple[list[FileInfo], list[str]]:
    """The files directly in ``directory`` (with sizes and modification times) and the full
    paths of its subdirectories; both empty when it does not exist. Not recursive."""
    files: list[FileInfo] = []
    dirs: list[str] = []
    if io.is_local:
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError):
            return files, dirs
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    dirs.append(e.path)
                elif e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    files.append(FileInfo(e.path, st.st_size, int(st.st_mtime * 1000)))
            except FileNotFoundError:  # removed while we listed
                continue
        return files, dirs
    directory = directory.rstrip("/")
    try:
        found = io.fs.ls(directory, detail=True, refresh=True)
    except FileNotFoundError:
        return files, dirs
    for info in found:
        name = str(info.get("name", "")).rstrip("/")
        if not name or name == directory:  # s3fs lists an empty "directory" as itself
            continue
        p = io.join(directory, name.rsplit("/", 1)[-1])  # in the caller's form, like ``directory``
        if info.get("type", "file") == "directory":
            dirs.append(p)
        else:
            files.append(FileInfo(p, int(info.get("size") or 0), _mtime_ms(info)))
    return files, dirs


def is_temp_name(name: str) -> bool:
    """Temporary files of atomic writes: ``.<target-name>.<uuid>.tmp`` (ours and pypaimon's),
    and Hadoop-style ``.<name>.crc`` / ``_temporary`` leftovers are not treated as temp here."""
    return name.startswith(".") and name.endswith(".tmp")


__all__ = [
    "FileInfo",
    "PlannedFile",
    "delete_file",
    "entry_path",
    "extra_paths",
    "index_entry_path",
    "index_path",
    "is_temp_name",
    "list_dir",
    "manifest_path",
    "safe_size",
    "statistics_path",
    "walk_files",
]
