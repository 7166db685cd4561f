"""kill -9 a writer at many points: before, during (torn files) and after data files, manifests,
manifest lists, the snapshot create, the LATEST/EARLIEST hints, and inside the compaction and
expiry that follow a commit; plus SIGKILLs at random moments. After every crash the table reads
as its last committed snapshot, the next commit succeeds, and remove-orphans then leaves only
reachable files. An expiry interrupted at any of its deletions finishes when run again, with the
same end state as an uninterrupted one."""

from __future__ import annotations

import os
import random
import shutil
import signal
import time

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.maintain import expire_snapshots, remove_orphans
from tests.safety.checks import (
    assert_exactly_once,
    assert_snapshot_chain,
    expected_rows,
    rows_of,
    table_files,
    unreachable_files,
)
from tests.safety.conftest import join_all, make_table, read_lines, start
from tests.safety.sites import first_and_last
from tests.safety.worker import CRASH_CODE, batch_rows

NO_CRASH = 10**9
# auto compaction after (nearly) every write, and auto expiry keeping 3 snapshots: a crash can
# land inside a commit, a compaction or an expiry
OPTIONS = {
    "num-sorted-run.compaction-trigger": "2",
    "compaction.min.file-num": "2",
    "snapshot.num-retained.min": "3",
    "snapshot.time-retained": "0ms",
}


def _run_crash_child(cfg: dict, k: int, report: str, kill_after: float | None = None) -> tuple[int, dict]:
    if os.path.exists(report):
        os.unlink(report)
    p = start("crash_ingest", {**cfg, "k": k, "report": report})
    if kill_after is not None:
        time.sleep(kill_after)
        if p.is_alive():
            os.kill(p.pid, signal.SIGKILL)
    join_all([p], 60)
    lines = read_lines(report)
    return p.exitcode, (lines[-1] if lines else {})


# on S3 the primary-key table only: a crash point there is a PUT that landed or not, the same
# for both kinds, and the primary-key writer passes through more of them (index, compaction)
@pytest.mark.parametrize(
    "warehouse, pk",
    [("local", False), ("local", True), ("s3", True)],
    ids=["local-append", "local-pk", "s3-pk"],
    indirect=["warehouse"],
)
def test_kill_writer_at_every_kind_of_point(warehouse, tmp_path, pk):
    uri, storage = warehouse
    on_s3 = uri.startswith("s3://")
    iterations = 6 if on_s3 else 20
    cat = FileSystemCatalog(uri, storage)
    cat.create_database("db")
    table = make_table(cat, "db.t", pk, OPTIONS)
    base = {"warehouse": uri, "storage": storage, "table": "db.t", "pk": pk}
    report = str(tmp_path / "report")
    rng = random.Random(1234 + pk)

    committed: list[dict[int, str]] = []  # batches in commit order
    expected_at: dict[int, list] = {}  # snapshot id -> the rows it must read
    seen = 0  # snapshots up to this id have their expected rows recorded

    def record_new_snapshots(t) -> None:
        """Snapshots created since the last call: at most one APPEND (the batch), first, then
        COMPACTs; all read as the batches committed so far."""
        nonlocal seen
        new = [t.snapshots.snapshot(i) for i in t.snapshots.list_ids() if i > seen]
        kinds = [s.commit_kind for s in new]
        assert kinds.count("APPEND") <= 1 and all(k == "COMPACT" for k in kinds[1:]), kinds
        for s in new:
            expected_at[s.id] = expected_rows(committed, pk)
        seen = max([seen] + [s.id for s in new])

    labels: set[str] = set()
    points = None
    kills = 0
    for it in range(iterations):
        table = cat.get_table("db.t")
        before = table.snapshots.latest_id() or 0
        rows = batch_rows(0, it, pk)
        timed = it % 4 == 3  # every 4th run: SIGKILL after a random delay
        calibrate = it % 8 == 0  # every 8th run: no crash, to count the crash points of a run
        k = NO_CRASH if calibrate or timed else rng.randint(1, points + 2)
        code, rep = _run_crash_child(
            {**base, "rows": rows}, k, report, kill_after=rng.uniform(0.0, 0.25) if timed else None
        )
        if rep.get("completed"):
            assert code == 0, rep
            points = rep["points"]
        else:
            assert code in (CRASH_CODE, -signal.SIGKILL), (code, rep)
            kills += 1
            labels.add(rep.get("crashed_at", "sigkill"))

        table = cat.get_table("db.t")
        new = [table.snapshots.snapshot(i) for i in table.snapshots.list_ids() if i > before]
        landed = any(s.commit_kind == "APPEND" for s in new)
        if "committed" in rep:
            assert landed == rep["committed"], (
                f"crash at {rep['crashed_at']}: snapshot created={rep['committed']}, "
                f"table shows the batch={landed}"
            )
        elif rep.get("completed"):
            assert landed
        if landed:
            committed.append(rows)
        record_new_snapshots(table)

        # the table reads as its last committed snapshot
        assert_snapshot_chain(table)
        assert_exactly_once(rows_of(table.read()), expected_rows(committed, pk)), f"after crash at {rep}"

        # and the next commit succeeds, as the next snapshot
        latest = table.snapshots.latest_id()
        extra = batch_rows(1, it, pk)
        snap = table.write_arrow(_arrow(extra, pk))
        assert snap is not None and snap.id == latest + 1
        committed.append(extra)
        record_new_snapshots(cat.get_table("db.t"))
        assert_exactly_once(rows_of(cat.get_table("db.t").read()), expected_rows(committed, pk))

        if it % 10 == 9 or it == iterations - 1:
            remove_orphans(table, older_than_ms=0)
            left = unreachable_files(table)
            assert not left, f"remove-orphans left unreachable files: {left[:5]}"
            for sid in table.snapshots.list_ids():  # every retained snapshot reads as it did
                assert_exactly_once(rows_of(table.read(snapshot_id=sid)), expected_at[sid])
            assert_exactly_once(rows_of(table.read()), expected_rows(committed, pk))

    assert kills >= iterations * 0.5
    kinds = {lbl.split(":")[0] for lbl in labels}
    print(
        f"\n{'s3' if on_s3 else 'local'} {'pk' if pk else 'append'}: {kills} crashes of {iterations} runs, "
        f"up to {points} crash points per run, points hit: {sorted(labels)}"
    )
    assert len(kinds) >= 4, kinds


