"""Streaming write: many commits from one long-running writer, exactly once across restarts.

Paimon's mechanism: a writer keeps one ``commitUser`` for its whole life (and across
restarts) and gives each commit an increasing ``commitIdentifier``; both are recorded in the
snapshot. Before committing, the committer looks for the newest snapshot of its user: if that
already has this identifier (or a later one), the commit was made before a crash and is
skipped (:class:`StreamingCommitter`, with ``FileStoreCommit``'s check).

* :func:`watch_dir` ingests the files of a folder in name order. Each commit records the last
  file name it holds in the snapshot's properties (``ingest.watch.last-file``); a restart
  resumes after the last file of the newest snapshot of its user, so a file is ingested exactly
  once whatever moment the process died at (a side file ``.paimon-watch-<user>`` in the folder
  keeps the same progress for when every snapshot of the user has expired). A new file whose name sorts before the last
  ingested one is never ingested; it is reported (``on_skip``).
* :func:`ingest_stream` reads JSON lines or CSV from a byte stream (stdin) and commits every
  ``commit_interval_s`` or ``commit_rows`` rows; the stream itself cannot be replayed, so a
  crash loses only rows not yet committed, and every commit holds whole lines.

After each commit the writer compacts the buckets it wrote and expires snapshots per the
table options, as after any ingest (Paimon writers do the same), so a long stream keeps the
table healthy.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import os
import queue
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit, latest_commit_of
from paimon_core.errors import InvalidInput
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.write.cdc_formats import CDC_FORMATS, ROW_KIND
from paimon_core.write.input_errors import InputLineError, InputRowError, not_utf8
from paimon_core.write.table_write import write_tables
from paimon_core.write.text_input import csv_options, read_changes, read_json

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext

LAST_FILE = "ingest.watch.last-file"
LAST_LINE = "ingest.stdin.last-line"  # SHA-1 of the last input line a stdin commit holds


def watch_commit_user(table: TableContext, directory: str, pattern: str) -> str:
    """A commit user stable across restarts of the same watch (same table, folder and pattern)."""
    key = f"paimon-cli:watch:{table.identifier}:{os.path.abspath(directory)}:{pattern}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, key))


@dataclass(frozen=True)
class CommitResult:
    snapshot: Snapshot | None  # None: nothing to commit, or committed before (skipped)
    identifier: int
    rows: int


class StreamingCommitter:
    """Commits of one stable ``commit_user`` with increasing identifiers, each exactly once."""

    def __init__(self, table: TableContext, commit_user: str):
        self.table = table
        self.commit_user = commit_user
        self.last = latest_commit_of(table, commit_user)
        self.next_identifier = self.last.commit_identifier + 1 if self.last is not None else 1

    def write(
        self, tables: list[pa.Table], properties: dict | None = None, row_kind_column: str | None = None
    ) -> CommitResult:
        """Write and commit ``tables`` as the next identifier. A cross-partition upsert table's
        write is redone on the new snapshot when another writer added data after it read the
        key index (nothing of it was committed), a few times."""
        from paimon_core.ops.ingest import REWRITES
        from paimon_core.write.cross_partition_guard import CrossPartitionConflict

        for attempt in range(REWRITES + 1):
            try:
                return self._write_once(tables, properties, row_kind_column)
            except CrossPartitionConflict:
                if attempt == REWRITES:
                    raise
        raise AssertionError("unreachable")

    def _write_once(self, tables: list[pa.Table], properties: dict | None, row_kind_column: str | None):
        from paimon_core.ops.after_write import after_write
        from paimon_core.write.cross_partition_guard import index_base

        ident = self.next_identifier
        base = index_base(self.table)  # before the writer reads the key index
        messages = write_tables(self.table, tables, row_kind_column)
        rows = sum(f.row_count for m in messages for f in m.new_files)
        opts = CommitOptions(
            commit_user=self.commit_user,
            commit_identifier=ident,
            properties=properties,
            index_base=base,
        )
        snap = FileStoreCommit(self.table, opts).commit(messages)  # commit-or-abort: None left no files
        if snap is not None:
            self.last = snap
            self.next_identifier = ident + 1
        after_write(self.table, messages if snap is not None else [])
        return CommitResult(snap, ident, rows if snap is not None else 0)


# ---------------------------------------------------------------- watch a folder
def _ready_files(
    directory: str, pattern: str, after: str | None, seen: dict, settle_s: float, after_ms: int = 0
):
    """(ready names > ``after`` in name order, late names: <= ``after`` but modified after
    ``after_ms``, the commit of ``after``). A file is ready once its size and mtime did not change
    between two looks, or it is older than ``settle_s``."""
    now = time.time()
    ready, late = [], []
    try:
        names = sorted(os.listdir(directory))
    except FileNotFoundError:
        raise InvalidInput(f"folder not found: {directory}") from None
    for name in names:
        if name.startswith((".", "_")) or not fnmatch.fnmatch(name, pattern):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        if not os.path.isfile(path):
            continue
        if after is not None and name <= after:
            if st.st_mtime * 1000 > after_ms:
                late.append(name)
            continue
        sig = (st.st_size, st.st_mtime_ns)
        stable = seen.get(name) == sig or now - st.st_mtime >= settle_s
        seen[name] = sig
        if stable:
            ready.append(name)
        else:
            break  # keep name order: later files wait for this one
    return ready, late


def _read_state(path: str) -> tuple[str | None, int]:
    try:
        with open(path, encoding="utf-8") as f:
            ident, _, name = f.read().partition(" ")
        return (name or None), int(ident)
    except (FileNotFoundError, ValueError):
        return None, 0


def _write_state(path: str, last: str, identifier: int) -> None:
    """Best-effort copy of the progress next to the files, used only when no snapshot of the
    commit user is retained any more (expired by many later commits of other writers)."""
    tmp = f"{path}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"{identifier} {last}")
        os.replace(tmp, path)
    except OSError:
        pass


def watch_dir(
    table: TableContext,
    directory: str,
    pattern: str = "*.parquet",
    commit_interval_s: float | None = None,
    poll_s: float = 1.0,
    commit_user: str | None = None,
    settle_s: float = 2.0,
    stop: Callable[[], bool] | None = None,
    on_commit=None,
    on_skip=None,
    row_kind_column: str | None = None,
    input_format: str | None = None,
) -> StreamingCommitter:
    """Ingest the files of ``directory`` matching ``pattern`` as they appear, in name order, each
    exactly once (see the module doc). One commit per file, or with ``commit_interval_s`` one
    commit of all files ready when the interval is up. Runs until ``stop()`` is true.
    ``input_format``: a change-event format the (JSON) files are read in."""
    from paimon_core.write.input_files import as_change_events, input_file, read_batches

    committer = StreamingCommitter(table, commit_user or watch_commit_user(table, directory, pattern))
    state_path = os.path.join(directory, f".paimon-watch-{committer.commit_user}")
    if committer.last is not None:
        last = (committer.last.properties or {}).get(LAST_FILE)
    else:  # none of our snapshots is retained any more (or we never committed): the side file
        last, ident = _read_state(state_path)
        committer.next_identifier = max(committer.next_identifier, ident + 1)
    seen: dict = {}
    reported: set = set()
    last_commit = time.monotonic()
    while stop is None or not stop():
        after_ms = committer.last.time_millis if committer.last is not None else 0
        ready, late = _ready_files(directory, pattern, last, seen, settle_s, after_ms)
        for name in late:
            if name not in reported and on_skip is not None:
                on_skip(name, last)
            reported.add(name)
        if ready and commit_interval_s is not None and time.monotonic() - last_commit < commit_interval_s:
            ready = []
        groups = [ready] if commit_interval_s is not None and ready else [[n] for n in ready]
        for group in groups:
            tables = []
            for name in group:
                f = input_file(os.path.join(directory, name))
                if input_format is not None:
                    f = as_change_events([f], input_format, row_kind_column)[0]
                tables.extend(read_batches(f, table.schema))
            kinds = ROW_KIND if input_format is not None else row_kind_column
            result = committer.write(tables, {LAST_FILE: group[-1]}, kinds)
            last = group[-1]
            _write_state(state_path, last, result.identifier)
            last_commit = time.monotonic()
            if on_commit is not None:
                on_commit(result, group)
            if stop is not None and stop():
                return committer
        if not ready:
            time.sleep(poll_s)
    return committer


# ---------------------------------------------------------------- stdin
def _reader_thread(stream, q: queue.Queue, chunk: int = 1 << 20) -> threading.Thread:
    """A daemon thread putting ``stream``'s bytes on ``q``, then None (or the exception raised).

    A stream with a file descriptor is read with ``os.read`` on the descriptor: a thread blocked
    in a read of a buffered file object holds that object's lock, and an interpreter that exits
    (after an error, while the producer is still writing) then aborts with "Fatal Python error"
    when it flushes ``sys.stdin`` at shutdown. ``os.read`` holds no Python-level lock."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        fd = None
    if fd is not None:

        def read(n: int) -> bytes:
            return os.read(fd, n)
    else:
        read = getattr(stream, "read1", stream.read)

    def run():
        try:
            while True:
                data = read(chunk)
                if not data:
                    break
                q.put(data)
        except BaseException as e:  # surfaced to the committing thread
            q.put(e)
        q.put(None)

    t = threading.Thread(target=run, name="paimon-stdin", daemon=True)
    t.start()
    return t


