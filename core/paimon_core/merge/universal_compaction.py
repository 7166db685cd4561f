"""Universal compaction (RocksDB style, as Paimon picks it): a pure function from the sorted runs
of one bucket to the runs to merge and the level to write them to.

Runs are ordered newest first: every level-0 file is its own run (newest first), then each
non-empty level 1..max is one run. Rules, in order:

1. size amplification: with at least ``trigger`` runs, if the size of all runs but the oldest
   exceeds ``max_size_amp`` percent of the oldest, compact everything into the top level;
2. size ratio: with at least ``trigger`` runs, grow a candidate from the newest run while the
   next run is no bigger than the candidate times (100 + ``size_ratio``)%;
3. run count: with more than ``trigger`` runs, force a candidate of ``runs - trigger + 1``
   runs and grow it by size ratio.

The output level is the level of the first run left out minus one (never 0: then the
candidate is extended to the next non-zero level), or the top level when all runs are taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from paimon_core.metadata.manifest import DataFileMeta


@dataclass(frozen=True)
class Run:
    level: int
    size: int


@dataclass(frozen=True)
class CompactUnit:
    run_count: int  # the first ``run_count`` runs (newest first) are merged
    output_level: int


def pick(
    num_levels: int, runs: list[Run], trigger: int = 5, max_size_amp: int = 200, size_ratio: int = 1
) -> CompactUnit | None:
    max_level = num_levels - 1
    if len(runs) >= trigger:
        newer = sum(r.size for r in runs[:-1])
        if newer * 100 > max_size_amp * runs[-1].size:
            return CompactUnit(len(runs), max_level)
        unit = _by_size_ratio(max_level, runs, 1, size_ratio)
        if unit is not None:
            return unit
    if len(runs) > trigger:
        return _by_size_ratio(max_level, runs, len(runs) - trigger + 1, size_ratio)
    return None


def force_pick_level0(num_levels: int, runs: list[Run]) -> CompactUnit | None:
    """All level-0 runs (and what size ratio adds) out of level 0: what Paimon's writers do
    after every write for tables whose readers skip level 0 (first-row, lookup changelog)."""
    count = 0
    while count < len(runs) and runs[count].level == 0:
        count += 1
    if count == 0:
        return None
    size = sum(r.size for r in runs[:count])
    while count < len(runs):
        if size * 1.01 < runs[count].size:
            break
        size += runs[count].size
        count += 1
    return _unit(runs, num_levels - 1, count)


def _by_size_ratio(max_level: int, runs: list[Run], count: int, size_ratio: int) -> CompactUnit | None:
    size = sum(r.size for r in runs[:count])
    while count < len(runs):
        nxt = runs[count]
        if size * (100.0 + size_ratio) / 100.0 < nxt.size:
            break
        size += nxt.size
        count += 1
    if count <= 1:
        return None
    return _unit(runs, max_level, count)


def _unit(runs: list[Run], max_level: int, count: int) -> CompactUnit:
    if count == len(runs):
        return CompactUnit(count, max_level)
    out = max(0, runs[count].level - 1)
    if out == 0:  # never write compaction output to level 0
        while count < len(runs):
            nxt = runs[count]
            count += 1
            if nxt.level != 0:
                out = nxt.level
                break
    if count == len(runs):
        out = max_level
    return CompactUnit(count, out)


def sorted_runs(files: Iterable[DataFileMeta]) -> list[tuple[int, list]]:
    """(level, files) runs of one bucket, newest first, from its live DataFileMetas."""
    level0 = sorted((f for f in files if f.level == 0), key=lambda f: f.max_sequence_number, reverse=True)
    runs = [(0, [f]) for f in level0]
    for level in sorted({f.level for f in files if f.level > 0}):
        runs.append((level, sorted((f for f in files if f.level == level), key=lambda f: f.min_key)))
    return runs
