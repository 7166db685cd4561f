"""count(*) / min / max answered from manifests (#25, #26): on random tables the metadata answer
equals DuckDB's answer over the data (names, types and values), it is given wherever Java's
push-down rules allow, and every other query is left to DuckDB."""

from __future__ import annotations

import datetime as dt
import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.data.types import parse_type
from paimon_core.engines.duckdb_sql import DuckDbSql
from paimon_core.engines.sql.partition_filter import partition_filter
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.ops.alter import alter_table
from paimon_core.ops.delete import delete_where
from paimon_core.read.table_read import TableRead

COLUMNS = "dt STRING, k INT, id BIGINT NOT NULL, v INT, d DATE, b BOOLEAN, s STRING, f DOUBLE"
# items: the first four are answered from stats on append tables, s and f never
ITEMS = ["count(*)", "min(id)", "max(v) AS top", "min(d)", "max(b)", "MIN(ID)", "min(s)", "max(f)", "min(w)"]
WHERES = [
    None,
    "dt = 'd1'",
    "dt IN ('d0', 'd2')",
    "NOT (dt = 'd0')",
    "dt IS NULL",
    "dt IS NOT NULL AND k = 1",
    "dt BETWEEN 'd0' AND 'd1' OR k <> 0",
    "dt NOT IN ('d1') AND NOT k BETWEEN 1 AND 1",
    "v > 3",  # a value column: from data
    "k = '1'",  # a literal of another kind: from data (DuckDB's cast rules)
]
METADATA_ITEMS = {"count(*)", "min(id)", "max(v) AS top", "min(d)", "max(b)", "MIN(ID)"}


def _table(catalog, name: str, pk: bool, options: dict):
    keys = ("dt", "k", "id") if pk else ()
    opts = {"bucket": "2" if pk else "-1", **options}
    return catalog.create_table(name, Schema(Schema.parse_columns(COLUMNS), ("dt", "k"), keys, opts))


def _rows(rng: random.Random, n: int, with_w: bool, null_dt: bool = True) -> pa.Table:
    def maybe(v):
        return None if rng.random() < 0.2 else v

    cols = {
        "dt": [rng.choice(["d0", "d1", "d2", None] if null_dt else ["d0", "d1", "d2"]) for _ in range(n)],
        "k": pa.array([rng.randrange(2) for _ in range(n)], pa.int32()),
        "id": pa.array([rng.randrange(-50, 50) for _ in range(n)], pa.int64()),
        "v": pa.array([maybe(rng.randrange(-9, 9)) for _ in range(n)], pa.int32()),
        "d": pa.array([maybe(dt.date(2024, 1, 1) + dt.timedelta(rng.randrange(400))) for _ in range(n)]),
        "b": pa.array([maybe(rng.random() < 0.5) for _ in range(n)], pa.bool_()),
        "s": [maybe(rng.choice(["a", "bb", "x" * 30])) for _ in range(n)],
        "f": pa.array([maybe(rng.choice([1.5, -2.0, float("nan")])) for _ in range(n)], pa.float64()),
    }
    if with_w:
        cols["w"] = pa.array([maybe(rng.randrange(5)) for _ in range(n)], pa.int16())
    return pa.table(cols)


def _step(t, rng: random.Random, with_w: bool, pk: bool) -> None:
    r = rng.random()
    if r < 0.55:
        t.write_arrow(_rows(rng, rng.randrange(1, 30), with_w, not pk))
    elif r < 0.7:
        delete_where(t, f"id < {rng.randrange(-30, 10)} AND k = {rng.randrange(2)}")
    elif r < 0.85:
        compact(t, full=True)
    else:
        compact(t)


def _query(rng: random.Random, name: str, has_w: bool) -> tuple[str, bool]:
    """A random query of the qualifying shape, and whether stats may answer all it asks."""
    pool = ITEMS if has_w else ITEMS[:-1]
    items = rng.sample(pool, rng.randrange(1, 4))
    where = rng.choice(WHERES)
    text = f"SELECT {', '.join(items)} FROM {name}" + (f" WHERE {where}" if where else "")
    twice = {"min(id)", "MIN(ID)"} <= set(items)  # one name twice (case aside): left to DuckDB
    return text, set(items) <= METADATA_ITEMS and where not in ("v > 3", "k = '1'") and not twice


