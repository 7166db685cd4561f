"""FileIO: the few storage operations the format needs, over fsspec, chosen by URI scheme.

Invariant: ``write_if_absent`` never replaces an existing file. Locally it links a temporary
file into place (link(2) fails if the target exists); on S3 it is a conditional PUT
(``If-None-Match: *``). Everything else the format writes has a unique name.
"""

from __future__ import annotations

import os
import uuid
from functools import cached_property

import fsspec
from paimon_core.errors import CommitConflict, PaimonError


def split_scheme(uri: str) -> tuple[str, str]:
    if "://" in uri:
        scheme, rest = uri.split("://", 1)
        return scheme.lower(), rest
    return "file", uri


class FileIO:
    """Paths given to methods are full paths in the filesystem's own form (no scheme)."""

    def __init__(self, root_uri: str, storage_options: dict | None = None):
        self.scheme, rest = split_scheme(root_uri)
        self.storage_options = dict(storage_options or {})
        if self.scheme == "file":
            rest = os.path.abspath(os.path.expanduser(rest))
        self.root = rest.rstrip("/") or "/"

    def __getstate__(self):
        return {"scheme": self.scheme, "storage_options": self.storage_options, "root": self.root}

    def __setstate__(self, state):
        self.__dict__.update(state)

    @property
    def is_local(self) -> bool:
        return self.scheme == "file"

    @cached_property
    def fs(self) -> fsspec.AbstractFileSystem:
        if self.is_local:
            return fsspec.filesystem("file")
        return fsspec.filesystem(self.scheme, **self.storage_options)

    @cached_property
    def arrow_fs(self):
        """A pyarrow filesystem for Parquet IO (native for local files)."""
        import pyarrow.fs as pafs

        if self.is_local:
            return pafs.LocalFileSystem()
        return pafs.PyFileSystem(pafs.FSSpecHandler(self.fs))

    def join(self, *parts: str) -> str:
        return "/".join([p.rstrip("/") for p in parts[:1]] + [p.strip("/") for p in parts[1:]])

    def uri(self, path: str) -> str:
        return path if self.is_local else f"{self.scheme}://{path}"

    # ---- reads
    def exists(self, path: str) -> bool:
        if self.is_local:
            return os.path.exists(path)
        return self.fs.exists(path)

    def read_bytes(self, path: str) -> bytes:
        if self.is_local:
            with open(path, "rb") as f:
                return f.read()
        return self.fs.cat_file(path)

    def read_text(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def list_names(self, directory: str) -> list[str]:
        """Names (not paths) of the entries of a directory; empty if it does not exist."""
        if self.is_local:
            try:
                return os.listdir(directory)
            except FileNotFoundError:
                return []
        try:
            return [p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(directory, detail=False, refresh=True)]
        except FileNotFoundError:
            return []

    def is_dir(self, path: str) -> bool:
        if self.is_local:
            return os.path.isdir(path)
        return self.fs.isdir(path)

    def size(self, path: str) -> int:
        if self.is_local:
            return os.path.getsize(path)
        return self.fs.size(path)

    # ---- writes
    def mkdirs(self, path: str) -> None:
        if self.is_local:
            os.makedirs(path, exist_ok=True)
        # object stores have no directories

    def write_bytes(self, path: str, data: bytes) -> None:
        """Write a file with a fresh unique name (no replace protection needed)."""
        if self.is_local:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
            return
        self.fs.pipe_file(path, data)

    def overwrite_hint(self, path: str, data: bytes) -> None:
        """Replace a hint file (LATEST/EARLIEST): atomic locally via rename, best effort."""
        if self.is_local:
            tmp = f"{os.path.dirname(path)}/.{os.path.basename(path)}.{uuid.uuid4()}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            return
        self.fs.pipe_file(path, data)

    def write_if_absent(self, path: str, data: bytes) -> bool:
        """Create ``path`` with ``data`` unless it exists; True if this call created it."""
        if self.is_local:
            directory = os.path.dirname(path)
            os.makedirs(directory, exist_ok=True)
            tmp = f"{directory}/.{os.path.basename(path)}.{uuid.uuid4()}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)
                return True
            except FileExistsError:
                return False
            finally:
                os.unlink(tmp)
        return self._conditional_put(path, data)

    def _conditional_put(self, path: str, data: bytes) -> bool:
        if self.scheme not in ("s3", "s3a"):
            if self.storage_options.get("unsafe_check_then_write"):
                if self.fs.exists(path):
                    return False
                self.fs.pipe_file(path, data)
                return True
            raise PaimonError(f"{self.scheme}:// has no atomic create-if-absent; commits there are not supported")
        try:
            self.fs.pipe_file(path, data, mode="create")
            return True
        except FileExistsError:
            return False
        except OSError as e:
            if _is_precondition_failed(e):
                return False
            raise

    def delete(self, path: str) -> None:
        try:
            if self.is_local:
                os.unlink(path)
            else:
                self.fs.rm_file(path)
        except FileNotFoundError:
            pass

    def delete_dir(self, path: str) -> None:
        if self.is_local:
            import shutil

            shutil.rmtree(path, ignore_errors=True)
        elif self.fs.exists(path):
            self.fs.rm(path, recursive=True)


def _is_precondition_failed(e: BaseException) -> bool:
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        text = f"{type(e).__name__} {e}"
        if "PreconditionFailed" in text or "412" in text or "At least one of the pre-conditions" in text:
            return True
        e = e.__cause__ or e.__context__
    return False


__all__ = ["FileIO", "CommitConflict", "split_scheme"]
