"""The process-wide cache of decoded manifests (#26): bounded, complete decodes only, a file
replaced on local disk read again, and later plans served from memory."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.metadata import manifest_cache
from paimon_core.metadata.live_files import data_manifests
from paimon_core.metadata.manifest import ENTRY_SCHEMA, avro_bytes
from paimon_core.metadata.schema import Schema


@pytest.fixture(autouse=True)
def _process_cache_on(monkeypatch):
    """These tests are about the process-wide cache: on even under --manifest-cache=disk."""
    monkeypatch.setattr(manifest_cache, "MAX_ENTRIES", manifest_cache.DEFAULT_MAX_ENTRIES)


@pytest.fixture
def table(catalog):
    manifest_cache.clear()
    cols = Schema.parse_columns("p INT, id BIGINT")
    t = catalog.create_table("db.t", Schema(cols, ("p",), (), {"bucket": "-1"}))
    for c in range(3):
        t.write_arrow(pa.table({"p": pa.array([0, 1, 2], pa.int32()), "id": pa.array([c] * 3, pa.int64())}))
    return t


def test_later_plans_read_no_manifest_file(table, catalog, monkeypatch):
    """A later command's table object (as each CLI command or Spark query opens its own)
    plans from memory."""
    snap = table.snapshots.latest()
    first = table.plan(snap)
    table = catalog.get_table("db.t")
    reads = []
    real = type(table.io).read_bytes

    def counting(io, path):
        reads.append(path)
        return real(io, path)

    monkeypatch.setattr(type(table.io), "read_bytes", counting)
    again = table.plan(snap)
    one = table.plan(snap, table.parse_filter("p = 1"))
    assert [s.files for s in again] == [s.files for s in first]
    assert [s.partition for s in one] == [(1,)] and one[0].files == first[1].files
    assert not [p for p in reads if "/manifest/" in p]


def test_filtered_reads_are_not_cached_and_cache_is_bounded(table, monkeypatch):
    snap = table.snapshots.latest()
    manifest_cache.clear()
    table.plan(snap, table.parse_filter("p = 1"))
    assert manifest_cache.held() == 2 + 1  # the two lists' metas (2 + 1); no partial manifest
    manifest_cache.clear()
    monkeypatch.setattr(manifest_cache, "MAX_ENTRIES", 4)
    table.plan(snap)  # 3 manifests of 3 entries each, lists of 2 and 1 metas
    assert manifest_cache.held() <= 4


def test_a_file_replaced_on_disk_is_read_again(table):
    snap = table.snapshots.latest()
    table.plan(snap)
    meta = data_manifests(table.manifests, snap)[0]
    path = table.manifests.path(meta.file_name)
    entries = table.manifests.read_manifest(meta.file_name)
    table.io.write_bytes(path, avro_bytes(ENTRY_SCHEMA, [entries[0].to_avro()]))  # damage, in place
    assert len(table.manifests.read_manifest(meta.file_name)) == 1
