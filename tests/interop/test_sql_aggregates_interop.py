"""count(*), min and max from manifests on tables Java Paimon wrote (0.9: a NULL stats field per
column; 1.4.2: dense stats, ``_VALUE_STATS_COLS``): the metadata answer equals DuckDB's over the
data and the rows Java reads, and is given where Java's push-down rules allow it."""

from __future__ import annotations

import datetime as dt

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.engines.duckdb_sql import DuckDbSql

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "n", "type": "BIGINT"},
    {"name": "d", "type": "DATE"},
    {"name": "b", "type": "BOOLEAN"},
    {"name": "s", "type": "STRING"},
    {"name": "p", "type": "STRING"},
]
TABLES = {  # name: (primary keys, options, whether count/min/max of n, d, b come from stats)
    "log": ([], {"bucket": "-1"}, True),
    "log_full": ([], {"bucket": "-1", "metadata.stats-mode": "full"}, True),
    "log_none": ([], {"bucket": "-1", "metadata.stats-mode": "none"}, False),
    "pk": (["id", "p"], {"bucket": "2"}, False),
}
QUERIES = [
    "SELECT count(*) FROM db.{t}",
    "SELECT count(*) AS c, min(id), max(n), min(d), max(b) FROM db.{t}",
    "SELECT min(n), max(d) FROM db.{t} WHERE p = 'p1'",
    "SELECT count(*), max(id) FROM db.{t} WHERE p IN ('p0', 'p2') OR p IS NULL",
    "SELECT max(s) FROM db.{t}",  # a string: from data
]


def _rows(k: int) -> list[dict]:
    out = []
    for i in range(40):
        j = k * 100 + i
        out.append(
            {
                "id": j,
                "n": None if j % 7 == 0 else (j * 37) % 101 - 50,
                "d": None if j % 5 == 0 else str(dt.date(2024, 1, 1) + dt.timedelta(days=(j * 13) % 300)),
                "b": None if j % 3 == 0 else bool(j % 2),
                "s": f"s{j % 11}",
                "p": f"p{j % 3}",
            }
        )
    return out


def test_aggregates_from_metadata_on_java_tables(java, tmp_path):
    wh = str(tmp_path / "wh")
    reqs = []
    for name, (pks, options, _) in TABLES.items():
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": f"db.{name}",
                "schema": SCHEMA,
                "partition_keys": ["p"],
                "primary_keys": pks,
                "options": options,
            }
        )
        for k in range(3):
            reqs.append({"op": "write", "warehouse": wh, "table": f"db.{name}", "rows": _rows(k)})
    java.run(reqs)
    java.compact(wh, "db.pk", full=True)  # one run per bucket: counts from metadata
    catalog = FileSystemCatalog(wh)
    fast, slow = DuckDbSql(catalog), DuckDbSql(catalog, metadata_aggregates=False)
    for name, (_, _, stats) in TABLES.items():
        java_rows = java.read(wh, f"db.{name}")
        for query in QUERIES:
            q = query.format(t=name)
            got, expected = fast.query_table(q), slow.query_table(q)
            assert got.schema == expected.schema and got.to_pylist() == expected.to_pylist(), q
            simple_count = q == f"SELECT count(*) FROM db.{name}"
            if "max(s)" in q:
                assert not fast.from_metadata, q
            elif stats or simple_count:  # a count needs no column statistics
                assert fast.from_metadata, (java.version, q)
            else:
                assert not fast.from_metadata, (java.version, q)  # no stats, or a PK table
        n = fast.query_table(f"SELECT count(*) AS n, min(id) AS lo FROM db.{name}").to_pylist()[0]
        assert n == {"n": len(java_rows), "lo": min(r["id"] for r in java_rows)}
