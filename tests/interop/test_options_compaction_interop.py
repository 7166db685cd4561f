"""Compaction options of primary-key tables (sorted-run trigger, levels, size amplification, size
ratio: Java's UniversalCompaction picks what our writer compacted) and of fixed-bucket append tables
(``compaction.min/max.file-num``, ``target-file-size``: the same snapshot kinds and file counts).
"""

from __future__ import annotations

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.live_files import live_entries
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow
from tests.interop.option_twins import KV, Case, create_ours, java_create, model_append, our_write

pytestmark = pytest.mark.interop


PK_COMPACT_CASES = {
    "trigger_2": {"num-sorted-run.compaction-trigger": "2"},
    "levels_3": {"num-sorted-run.compaction-trigger": "3", "num-levels": "3"},
    "size_amp": {"num-sorted-run.compaction-trigger": "4", "compaction.max-size-amplification-percent": "10"},
    "size_ratio": {"num-sorted-run.compaction-trigger": "3", "compaction.size-ratio": "50"},
}


def _compact_commits(n: int = 8):
    return [
        [{"k": k, "v": f"c{c}" * (1 + c % 3), "n": k * c, "s": c} for k in range(c * 3, c * 3 + 12 + 4 * c)]
        for c in range(n)
    ]


def _runs(files) -> list[list]:
    """[level, size] runs of one bucket, newest first: every level-0 file (newest sequence first),
    then one run per deeper level."""
    level0 = sorted((f for f in files if f.level == 0), key=lambda f: f.max_sequence_number, reverse=True)
    runs = [[0, f.file_size] for f in level0]
    for lv in sorted({f.level for f in files if f.level > 0}):
        runs.append([lv, sum(f.file_size for f in files if f.level == lv)])
    return runs


def _delta(t, snap):
    """(added, deleted) DataFileMetas of a snapshot's delta."""
    added, deleted = [], []
    for m in t.manifests.read_list(snap.delta_manifest_list):
        for e in t.manifests.read_manifest(m.file_name):
            (added if e.kind == 0 else deleted).append(e.file)
    return added, deleted


def test_compaction_options_pick_as_java(tmp_path, java):
    """num-sorted-run.compaction-trigger, num-levels, compaction.max-size-amplification-percent and
    compaction.size-ratio: after every commit to our table, Java's UniversalCompaction, given the
    runs our writer had (from our files' real levels and sizes) and the table's option values,
    picks exactly what our writer compacted (run count, output level), or nothing when our
    writer did not compact. Java's twin of each table (whose file sizes, and so picks, differ)
    and Java's read of ours hold the same rows. The picks on random layouts:
    tests/interop/test_bucket_interop.py."""
    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    commits = _compact_commits()
    picks, reqs = [], []
    for name, opts in PK_COMPACT_CASES.items():
        case = Case(KV, ("k",), {"bucket": "1", "file.format": "parquet", **opts}, commits)
        t = create_ours(owh, f"o.{name}", case)
        num_levels = t.schema.core_options.num_levels
        did = 0
        for rows in commits:
            appended = our_write(t, KV, rows)
            snap = t.snapshots.latest()
            if snap.id != appended.id:
                assert snap.commit_kind == "COMPACT" and snap.id == appended.id + 1
                did += 1
                added, deleted = _delta(t, snap)
                before = [e.file for e in live_entries(t.manifests, appended)]
                ours = (len(_runs(deleted)), added[0].level if added else None)
            else:
                before = [e.file for e in live_entries(t.manifests, snap)]
                ours = None
            picks.append((name, ours))
            reqs.append(
                {
                    "op": "universal_pick",
                    "runs": _runs(before),
                    "num_levels": num_levels,
                    "trigger": int(opts["num-sorted-run.compaction-trigger"]),
                    "max_size_amp": int(opts.get("compaction.max-size-amplification-percent", 200)),
                    "size_ratio": int(opts.get("compaction.size-ratio", 1)),
                }
            )
        assert did, f"{name}: our writer never compacted"
        reqs.append(java_create(jwh, f"j.{name}", case))
        reqs += [{"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows} for rows in commits]
        reqs += [
            {"op": "read", "warehouse": wh, "table": f"{db}.{name}"} for wh, db in ((owh, "o"), (jwh, "j"))
        ]
    res = java.run(reqs)
    pick_res = [r for q, r in zip(reqs, res) if q["op"] == "universal_pick"]
    for (name, ours), r in zip(picks, pick_res):
        want = None if r["output_level"] is None else (r["run_count"], r["output_level"])
        assert ours == want, (name, ours, want)
    reads = [r["rows"] for q, r in zip(reqs, res) if q["op"] == "read"]
    for i, name in enumerate(PK_COMPACT_CASES):
        ours = rows_from_arrow(FileSystemCatalog(owh).get_table(f"o.{name}").read())
        assert_same_rows(reads[2 * i], ours, label_a=f"java of ours {name}", label_b="paimon-cli of ours")
        assert_same_rows(
            reads[2 * i + 1], ours, label_a=f"java of java's twin {name}", label_b="paimon-cli of ours"
        )


@pytest.mark.parametrize(
    "opts",
    [
        {"compaction.min.file-num": "3"},
        {"compaction.max.file-num": "3"},
        {"compaction.min.file-num": "2", "target-file-size": "1 b"},
        {},
    ],
    ids=["min3", "max3", "min2_tiny_target", "defaults"],
)
def test_append_compaction_matches_java(tmp_path, java, opts):
    """compaction.min.file-num / compaction.max.file-num / target-file-size on a fixed-bucket
    append table: after 7 commits, our table and Java's twin took the same snapshot kinds and
    hold the same number of files."""
    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    commits = [[{"k": k, "v": f"c{c}", "n": k, "s": c} for k in range(c * 10, c * 10 + 10)] for c in range(7)]
    case = Case(KV, (), {"bucket": "1", "bucket-key": "k", "file.format": "parquet", **opts}, commits)
    t = create_ours(owh, "o.a", case)
    reqs = [java_create(jwh, "j.a", case)]
    for rows in commits:
        our_write(t, KV, rows)
        reqs.append({"op": "write", "warehouse": jwh, "table": "j.a", "rows": rows})
    reqs += [
        {"op": op, "warehouse": wh, "table": tn}
        for wh, tn in ((owh, "o.a"), (jwh, "j.a"))
        for op in ("snapshots", "files", "read")
    ]
    res = java.run(reqs)[-6:]
    kinds = [[s["commitKind"] for s in r["snapshots"]] for r in (res[0], res[3])]
    if java.version == "1.4.2" and len(opts) == 1:
        # Java 1.4.2 compacts a fixed-bucket append table at other commits than Java 0.9 (whose
        # triggers we follow) under compaction.min/max.file-num = 3: the kinds differ, the rows not
        assert kinds[0] != kinds[1], kinds
        assert_same_rows(
            res[2]["rows"], res[5]["rows"], label_a="java of ours", label_b="java of java's twin"
        )
        return
    assert kinds[0] == kinds[1], kinds
    # a window of files each at least the target drops its oldest file at once: never 2 files
    assert ("COMPACT" in kinds[0]) == (opts.get("target-file-size") != "1 b"), kinds
    assert len(res[1]["files"]) == len(res[4]["files"]), (res[1]["files"], res[4]["files"])
    assert_same_rows(res[2]["rows"], res[5]["rows"], label_a="java of ours", label_b="java of java's twin")
    assert_same_rows(res[2]["rows"], model_append(case), label_a="java of ours", label_b="model")
