"""kill -9 a rescale of a table whose batch reads skip level-0 files (deletion vectors,
first-row) at each of its storage steps in turn (every call site at its first and last step,
tests/safety/sites.py): after every crash the table reads every row
exactly once (the rescale either landed whole or not at all: no partition reads empty), its
files have one bucket count, and remove-orphans leaves only reachable files; Java reads the
table after a crash at the commit's last step."""

from __future__ import annotations

import os
import shutil

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.maintain import remove_orphans
from paimon_core.metadata.live_files import live_entries
from tests.interop.harness.canonical import assert_same_rows
from tests.safety.checks import assert_exactly_once, assert_snapshot_chain, rows_of, unreachable_files
from tests.safety.conftest import join_all, make_table, read_lines, start
from tests.safety.sites import first_and_last
from tests.safety.worker import CRASH_CODE, arrow_batch, batch_rows

pytestmark = pytest.mark.slow
NO_CRASH = 10**9


def _run_crash_child(cfg: dict, k: int, report: str) -> tuple[int, dict]:
    if os.path.exists(report):
        os.unlink(report)
    p = start("crash_rescale", {**cfg, "k": k, "report": report})
    join_all([p], 60)
    lines = read_lines(report)
    return p.exitcode, (lines[-1] if lines else {})


@pytest.mark.parametrize(
    "options",
    [{"deletion-vectors.enabled": "true"}, {"merge-engine": "first-row"}],
    ids=["dv", "first-row"],
)
def test_kill_rescale_at_every_storage_step(local_warehouse, tmp_path, options):
    uri, _ = local_warehouse
    cat = FileSystemCatalog(uri)
    cat.create_database("db")
    table = make_table(cat, "db.t", True, options)
    state: dict[int, str] = {}
    for b in range(2):
        rows = batch_rows(0, b, True)
        table.write_arrow(arrow_batch(rows, True))
        state = {**state, **rows} if "merge-engine" not in options else {**rows, **state}
    compact(table, full=True)
    want = sorted(state.items())
    assert_exactly_once(rows_of(table.read()), want)
    pristine = str(tmp_path / "pristine")
    shutil.copytree(table.path, pristine)

    def restore():
        shutil.rmtree(table.path)
        shutil.copytree(pristine, table.path)

    cfg = {"warehouse": uri, "storage": {}, "table": "db.t", "bucket": 3}
    report = str(tmp_path / "report")
    code, rep = _run_crash_child(cfg, NO_CRASH, report)
    assert code == 0 and rep.get("completed"), (code, rep)
    t = cat.get_table("db.t")
    assert [t.snapshots.latest().commit_kind] == ["OVERWRITE"]  # the only snapshot the rescale made
    steps = rep["events"]
    assert {"after-create:snapshot", "before-hint:LATEST"} <= set(steps), steps
    for k in first_and_last(list(zip(steps, rep["sites"], strict=True))):  # tests/safety/sites.py
        restore()
        code, rep = _run_crash_child(cfg, k, report)
        assert code == CRASH_CODE and rep.get("crashed_at") == steps[k - 1], (k, code, rep)
        t = cat.get_table("db.t")
        assert_snapshot_chain(t)
        assert (t.snapshots.latest().commit_kind == "OVERWRITE") == rep["committed"], (k, steps[k - 1])
        assert_exactly_once(rows_of(t.read()), want)
        counts = {e.total_buckets for e in live_entries(t.manifests, t.snapshots.latest())}
        assert counts == ({3} if rep["committed"] else {2}), (k, steps[k - 1], counts)
        remove_orphans(t, older_than_ms=0)
        assert not unreachable_files(cat.get_table("db.t")), (k, steps[k - 1])


@pytest.mark.interop
def test_java_reads_after_a_kill_at_the_rescale_commits_last_step(local_warehouse, tmp_path, java_releases):
    uri, _ = local_warehouse
    cat = FileSystemCatalog(uri)
    cat.create_database("db")
    table = make_table(cat, "db.t", True, {"deletion-vectors.enabled": "true"})
    rows = batch_rows(0, 0, True)
    table.write_arrow(arrow_batch(rows, True))
    compact(table, full=True)
    cfg = {"warehouse": uri, "storage": {}, "table": "db.t", "bucket": 3}
    report = str(tmp_path / "report")
    code, rep = _run_crash_child(cfg, NO_CRASH, report)
    shutil.rmtree(str(tmp_path / "wh"))  # again from the start, killed after the snapshot's LATEST hint
    cat = FileSystemCatalog(uri)
    cat.create_database("db")
    table = make_table(cat, "db.t", True, {"deletion-vectors.enabled": "true"})
    table.write_arrow(arrow_batch(rows, True))
    compact(table, full=True)
    last = max(i for i, s in enumerate(rep["events"], 1) if s == "after-hint:LATEST")
    code, rep = _run_crash_child(cfg, last, report)
    assert code == CRASH_CODE and rep["committed"], rep
    for java in java_releases:  # the kill is the same for every release: only the reads differ
        (read,) = java.run([{"op": "read", "warehouse": uri, "table": "db.t"}])
        assert_same_rows(
            read["rows"],
            [{"id": i, "v": v} for i, v in rows.items()],
            label_a=f"java {java.version}",
            label_b="want",
        )
