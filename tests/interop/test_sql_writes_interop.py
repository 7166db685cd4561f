"""Writes through `paimon sql` (DuckDB): INSERT INTO, INSERT OVERWRITE ... PARTITION and DELETE,
one snapshot each, on an append table and a primary-key table; Java Paimon and pypaimon 2.1 read
every resulting snapshot as we do."""

from __future__ import annotations

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.engines import duckdb_engine
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "n", "type": "BIGINT"},
    {"name": "p", "type": "STRING"},
]
TABLES = {"log": ([], {"bucket": "-1"}), "pk": (["id", "p"], {"bucket": "2"})}

STATEMENTS = [
    "INSERT INTO db.{t} SELECT i::INT, 'v' || i, i * 10, 'p' || (i % 3) FROM range(0, 300) r(i)",
    "INSERT INTO db.{t} (id, p, n) VALUES (1000, 'p0', 1), (1001, 'p1', 2)",
    "DELETE FROM db.{t} WHERE n < 500 AND p = 'p1'",
    "INSERT OVERWRITE db.{t} PARTITION (p = 'p2') SELECT id, v, n FROM db.{t} WHERE p = 'p2' AND id < 50",
]


def test_sql_writes_read_by_java_and_pypaimon(java, pypaimon, tmp_path):
    wh = tmp_path / "wh"
    for name, (pks, options) in TABLES.items():
        java.create_table(str(wh), f"db.{name}", SCHEMA, ["p"], pks, options)
    catalog = FileSystemCatalog(str(wh))
    engine = duckdb_engine(catalog)
    for name in TABLES:
        table = catalog.get_table(f"db.{name}")
        for i, sql in enumerate(STATEMENTS, start=1):
            w = engine.run(sql.format(t=name)).write
            assert w is not None and w.snapshot == i, (name, sql)
            assert table.snapshots.latest().id == i
            ours = rows_from_arrow(table.read(snapshot_id=i))
            assert_same_rows(java.read(str(wh), f"db.{name}", snapshot=i), ours)
        latest = rows_from_arrow(table.read())
        assert_same_rows(pypaimon.read(str(wh), f"db.{name}"), latest)
        assert {r["p"] for r in latest if r["id"] < 50 and r["p"] == "p2"} == {"p2"}
        assert not [r for r in latest if r["p"] == "p2" and r["id"] >= 50]
