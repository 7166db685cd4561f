"""Pruned planning and metadata counts over tables Java Paimon writes (#26).

Skipping an Avro block for holding none of a pinned partition's bytes relies on Java
serializing a partition's BinaryRow exactly as we do (short and long strings, INT, a NULL).
Java writes 150 partitions in one commit (a manifest of several blocks) and a second commit;
for each pinned filter our plan equals the unpruned plan filtered, and our metadata count
equals the rows Java reads.
"""

from __future__ import annotations

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata import manifest_cache
from paimon_core.read.partition_filter import needles
from tests.interop.data import schema_json

T = "db.parts"
COLS = [("s", "STRING"), ("h", "INT"), ("id", "BIGINT")]
S_VALUES = ["a", "a-string-longer-than-seven-bytes", None]


def _rows(commit: int) -> list[dict]:
    return [{"s": S_VALUES[i % 3], "h": i // 3, "id": commit * 1000 + i} for i in range(150)]


def test_pinned_partitions_plan_and_count_java_tables(tmp_path, java):
    wh = str(tmp_path / "wh")
    t = {"warehouse": wh, "table": T}
    java.run(
        [
            {
                **t,
                "op": "create_table",
                "schema": schema_json(COLS),
                "partition_keys": ["s", "h"],
                "primary_keys": [],
                "options": {"bucket": "-1"},
            },
            {**t, "op": "write", "rows": _rows(1)},
            {**t, "op": "write", "rows": _rows(2)},
        ]
    )
    table = FileSystemCatalog(wh).get_table(T)
    snap = table.snapshots.latest()
    everything = table.plan(snap)
    for where in [
        "s = 'a' AND h = 9",
        "s = 'a-string-longer-than-seven-bytes' AND h IN (1, 10, 49)",
        "(s = 'a' OR s = 'zz') AND h = 0",
    ]:
        predicate = table.parse_filter(where)
        assert needles(predicate, table.partition_codec), where
        manifest_cache.clear()
        got = {(s.partition, f.file_name) for s in table.plan(snap, predicate) for f in s.files}
        rows = table.read(where=where)
        expected = {
            (s.partition, f.file_name)
            for s in everything
            for f in s.files
            if s.partition in {(r["s"], r["h"]) for r in rows.to_pylist()}
        }
        assert got == expected and got, where
        assert table.count(where) == rows.num_rows == len(got), where  # one row per file
    (java_all,) = java.run([{**t, "op": "read"}])
    assert table.count() == len(java_all["rows"]) == 300