def _arrow(rows, pk):
    from tests.safety.worker import arrow_batch

    return arrow_batch(rows, pk)


def _relative_files(table) -> set[str]:
    root = table.path.rstrip("/") + "/"
    return {p[len(root) :] for p in table_files(table)}


def _build_history(cat, pk: bool):
    """12+ snapshots with compactions in between (so expiry has data files to delete)."""
    table = make_table(cat, "db.t", pk, {"write-only": "true"})
    for i in range(12):
        table.write_arrow(_arrow(batch_rows(i % 3, i, pk), pk))
        if i % 4 == 3:
            compact(table, full=True)
    return table


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_interrupted_expire_finishes_when_run_again(local_warehouse, tmp_path, pk):
    uri, _ = local_warehouse
    cat = FileSystemCatalog(uri)
    cat.create_database("db")
    table = _build_history(cat, pk)
    pristine = str(tmp_path / "pristine")
    shutil.copytree(table.path, pristine)

    # the reference: an uninterrupted expiry on a copy
    def fresh_copy():
        shutil.rmtree(table.path)
        shutil.copytree(pristine, table.path)
        return cat.get_table("db.t")

    ref = expire_snapshots(fresh_copy(), retain_min=3, older_than_ms=0)
    assert ref.expired and ref.deleted > 0
    ref_table = cat.get_table("db.t")
    want_files = _relative_files(ref_table)
    want_earliest = ref_table.io.read_text(ref_table.snapshots.path(0).replace("snapshot-0", "EARLIEST"))
    want_reads = {sid: rows_of(ref_table.read(snapshot_id=sid)) for sid in ref_table.snapshots.list_ids()}

    report = str(tmp_path / "report")
    cfg = {"warehouse": uri, "storage": {}, "table": "db.t", "pk": pk, "retain_min": 3, "report": report}
    n_points = ref.deleted + 2  # every deletion, plus the EARLIEST hint before/after
    ks = sorted(set(range(1, n_points + 1, max(1, n_points // 8))) | {1, ref.deleted, ref.deleted + 1})
    for k in ks:
        fresh_copy()
        if os.path.exists(report):
            os.unlink(report)
        p = start("crash_expire", {**cfg, "k": k})
        join_all([p], 60)
        assert p.exitcode == CRASH_CODE, (k, p.exitcode, read_lines(report))
        t = cat.get_table("db.t")
        assert_snapshot_chain(t)  # a half-done expiry leaves a gapless chain
        assert_exactly_once(rows_of(t.read()), want_reads[max(want_reads)])
        expire_snapshots(t, retain_min=3, older_than_ms=0)
        t = cat.get_table("db.t")
        assert _relative_files(t) == want_files, (
            f"crash at deletion {k} ({read_lines(report)}): re-run left "
            f"{sorted(_relative_files(t) - want_files)[:5]}, missing {sorted(want_files - _relative_files(t))[:5]}"
        )
        assert t.io.read_text(t.snapshots.path(0).replace("snapshot-0", "EARLIEST")) == want_earliest
        for sid, want in want_reads.items():
            assert rows_of(t.read(snapshot_id=sid)) == want
        assert not unreachable_files(t)


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_crash_at_every_storage_step_of_a_commit(local_warehouse, tmp_path, pk):
    """On local disk, a run (one ingest with the compaction and expiry that follow it, then a
    full compaction) is crashed at its storage steps in turn, from the same starting table, at
    every call site's first and last step (tests/safety/sites.py): each crash lands on the step the calibration run listed as k-th, the
    table then reads as before the run or as after its commit (as the crash point says), every
    retained snapshot reads as it should, the next commit succeeds, and remove-orphans leaves
    only reachable files."""
    uri, _ = local_warehouse
    cat = FileSystemCatalog(uri)
    cat.create_database("db")
    table = make_table(cat, "db.t", pk, OPTIONS)
    history: list[dict[int, str]] = []
    for b in range(3):  # snapshots to expire and runs to compact
        history.append(batch_rows(0, b, pk))
        table.write_arrow(_arrow(history[-1], pk))
    table = cat.get_table("db.t")
    before_reads = {sid: rows_of(table.read(snapshot_id=sid)) for sid in table.snapshots.list_ids()}
    pristine = str(tmp_path / "pristine")
    shutil.copytree(table.path, pristine)

    def restore():
        shutil.rmtree(table.path)
        shutil.copytree(pristine, table.path)

    rows = batch_rows(0, 3, pk)
    cfg = {"warehouse": uri, "storage": {}, "table": "db.t", "pk": pk, "rows": rows}
    report = str(tmp_path / "report")
    restore()
    code, rep = _run_crash_child(cfg, NO_CRASH, report)
    assert code == 0 and rep.get("completed"), (code, rep)
    # snapshots the run's expiry removes: a crash inside that expiry may leave them unreadable
    # (their data files go first); the next commit's expiry finishes the job
    doomed = set(before_reads) - set(cat.get_table("db.t").snapshots.list_ids())
    steps = [e for e in rep["events"] if not e.startswith("|")]
    assert len(steps) == rep["points"]
    kinds = {s.split(":")[0] for s in steps}
    assert {
        "before-write",
        "torn-write",
        "after-write",
        "before-create",
        "after-create",
        "before-hint",
        "after-hint",
        "before-delete",
        "before-data-write",
        "torn-data-file",
        "after-data-close",
    } <= kinds, kinds

    # every call site of the run, at its first and last step (tests/safety/sites.py)
    ks = first_and_last(list(zip(steps, rep["sites"], strict=True)))
    recovered = []
    for k in ks:
        restore()
        code, rep = _run_crash_child(cfg, k, report)
        assert code == CRASH_CODE and rep.get("crashed_at") == steps[k - 1], (k, steps[k - 1], code, rep)
        t = cat.get_table("db.t")
        assert_snapshot_chain(t)
        new = [t.snapshots.snapshot(i) for i in t.snapshots.list_ids() if i not in before_reads]
        landed = any(s.commit_kind == "APPEND" for s in new)
        assert landed == rep["committed"], (
            f"crash at step {k} ({steps[k - 1]}): snapshot created="
            f"{rep['committed']}, table shows the batch={landed}"
        )
        batches = history + [rows] if landed else list(history)
        want = expected_rows(batches, pk)
        assert_exactly_once(rows_of(t.read()), want)
        for sid in t.snapshots.list_ids():
            if sid not in doomed:
                assert_exactly_once(rows_of(t.read(snapshot_id=sid)), before_reads.get(sid, want))
        extra = batch_rows(1, k, pk)
        latest = t.snapshots.latest_id()
        snap = t.write_arrow(_arrow(extra, pk))
        assert snap is not None and snap.id == latest + 1, f"crash at step {k}: the next commit got {snap}"
        t = cat.get_table("db.t")
        with_extra = expected_rows(batches + [extra], pk)
        assert_exactly_once(rows_of(t.read()), with_extra)
        for sid in t.snapshots.list_ids():  # the next commit's expiry finished an interrupted one
            expected = with_extra if sid >= snap.id else before_reads.get(sid, want)
            assert_exactly_once(rows_of(t.read(snapshot_id=sid)), expected)
        remove_orphans(cat.get_table("db.t"), older_than_ms=0)
        left = unreachable_files(cat.get_table("db.t"))
        assert not left, f"crash at step {k} ({steps[k - 1]}): remove-orphans left {left[:5]}"
        recovered.append(steps[k - 1])
    assert recovered == [steps[k - 1] for k in ks] and set(recovered) == set(steps)
    print(
        f"\n{'pk' if pk else 'append'}: crashed at and recovered from {len(ks)} of {len(steps)} storage "
        f"steps ({len(kinds)} kinds, every call site at its first and last step)"
    )
