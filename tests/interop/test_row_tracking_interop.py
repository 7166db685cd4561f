"""Row tracking with pypaimon 2.1.0: after each of our writes (appends into two partitions,
compaction, copy-on-write delete) pypaimon reads the same rows with the same ``_ROW_ID`` and
``_SEQUENCE_NUMBER`` as we do; and we append to a row-tracking table pypaimon wrote, continuing
its ``nextRowId``."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where
from tests.core.ops.test_row_tracking import tracked_batch
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = [pytest.mark.interop, pytest.mark.slow]

COLUMNS = ["id", "v", "p", "_ROW_ID", "_SEQUENCE_NUMBER"]
TYPES = {"id": "BIGINT", "v": "STRING", "p": "STRING", "_ROW_ID": "BIGINT", "_SEQUENCE_NUMBER": "BIGINT"}


def _ours(wh):
    return rows_from_arrow(FileSystemCatalog(wh).get_table("db.t").read(columns=COLUMNS), TYPES)


def _read_request(wh):
    return {"op": "read", "warehouse": wh, "table": "db.t", "projection": COLUMNS}


def test_pypaimon_reads_our_row_ids_after_each_step(pypaimon, tmp_path):
    wh = str(tmp_path / "wh")
    catalog = FileSystemCatalog(wh)
    schema = Schema(Schema.parse_columns("id BIGINT, v STRING, p STRING"), partition_keys=("p",))
    t = catalog.create_table(
        "db.t", Schema(schema.columns, partition_keys=("p",), options={"row-tracking.enabled": "true"})
    )
    steps = []
    for ids in ([1, 2, 3, 4], [5, 6], [7, 8, 9]):
        t.write_arrow(tracked_batch(ids))
        steps.append(("append", _ours(wh)))
    full_compact(catalog.get_table("db.t"))
    steps.append(("compact", _ours(wh)))
    delete_where(catalog.get_table("db.t"), "id = 5 OR id = 8")
    steps.append(("delete", _ours(wh)))
    assert len({r["_ROW_ID"] for r in steps[-1][1]}) == 7
    # pypaimon reads the final state; each earlier state is a snapshot it reads too
    reqs = [dict(_read_request(wh), snapshot=i + 1) for i in range(len(steps))]
    for (label, ours), theirs in zip(steps, pypaimon.run(reqs), strict=True):
        assert_same_rows(theirs["rows"], ours, label_a=f"pypaimon after {label}", label_b="ours")


def test_we_continue_row_ids_of_a_pypaimon_table(pypaimon, tmp_path):
    wh = str(tmp_path / "wh")
    schema = [
        {"name": "id", "type": "BIGINT"},
        {"name": "v", "type": "STRING"},
        {"name": "p", "type": "STRING"},
    ]
    rows = [{"id": i, "v": f"v{i}", "p": "a"} for i in range(5)]
    pypaimon.run(
        [
            {
                "op": "create_table",
                "warehouse": wh,
                "table": "db.t",
                "schema": schema,
                "partition_keys": ["p"],
                "options": {"row-tracking.enabled": "true"},
            },
            {"op": "write", "warehouse": wh, "table": "db.t", "rows": rows},
        ]
    )
    t = FileSystemCatalog(wh).get_table("db.t")
    assert t.snapshots.latest().next_row_id == 5
    t.write_arrow(tracked_batch([10, 11]))
    full_compact(FileSystemCatalog(wh).get_table("db.t"))
    ours = _ours(wh)
    assert sorted(r["_ROW_ID"] for r in ours) == list(range(7))
    assert_same_rows(pypaimon.run([_read_request(wh)])[0]["rows"], ours, label_a="pypaimon", label_b="ours")


def test_pypaimon_reads_our_column_updates_and_their_compaction(pypaimon, tmp_path):
    """Data evolution: appends, two column updates (files of column v only, as Java's MERGE INTO
    writes them) and a compaction that merges them into whole rows, each read by pypaimon at its
    snapshot with the same _ROW_ID, values and _SEQUENCE_NUMBER as ours."""
    from paimon_core.ops.update_columns import update_columns

    wh = str(tmp_path / "wh")
    catalog = FileSystemCatalog(wh)
    options = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    cols = Schema.parse_columns("id BIGINT, v STRING, p STRING")
    catalog.create_table("db.t", Schema(cols, partition_keys=("p",), options=options))
    steps = []
    for ids in ([1, 2, 3, 4], [5, 6]):
        catalog.get_table("db.t").write_arrow(tracked_batch(ids))
        steps.append(("append", _ours(wh)))
    for ids, v in (([0, 4], ["A", "E"]), ([0], ["AA"])):
        updates = pa.table({"_ROW_ID": pa.array(ids, pa.int64()), "v": v})
        update_columns(catalog.get_table("db.t"), updates, ["v"])
        steps.append(("update", _ours(wh)))
    full_compact(catalog.get_table("db.t"))
    steps.append(("compact", _ours(wh)))
    assert {r["_ROW_ID"]: r["v"] for r in steps[-1][1]}[0] == "AA"
    reqs = [dict(_read_request(wh), snapshot=i + 1) for i in range(len(steps))]
    for (label, ours), theirs in zip(steps, pypaimon.run(reqs), strict=True):
        assert_same_rows(theirs["rows"], ours, label_a=f"pypaimon after {label}", label_b="ours")
