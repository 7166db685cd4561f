"""FileIO: the few storage operations the format needs, over fsspec, chosen by URI scheme.

Invariant: ``write_if_absent`` never replaces an existing file. Locally it links a temporary
file into place (link(2) fails if the target exists); on S3 it is a conditional PUT
(``If-None-Match: *``), and a store that ignores that condition is detected once (a probe
object put twice) and refused, unless ``unsafe-commits`` is set; on HDFS (``hdfs://`` through
hdfs-native, ``webhdfs://`` over HTTP) a temporary file is renamed into place, and the NameNode
refuses a rename onto an existing file, as Java's HadoopFileIO relies on. Everything else the
format writes has a unique name. Reads and listings never come from a cache: another process's
commit is visible to the next call. S3 options: see ``paimon_core.storage.s3``; HDFS:
``paimon_core.storage.hdfs``.
"""

from __future__ import annotations

import errno
import functools
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from typing import TYPE_CHECKING, Any

from paimon_core import paths
from paimon_core.errors import CommitConflict, PaimonError
from paimon_core.storage import hdfs
from paimon_core.storage.s3 import ConditionalWriteUnsupported, S3Options, probe_result

if TYPE_CHECKING:
    from collections.abc import Callable

    import fsspec
    import pyarrow.fs as pafs

S3_SCHEMES = ("s3", "s3a")
_OWN_OPTIONS = ("unsafe_check_then_write", "unsafe-commits", "unsafe_commits")


def split_scheme(uri: str) -> tuple[str, str]:
    if "://" in uri:
        scheme, rest = uri.split("://", 1)
        return scheme.lower(), rest
    if uri.startswith("file:"):  # Hadoop's form, as Java writes external paths: file:/tmp/x
        return "file", "/" + uri[5:].lstrip("/")
    return "file", uri


