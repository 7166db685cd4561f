"""A snapshot's ``operation`` (Java 2.0's ``Snapshot.Operation``): TRUNCATE for a dropped
partition and a replaced table (as Java's core writes it: ``truncatePartitions``,
``truncateTable``), DELETE and MERGE (a column update) as Java's engines name them; none for plain
writes and overwrites (as Java's core and Flink write them: the metadata conformance test compares
the keys) and for maintenance (compaction, analyze, partition expiry). The key is read back, kept
through tags, and absent from snapshots without one (what every writer before 2.0 wrote)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from paimon_core.commit.file_store_commit import CommitOptions
from paimon_core.compaction.compaction import full_compact
from paimon_core.maintain.partition_expire import ExpireSettings, expire_partitions
from paimon_core.maintain.partitions import drop_partitions
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.ops.analyze import analyze
from paimon_core.ops.delete import delete_where
from paimon_core.ops.update_columns import update_columns
from paimon_core.systables import open_system_table
from tests.core.ops.test_row_tracking import tracked_batch

ROWS = pa.table(
    {
        "id": pa.array([1, 2, 3], pa.int64()),
        "v": ["a", "b", "c"],
        "dt": ["2024-01-01", "2024-01-02", "2024-01-02"],
    }
)


def _table(catalog, pk: bool = False, **options):
    cols = Schema.parse_columns("id BIGINT, v STRING, dt STRING")
    keys = ("id", "dt") if pk else ()
    opts = {"bucket": "1"} if pk else {}
    return catalog.create_table(
        "db.t", Schema(cols, partition_keys=("dt",), primary_keys=keys, options={**opts, **options})
    )


def _operations(catalog) -> list:
    t = catalog.get_table("db.t")
    return [s.operation for s in t.snapshots.snapshots()]


def _raw(catalog, snapshot_id: int) -> dict:
    t = catalog.get_table("db.t")
    return json.loads(t.io.read_text(t.snapshots.path(snapshot_id)))


@pytest.mark.parametrize("pk", [False, True], ids=["append", "pk"])
def test_writes_deletes_drops_and_maintenance_name_their_operation(catalog, pk):
    t = _table(catalog, pk)
    t.write_arrow(ROWS)  # 1 a write: no operation
    t.write_arrow(ROWS)  # 2 (a second file per partition, for the compaction)
    t.write_arrow(ROWS.slice(0, 1), overwrite=True)  # 3 an overwrite (partition 2024-01-01): none
    delete_where(catalog.get_table("db.t"), "id = 3")  # 4 DELETE
    full_compact(catalog.get_table("db.t"))  # 5 COMPACT: no operation
    analyze(catalog.get_table("db.t"))  # 6 ANALYZE: no operation
    drop_partitions(catalog.get_table("db.t"), [("2024-01-02",)])  # 7 TRUNCATE
    snaps = catalog.get_table("db.t").snapshots.snapshots()
    assert [(s.commit_kind, s.operation) for s in snaps][2:] == [
        ("OVERWRITE", None),
        ("APPEND" if pk else "OVERWRITE", "DELETE"),  # -D records; a rewrite
        ("COMPACT", None),
        ("ANALYZE", None),
        ("OVERWRITE", "TRUNCATE"),
    ]
    assert [s.operation for s in snaps][:2] == [None, None]
    assert _raw(catalog, 7)["operation"] == "TRUNCATE"
    assert "operation" not in _raw(catalog, 1) and "operation" not in _raw(catalog, 5)  # no null key


def test_partition_expiry_commits_without_an_operation_as_java(catalog):
    t = _table(catalog)
    t.write_arrow(ROWS)
    settings = ExpireSettings(
        expiration_ms=1, strategy="values-time", formatter="yyyy-MM-dd", pattern=None, max_num=100
    )
    got = expire_partitions(catalog.get_table("db.t"), settings)
    assert got.snapshot is not None and _operations(catalog) == [None, None]


def test_a_column_update_is_a_merge(catalog):
    options = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    cols = Schema.parse_columns("id BIGINT, v STRING, p STRING")
    t = catalog.create_table("db.t", Schema(cols, partition_keys=("p",), options=options))
    t.write_arrow(tracked_batch([1, 2]))
    update_columns(
        catalog.get_table("db.t"), pa.table({"_ROW_ID": pa.array([0], pa.int64()), "v": ["x"]}), ["v"]
    )
    assert _operations(catalog) == [None, "MERGE"]


def test_replace_truncates_with_operation_truncate(catalog):
    t = _table(catalog)
    t.write_arrow(ROWS)
    catalog.replace_table(
        "db.t", Schema(Schema.parse_columns("id BIGINT, w STRING, dt STRING"), partition_keys=("dt",))
    )
    assert _operations(catalog) == [None, "TRUNCATE"]


def test_the_operation_is_read_back_kept_by_tags_and_shown_in_snapshots(catalog):
    from paimon_core import create_tag

    t = _table(catalog)
    t.write_arrow(ROWS)
    drop_partitions(catalog.get_table("db.t"), [("2024-01-01",)])
    t = catalog.get_table("db.t")
    create_tag(t, "after_drop", 2)
    tag_json = json.loads(t.io.read_text(t.io.join(t.path, "tag", "tag-after_drop")))
    assert tag_json["operation"] == "TRUNCATE"
    shown = open_system_table(catalog, "db.t$snapshots").to_arrow()
    assert shown.column("operation").to_pylist() == [None, "TRUNCATE"]
    assert shown.schema.field("operation").type == pa.string()


def test_snapshots_of_every_operation_round_trip_and_unknown_ones_are_refused():
    base = dict(
        id=1,
        schema_id=0,
        base_manifest_list="b",
        delta_manifest_list="d",
        commit_user="u",
        commit_identifier=1,
        commit_kind="APPEND",
        time_millis=1,
        total_record_count=0,
        delta_record_count=0,
    )
    for op in ("WRITE", "TRUNCATE", "REPLACE_TABLE_AS_SELECT", None):
        snap = Snapshot(**base, operation=op)
        text = snap.to_json()
        assert Snapshot.from_json(text).operation == op
        assert ('"operation"' in text) == (op is not None)
        assert not Snapshot.from_json(text).extra
    with pytest.raises(ValueError, match="unknown snapshot operation 'TRUNCATED'"):
        CommitOptions(operation="TRUNCATED")