KINDS = [
    ("append", False, {}),
    ("append-dv", False, {"deletion-vectors.enabled": "true"}),
    ("append-counts", False, {"metadata.stats-mode": "counts"}),
    ("pk", True, {}),
    ("pk-dv", True, {"deletion-vectors.enabled": "true"}),
]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("kind,pk,options", KINDS, ids=[k[0] for k in KINDS])
def test_metadata_answers_equal_data_answers_on_random_tables(tmp_path, seed, kind, pk, options):
    rng = random.Random(seed)
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    t = _table(catalog, "db.t", pk, options)
    fast, slow = DuckDbSql(catalog), DuckDbSql(catalog, metadata_aggregates=False)
    answered = 0
    has_w = False
    t.write_arrow(_rows(rng, 20, False, not pk))  # snapshot 1, for VERSION AS OF 1
    for step in range(12):
        if step == 6 and not pk:  # files before it lack column w: NULL there
            alter_table(t, [AddColumn("w", parse_type("SMALLINT"))])
            t = catalog.get_table("db.t")
            has_w = True
        _step(t, rng, has_w, pk)
        for _ in range(6):
            query, stats_only = _query(rng, "db.t", has_w)
            if step % 4 == 3 and "min(w)" not in query:  # snapshot 1 has no column w
                query = query.replace("FROM db.t", "FROM db.t VERSION AS OF 1")
            got, expected = fast.query_table(query), slow.query_table(query)
            assert got.schema == expected.schema, query
            assert repr(got.to_pylist()) == repr(expected.to_pylist()), query  # NaN == NaN here
            assert not slow.from_metadata
            answered += fast.from_metadata
            if kind == "append" and stats_only:
                assert fast.from_metadata, query  # Java's rules allow it: answered from stats
            if "min(s)" in query or "max(f)" in query or "v > 3" in query or "k = '1'" in query:
                assert not fast.from_metadata, query
            if pk and ("min(" in query.lower() or "max(" in query.lower()):
                assert not fast.from_metadata, query  # Java refuses MIN/MAX on PK tables
    compact(t, full=True)
    got = fast.query_table("SELECT count(*) FROM db.t WHERE dt = 'd1'")
    assert got.equals(slow.query_table("SELECT count(*) FROM db.t WHERE dt = 'd1'"))
    if kind != "append-dv":  # vectors that outlive a full compaction leave counts exact too
        assert fast.from_metadata, kind  # fully compacted: one run per bucket
    assert answered or pk  # PK tables between full compactions hold overlapping runs


def test_answers_from_metadata_read_no_data_file(tmp_path, monkeypatch):
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    t = _table(catalog, "db.t", False, {})
    rng = random.Random(3)
    rows = _rows(rng, 50, False)
    t.write_arrow(rows)
    t.write_arrow(rows)
    expected = DuckDbSql(catalog, metadata_aggregates=False).query_table(
        "SELECT count(*) AS n, min(id), max(d) FROM db.t WHERE dt = 'd1'"
    )

    def refuse(*a, **k):
        raise AssertionError("a data file was read")

    monkeypatch.setattr(TableRead, "read_file", refuse)
    engine = DuckDbSql(catalog)
    got = engine.query_table("SELECT count(*) AS n, min(id), max(d) FROM db.t WHERE dt = 'd1'")
    assert engine.from_metadata and got.equals(expected)
    assert got.column_names == ["n", "min(id)", "max(d)"]
    assert engine._con is None  # DuckDB was never started