def _parse(
    data: bytes, fmt: str, schema: TableSchema, header: list[str] | None, first_line: int = 1
) -> pa.Table:
    if fmt == "json":
        return read_json(data, schema, "stdin", first_line, every_column=True)
    if fmt in CDC_FORMATS:
        return read_changes(data, fmt, schema, "stdin", first_line, every_column=True)
    import pyarrow.csv as pcsv

    read, parse, convert = csv_options(schema, header)
    return pcsv.read_csv(io.BytesIO(data), read_options=read, parse_options=parse, convert_options=convert)


_PARSE_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, UnicodeDecodeError)


def _first_bad_line(
    data: bytes, fmt: str, schema: TableSchema, header: list[str] | None
) -> tuple[int, bytes]:
    """(0-based index, text) of the first line of ``data`` that the lines before it parse without
    and with which they fail: a binary search over prefixes (the error path only)."""
    lines = data.splitlines(keepends=True)
    lo, hi = 0, len(lines)  # lines[:lo] parse, lines[:hi] fail
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            _parse(b"".join(lines[:mid]), fmt, schema, header)
            lo = mid
        except _PARSE_ERRORS:
            hi = mid
    return hi - 1, lines[hi - 1] if lines else b""


def parse_lines(
    data: bytes, fmt: str, schema: TableSchema, header: list[str] | None, first_line: int | None = None
) -> pa.Table:
    """Whole JSON lines or CSV records (without the header) -> an Arrow table with the table's
    types. ``first_line``: the 1-based line number of ``data``'s first line in the whole input;
    when given, an error names the first bad line and shows the record."""
    try:
        return _parse(data, fmt, schema, header, first_line or 1)
    except InputLineError as e:
        if first_line is None:
            raise InvalidInput(f"stdin: cannot read as {fmt.upper()}: {e.what}") from None
        line = data.splitlines()[e.line - first_line]
        raise InvalidInput(
            f"stdin line {e.line}: cannot read as {fmt.upper()}: {e.what}: {_shown(line)}"
        ) from None
    except _PARSE_ERRORS as e:
        why = str(e).splitlines()[0]
        if first_line is None:
            raise InvalidInput(f"stdin: cannot read as {fmt.upper()}: {why}") from None
        i, line = _first_bad_line(data, fmt, schema, header)
        try:
            _parse(line, fmt, schema, header)
        except _PARSE_ERRORS as e2:
            why = str(e2).splitlines()[0]
        why = not_utf8(line) or why
        record = _shown(line)
        shown = "" if why.endswith(record) else f": {record}"
        raise InvalidInput(
            f"stdin line {first_line + i}: cannot read as {fmt.upper()}: {why}{shown}"
        ) from None


