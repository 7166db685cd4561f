"""The disk cache of decoded manifests (#43 item 3): a later process plans from it without
reading a manifest file, and what it gives back is exactly the decode (every field, same types);
bounded with the least recently used dropped first, shared safely by processes, switched off by
``PAIMON_MANIFEST_CACHE=off``; a damaged cache file is a miss."""

from __future__ import annotations

import multiprocessing
import os
from datetime import datetime, timezone

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata import manifest_cache, manifest_disk_cache
from paimon_core.metadata.live_files import data_manifests
from paimon_core.metadata.manifest import ENTRY_COLUMNS, DataFileMeta, ManifestEntry, SimpleStats
from paimon_core.metadata.schema import Schema

COLUMNS = ENTRY_COLUMNS


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    where = tmp_path / "cache"
    monkeypatch.setenv("PAIMON_MANIFEST_CACHE", str(where))
    monkeypatch.setattr(manifest_disk_cache, "MIN_LOCAL_ENTRIES", 0)  # these tables' manifests are small
    manifest_cache.clear()
    return where


def _pk_table(catalog, name: str = "db.pk"):
    cols = Schema.parse_columns("p INT, id BIGINT NOT NULL, v STRING, d DOUBLE")
    t = catalog.create_table(name, Schema(cols, ("p",), ("p", "id"), {"bucket": "2"}))
    for c in range(3):
        t.write_arrow(
            pa.table(
                {
                    "p": pa.array([0, 1, 2, 0], pa.int32()),
                    "id": pa.array([c, c + 1, c + 2, c + 10], pa.int64()),
                    "v": ["a", None, f"v{c}", "x" * c],
                    "d": [1.5, None, float(c), -0.0],
                }
            )
        )
    return t


def _manifest_reads(monkeypatch, table) -> list[str]:
    reads: list[str] = []
    real = type(table.io).read_bytes

    def counting(io, path):
        reads.append(path)
        return real(io, path)

    monkeypatch.setattr(type(table.io), "read_bytes", counting)
    return reads


def _entries_exactly_equal(a: list, b: list) -> None:
    assert a == b
    for x, y in zip(a, b):
        for fx, fy in zip(x.file, y.file):
            assert type(fx) is type(fy), (fx, fy)
            if isinstance(fx, datetime):
                assert fx.tzinfo is fy.tzinfo


def test_a_new_process_plans_from_disk_and_gets_the_same_entries(cache_dir, catalog, monkeypatch):
    t = _pk_table(catalog)
    compact(t, full=True)  # levels above 0, deletes folded
    snap = t.snapshots.latest()
    decoded = t.new_scan(snap).entries()  # decoded from the files; now on disk
    plan = t.plan(snap)
    assert manifest_disk_cache.usage()[0] >= 1
    manifest_cache.clear()  # as a new process: nothing in memory
    t = catalog.get_table("db.pk")
    reads = _manifest_reads(monkeypatch, t)
    again = t.new_scan(snap).entries()
    _entries_exactly_equal(again, decoded)
    manifest_cache.clear()
    assert [s.files for s in t.plan(snap)] == [s.files for s in plan]
    one = t.plan(snap, t.parse_filter("p = 1"))
    assert {s.partition for s in one} == {(1,)}
    assert not [p for p in reads if "/manifest/manifest-" in p and "list" not in p]


def test_small_local_manifests_are_not_kept(tmp_path, catalog, monkeypatch):
    """A local manifest below MIN_LOCAL_ENTRIES decodes faster than its cache file would load."""
    monkeypatch.setenv("PAIMON_MANIFEST_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(
        manifest_disk_cache, "MIN_LOCAL_ENTRIES", 200
    )  # the default (--manifest-cache=disk: 0)
    t = _pk_table(catalog)
    t.plan(t.snapshots.latest())
    assert manifest_disk_cache.usage() == (0, 0)
    monkeypatch.setattr(manifest_disk_cache, "MIN_LOCAL_ENTRIES", 3)
    manifest_cache.clear()
    t.plan(t.snapshots.latest())
    sizes = [
        m.num_added_files + m.num_deleted_files for m in data_manifests(t.manifests, t.snapshots.latest())
    ]
    assert manifest_disk_cache.usage()[0] == sum(1 for n in sizes if n >= 3) > 0


def test_off_means_no_cache_file(tmp_path, catalog, monkeypatch):
    monkeypatch.setenv("PAIMON_MANIFEST_CACHE", "off")
    manifest_cache.clear()
    t = _pk_table(catalog)
    t.plan(t.snapshots.latest())
    assert manifest_disk_cache.folder() is None and manifest_disk_cache.usage() == (0, 0)
    monkeypatch.setenv("PAIMON_MANIFEST_CACHE", str(tmp_path / "c"))
    assert manifest_disk_cache.usage() == (0, 0)


