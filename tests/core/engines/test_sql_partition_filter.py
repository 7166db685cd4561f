"""Property: on random partitioned tables (STRING, INT and DATE partition columns, NULL partition
values) and random partition predicates (comparisons, [NOT] IN with and without NULL, IS [NOT]
NULL, [NOT] BETWEEN, AND/OR/NOT), ``count(*)`` answered from partition values equals DuckDB's
count over the data and the rows ``read --where`` returns."""

from __future__ import annotations

import datetime as dt
import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.engines.duckdb_sql import DuckDbSql
from paimon_core.metadata.schema import Schema

VALUES = {
    "s": ["a", "b", "it's", "zz", None],
    "i": [-1, 0, 1, 2, None],
    "d": [dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(2023, 12, 31), None],
}
LITERALS = {
    "s": ["'a'", "'b'", "'it''s'", "'c'", "''"],
    "i": ["-1", "0", "1", "2", "7", "-2147483648"],
    "d": ["'2024-01-01'", "'2024-01-02'", "'2023-12-31'", "'2024-02-29'"],
}
OPS = ["=", "<>", "!=", "<", "<=", ">", ">="]


def _leaf(rng: random.Random) -> str:
    col = rng.choice(sorted(VALUES))
    lit = LITERALS[col]
    kind = rng.randrange(4)
    if kind == 0:
        return f"{col} {rng.choice(OPS)} {rng.choice(lit)}"
    if kind == 1:
        items = rng.sample(lit, rng.randrange(1, 3)) + (["NULL"] if rng.random() < 0.3 else [])
        return f"{col} {rng.choice(['', 'NOT '])}IN ({', '.join(items)})"
    if kind == 2:
        return f"{col} IS {rng.choice(['', 'NOT '])}NULL"
    lo, hi = rng.choice(lit), rng.choice(lit)
    return f"{col} {rng.choice(['', 'NOT '])}BETWEEN {lo} AND {hi}"


def _predicate(rng: random.Random, depth: int = 0) -> str:
    r = rng.random()
    if depth >= 3 or r < 0.4:
        return _leaf(rng)
    if r < 0.55:
        return f"NOT ({_predicate(rng, depth + 1)})"
    op = rng.choice(["AND", "OR"])
    return f"({_predicate(rng, depth + 1)} {op} {_predicate(rng, depth + 1)})"


def _rows(rng: random.Random, n: int) -> pa.Table:
    return pa.table(
        {
            "s": pa.array([rng.choice(VALUES["s"]) for _ in range(n)], pa.string()),
            "i": pa.array([rng.choice(VALUES["i"]) for _ in range(n)], pa.int32()),
            "d": pa.array([rng.choice(VALUES["d"]) for _ in range(n)], pa.date32()),
            "v": pa.array(range(n), pa.int64()),
        }
    )


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_partition_counts_from_metadata_equal_counts_over_the_data(tmp_path, seed):
    rng = random.Random(seed)
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    columns = Schema.parse_columns("s STRING, i INT, d DATE, v BIGINT")
    t = catalog.create_table("db.t", Schema(columns, ("s", "i", "d"), (), {"bucket": "-1"}))
    for _ in range(4):
        t.write_arrow(_rows(rng, rng.randrange(5, 40)))
    t = catalog.get_table("db.t")
    fast, slow = DuckDbSql(catalog), DuckDbSql(catalog, metadata_aggregates=False)
    for _ in range(40):
        where = _predicate(rng)
        query = f"SELECT count(*) FROM db.t WHERE {where}"
        got = fast.query_table(query).column(0).to_pylist()
        assert fast.from_metadata, where  # every generated form is answered from partition values
        assert got == slow.query_table(query).column(0).to_pylist(), where
        assert got == [t.to_arrow(where=where).num_rows], where