# the first bytes of binary files people pipe by mistake
_MAGIC = {b"PAR1": "a Parquet file", b"ORC": "an ORC file", b"Obj\x01": "an Avro file"}


def _refuse_binary(data: bytes) -> None:
    """stdin takes text (JSON lines, CSV); a binary file on it is named, not parsed as text."""
    for magic, what in _MAGIC.items():
        if data.startswith(magic):
            raise InvalidInput(
                f"stdin holds {what}: `ingest -` reads JSON lines or CSV text; give the file's path instead "
                "(paimon ingest FILE -t TABLE)"
            )
    if b"\0" in data[:4096]:
        raise InvalidInput("stdin holds binary data: `ingest -` reads JSON lines or CSV text")


def _shown(line: bytes) -> str:
    record = line.decode("utf-8", "replace").strip()
    return record if len(record) <= 80 else record[:77] + "..."


def _record_line(data: bytes, row: int) -> tuple[int, bytes]:
    """(0-based line index, text) of the ``row``-th (from 0) non-blank line of ``data``."""
    lines = data.splitlines()
    seen = -1
    for i, line in enumerate(lines):
        if line.strip():
            seen += 1
            if seen == row:
                return i, line
    return max(len(lines) - 1, 0), lines[-1] if lines else b""


def _line_digest(line: bytes) -> str:
    return hashlib.sha1(line.rstrip(b"\r\n")).hexdigest()


