"""Decoding many local manifests in worker processes: Avro decoding is CPU work that holds the
GIL, so threads cannot share it out; forked processes can (planning a table of a million
files decodes a million records).

Each worker reads whole manifests and runs the caller's ``work`` on each file's bytes
(``manifest_reader``: decode, apply the entry filter, turn records into rows, tuples of plain
values that pickle and load faster than the decoded records); this process builds the
entries from what comes back.
Results come back in the order of the input, whatever order the workers finish in, so the
ADD/DELETE folding that follows sees the manifests in list order.

When it is used: on local files, on a machine with more than one idle CPU, where ``fork`` exists
and this process runs no other Python thread (a forked child of a threaded process may
inherit a lock held by another thread; the child runs only file reads and the Avro decoder),
and when the manifests to decode hold at least ``MIN_BYTES``. Otherwise ``decode`` yields
nothing and the caller decodes here. A manifest a worker cannot read or decode (missing,
damaged, or ``work`` returned None) comes back as None: the caller reads it again here and
reports what is wrong; so do the manifests left when a worker dies.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from paimon_core.storage.file_io import FileIO

    Work = Callable[[bytes], "list | None"]

# compressed manifest bytes below which forking costs more than it saves (1 MB: about 25,000
# entries of an append table, a quarter of a second to decode); work that skips most blocks
# undecoded (a filter pinning partitions) needs SKIMMING times as many
MIN_BYTES = 1 << 20
SKIMMING = 16
# compressed bytes one task decodes: small enough that rows stream back while others decode
CHUNK_BYTES = 256 << 10
MAX_WORKERS = 8

_job: tuple | None = None  # (io, work), set in each worker by _start


def workers() -> int:
    """Processes to decode with: the CPUs this process may run on that are idle, counting
    its own (1: decode here). On a machine whose CPUs are busy, forked workers only add the
    cost of sending rows back (measured: +45% CPU and a slower plan at a load of 8 on 2 CPUs)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    try:
        idle = int(cpus - os.getloadavg()[0] + 1)  # the load counts this process
    except OSError:
        idle = cpus
    return max(1, min(cpus, idle, MAX_WORKERS))


def usable() -> bool:
    return (
        workers() > 1
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and not multiprocessing.current_process().daemon  # a pool worker has no children
    )


def decode(
    io: FileIO, paths: list[str], work: Work, skims: bool = False
) -> Iterator[tuple[str, list | None]]:
    """(path, ``work(its bytes)`` or None) for each of ``paths`` in order, run in worker
    processes; nothing when the files are too few bytes for the work (``skims``: it skips
    most of each file) or processes are not usable."""
    if not io.is_local or len(paths) < 2 or not usable():
        return iter(())
    sizes = [_size(p) for p in paths]
    if sum(sizes) < MIN_BYTES * (SKIMMING if skims else 1):
        return iter(())
    return _decoded(io, paths, sizes, work)


def _decoded(io: FileIO, paths: list[str], sizes: list[int], work: Work) -> Iterator[tuple[str, list | None]]:
    chunks = _chunks(paths, sizes)
    ctx = multiprocessing.get_context("fork")  # the worker inherits ``work`` (a closure) by fork
    pool = ProcessPoolExecutor(
        min(workers(), len(chunks)), mp_context=ctx, initializer=_start, initargs=(io, work)
    )
    done = 0
    try:
        for chunk, results in zip(chunks, pool.map(_decode_chunk, chunks)):
            yield from zip(chunk, results)
            done += 1
    except BrokenProcessPool:  # a worker died (killed, out of memory): the rest are decoded here
        for chunk in chunks[done:]:
            yield from ((p, None) for p in chunk)
    finally:
        pool.shutdown(cancel_futures=True)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _chunks(paths: list[str], sizes: list[int]) -> list[list[str]]:
    """``paths`` cut, in order, into runs of about ``CHUNK_BYTES``."""
    out: list[list[str]] = [[]]
    held = 0
    for p, n in zip(paths, sizes):
        if out[-1] and held + n > CHUNK_BYTES:
            out.append([])
            held = 0
        out[-1].append(p)
        held += n
    return out


def _start(io: FileIO, work: Work) -> None:
    global _job
    _job = (io, work)
    gc.disable()  # a short-lived worker that allocates only acyclic rows


def _decode_chunk(paths: list[str]) -> list[list | None]:
    assert _job is not None
    io, work = _job
    out: list[list | None] = []
    for p in paths:
        try:
            out.append(work(io.read_bytes(p)))
        except Exception:  # any failure: the parent reads the file again and reports it
            out.append(None)
    return out
