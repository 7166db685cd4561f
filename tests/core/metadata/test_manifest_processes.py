"""Manifests decoded in worker processes (#26): the same entries in the same order as decoding
here, damage reported as here, and processes used only where they are safe."""

from __future__ import annotations

import gc
import threading

import pyarrow as pa
import pytest
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata import manifest_cache, manifest_processes
from paimon_core.metadata.live_files import data_manifests, merge_entries
from paimon_core.metadata.manifest import ADD, DELETE
from paimon_core.metadata.schema import Schema


@pytest.fixture
def table(catalog):
    """Eight commits of five partitions, then an overwrite of one partition (DELETE entries)."""
    manifest_cache.clear()
    cols = Schema.parse_columns("p INT, id BIGINT")
    opts = {"bucket": "-1", "write-only": "true", "manifest.merge-min-count": "1000"}
    t = catalog.create_table("db.t", Schema(cols, ("p",), (), opts))
    for c in range(8):
        t.write_arrow(pa.table({"p": pa.array(range(5), pa.int32()), "id": pa.array([c] * 5, pa.int64())}))
    t.write_arrow(pa.table({"p": pa.array([2], pa.int32()), "id": [99]}), overwrite=True, partition={"p": 2})
    return t


@pytest.fixture
def in_processes(monkeypatch):
    """Every multi-manifest local read decoded in two worker processes, one manifest per
    task; the list of reads that went to the workers."""
    monkeypatch.setattr(manifest_processes, "MIN_BYTES", 0)
    monkeypatch.setattr(manifest_processes, "CHUNK_BYTES", 1)
    monkeypatch.setattr(manifest_processes, "workers", lambda: 2)
    used = []
    real = manifest_processes._decoded

    def spy(io, paths, sizes, work):
        used.append(list(paths))
        return real(io, paths, sizes, work)

    monkeypatch.setattr(manifest_processes, "_decoded", spy)
    return used


def _names(table):
    return [m.file_name for m in data_manifests(table.manifests, table.snapshots.latest())]


def test_workers_decode_the_same_entries_in_list_order(table, in_processes):
    names = _names(table)
    assert len(names) >= 9
    manifest_cache.clear()
    here = [table.manifests.read_manifest(n) for n in names]  # one by one: decoded here
    assert not in_processes
    manifest_cache.clear()
    there = table.manifests.read_manifests(names)
    assert len(in_processes) == 1 and len(in_processes[0]) == len(names)
    assert there == here
    kinds = {e.kind for part in there for e in part}
    assert kinds == {ADD, DELETE}
    # complete decodes are cached: the next read decodes nothing
    assert table.manifests.read_manifests(names) == here and len(in_processes) == 1


def test_filtered_plans_in_workers_equal_plans_here(table, in_processes):
    expected = {}
    for where in [None, "p = 2", "p IN (0, 4)", "p > 2"]:
        predicate = None if where is None else table.parse_filter(where)
        manifest_processes.MIN_BYTES = 1 << 40  # here
        manifest_cache.clear()
        expected[where] = table.plan(table.snapshots.latest(), predicate)
        manifest_processes.MIN_BYTES = 0
        manifest_cache.clear()
        got = table.plan(table.snapshots.latest(), predicate)
        assert got == expected[where], where
    assert len(in_processes) == 4
    live = merge_entries(e for part in table.manifests.read_manifests(_names(table)) for e in part)
    assert sum(len(s.files) for s in expected[None]) == len(live) == 8 * 5 - 8 + 1


def test_a_damaged_manifest_is_reported_by_name(table, in_processes):
    names = _names(table)
    path = table.manifests.path(names[3])
    table.io.write_bytes(path, b"Obj\x01not an avro file at all")
    manifest_cache.clear()
    with pytest.raises(CorruptMetadata, match=names[3]):
        table.manifests.read_manifests(names)
    assert in_processes
    assert gc.isenabled()


def test_processes_only_while_no_other_thread_runs(table, monkeypatch):
    monkeypatch.setattr(manifest_processes, "workers", lambda: 2)
    assert manifest_processes.usable()
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not manifest_processes.usable()
    finally:
        stop.set()
        other.join()
    monkeypatch.setattr(manifest_processes, "workers", lambda: 1)
    assert not manifest_processes.usable()


def test_planning_leaves_the_collector_as_it_found_it(table):
    assert gc.isenabled()
    table.plan(table.snapshots.latest())
    assert gc.isenabled()
    gc.disable()
    try:
        table.plan(table.snapshots.latest())
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_worker_that_dies_leaves_its_manifests_to_this_process(table, in_processes):
    """A killed worker (out of memory, a signal) does not hang the read: what it had not sent
    back comes back as None, and the caller decodes those manifests here."""
    import os

    names = _names(table)
    paths = [table.manifests.path(n) for n in names]
    doomed = table.io.read_bytes(paths[4])

    def work(data: bytes):
        if data == doomed:
            os._exit(3)
        return [len(data)]

    got = list(manifest_processes.decode(table.io, paths, work))
    assert [p for p, _ in got] == paths
    assert got[4][1] is None  # and maybe others the pool had in flight when it broke
    assert all(rows is None or rows == [len(table.io.read_bytes(p))] for p, rows in got)
    manifest_cache.clear()
    assert table.manifests.read_manifests(names) == [table.manifests.read_manifest(n) for n in names]


def test_a_plan_pinning_partitions_forks_only_for_many_more_bytes(table, in_processes, monkeypatch):
    """Block skipping decodes little of each manifest: forking pays off at ``SKIMMING`` times
    the bytes of a full decode."""
    import os

    total = sum(os.path.getsize(table.manifests.path(n)) for n in _names(table))
    monkeypatch.setattr(manifest_processes, "MIN_BYTES", total // 2)
    manifest_cache.clear()
    assert table.plan(table.snapshots.latest(), table.parse_filter("p = 2"))
    assert not in_processes
    assert table.plan(table.snapshots.latest(), table.parse_filter("p > 2"))  # no pinned partition
    assert len(in_processes) == 1
    monkeypatch.setattr(manifest_processes, "MIN_BYTES", total // (2 * manifest_processes.SKIMMING))
    assert table.plan(table.snapshots.latest(), table.parse_filter("p = 2"))
    assert len(in_processes) == 2


def test_busy_cpus_mean_decoding_here(monkeypatch):
    """Workers only for CPUs the load average leaves idle (it counts this process)."""
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 8.0, 8.0))
    assert manifest_processes.workers() == 1 and not manifest_processes.usable()
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 3.0, 3.0))
    assert manifest_processes.workers() == 2