def test_empty_table_and_all_null_column(tmp_path):
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    t = _table(catalog, "db.t", False, {})
    fast, slow = DuckDbSql(catalog), DuckDbSql(catalog, metadata_aggregates=False)
    query = "SELECT count(*), min(v), max(d) FROM db.t"
    assert fast.query_table(query).equals(slow.query_table(query)) and fast.from_metadata
    rows = _rows(random.Random(1), 5, False)
    t.write_arrow(rows.set_column(3, "v", pa.nulls(5, pa.int32())))
    got = fast.query_table(query)
    assert fast.from_metadata and got.equals(slow.query_table(query))
    assert got.column("min(v)").to_pylist() == [None]


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT count(*) FROM db.t GROUP BY dt",
        "SELECT count(*) FROM db.t x",
        "SELECT count(DISTINCT id) FROM db.t",
        "SELECT count(id) FROM db.t",
        "SELECT count(*) + 1 FROM db.t",
        "SELECT count(*) FROM db.t WHERE dt = 'd1' LIMIT 0",
        "SELECT count(*) FROM db.t WHERE random() < 0.5",
        "SELECT count(*) FROM db.t WHERE dt LIKE 'd%'",
        "SELECT count(*) FROM db.t WHERE DT = 'd1'",
        "SELECT count(*), count(*) FROM db.t",
        "SELECT count(*) FROM db.t, db.t",
        "SELECT count(*) FROM `db.t$snapshots`",
    ],
)
def test_other_shapes_run_on_duckdb(tmp_path, statement):
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    t = _table(catalog, "db.t", False, {})
    t.write_arrow(_rows(random.Random(2), 20, False))
    engine = DuckDbSql(catalog)
    engine.query_table(statement)
    assert not engine.from_metadata


def test_partition_filter_forms(tmp_path):
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    cols = Schema.parse_columns("dt STRING, k INT, b BOOLEAN, v INT")
    ts = catalog.create_table("db.p", Schema(cols, ("dt", "k", "b"))).schema

    def check(where: str, kept: list[dict]):
        f = partition_filter(where, ts)
        assert f is not None, where
        for values in [
            {"dt": "a'b", "k": 1, "b": True},
            {"dt": None, "k": 2, "b": False},
            {"dt": "x", "k": None, "b": None},
        ]:
            assert f.holds(values) == (values in kept), (where, values)

    a = {"dt": "a'b", "k": 1, "b": True}
    n = {"dt": None, "k": 2, "b": False}
    check("dt = 'a''b' AND k IN (1, -2)", [a])
    check("NOT b = TRUE OR k IS NOT NULL", [a, n])
    check("(k NOT BETWEEN 1 AND 1)", [n])  # NULL k: unknown
    check("NOT (dt = 'x')", [a])  # NULL dt: unknown, not kept
    check("dt NOT IN ('x') OR dt IS NULL", [a, n])
    check("k IN (2, NULL)", [n])  # NULL in the list: unknown, not false, where k is not 2
    check("NOT k NOT IN (2, NULL)", [n])
    check("k == 1 OR b <> TRUE", [a, n])
    for other in [
        "v = 1",
        "k = '1'",
        "dt = 1",
        "k = 1.5",
        "k = k",
        "upper(dt) = 'A'",
        "dt = 'a' --",
        "k + 1 = 2",
        "k = 3000000000",
        "k = TRUE",
        "b = 1",
        "DT = 'a'",
        "`dt` = 'a'",
        "dt LIKE 'a%'",
        "dt = NULL",
    ]:
        assert partition_filter(other, ts) is None, other


def test_date_partition_literals(tmp_path):
    catalog = FileSystemCatalog(str(tmp_path / "wh"))
    ts = catalog.create_table("db.p", Schema(Schema.parse_columns("d DATE, v INT"), ("d",))).schema
    day = (dt.date(2024, 3, 1) - dt.date(1970, 1, 1)).days  # a DATE partition's internal value
    f = partition_filter("d BETWEEN '2024-02-29' AND '2024-03-01'", ts)
    assert f is not None and f.holds({"d": day}) and not f.holds({"d": day + 1})
    assert not f.holds({"d": None})
    for other in ["d = '2024-02-30'", "d = '2024-3-1'", "d = 20240301", "d = '2024-03-01 00:00:00'"]:
        assert partition_filter(other, ts) is None, other
