"""Lost races and half-finished commits.

A commit that loses the race for snapshot-N again and again (a real competing commit lands
between reading the latest snapshot and creating the next one) still commits exactly once, and
cleans up the manifests of every lost attempt; one that runs out of retries commits nothing and
leaves no files behind. A snapshot whose writer died before updating LATEST is still seen."""

from __future__ import annotations

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.errors import CommitConflict
from paimon_core.metadata.snapshot import SnapshotManager
from tests.safety.checks import (
    assert_exactly_once,
    assert_snapshot_chain,
    expected_rows,
    rows_of,
    unreachable_files,
)
from tests.safety.conftest import join_all, make_table, start
from tests.safety.worker import CRASH_CODE, arrow_batch, batch_rows


class Competitor:
    """Makes the next ``n`` snapshot creations of ``victim`` lose: right before each, another
    table object commits a real snapshot with the id the victim is about to take."""

    def __init__(self, monkeypatch, victim, rival, n: int, rival_action):
        self.left = n
        self.lost = 0
        orig = SnapshotManager.try_commit

        def try_commit(sm, snapshot):
            if sm is victim.snapshots and self.left > 0:
                self.left -= 1
                rival_action(rival)
                ok = orig(sm, snapshot)
                assert not ok, "the victim won although a rival took its snapshot id"
                self.lost += 1
                return ok
            return orig(sm, snapshot)

        monkeypatch.setattr(SnapshotManager, "try_commit", try_commit)


def _setup(warehouse, pk, options=None):
    uri, storage = warehouse
    cat = FileSystemCatalog(uri, storage)
    cat.create_database("db")
    make_table(cat, "db.t", pk, {"write-only": "true", **(options or {})})
    return cat


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_commit_that_loses_n_races_commits_exactly_once(warehouse, monkeypatch, pk):
    cat = _setup(warehouse, pk)
    victim, rival = cat.get_table("db.t"), cat.get_table("db.t")
    batches = [batch_rows(0, 0, pk)]
    victim.write_arrow(arrow_batch(batches[0], pk))
    rival_batches = iter(range(100))

    def rival_commit(t):
        b = batch_rows(1, next(rival_batches), pk)
        t.write_arrow(arrow_batch(b, pk))
        batches.append(b)

    c = Competitor(monkeypatch, victim, rival, 6, rival_commit)
    mine = batch_rows(2, 0, pk)
    snap = victim.write_arrow(arrow_batch(mine, pk))
    batches.append(mine)
    assert c.lost == 6
    assert snap.id == 1 + 6 + 1
    t = cat.get_table("db.t")
    assert assert_snapshot_chain(t) == list(range(1, 9))
    assert [s.commit_user for s in t.snapshots.snapshots()].count(snap.commit_user) == 1
    assert_exactly_once(rows_of(t.read()), expected_rows(batches, pk))
    assert not unreachable_files(t), "the lost attempts left manifests or lists behind"