class FileIO:
    """Paths given to methods are full paths in the filesystem's own form (no scheme)."""

    def __init__(self, root_uri: str, storage_options: dict | None = None):
        self.scheme, rest = split_scheme(root_uri)
        # a warehouse named as a file: URI gets its paths written in Hadoop's form (file:/tmp/x)
        # where they are recorded (Iceberg metadata, catalog locations), as Java writes them
        self.local_prefix = "file:" if self.scheme == "file" and root_uri.startswith("file:") else ""
        self.storage_options = dict(storage_options or {})
        self.authority = ""  # HDFS: the NameNode (host:port) or nameservice the paths are on
        if self.scheme == "file":
            rest = os.path.abspath(os.path.expanduser(rest))
        elif self.scheme in hdfs.SCHEMES:
            self.authority, rest = hdfs.split_authority(rest)
        self.root = rest.rstrip("/") or "/"

    def __getstate__(self):
        return {
            "scheme": self.scheme,
            "storage_options": self.storage_options,
            "root": self.root,
            "local_prefix": self.local_prefix,
            "authority": self.authority,
        }

    def __setstate__(self, state):
        self.__dict__.update({"local_prefix": "", "authority": "", **state})

    @property
    def is_local(self) -> bool:
        return self.scheme == "file"

    @property
    def is_s3(self) -> bool:
        return self.scheme in S3_SCHEMES

    @property
    def is_hdfs(self) -> bool:
        return self.scheme in hdfs.SCHEMES

    @cached_property
    def s3_options(self) -> S3Options:
        return S3Options.parse(self.storage_options)

    @cached_property
    def fs(self) -> fsspec.AbstractFileSystem:
        """The fsspec filesystem (imported here: local files mostly go through ``os``)."""
        import fsspec

        if self.is_local:
            return fsspec.filesystem("file")
        if self.is_s3:
            return fsspec.filesystem("s3", **self.s3_options.s3fs_kwargs())
        if self.is_hdfs:
            return hdfs.filesystem(self.scheme, self.authority, self.storage_options)
        opts = {k: v for k, v in self.storage_options.items() if k not in _OWN_OPTIONS}
        return fsspec.filesystem(self.scheme, **opts)

    @cached_property
    def arrow_fs(self) -> pafs.FileSystem:
        """A pyarrow filesystem for Parquet IO: native for local files, and for S3 when every
        storage option has a native equivalent (it is faster than going through s3fs);
        fsspec-backed otherwise, so s3fs-only options still apply."""
        import pyarrow.fs as pafs

        if self.is_local:
            return pafs.LocalFileSystem()
        if self.is_s3 and not self.s3_options.extra:
            return self.s3_options.arrow_filesystem(self.root.split("/", 1)[0])
        return pafs.PyFileSystem(pafs.FSSpecHandler(self.fs))

    def join(self, *parts: str) -> str:
        return paths.join(*parts)

    def uri(self, path: str) -> str:
        """``path`` as recorded in metadata: ``file:/...`` locally when the warehouse was named
        so (plain otherwise), ``<scheme>://...`` on other stores."""
        if self.is_local:
            return self.local_prefix + path
        return f"{self.scheme}://{self.authority}{path}" if self.is_hdfs else f"{self.scheme}://{path}"

    def path_of(self, uri: str) -> str | None:
        """The path on this storage of ``uri`` as metadata records it (``file:/x``, a bare path,
        ``s3://bucket/key``, ``hdfs://namenode:8020/p``); None when it names other storage: another
        scheme (``s3``/``s3a`` are one), or another HDFS cluster (``hdfs://`` and ``webhdfs://``
        reach one NameNode on different ports, so between them the host decides)."""
        scheme, rest = split_scheme(uri)
        if self.is_hdfs and scheme in hdfs.SCHEMES:
            authority, path = hdfs.split_authority(rest)
            if scheme == self.scheme:
                same = authority in ("", self.authority)
            else:
                same = authority.rpartition(":")[0] == self.authority.rpartition(":")[0]
            return path if same else None
        if scheme == self.scheme or (scheme in S3_SCHEMES and self.is_s3):
            return rest
        return None

    # ---- reads
    @property
    def whole_file_options(self) -> dict:
        """Options of a whole-file read (``cat_file``, ``cat``): on S3, one GET. s3fs would
        first ask the object's size (a HEAD: one more round trip on every read) to fetch a
        large object in parallel ranges; what is read whole here is metadata, small."""
        return {"max_concurrency": 1} if self.is_s3 else {}

    def together(self, *calls: Callable[[], Any]) -> list:
        """The results of ``calls``, in order: run at once on a remote store (where each is a
        round trip, so the wait is one round trip), one after another on local disk. The
        first exception in order is raised once all have ended."""
        if self.is_local or len(calls) < 2:
            return [c() for c in calls]
        with ThreadPoolExecutor(max_workers=len(calls)) as pool:
            futures = [pool.submit(c) for c in calls]
        return [f.result() for f in futures]

    def exists(self, path: str) -> bool:
        if self.is_local:
            return os.path.exists(path)
        return self.fs.exists(path)

    def read_bytes(self, path: str) -> bytes:
        if self.is_local:
            with open(path, "rb") as f:
                return f.read()
        data = self.fs.cat_file(path, **self.whole_file_options)
        assert isinstance(data, bytes)  # cat_file reads bytes (fsspec's str is for other calls)
        return data

    def read_text(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def list_names(self, directory: str) -> list[str]:
        """Names (not paths) of the entries of a directory; empty if it does not exist."""
        if self.is_local:
            try:
                return os.listdir(directory)
            except FileNotFoundError:
                return []
        directory = directory.rstrip("/")
        try:
            paths = self.fs.ls(directory, detail=False, refresh=True)
        except FileNotFoundError:
            return []
        # s3fs answers an empty "directory" (SeaweedFS keeps them after deletes) with itself
        return [p.rstrip("/").rsplit("/", 1)[-1] for p in paths if p.rstrip("/") != directory]

    def list_numbered(self, directory: str, prefix: str) -> list[int]:
        """Sorted N of the ``<prefix>N`` files in a directory (snapshot-N, schema-N, ...)."""
        n = len(prefix)
        return sorted(
            int(name[n:])
            for name in self.list_names(directory)
            if name.startswith(prefix) and name[n:].isdigit()
        )

    def is_dir(self, path: str) -> bool:
        if self.is_local:
            return os.path.isdir(path)
        return self.fs.isdir(path)

    def size(self, path: str) -> int:
        if self.is_local:
            return os.path.getsize(path)
        n = self.fs.size(path)
        if n is None:
            raise OSError(f"{path}: the object store reports no size for it")
        return n

    def mtime_millis(self, path: str) -> int:
        """Last modification time in epoch millis (FileNotFoundError if absent)."""
        if self.is_local:
            return int(os.path.getmtime(path) * 1000)
        found = mtime_ms_of(self.fs.info(path))
        return found if found else int(self.fs.modified(path).timestamp() * 1000)

    # ---- writes
    def mkdirs(self, path: str) -> None:
        if self.is_local:
            os.makedirs(path, exist_ok=True)
        elif self.is_hdfs:
            self.fs.makedirs(path, exist_ok=True)
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
            try:
                with open(tmp, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
            finally:
                _unlink_quietly(tmp)  # gone already after the rename
            return
        if self.is_hdfs:
            hdfs.write_then_rename(self.fs, path, data, overwrite=True)
            return
        self.fs.pipe_file(path, data)

    def write_if_absent(self, path: str, data: bytes) -> bool:
        """Create ``path`` with ``data`` unless it exists; True if this call created it."""
        if self.is_local:
            directory = os.path.dirname(path)
            os.makedirs(directory, exist_ok=True)
            tmp = f"{directory}/.{os.path.basename(path)}.{uuid.uuid4()}.tmp"
            try:  # the temporary file goes whatever happens, Ctrl-C while writing it too
                with open(tmp, "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.link(tmp, path)
                return True
            except FileExistsError:
                return False
            finally:
                _unlink_quietly(tmp)
        if self.is_hdfs:
            return hdfs.write_then_rename(self.fs, path, data, overwrite=False)
        return self._conditional_put(path, data)

    def _conditional_put(self, path: str, data: bytes) -> bool:
        if not self.is_s3:
            if self.storage_options.get("unsafe_check_then_write"):
                if self.fs.exists(path):
                    return False
                self.fs.pipe_file(path, data)
                return True
            raise PaimonError(
                f"{self.scheme}:// has no atomic create-if-absent; commits there are not supported"
            )
        if self.s3_options.unsafe_commits:
            # the user vouches for a single writer: narrow the window on stores that ignore the condition
            if self.fs.exists(path):
                return False
        else:
            self.check_conditional_writes()
        return self._put_if_none_match(path, data)

    def _put_if_none_match(self, path: str, data: bytes) -> bool:
        """PUT with ``If-None-Match: *``; False on 412. s3fs raises FileExistsError when the error
        names the condition (AWS, moto) and OSError(EINVAL) from a bare PreconditionFailed
        (SeaweedFS)."""
        try:
            self.fs.pipe_file(path, data, mode="create")
            return True
        except FileExistsError:
            return False
        except OSError as e:
            if _is_precondition_failed(e):
                return False
            raise

    def check_conditional_writes(self) -> None:
        """Raise ConditionalWriteUnsupported unless this S3 store honours ``If-None-Match: *``
        (probed once per store and bucket in a process)."""
        bucket = self.root.split("/", 1)[0]
        reason = probe_result(self.s3_options.identity(), bucket, self._probe_conditional_writes)
        if reason is not None:
            where = self.s3_options.effective_endpoint() or "AWS S3"
            raise ConditionalWriteUnsupported(
                f"the S3 store at {where} (bucket '{bucket}') does not honour conditional writes "
                f"(If-None-Match: *): {reason}. A commit there could silently overwrite another "
                "writer's snapshot, so commits are refused. Use a store that supports conditional "
                "writes, or set the storage option unsafe-commits = true if only one process ever "
                "commits to this warehouse."
            )

    def _probe_conditional_writes(self) -> str | None:
        probe = self.join(self.root, ".paimon-probe", uuid.uuid4().hex)
        try:
            try:
                if not self._put_if_none_match(probe, b"first"):
                    return "a conditional PUT of a new, unique key was refused"
                if self._put_if_none_match(probe, b"second"):
                    return "a second conditional PUT of the same key succeeded and replaced the first"
                return None
            except (NotImplementedError, OSError) as e:
                if isinstance(e, (PermissionError, FileNotFoundError)):
                    raise
                text = f"{type(e).__name__} {e} {e.__cause__ or ''}"
                if getattr(e, "errno", None) == errno.ENOSYS or "NotImplemented" in text:
                    return f"it rejects the condition ({e})"
                raise
        finally:
            try:
                self.fs.rm_file(probe)
            except OSError:
                pass

    def delete(self, path: str) -> None:
        try:
            if self.is_local:
                os.unlink(path)
            else:
                self.fs.rm_file(path)
        except FileNotFoundError:
            pass

    def delete_dir(self, path: str) -> None:
        """Delete a directory tree. Raises the first OSError met (after trying everything
        else), so a caller never reports a deletion that did not happen."""
        if self.is_local:
            import shutil
            import sys

            errors: list[OSError] = []

            def collect(_func, failed_path, exc):
                exc = exc[1] if isinstance(exc, tuple) else exc  # onerror gives exc_info
                if isinstance(exc, FileNotFoundError):
                    return
                if isinstance(exc, OSError):  # rmtree names entries relative to their folder
                    exc = OSError(exc.errno, exc.strerror, failed_path)
                errors.append(exc)

            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=collect)
            else:
                shutil.rmtree(path, onerror=collect)
            if errors:
                raise errors[0]
            return
        if self.fs.exists(path):
            self.fs.rm(path, recursive=True)
        if self.count_files(path):  # bulk deletes can fail key by key without raising
            raise OSError(errno.EIO, "some objects could not be deleted", path)

    def count_files(self, path: str) -> int:
        """Files below ``path`` (0 if it does not exist). Object stores may keep empty
        "directory" markers after deletes (SeaweedFS does): those are not files."""
        if self.is_local:
            return sum(len(files) for _, _, files in os.walk(path))
        try:
            found = self.fs.find(path, detail=True)
        except FileNotFoundError:
            return 0
        assert isinstance(found, dict)  # detail=True: {path: info}
        return sum(1 for info in found.values() if info.get("type") == "file")


# where each fsspec filesystem puts a file's modification time in its info dicts: epoch seconds
# (local, SeaweedFS), datetimes (s3fs), epoch millis (HDFS: hdfs-native, WebHDFS)
_MTIME_KEYS = (
    "mtime",
    "LastModified",
    "last_modified",
    "modification_time",
    "modificationTime",
    "created",
    "updated",
)


def mtime_ms_of(info: dict) -> int:
    """The modification time of an fsspec info dict in epoch millis; 0 when it names none."""
    from datetime import datetime

    for key in _MTIME_KEYS:
        v = info.get(key)
        if v is None:
            continue
        if isinstance(v, datetime):
            return int(v.timestamp() * 1000)
        if isinstance(v, (int, float)):
            return int(v * 1000) if v < 1e11 else int(v)  # seconds, or already millis
        try:
            return int(datetime.fromisoformat(str(v).replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            continue
    return 0


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _is_precondition_failed(e: BaseException | None) -> bool:
    """True if ``e`` or an error it was raised from is an S3 412 (Precondition Failed)."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        response = getattr(e, "response", None)
        if isinstance(response, dict):
            error = response.get("Error") or {}
            status = (response.get("ResponseMetadata") or {}).get("HTTPStatusCode")
            if error.get("Code") in ("PreconditionFailed", "412") or status == 412:
                return True
        if "At least one of the pre-conditions you specified did not hold" in str(e):
            return True
        e = e.__cause__ or e.__context__
    return False


__all__ = ["FileIO", "CommitConflict", "ConditionalWriteUnsupported", "split_scheme"]


def _accepting_file_uris(method):
    """Local paths may come back from metadata in ``file:`` form (ours, or Java's): strip it."""

    @functools.wraps(method)
    def wrapper(self, path, *args, **kw):
        if self.is_local and path.startswith("file:"):
            path = split_scheme(path)[1]
        return method(self, path, *args, **kw)

    return wrapper


# the storage calls that take a path first (each one touches storage itself; read_text and
# list_numbered go through read_bytes and list_names)
PATH_METHODS = (
    "exists",
    "read_bytes",
    "list_names",
    "is_dir",
    "size",
    "mtime_millis",
    "mkdirs",
    "write_bytes",
    "overwrite_hint",
    "write_if_absent",
    "delete",
    "delete_dir",
    "count_files",
)
for _name in PATH_METHODS:
    setattr(FileIO, _name, _accepting_file_uris(getattr(FileIO, _name)))
