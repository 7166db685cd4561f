"""Full compaction of a bucket that is one sorted run on the top level: nothing is merged (as Java
Paimon's full compaction picks nothing there); only the run's files holding deleted rows
(deletion vectors) are rewritten, and the run's other files stay as they are."""

import pyarrow as pa
from paimon_core.mergetree.compaction import compact
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


def test_only_files_with_deletion_vectors_are_rewritten(catalog):
    t = _table(catalog, **{"deletion-vectors.enabled": "true"})
    _fill(t)
    kinds = pa.array(["-D", "-D"])
    t.write_arrow(
        pa.table({"k": pa.array([7, 1500], pa.int32()), "v": ["x", "x"], "kind": kinds}),
        row_kind_column="kind",
    )
    before = _split(t)
    assert {f.level for f in before.files} == {5} and len(before.deletion_files) == 2  # the case under test
    marked = {name for name, _ in before.deletion_files}
    res = compact(t, full=True)
    assert res.snapshot is not None
    after = _split(t)
    assert not after.deletion_files
    kept = {f.file_name for f in before.files} - marked
    assert kept <= {f.file_name for f in after.files}  # untouched files stay
    assert not marked & {f.file_name for f in after.files}  # the two marked files were rewritten
    assert len(after.files) - len(kept) <= 2 * 2  # ... into about as many files
    keys = sorted(r["k"] for r in t.read().to_pylist())
    assert keys == [k for k in range(N) if k not in (7, 1500)]
    assert compact(t, full=True).snapshot is None  # nothing left to purge
