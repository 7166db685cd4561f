"""A counting fault injector around ``FileIO`` (paimon_core/storage/file_io.py).

Every storage call the library makes goes through a ``FileIO``: its own methods (exists, reads,
listings, writes, the atomic create, hints, deletes), its fsspec filesystem (``io.fs``: walks,
renames, opens) and the Arrow filesystem it hands to the file formats (``io.arrow_fs``: data and
manifest files). ``FaultInjector`` patches all three in this process:

* with ``fail_at=None`` it only records the calls (the calibration run: ``calls`` lists them,
  ``sites`` their call sites, tests/safety/sites.py);
* with ``fail_at=k`` the k-th call raises ``exc`` - before the call reaches storage, or, with
  ``after=True``, after it did (a write that landed but reported failure, or Ctrl-C right after
  it) - once; later calls go through, so cleanup code runs as it would in real life.

Only outermost calls count (``read_text`` calling ``read_bytes`` is one call). The writers' and
readers' thread pools are set to one thread meanwhile, so call k is the same step in every run.
"""

from __future__ import annotations

import threading
from functools import cached_property

import pyarrow.fs as pafs

from paimon_core.storage.file_io import PATH_METHODS, FileIO
from tests.safety.sites import call_site

FILEIO_METHODS = (*PATH_METHODS, "read_text", "list_numbered")  # every storage call of FileIO
# calls that change storage: the ones an "after" fault is injected at
MUTATING = {
    "mkdirs",
    "write_bytes",
    "overwrite_hint",
    "write_if_absent",
    "delete",
    "delete_dir",
    "fs.mv",
    "fs.rm",
    "fs.rm_file",
    "fs.pipe_file",
    "fs.makedirs",
    "arrow.open_output_stream",
    "arrow.delete_file",
    "arrow.delete_dir",
    "arrow.move",
    "arrow.create_dir",
}


class InjectedFault(OSError):
    """The storage error the injector raises."""


class FaultInjector:
    def __init__(
        self, fail_at: int | None = None, exc: type[BaseException] = InjectedFault, after: bool = False
    ):
        self.fail_at = fail_at
        self.exc = exc
        self.after = after
        self.calls: list[str] = []
        self.sites: list[str] = []
        self.fired: str | None = None
        self._lock = threading.Lock()
        self._depth = threading.local()
        self._saved: dict = {}

    # ---- counting
    def _enter(self, label: str) -> bool:
        """Count an outermost call; True if it is the one to fail."""
        depth = getattr(self._depth, "n", 0)
        self._depth.n = depth + 1
        if depth:
            return False
        with self._lock:
            self.calls.append(label)
            if self.fail_at is None:
                self.sites.append(call_site(2))
            hit = len(self.calls) == self.fail_at and self.fired is None
            if hit:
                self.fired = label
            return hit

    def _exit(self) -> None:
        self._depth.n -= 1

    def _raise(self, label: str):
        phase = "after" if self.after else "before"
        raise self.exc(f"injected fault {phase} storage call {self.fail_at} ({label})")

    def call(self, label: str, fn, *args, **kwargs):
        hit = self._enter(label)
        try:
            if hit and not self.after:
                self._raise(label)
            out = fn(*args, **kwargs)
            if hit:
                self._raise(label)
            return out
        finally:
            self._exit()

    # ---- patching
    def __enter__(self) -> FaultInjector:
        from paimon_core.read import table_read
        from paimon_core.write import kv_writer

        self._saved["threads"] = (kv_writer.FLUSH_THREADS, table_read.READ_THREADS)
        kv_writer.FLUSH_THREADS = 1
        table_read.READ_THREADS = 1
        inj = self
        for name in FILEIO_METHODS:
            orig = FileIO.__dict__[name]
            self._saved[name] = orig

            def wrapped(io, *a, _orig=orig, _name=name, **kw):
                return inj.call(_name, _orig, io, *a, **kw)

            setattr(FileIO, name, wrapped)
        self._saved["fs"] = FileIO.__dict__["fs"]
        self._saved["arrow_fs"] = FileIO.__dict__["arrow_fs"]
        real_fs, real_arrow = self._saved["fs"], self._saved["arrow_fs"]

        def fs(io):
            return _CountingProxy(inj, _cached(io, "fs", real_fs))

        def arrow_fs(io):
            return pafs.PyFileSystem(_CountingHandler(inj, _cached(io, "arrow_fs", real_arrow)))

        FileIO.fs = property(fs)
        FileIO.arrow_fs = property(arrow_fs)
        return self

    def __exit__(self, *exc) -> None:
        from paimon_core.read import table_read
        from paimon_core.write import kv_writer

        kv_writer.FLUSH_THREADS, table_read.READ_THREADS = self._saved.pop("threads")
        for name, orig in self._saved.items():
            setattr(FileIO, name, orig)
        self._saved.clear()


def _cached(io: FileIO, name: str, prop: cached_property):
    """The real value of FileIO's cached property ``name`` (computed once per FileIO)."""
    key = f"_real_{name}"
    if key not in io.__dict__:
        io.__dict__[key] = prop.func(io)
    return io.__dict__[key]


class _CountingProxy:
    """fsspec filesystem whose public methods count as storage calls."""

    def __init__(self, inj: FaultInjector, fs):
        self._inj = inj
        self._fs = fs

    def __getattr__(self, name):
        attr = getattr(self._fs, name)
        if name.startswith("_") or not callable(attr):
            return attr

        def wrapped(*a, **kw):
            return self._inj.call(f"fs.{name}", attr, *a, **kw)

        return wrapped


class _CountingHandler(pafs.FileSystemHandler):
    """Arrow filesystem handler over a real Arrow filesystem; every operation counts."""

    def __init__(self, inj: FaultInjector, fs: pafs.FileSystem):
        self._inj = inj
        self._fs = fs

    def __eq__(self, other):
        return isinstance(other, _CountingHandler) and other._fs == self._fs

    def __ne__(self, other):
        return not self == other

    def get_type_name(self):
        return "counting"

    def normalize_path(self, path):
        return self._fs.normalize_path(path)

    def equals(self, other):
        return self == other

    def _delegate(name: str):  # noqa: N805 - a helper of the class body, not a method
        def method(self, *args):
            return self._inj.call(f"arrow.{name}", getattr(self._fs, name), *args)

        return method

    get_file_info = get_file_info_selector = _delegate("get_file_info")
    create_dir = _delegate("create_dir")
    delete_dir = _delegate("delete_dir")
    delete_dir_contents = _delegate("delete_dir_contents")
    delete_file = _delegate("delete_file")
    move = _delegate("move")
    copy_file = _delegate("copy_file")
    open_input_stream = _delegate("open_input_stream")
    open_input_file = _delegate("open_input_file")
    open_output_stream = _delegate("open_output_stream")
    open_append_stream = _delegate("open_append_stream")
    del _delegate

    def delete_root_dir_contents(self):
        return self._inj.call("arrow.delete_dir_contents", self._fs.delete_dir_contents, "/")


def mutating(label: str) -> bool:
    return label in MUTATING
