"""Reading many manifests: a damaged one is reported by name, and planning leaves the garbage
collector as it found it (``gc_paused``)."""

from __future__ import annotations

import gc

import pyarrow as pa
import pytest

from paimon_core.errors import CorruptMetadata
from paimon_core.metadata import manifest_cache
from paimon_core.metadata.live_files import data_manifests
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


def test_a_damaged_manifest_is_reported_by_name(table):
    names = [m.file_name for m in data_manifests(table.manifests, table.snapshots.latest())]
    assert len(names) >= 9
    path = table.manifests.path(names[3])
    table.io.write_bytes(path, b"Obj\x01not an avro file at all")
    manifest_cache.clear()
    with pytest.raises(CorruptMetadata, match=names[3]):
        table.manifests.read_manifests(names)
    assert gc.isenabled()


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