def test_a_damaged_cache_file_is_a_miss_and_goes(cache_dir, catalog):
    t = _pk_table(catalog)
    snap = t.snapshots.latest()
    want = t.new_scan(snap).entries()
    files = [os.path.join(d, n) for d, _, ns in os.walk(cache_dir) for n in ns if n.endswith(".arrow")]
    assert files
    for f in files:
        with open(f, "r+b") as fh:
            fh.truncate(os.path.getsize(f) // 2)
    manifest_cache.clear()
    assert t.new_scan(snap).entries() == want
    # each damaged file was removed and written again whole
    manifest_cache.clear()
    assert t.new_scan(snap).entries() == want


def test_a_manifest_changed_on_disk_is_decoded_again(cache_dir, catalog):
    """Manifests never change, but a damaged one must not be hidden by its cached decode: a
    local file's key holds its size and modification time."""
    t = _pk_table(catalog)
    snap = t.snapshots.latest()
    t.plan(snap)
    meta = data_manifests(t.manifests, snap)[-1]
    path = t.manifests.path(meta.file_name)
    with open(path, "r+b") as fh:
        fh.seek(40)
        fh.write(b"\xff" * 16)
    os.utime(path, ns=(1, 1))
    manifest_cache.clear()
    with pytest.raises(CorruptMetadata, match=meta.file_name):
        t.new_scan(snap).entries()


def test_bounded_least_recently_used_first(cache_dir, catalog, monkeypatch):
    tables = [_pk_table(catalog, f"db.t{i}") for i in range(3)]
    for t in tables:
        t.plan(t.snapshots.latest())
    files, total = manifest_disk_cache.usage()
    assert files >= 3
    # the first table's decodes used most recently, then a bound below the total
    manifest_cache.clear()
    tables[0].plan(tables[0].snapshots.latest())
    manifest_disk_cache.evict(str(cache_dir), total // 2)
    left, size = manifest_disk_cache.usage()
    assert size <= total // 2 * 9 // 10 + 1 and left < files
    reads = _manifest_reads(monkeypatch, tables[0])
    manifest_cache.clear()
    tables[0].plan(tables[0].snapshots.latest())
    assert not [p for p in reads if "/manifest/manifest-" in p and "list" not in p]


def _plan_in_child(warehouse: str, cache: str, out) -> None:
    os.environ["PAIMON_MANIFEST_CACHE"] = cache
    t = FileSystemCatalog(warehouse).get_table("db.pk")
    for _ in range(5):
        manifest_cache.clear()
        out.put([s.files for s in t.plan(t.snapshots.latest())])


def test_processes_share_the_folder(cache_dir, catalog, tmp_path):
    t = _pk_table(catalog)
    want = [s.files for s in t.plan(t.snapshots.latest())]
    manifest_disk_cache.clear()
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_plan_in_child, args=(catalog.warehouse, str(cache_dir), out)) for _ in range(3)
    ]
    for p in procs:
        p.start()
    got = [out.get(timeout=120) for _ in range(15)]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert all(g == want for g in got)
    assert not [n for _, _, ns in os.walk(cache_dir) for n in ns if n.startswith(".tmp-")]


# ---- the columns codec, value by value
_opt_int = st.none() | st.integers(-(2**63), 2**63 - 1)
_bytes = st.binary(max_size=24)
_names = st.tuples() | st.lists(st.text(max_size=6), max_size=3).map(tuple)
_stats = st.builds(
    SimpleStats, _bytes, _bytes, st.none() | st.lists(st.integers(0, 99), max_size=3).map(tuple)
)
_times = st.none() | st.integers(0, 4_000_000_000_000).map(
    lambda ms: datetime.fromtimestamp(ms // 1000, timezone.utc).replace(microsecond=ms % 1000 * 1000)
)
_files = st.builds(
    DataFileMeta,
    file_name=st.text(min_size=1, max_size=12),
    file_size=st.integers(0, 2**40),
    row_count=st.integers(0, 2**40),
    min_key=_bytes,
    max_key=_bytes,
    key_stats=_stats,
    value_stats=_stats,
    min_sequence_number=st.integers(-1, 2**62),
    max_sequence_number=st.integers(-1, 2**62),
    schema_id=st.integers(0, 9),
    level=st.integers(0, 5),
    extra_files=_names,
    creation_time=_times,
    delete_row_count=_opt_int,
    embedded_index=st.none() | _bytes,
    file_source=st.none() | st.integers(0, 1),
    value_stats_cols=st.none() | _names,
    external_path=st.none() | st.text(max_size=10),
    first_row_id=_opt_int,
    write_cols=st.none() | _names,
)
_entries = st.builds(ManifestEntry, st.integers(0, 1), _bytes, st.integers(-2, 9), st.integers(-1, 9), _files)


@settings(max_examples=60)
@given(st.lists(_entries, min_size=1, max_size=12), st.integers(1, 4))
def test_columns_give_back_every_field_exactly(entries, repeat):
    entries = entries * repeat  # repeated values take the dictionary-coded columns
    table = COLUMNS.table_of(entries)
    assert table is not None
    _entries_exactly_equal(COLUMNS.entries(table), entries)
    for wanted in ({e.partition for e in entries[::2]}, set()):  # some partitions, none
        assert COLUMNS.select(table, wanted.__contains__) == [e for e in entries if e.partition in wanted]


def test_values_of_another_type_are_not_kept():
    e = ManifestEntry(0, b"", 0, 1, DataFileMeta("f", 1, 1, creation_time=datetime(2026, 1, 1)))  # naive
    assert COLUMNS.table_of([e]) is None
    e = ManifestEntry(0, b"", 0, 1, DataFileMeta("f", 1, 1, creation_time=1_700_000_000_000))  # an int
    assert COLUMNS.table_of([e]) is None
