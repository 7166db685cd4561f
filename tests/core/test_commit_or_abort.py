"""Commit-or-abort, for every path that commits writer output: Ctrl-C after ``snapshot-N`` was
created keeps the snapshot and every file it names (``InterruptedAfterCommit``), Ctrl-C before it
leaves no new file behind, and a Spark-style abort after a commit that landed deletes nothing.

Each case interrupts the real commit of the real operation at one storage step: after the create
(the LATEST hint write, which follows it) and before it (the create itself)."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.commit.file_store_commit import CommitOptions
from paimon_core.journal import InterruptedAfterCommit
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.snapshot import SnapshotManager

IDS = list(range(10))


def _files(root: str) -> set[str]:
    return {os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs}


def _table(tmp_path, options: dict, pk: bool = True):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    schema = Schema(
        Schema.parse_columns("id BIGINT NOT NULL, v STRING"),
        primary_keys=["id"] if pk else [],
        options=options,
    )
    t = cat.create_table("db.t", schema)
    t.write_arrow(_rows(IDS, "a"))
    t.write_arrow(_rows(IDS[:5], "b"))
    return cat


def _rows(ids, v):
    return pa.table({"id": pa.array(ids, pa.int64()), "v": [v] * len(ids)})


def _ingest(t):
    t.write_arrow(_rows([100, 101], "c"))


def _stream(t):
    from paimon_core.ops.streaming import StreamingCommitter

    StreamingCommitter(t, "stream-user").write([_rows([100, 101], "c")])


def _delete(t):
    from paimon_core.ops.delete import delete_where

    delete_where(t, "id < 3")


def _compact(t):
    from paimon_core.compaction.compaction import full_compact

    full_compact(t)


def _postpone(t):
    from paimon_core.compaction.postpone_compaction import compact_postpone

    compact_postpone(t)


def _spark_batch_commit(t):
    """The Spark data source writer's driver-side commit (no Spark job needed for the commit)."""
    import pickle

    from paimon_core.engines.spark.source import PaimonCommitMessage, PaimonWriter

    w = t.new_writer()
    w.write(_rows([100, 101], "c"))
    msgs = w.prepare_commit()
    PaimonWriter(t, False).commit([PaimonCommitMessage(pickle.dumps(msgs), 2)])


PK = {"bucket": "2"}
CASES = {
    "ingest-append": (_ingest, {}, False),
    "ingest-pk": (_ingest, PK, True),
    "stream": (_stream, PK, True),
    "delete-append": (_delete, {}, False),
    "delete-pk": (_delete, PK, True),
    "delete-dv": (_delete, {**PK, "deletion-vectors.enabled": "true"}, True),
    "compact": (_compact, PK, True),
    "postpone-compact": (_postpone, {"bucket": "-2", "postpone.batch-write-fixed-bucket": "false"}, True),
    "spark-writer": (_spark_batch_commit, PK, True),
}


def _interrupt(monkeypatch, method: str):
    orig = getattr(SnapshotManager, method)
    fired = []

    def boom(self, *args, **kwargs):
        if not fired:
            fired.append(True)
            if method == "write_hint":
                orig(self, *args, **kwargs)
            raise KeyboardInterrupt
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(SnapshotManager, method, boom)
    return fired


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctrl_c_after_the_snapshot_exists_keeps_every_file(tmp_path, monkeypatch, case):
    op, options, pk = CASES[case]
    cat = _table(tmp_path, options, pk)
    t = cat.get_table("db.t")
    before = t.snapshots.latest().id
    fired = _interrupt(monkeypatch, "write_hint")
    with pytest.raises(InterruptedAfterCommit):
        op(t)
    assert fired
    monkeypatch.undo()
    after = cat.get_table("db.t")
    assert after.snapshots.latest().id == before + 1
    expected = after.read()  # would fail with "data file ... is missing" before
    assert expected.num_rows > 0
    if case.startswith("delete"):
        if pk:  # the -D records are level-0 files, which a deletion-vector table reads once compacted
            _compact(after)
            expected = cat.get_table("db.t").read()
        assert sorted(expected.column("id").to_pylist()) == (
            [3, 4, 5, 6, 7, 8, 9] if pk else [3, 3, 4, 4] + IDS[5:]
        )
    else:
        assert set(expected.column("id").to_pylist()) >= set(IDS)


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctrl_c_before_the_snapshot_exists_leaves_no_file(tmp_path, monkeypatch, case):
    op, options, pk = CASES[case]
    cat = _table(tmp_path, options, pk)
    t = cat.get_table("db.t")
    before_files = _files(t.path)
    before_rows = sorted(t.read().to_pylist(), key=repr)
    before_id = t.snapshots.latest().id
    fired = _interrupt(monkeypatch, "try_commit")
    with pytest.raises(KeyboardInterrupt) as info:
        op(t)
    assert fired and not isinstance(info.value, InterruptedAfterCommit)
    monkeypatch.undo()
    again = cat.get_table("db.t")
    assert again.snapshots.latest().id == before_id
    assert sorted(again.read().to_pylist(), key=repr) == before_rows
    assert _files(t.path) == before_files  # every file the operation wrote is gone


def test_spark_abort_after_a_commit_that_landed_deletes_nothing(tmp_path):
    """Spark calls a writer's abort after a commit that raised; the snapshot that landed stays whole."""
    import pickle

    from paimon_core.engines.spark.source import PaimonCommitMessage, PaimonStreamWriter, PaimonWriter

    cat = _table(tmp_path, PK)
    t = cat.get_table("db.t")
    w = t.new_writer()
    w.write(_rows([100, 101], "c"))
    msgs = [PaimonCommitMessage(pickle.dumps(w.prepare_commit()), 2)]
    sw = PaimonWriter(t, False)
    sw.commit(msgs)
    sw.abort(msgs)
    assert sorted(cat.get_table("db.t").read().column("id").to_pylist()) == IDS + [100, 101]
    stream = PaimonStreamWriter(t, {"commit-user": "u1"})
    w = t.new_writer()
    w.write(_rows([200], "d"))
    msgs = [PaimonCommitMessage(pickle.dumps(w.prepare_commit()), 1)]
    stream.commit(msgs, 0)
    stream.abort(msgs, 0)
    assert 200 in cat.get_table("db.t").read().column("id").to_pylist()
    w = t.new_writer()  # a batch that never committed is aborted: its files go
    w.write(_rows([300], "e"))
    pending = w.prepare_commit()
    before = _files(t.path)
    stream.abort([PaimonCommitMessage(pickle.dumps(pending), 1)], 1)
    assert (
        len(before - _files(t.path)) == 1 and 300 not in cat.get_table("db.t").read().column("id").to_pylist()
    )


def test_a_replayed_identifier_leaves_no_file(tmp_path):
    cat = _table(tmp_path, PK)
    t = cat.get_table("db.t")
    opts = dict(commit_user="u", commit_identifier=1)
    w = t.new_writer()
    w.write(_rows([100], "c"))
    assert t.commit(w.prepare_commit(), CommitOptions(**opts)) is not None
    before = _files(t.path)
    w = t.new_writer()
    w.write(_rows([100], "c"))
    assert t.commit(w.prepare_commit(), CommitOptions(**opts)) is None
    assert _files(t.path) == before