def test_commit_out_of_retries_commits_nothing_and_leaves_nothing(warehouse, monkeypatch):
    cat = _setup(warehouse, False, {"commit.max-retries": "3"})
    victim, rival = cat.get_table("db.t"), cat.get_table("db.t")
    batches = []
    counter = iter(range(100))

    def rival_commit(t):
        b = batch_rows(1, next(counter), False)
        t.write_arrow(arrow_batch(b, False))
        batches.append(b)

    c = Competitor(monkeypatch, victim, rival, 4, rival_commit)
    with pytest.raises(CommitConflict, match="gave up"):
        victim.write_arrow(arrow_batch(batch_rows(2, 0, False), False))
    assert c.lost == 4
    t = cat.get_table("db.t")
    assert assert_snapshot_chain(t) == [1, 2, 3, 4]
    assert_exactly_once(rows_of(t.read()), expected_rows(batches, False))
    assert not unreachable_files(t), "a commit that gave up left data files or manifests behind"
    # and the next commit of that writer works
    assert victim.write_arrow(arrow_batch(batch_rows(3, 0, False), False)).id == 5


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_a_snapshot_put_retried_after_a_lost_response_commits_once(warehouse, monkeypatch, pk):
    """The create of snapshot-N succeeds but its response is lost, and the client sends it again,
    which is refused (412 on S3, EEXIST locally): that snapshot is ours, the commit stands as it
    is, nothing is written twice and none of the files it names is cleaned up."""
    from paimon_core.storage.file_io import FileIO

    cat = _setup(warehouse, pk)
    t = cat.get_table("db.t")
    first = batch_rows(0, 0, pk)
    t.write_arrow(arrow_batch(first, pk))
    orig = FileIO.write_if_absent
    replays = []

    def put_twice(io, path, data):
        if "/snapshot/snapshot-" not in path:
            return orig(io, path, data)
        assert orig(io, path, data), "the first create of a new snapshot failed"
        replays.append(path)
        return orig(io, path, data)  # the client's retry: refused, the object exists

    monkeypatch.setattr(FileIO, "write_if_absent", put_twice)
    second = batch_rows(0, 1, pk)
    snap = t.write_arrow(arrow_batch(second, pk))
    monkeypatch.undo()
    assert len(replays) == 1 and snap.id == 2
    t = cat.get_table("db.t")
    assert assert_snapshot_chain(t) == [1, 2]
    assert_exactly_once(rows_of(t.read()), expected_rows([first, second], pk))
    assert not unreachable_files(t)


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_compaction_retries_past_appends_and_aborts_on_a_rival_compaction(local_warehouse, monkeypatch, pk):
    cat = _setup(local_warehouse, pk)
    t = cat.get_table("db.t")
    batches = []
    for b in range(4):
        batches.append(batch_rows(0, b, pk))
        t.write_arrow(arrow_batch(batches[-1], pk))
    counter = iter(range(100))

    def rival_append(r):
        b = batch_rows(1, next(counter), pk)
        r.write_arrow(arrow_batch(b, pk))
        batches.append(b)

    # appends in between do not conflict with a compaction: it rebuilds on them and commits
    victim, rival = cat.get_table("db.t"), cat.get_table("db.t")
    c = Competitor(monkeypatch, victim, rival, 3, rival_append)
    r = compact(victim, full=True)
    assert c.lost == 3 and r.snapshot is not None and r.snapshot.commit_kind == "COMPACT"
    assert_exactly_once(rows_of(cat.get_table("db.t").read()), expected_rows(batches, pk))
    monkeypatch.undo()

    # a rival compaction that rewrote the same files first: conflict, nothing committed
    batches.append(batch_rows(2, 0, pk))
    t.write_arrow(arrow_batch(batches[-1], pk))
    victim, rival = cat.get_table("db.t"), cat.get_table("db.t")
    Competitor(monkeypatch, victim, rival, 1, lambda r: compact(r, full=True))
    before = cat.get_table("db.t").snapshots.latest_id()
    with pytest.raises(CommitConflict):
        compact(victim, full=True)
    t = cat.get_table("db.t")
    assert t.snapshots.latest_id() == before + 1  # only the rival's compaction
    assert_exactly_once(rows_of(t.read()), expected_rows(batches, pk))
    assert not unreachable_files(t), "the aborted compaction left its files behind"


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_snapshot_without_latest_hint_is_seen(warehouse, pk):
    """The writer died after creating snapshot-N and before writing LATEST: LATEST is only a
    hint, so readers see N, and the next commit is N+1."""
    uri, storage = warehouse
    cat = _setup(warehouse, pk)
    t = cat.get_table("db.t")
    batches = [batch_rows(0, 0, pk)]
    t.write_arrow(arrow_batch(batches[0], pk))
    p = start(
        "die_before_latest",
        {"warehouse": uri, "storage": storage, "table": "db.t", "pk": pk, "rows": batch_rows(0, 1, pk)},
    )
    join_all([p], 60)
    assert p.exitcode == CRASH_CODE
    batches.append(batch_rows(0, 1, pk))
    t = cat.get_table("db.t")
    assert t.snapshots.read_hint("LATEST") == 1  # the hint is stale
    assert t.snapshots.latest_id() == 2
    assert_exactly_once(rows_of(t.read()), expected_rows(batches, pk))
    batches.append(batch_rows(0, 2, pk))
    assert t.write_arrow(arrow_batch(batches[-1], pk)).id == 3
    assert t.snapshots.read_hint("LATEST") == 3
    assert_exactly_once(rows_of(cat.get_table("db.t").read()), expected_rows(batches, pk))
