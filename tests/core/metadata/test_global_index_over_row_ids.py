"""A global index over row ids (the global bitmap fixture, 1.3: f0, f1, f2 indexed) under our
commits (``index_manifest.check_writable_index``): what keeps every row's id and indexed values
is taken and the index kept; what would make it lie is refused by name, nothing written."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import UnsupportedFeature
from paimon_core.metadata.index_manifest import IndexStore, _row_ids, check_writable_index
from paimon_core.metadata.live_files import live_entries
from paimon_core.ops.delete import delete_where
from paimon_core.ops.update_columns import update_columns
from tests.java1x import fixture_copy

NAME = "global-bitmap-index-orc-1.3"


def _index(t):
    return IndexStore(t.io, t.path).read_manifest(t.snapshots.latest().index_manifest)


@pytest.mark.slow
def test_update_of_unindexed_column_and_compaction_keep_the_index(tmp_path):
    wh, ident = fixture_copy(NAME, tmp_path)
    c = FileSystemCatalog(wh)
    index = _index(c.get_table(ident))
    update_columns(c.get_table(ident), pa.table({"_ROW_ID": pa.array([0], pa.int64()), "f3": [1.0]}), ["f3"])
    full_compact(c.get_table(ident))
    t = c.get_table(ident)
    assert t.snapshots.latest_id() == 6 and _index(t) == index
    got = t.read(columns=["_ROW_ID", "f0", "f3"], where="f0 = 'Alice'").to_pylist()
    assert sorted((r["_ROW_ID"], r["f3"]) for r in got) == [(0, 1.0), (7, 18.1)]


@pytest.mark.parametrize(
    ("write", "words"),
    [
        (lambda t: t.write_arrow(t.read()), "adding rows is not supported"),
        (
            lambda t: update_columns(t, pa.table({"_ROW_ID": pa.array([0], pa.int64()), "f2": [5]}), ["f2"]),
            "a write of indexed column f2",
        ),
        (lambda t: delete_where(t, "f3 > 15"), "a write that removes rows or files"),
    ],
)
def test_writes_that_would_make_it_lie_are_refused(tmp_path, write, words):
    wh, ident = fixture_copy(NAME, tmp_path)
    c = FileSystemCatalog(wh)
    with pytest.raises(UnsupportedFeature, match=words):
        write(c.get_table(ident))
    assert c.get_table(ident).snapshots.latest_id() == 4


def test_a_compaction_that_renumbers_rows_is_refused(tmp_path):

    wh, ident = fixture_copy(NAME, tmp_path)
    t = FileSystemCatalog(wh).get_table(ident)
    files = live_entries(t.manifests, t.snapshots.latest())
    assert _row_ids(files) == [(0, 8)]
    shorter = [e._replace(file=e.file._replace(row_count=7)) for e in files]
    with pytest.raises(UnsupportedFeature, match="does not keep every row id"):
        check_writable_index(_index(t), "t", shorter, files, compact=True, fields=t.schema.fields)
    check_writable_index(_index(t), "t", files, files, compact=True, fields=t.schema.fields)