class _Replay:
    """Drops what a restarted producer sends again. A run with the commit user of an earlier one
    skips its input up to and including the line that run committed last (known by its SHA-1 in
    the snapshot's properties); when that line has not come by the first commit (or the first
    million lines), none of the input was committed before and all of it is kept."""

    LIMIT = 1_000_000

    def __init__(self, digest: str | None):
        self.digest = digest
        self.held: list[bytes] = []

    @property
    def searching(self) -> bool:
        return self.digest is not None

    def feed(self, whole: bytes) -> tuple[bytes, int]:
        """(the lines of ``whole`` to take, the number of lines dropped as already committed)."""
        if self.digest is None:
            return whole, 0
        lines = whole.splitlines(keepends=True)
        for i, line in enumerate(lines):
            if _line_digest(line) == self.digest:
                dropped = len(self.held) + i + 1
                self.digest, self.held = None, []
                return b"".join(lines[i + 1 :]), dropped
        self.held.extend(lines)
        return b"", 0

    def give_up(self, due: bool) -> bytes:
        """When ``due`` (or too much is held): stop looking, and take every held line."""
        if self.digest is None or not (due or len(self.held) > self.LIMIT):
            return b""
        out = b"".join(self.held)
        self.digest, self.held = None, []
        return out


def ingest_stream(
    table: TableContext,
    stream,
    fmt: str = "auto",
    commit_interval_s: float = 5.0,
    commit_rows: int | None = None,
    commit_user: str | None = None,
    stop: Callable[[], bool] | None = None,
    on_commit=None,
    row_kind_column: str | None = None,
) -> StreamingCommitter:
    """Read JSON lines or CSV (with a header) from ``stream`` until EOF or ``stop()``, committing
    whole lines every ``commit_interval_s`` seconds, and every ``commit_rows`` lines exactly."""
    if fmt not in ("auto", "json", "csv", *CDC_FORMATS):
        raise InvalidInput(f"unknown input format '{fmt}' (json, csv or one of {', '.join(CDC_FORMATS)})")
    if fmt in CDC_FORMATS:
        if row_kind_column is not None:
            raise InvalidInput(f"a row kind column does not go with {fmt}: the events give each row's kind")
        row_kind_column = ROW_KIND
    committer = StreamingCommitter(table, commit_user or str(uuid.uuid4()))
    replay = _Replay((committer.last.properties or {}).get(LAST_LINE) if committer.last is not None else None)
    q: queue.Queue = queue.Queue(maxsize=64)
    _reader_thread(stream, q)
    pending: list[bytes] = []  # whole lines
    tail = b""  # an incomplete last line
    rows = 0
    header: list[str] | None = None
    done = 0  # lines of the input before ``pending`` (the CSV header included)
    deadline = time.monotonic() + commit_interval_s
    eof = False

    def flush():
        nonlocal pending, rows, deadline, done
        if pending:
            data = b"".join(pending)
            t = parse_lines(data, fmt, table.schema, header, done + 1)
            try:
                last_line = data.rstrip(b"\n").rsplit(b"\n", 1)[-1]
                result = committer.write([t], {LAST_LINE: _line_digest(last_line)}, row_kind_column)
            except InputRowError as e:  # a value the table refuses (null in a NOT NULL column, ...)
                i, line = _record_line(data, e.row)
                raise InvalidInput(f"stdin line {done + 1 + i}: {e.what}: {_shown(line)}") from None
            done += data.count(b"\n")
            if on_commit is not None:
                on_commit(result)
        pending, rows = [], 0
        deadline = time.monotonic() + commit_interval_s

    while not eof:
        if stop is not None and stop():
            break
        try:
            item = q.get(timeout=max(0.0, min(deadline - time.monotonic(), 0.5)))
        except queue.Empty:
            item = b""
        if isinstance(item, BaseException):
            raise item
        if item is None:
            eof = True
            if tail.strip():
                item, tail = tail + b"\n", b""
            else:
                item = b""
        if item:
            data = tail + item
            cut = data.rfind(b"\n") + 1
            whole, tail = data[:cut], data[cut:]
            if whole and header is None and not done:
                _refuse_binary(data)
            if whole:
                if fmt == "auto":
                    first = whole.lstrip()[:1]
                    fmt = "json" if first == b"{" else "csv"
                if fmt == "csv" and header is None:
                    line, _, whole = whole.partition(b"\n")
                    done += 1
                    header = [h.strip() for h in line.decode("utf-8").rstrip("\r").split(",")]
                whole, dropped = replay.feed(whole)
                done += dropped
                if whole:
                    pending.append(whole)
                    rows += whole.count(b"\n")
        held = replay.give_up(eof or time.monotonic() >= deadline)
        if held:
            pending.insert(0, held)
            rows += held.count(b"\n")
        while commit_rows is not None and rows >= commit_rows:  # exactly commit_rows lines per commit
            data = b"".join(pending)
            cut = int(np.flatnonzero(np.frombuffer(data, np.uint8) == 10)[commit_rows - 1]) + 1
            pending, rest = [data[:cut]], data[cut:]
            flush()
            pending, rows = ([rest], rest.count(b"\n")) if rest else ([], 0)
        if rows and time.monotonic() >= deadline:
            flush()
        elif not rows and time.monotonic() >= deadline:
            deadline = time.monotonic() + commit_interval_s
    held = replay.give_up(True)  # stopped while still looking: what was read is new
    if held:
        pending.insert(0, held)
    flush()
    return committer


__all__ = [
    "LAST_FILE",
    "LAST_LINE",
    "CommitResult",
    "StreamingCommitter",
    "ingest_stream",
    "parse_lines",
    "watch_commit_user",
    "watch_dir",
]
