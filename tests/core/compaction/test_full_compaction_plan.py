"""Full compaction of a bucket that is one sorted run on the top level: nothing is merged (as Java
Paimon's full compaction picks nothing there); only the run's files holding deleted rows
(deletion vectors) are rewritten, and the run's other files stay as they are."""

import pyarrow as pa
import pytest

from paimon_core.compaction.compaction import compact
from paimon_core.metadata.schema import Schema

N = 2000


def _table(catalog, **options):
    # a tiny target file size: a full compaction leaves the top level in many files
    return catalog.create_table(
        "db.t",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"),
            (),
            ("k",),
            {"bucket": "1", "target-file-size": "1kb", **options},
        ),
    )


def _fill(t):
    t.write_arrow(
        pa.table({"k": pa.array(range(N), pa.int32()), "v": [f"value {i:06d} " * 4 for i in range(N)]})
    )
    compact(t, full=True)


def _split(t):
    (split,) = t.plan(t.snapshots.latest(), all_levels=True)
    return split


def test_a_top_level_run_of_many_files_is_not_rewritten(catalog):
    t = _table(catalog)
    _fill(t)
    before = _split(t)
    assert len(before.files) > 10 and {f.level for f in before.files} == {5}  # the case under test
    latest = t.snapshots.latest_id()
    assert compact(t, full=True).snapshot is None
    assert t.snapshots.latest_id() == latest
    t.write_arrow(pa.table({"k": pa.array([3], pa.int32()), "v": ["new"]}))
    assert compact(t, full=True).snapshot is not None  # a level-0 run: merged into the top level
    assert {f.level for f in _split(t).files} == {5}
    rows = {r["k"]: r["v"] for r in t.read().to_pylist()}
    assert len(rows) == N and rows[3] == "new" and rows[4] == f"value {4:06d} " * 4


def _key_ranges(t, split):
    """(min key, max key, file name) of each file, decoded, in key order."""
    from paimon_core.data.binary_row import deserialize_row

    types = t.schema.types_of(["k"])
    return sorted(
        (deserialize_row(f.min_key, types), deserialize_row(f.max_key, types), f.file_name)
        for f in split.files
    )


def _assert_one_disjoint_run(t, split):
    ranges = _key_ranges(t, split)
    for (_, hi, a), (lo, _, b) in zip(ranges, ranges[1:]):
        assert hi < lo, f"top-level files {a} and {b} overlap: Java refuses such a bucket"


@pytest.mark.parametrize("deleted", [(7, 1500), (44, 1936), (980, 1040)], ids=["far", "ends", "near"])
def test_files_with_deletion_vectors_are_rewritten_and_the_run_stays_disjoint(catalog, deleted):
    """Deletes in two files of the top run: the span between them (in key order) is rewritten;
    the files outside it stay, and the top level is still one run of disjoint files."""
    t = _table(catalog, **{"deletion-vectors.enabled": "true"})
    _fill(t)
    kinds = pa.array(["-D", "-D"])
    t.write_arrow(
        pa.table({"k": pa.array(deleted, pa.int32()), "v": ["x", "x"], "kind": kinds}), row_kind_column="kind"
    )
    before = _split(t)
    assert {f.level for f in before.files} == {5} and len(before.deletion_files) == 2  # the case under test
    marked = {name for name, _ in before.deletion_files}
    ranges = _key_ranges(t, before)
    first, last = (i for i, (_, _, name) in enumerate(ranges) if name in marked)
    outside = {name for i, (_, _, name) in enumerate(ranges) if i < first or i > last}
    res = compact(t, full=True)
    assert res.snapshot is not None
    after = _split(t)
    assert not after.deletion_files and {f.level for f in after.files} == {5}
    names = {f.file_name for f in after.files}
    assert outside <= names  # files outside the span stay as they are
    assert not marked & names  # the two marked files were rewritten
    _assert_one_disjoint_run(t, after)
    keys = sorted(r["k"] for r in t.read().to_pylist())
    assert keys == [k for k in range(N) if k not in deleted]
    assert compact(t, full=True).snapshot is None  # nothing left to purge
