"""``ingest --update-columns`` (``ops/update_columns.py``): column files as Java's data-evolution
MERGE INTO writes them, read back merged by row id; bad input refused in one line, nothing
written."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.ops.update_columns import update_columns
from tests.core.ops.test_row_tracking import tracked_batch

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _table(catalog, options=DE):
    cols = Schema.parse_columns("id BIGINT, v STRING, p STRING")
    return catalog.create_table("db.t", Schema(cols, partition_keys=("p",), options=options))


def _rows(t):
    return sorted((r["_ROW_ID"], r["id"], r["v"]) for r in t.read(columns=["_ROW_ID", "id", "v"]).to_pylist())


def _updates(ids, values):
    return pa.table({"_ROW_ID": pa.array(ids, pa.int64()), "v": values})


def test_update_writes_column_files_read_back_merged(catalog):
    t = _table(catalog)
    t.write_arrow(tracked_batch([1, 2, 3, 4]))
    t.write_arrow(tracked_batch([5, 6]))
    t = catalog.get_table("db.t")
    before = _rows(t)
    result = update_columns(t, _updates([0, 5], ["A", "F"]), ["v"])
    t = catalog.get_table("db.t")
    want = [(r, i, {0: "A", 5: "F"}.get(r, v)) for r, i, v in before]
    assert _rows(t) == want
    added = [e.file for e in live_entries(t.manifests, t.snapshots.latest()) if e.file.write_cols]
    assert result.files == len(added) == 2 and all(f.write_cols == ("v",) for f in added)
    # a second update of the same rows: the newest column file wins
    update_columns(t, _updates([0], ["AA"]), ["v"])
    t = catalog.get_table("db.t")
    assert [x for x in _rows(t) if x[0] == 0] == [(0, 1, "AA")]


@pytest.mark.parametrize(
    "updates,columns,message",
    [
        (_updates([99], ["x"]), ["v"], "no live row has _ROW_ID 99"),
        (_updates([0, 0], ["x", "y"]), ["v"], "more than one input row"),
        (pa.table({"v": ["x"]}), ["v"], "_ROW_ID"),
        (_updates([0], ["x"]), ["p"], "partition key"),
        (_updates([0], ["x"]), ["nope"], "nope"),
    ],
)
def test_bad_updates_write_nothing(catalog, updates, columns, message):
    t = _table(catalog)
    t.write_arrow(tracked_batch([1, 2]))
    t = catalog.get_table("db.t")
    files = sorted(p.name for p in __import__("pathlib").Path(t.path).rglob("data-*"))
    with pytest.raises(InvalidInput, match=message):
        update_columns(t, updates, columns)
    assert catalog.get_table("db.t").snapshots.latest_id() == 1
    assert sorted(p.name for p in __import__("pathlib").Path(t.path).rglob("data-*")) == files


def test_needs_data_evolution(catalog):
    t = _table(catalog, {"row-tracking.enabled": "true"})
    t.write_arrow(tracked_batch([1]))
    with pytest.raises(UnsupportedFeature, match="data-evolution.enabled"):
        update_columns(catalog.get_table("db.t"), _updates([0], ["x"]), ["v"])


def _three_groups(catalog):
    t = _table(catalog)
    for ids in ([1, 3], [5, 7], [9, 11]):  # one partition, three files: three row groups
        t.write_arrow(tracked_batch(ids))
    return catalog.get_table("db.t")


def _files(t) -> set[str]:
    import os

    return {n for _, _, names in os.walk(t.path) for n in names if n.startswith("data-")}


def test_update_read_before_a_compaction_that_rewrote_its_rows_is_refused(catalog):
    """The column file names a row group the compaction merged into a file of another range:
    the commit is refused (nothing lands, its file is deleted), as Java's row-id existence check
    refuses it; run again, the update lands."""
    from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
    from paimon_core.compaction.compaction import compact
    from paimon_core.errors import CommitConflict
    from paimon_core.ops.update_columns import column_update_messages

    t = _three_groups(catalog)
    before = _rows(t)
    messages, _ = column_update_messages(t, _updates([2], ["X"]), ["v"])
    assert compact(t, full=True).snapshot is not None
    t = catalog.get_table("db.t")
    latest, files = t.snapshots.latest_id(), _files(t)
    with pytest.raises(
        CommitConflict, match=r"updates row ids 2\.\.3, but no live file holds exactly those rows"
    ):
        FileStoreCommit(t, CommitOptions()).commit(messages)
    assert t.snapshots.latest_id() == latest and _files(t) == files - {
        m.new_files[0].file_name for m in messages
    }
    assert _rows(t) == before
    update_columns(t, _updates([2], ["X"]), ["v"])
    assert _rows(catalog.get_table("db.t")) == [(r, i, "X" if r == 2 else v) for r, i, v in before]


def test_compaction_that_ran_while_an_update_committed_is_refused(catalog):
    """A column update commits while a compaction of its rows runs: the compaction's commit
    would leave the column file beside a file of another range, and is refused (Java's row-id
    range check of COMPACT commits); the update's values stay, a new compaction keeps them."""
    from paimon_core.compaction.compaction import compact
    from paimon_core.engines.local import LocalEngine
    from paimon_core.errors import CommitConflict

    t = _three_groups(catalog)
    before = _rows(t)

    class UpdateMeanwhile(LocalEngine):
        def compact(self, table, splits, full=True, progress=None):
            messages = super().compact(table, splits, full, progress)
            update_columns(catalog.get_table("db.t"), _updates([2], ["X"]), ["v"])
            return messages

    with pytest.raises(CommitConflict, match="a column update committed while it ran"):
        compact(t, full=True, engine=UpdateMeanwhile())
    t = catalog.get_table("db.t")
    want = [(r, i, "X" if r == 2 else v) for r, i, v in before]
    assert _rows(t) == want and t.snapshots.latest().commit_kind == "APPEND"
    assert compact(t, full=True).snapshot is not None
    assert _rows(catalog.get_table("db.t")) == want
