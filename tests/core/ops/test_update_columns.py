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
