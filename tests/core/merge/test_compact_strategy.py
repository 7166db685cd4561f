"""Universal compaction as a pure function: table-driven cases worked out from the rules Java
Paimon 0.9 applies (size amplification, size ratio, run count; output level never 0). The
interop suite also checks 300 random run layouts against Java's own UniversalCompaction.pick
(tests/interop/test_bucket_interop.py)."""

import pytest

from paimon_core.merge.universal_compaction import CompactUnit, Run, force_pick_level0, pick, sorted_runs
from paimon_core.metadata.manifest import DataFileMeta

L = Run


@pytest.mark.parametrize(
    "runs, trigger, expected",
    [
        # fewer runs than the trigger: nothing
        ([L(0, 1), L(0, 1), L(5, 10)], 5, None),
        # size amplification: 4 newer units vs the oldest 1 -> 400% > 200% -> everything to the top
        ([L(0, 1), L(0, 1), L(0, 1), L(0, 1), L(0, 1)], 5, CompactUnit(5, 5)),
        # no amplification (3 vs 100), size ratio takes the three similar L0 runs, output one below L5
        ([L(0, 1), L(0, 1), L(0, 1), L(5, 100)], 3, CompactUnit(3, 4)),
        # run count: 6 runs > trigger 4, no ratio match: force runs-trigger+1 = 3 newest runs
        ([L(0, 1), L(0, 10), L(0, 100), L(3, 1000), L(4, 10000), L(5, 100000)], 4, CompactUnit(3, 2)),
        # the run after the candidate is on level 1: output would be level 0, so take it too
        ([L(0, 1), L(0, 1), L(1, 50), L(5, 1000)], 3, CompactUnit(3, 1)),
        # every run taken by ratio -> the top level
        ([L(0, 2), L(0, 2), L(3, 4)], 3, CompactUnit(3, 5)),
    ],
)
def test_pick(runs, trigger, expected):
    assert pick(6, runs, trigger=trigger, max_size_amp=200, size_ratio=1) == expected


def test_size_ratio_edge_case_worked_by_hand():
    # candidate 1, next 3: 1 * 1.01 < 3 -> stop; candidate count 1 -> no ratio unit; 4 runs >= trigger 3
    # but amplification 5 * 100 > 200 * 100 is false, and 4 runs is not more than trigger 4
    assert pick(6, [L(0, 1), L(0, 3), L(0, 1), L(5, 100)], trigger=4) is None
    # with trigger 3 the run-count rule forces 4 - 3 + 1 = 2 runs, grown by ratio: 4 * 1.01 >= 1 -> 3 runs
    assert pick(6, [L(0, 1), L(0, 3), L(0, 1), L(5, 100)], trigger=3) == CompactUnit(3, 4)


def test_force_level0_moves_every_level0_run_up():
    assert force_pick_level0(6, [L(0, 1)]) == CompactUnit(1, 5)
    assert force_pick_level0(6, [L(0, 1), L(0, 1), L(5, 100)]) == CompactUnit(2, 4)
    assert force_pick_level0(6, [L(4, 1), L(5, 100)]) is None


def _f(name, level, max_seq, min_key=b""):
    return DataFileMeta(
        file_name=name, file_size=1, row_count=1, min_key=min_key, level=level, max_sequence_number=max_seq
    )


def test_sorted_runs_newest_level0_first_then_levels():
    files = [_f("a", 0, 5), _f("b", 0, 9), _f("c", 3, 2, b"\x02"), _f("d", 3, 3, b"\x01"), _f("e", 5, 1)]
    runs = sorted_runs(files)
    assert [(lv, [f.file_name for f in fs]) for lv, fs in runs] == [
        (0, ["b"]),
        (0, ["a"]),
        (3, ["d", "c"]),
        (5, ["e"]),
    ]
