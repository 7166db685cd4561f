"""Full-compaction changelog: only keys with records outside the top level get changelog (Java
0.9's FullChangelogMergeFunctionWrapper); the exact per-snapshot model of both compaction
producers is tests/reference/changelog_model.py, checked by tests/core/test_pk_model.py."""

import pyarrow as pa

from paimon_core.compaction.compaction import compact
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff


def _table(catalog):
    return catalog.create_table(
        "db.t",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"),
            (),
            ("k",),
            # a tiny target file size: the full compaction leaves several files in the top level
            {"bucket": "1", "changelog-producer": "full-compaction", "target-file-size": "1kb"},
        ),
    )


def _changelog(t, start: int) -> list:
    rows = diff(t, start, t.snapshots.latest_id(), mode="changelog").to_pylist()
    return sorted((r["_row_kind"], r["k"], r["v"]) for r in rows)


def test_a_full_compaction_of_top_level_files_alone_gives_no_changelog(catalog):
    t = _table(catalog)
    n = 2000
    t.write_arrow(
        pa.table({"k": pa.array(range(n), pa.int32()), "v": [f"value {i:06d} " * 4 for i in range(n)]})
    )
    assert len(_changelog(t, 0)) == n  # the writer's full compaction: +I of every key
    (split,) = t.plan(t.snapshots.latest(), all_levels=True)
    assert len(split.files) > 1 and len({f.level for f in split.files}) == 1  # the case under test
    seen = t.snapshots.latest_id()
    compact(t, full=True)  # every key has only its top-level record: nothing changed
    assert _changelog(t, seen) == []
    # a write of two keys: their changelog only (-U/+U also for the unchanged one)
    t.write_arrow(pa.table({"k": pa.array([3, 5], pa.int32()), "v": ["new", f"value {5:06d} " * 4]}))
    assert _changelog(t, seen) == sorted(
        [
            ("-U", 3, f"value {3:06d} " * 4),
            ("+U", 3, "new"),
            ("-U", 5, f"value {5:06d} " * 4),
            ("+U", 5, f"value {5:06d} " * 4),
        ]
    )
