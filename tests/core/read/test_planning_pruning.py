"""Planning with pruning plans exactly the files an unpruned plan keeps after filtering (#26).

The table has manifests of many Avro blocks (one commit writes a file to each of 120
partitions), DELETE entries (a partition overwritten, a compaction) and partitions of an
INT and a STRING key (short and long strings, a NULL). The reference plan decodes every entry
of every manifest, folds ADD/DELETE, then keeps a file when its partition and its value
statistics may match: the pruned plan (manifest statistics, decode-time filters, block
skipping on pinned partitions, the process cache) must give the same (partition, bucket,
file) set for every predicate hypothesis draws, and the same rows.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.metadata import manifest_cache
from paimon_core.metadata.live_files import merge_entries
from paimon_core.metadata.manifest import DataFileMeta, ManifestEntry, SimpleStats, read_avro
from paimon_core.metadata.schema import Schema
from paimon_core.read.partition_filter import needles, partition_may_match
from paimon_core.read.predicate import filter_table
from paimon_core.read.scan import TableScan

B_VALUES = ["x", "yy", "a-string-longer-than-seven-bytes", None]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    wh = tmp_path_factory.mktemp("prune")
    cols = Schema.parse_columns("a INT, b STRING, id BIGINT, v BIGINT")
    t = FileSystemCatalog(str(wh)).create_table(
        "db.t", Schema(cols, ("a", "b"), (), {"bucket": "-1", "write-only": "true"})
    )
    for c in range(3):  # 120 partitions per commit: manifests of several Avro blocks
        n = 120
        t.write_arrow(
            pa.table(
                {
                    "a": pa.array([i % 30 for i in range(n)], pa.int32()),
                    "b": [B_VALUES[(i // 30) % 4] for i in range(n)],
                    "id": pa.array([c * 1000 + i for i in range(n)], pa.int64()),
                    "v": pa.array([c * 10 + i % 7 for i in range(n)], pa.int64()),
                }
            )
        )
    # DELETE entries: a partition overwritten, then a compaction of another
    t.write_arrow(
        pa.table({"a": pa.array([3], pa.int32()), "b": ["x"], "id": [9999], "v": [5]}),
        overwrite=True,
        partition={"a": 3, "b": "x"},
    )
    compact(t, full=True, partition={"a": 4, "b": "yy"})
    return t


def _reference(t, predicate) -> set:
    """Files of an unpruned plan that partition and value statistics keep."""
    snap = t.snapshots.latest()
    store = t.manifests
    metas = store.read_list(snap.base_manifest_list) + store.read_list(snap.delta_manifest_list)
    entries = [ManifestEntry.from_avro(r) for m in metas for r in read_avro(t.io, store.path(m.file_name))]
    keep_file = TableScan(t, snap, predicate)._value_filter()
    out = set()
    for e in merge_entries(entries):
        part = t.partition_codec.from_bytes(e.partition)
        if predicate is not None and not partition_may_match(predicate, t.partition_codec, part):
            continue
        if keep_file is not None and not keep_file(e.file):
            continue
        out.add((e.partition, e.bucket, e.file.file_name))
    return out


def _planned(t, predicate) -> set:
    return {
        (s.partition_bytes, s.bucket, f.file_name)
        for s in t.plan(t.snapshots.latest(), predicate)
        for f in s.files
    }


def _leaf():
    ints = st.integers(-2, 32)
    strs = st.sampled_from(["'x'", "'yy'", "'a-string-longer-than-seven-bytes'", "'zz'"])
    return st.one_of(
        st.builds(lambda v: f"a = {v}", ints),
        st.builds(lambda o, v: f"a {o} {v}", st.sampled_from(["<", "<=", ">", ">=", "!="]), ints),
        st.builds(lambda vs: f"a IN ({', '.join(map(str, vs))})", st.lists(ints, min_size=1, max_size=4)),
        st.builds(lambda v: f"b = {v}", strs),
        st.builds(lambda vs: f"b IN ({', '.join(vs)})", st.lists(strs, min_size=1, max_size=3)),
        st.sampled_from(["b IS NULL", "b IS NOT NULL", "a IS NULL"]),
        st.builds(lambda v: f"v > {v}", st.integers(0, 30)),
        st.builds(lambda v: f"id = {v}", st.integers(0, 2200)),
    )


_where = st.recursive(
    _leaf(),
    lambda inner: st.one_of(
        st.builds(lambda x, y: f"({x}) AND ({y})", inner, inner),
        st.builds(lambda x, y: f"({x}) OR ({y})", inner, inner),
        st.builds(lambda x: f"NOT ({x})", inner),
    ),
    max_leaves=4,
)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=_where, cached=st.booleans())
def test_pruned_plan_equals_filtered_unpruned_plan(table, where, cached):
    predicate = table.parse_filter(where)
    if not cached:
        manifest_cache.clear()
    assert _planned(table, predicate) == _reference(table, predicate), where


def test_pinned_partitions_skip_blocks_and_keep_every_match(table):
    """A pinned partition (a needle) plans the same files with the cache cold and warm, for
    short, long and absent strings and an empty intersection."""
    for where in [
        "a = 7 AND b = 'x'",
        "a IN (1, 29) AND b = 'a-string-longer-than-seven-bytes'",
        "(a = 2 OR a = 3) AND b = 'x'",
        "a = 1 AND a = 2 AND b = 'x'",
        "a = 4 AND b = 'yy'",
        "a = 40 AND b = 'x'",
    ]:
        predicate = table.parse_filter(where)
        assert needles(predicate, table.partition_codec) is not None, where
        manifest_cache.clear()
        cold = _planned(table, predicate)
        assert cold == _reference(table, predicate), where
        table.plan(table.snapshots.latest())  # warms the cache with complete decodes
        assert _planned(table, predicate) == cold, where


def test_needles_only_for_pinned_canonical_keys(table):
    codec = table.partition_codec
    assert needles(table.parse_filter("a = 1"), codec) is None  # b not pinned
    assert needles(table.parse_filter("a = 1 OR b = 'x'"), codec) is None
    assert needles(table.parse_filter("NOT (a = 1 AND b = 'x')"), codec) is None
    assert len(needles(table.parse_filter("a IN (1, 2) AND b IN ('x', 'yy')"), codec) or ()) == 4
    assert needles(table.parse_filter("a = 1 AND a = 2 AND b = 'x'"), codec) == ()


def test_rows_of_pruned_plan_equal_filtered_full_read(table):
    full = table.read()
    for where in ["a = 3 AND b = 'x'", "a > 25 OR b IS NULL", "v > 20 AND a IN (4, 5)"]:
        got = table.read(where=where).sort_by("id")
        assert got.equals(filter_table(full, table.parse_filter(where)).sort_by("id")), where


def test_decoded_entries_equal_init_built(table):
    """Entries built from a decoded row have every field of their type and equal (and hash
    as) those the constructors build from the same values."""
    snap = table.snapshots.latest()
    store = table.manifests
    meta = store.read_list(snap.base_manifest_list)[0]
    for r in read_avro(table.io, store.path(meta.file_name)):
        fast = ManifestEntry.from_avro(r)
        f = fast.file
        assert (
            type(f) is DataFileMeta
            and type(f.key_stats) is SimpleStats
            and len(f) == len(DataFileMeta._fields)
        )
        slow = ManifestEntry(
            fast.kind,
            fast.partition,
            fast.bucket,
            fast.total_buckets,
            DataFileMeta(
                **{
                    **f._asdict(),
                    "key_stats": SimpleStats(*f.key_stats),
                    "value_stats": SimpleStats(*f.value_stats),
                }
            ),
        )
        assert fast == slow and hash(fast) == hash(slow)
