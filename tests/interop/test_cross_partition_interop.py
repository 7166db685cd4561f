"""Cross-partition upsert tables (primary key ``id`` without the partition key ``dt``, bucket
-1) with Java Paimon 0.9, both ways, for all four merge engines. Java's writes go through its
own cross-partition pieces (``IndexBootstrap``, ``BucketAssigner``, the engine's
``ExistingProcessor``; the harness driver's ``write`` op): each side writes batches that move
keys between partitions on top of the other's, each reads what both wrote, and every read
equals the dict model of the engine's rule with each key once. Java's bootstrap fails on a
key held twice, so its writes on our data also check that we left none. Neither side writes
index files in this mode."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from paimon_core.ops.ingest import write_tables
from tests.core.write.test_cross_partition import ENGINES, _apply

pytestmark = pytest.mark.interop

SCHEMA = [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "v", "type": "BIGINT"},
    {"name": "s", "type": "STRING"},
    {"name": "dt", "type": "STRING"},
]


def _options(engine: str) -> dict:
    return {"bucket": "-1", "dynamic-bucket.target-row-num": "5", "merge-engine": engine, **ENGINES[engine]}


def _java_create(wh: str, name: str, options: dict) -> dict:
    return {
        "op": "create_table",
        "warehouse": wh,
        "table": name,
        "schema": SCHEMA,
        "partition_keys": ["dt"],
        "primary_keys": ["id"],
        "options": options,
    }


def _our_create(cat, name: str, options: dict):
    return cat.create_table(
        name,
        Schema(
            Schema.parse_columns("id BIGINT NOT NULL, v BIGINT, s STRING, dt STRING"),
            partition_keys=("dt",),
            primary_keys=("id",),
            options=options,
        ),
    )


def _rows(rng: random.Random, engine: str, n: int) -> list[tuple]:
    out = []
    for _ in range(n):
        op = "-D" if engine == "deduplicate" and rng.random() < 0.1 else "+I"
        v = None if engine == "partial-update" and rng.random() < 0.3 else rng.randrange(50)
        s = None if rng.random() < 0.3 else f"s{rng.randrange(5)}"
        out.append((rng.randrange(25), v, s, rng.choice("abc"), op))
    return out


def _java_rows(rows: list[tuple]) -> list[dict]:
    return [{"id": k, "v": v, "s": s, "dt": dt, "_row_kind": op} for k, v, s, dt, op in rows]


def _ours(t, rows: list[tuple]) -> None:
    ids, vs, ss, dts, ops = zip(*rows)
    batch = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": pa.array(vs, pa.int64()),
            "s": pa.array(ss, pa.string()),
            "dt": pa.array(dts, pa.string()),
            "op": pa.array(ops, pa.string()),
        }
    )
    write_tables(t, [batch], row_kind_column="op")


def _as_model(rows: list[dict]) -> dict:
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), f"a key in two places: {sorted(ids)}"
    return {r["id"]: (r["v"], r["s"], r["dt"]) for r in rows}


def _read_ours(t) -> dict:
    return _as_model(t.read().to_pylist())


def test_cross_partition_tables_both_ways_with_java_09(java, tmp_path):
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    rng = random.Random(19)
    batches = {e: [_rows(rng, e, 40) for _ in range(6)] for e in ENGINES}
    models = {(e, side): {} for e in ENGINES for side in ("j", "p")}

    def written(engine, side, rows):
        _apply(models[(engine, side)], engine, rows)

    # 1. Java creates and writes j_<engine>; we create and write p_<engine>
    reqs = []
    for e in ENGINES:
        name = f"db.j_{e.replace('-', '_')}"
        reqs.append(_java_create(wh, name, _options(e)))
        for rows in batches[e][:2]:
            reqs.append({"op": "write", "warehouse": wh, "table": name, "rows": _java_rows(rows)})
            written(e, "j", rows)
    java.run(reqs)
    for e in ENGINES:
        p = _our_create(cat, f"db.p_{e.replace('-', '_')}", _options(e))
        for rows in batches[e][:2]:
            _ours(p, rows)
            written(e, "p", rows)
        j = cat.get_table(f"db.j_{e.replace('-', '_')}")
        assert _read_ours(j) == models[(e, "j")], f"{e}: we read Java's table"
        for rows in batches[e][2:4]:  # we move keys in Java's table
            _ours(j, rows)
            written(e, "j", rows)
        assert _read_ours(j) == models[(e, "j")], f"{e}: our writes on Java's table"
        assert _read_ours(p) == models[(e, "p")], f"{e}: our table"

    # 2. Java reads both, writes on both (its bootstrap fails on a key held twice), reads again
    reqs, expect = [], []
    for e in ENGINES:
        for side, more in (("j", batches[e][4]), ("p", batches[e][2])):
            name = f"db.{side}_{e.replace('-', '_')}"
            reqs.append({"op": "read", "warehouse": wh, "table": name})
            expect.append((e, side, dict(models[(e, side)])))
            reqs.append({"op": "write", "warehouse": wh, "table": name, "rows": _java_rows(more)})
            written(e, side, more)
            reqs.append({"op": "read", "warehouse": wh, "table": name})
            expect.append((e, side, dict(models[(e, side)])))
    res = java.run(reqs)
    reads = [r for q, r in zip(reqs, res) if q["op"] == "read"]
    for r, (e, side, model) in zip(reads, expect, strict=True):
        assert _as_model(r["rows"]) == model, f"{e} {side}: Java reads"

    # 3. we read Java's writes and move keys again; Java reads the result
    reqs = []
    for e in ENGINES:
        for side, more in (("j", batches[e][5]), ("p", batches[e][3])):
            t = cat.get_table(f"db.{side}_{e.replace('-', '_')}")
            assert _read_ours(t) == models[(e, side)], f"{e} {side}: we read Java's writes"
            assert t.snapshots.latest().index_manifest is None, "Java writes no index files in this mode"
            _ours(t, more)
            written(e, side, more)
            assert t.snapshots.latest().index_manifest is None, "no index files in this mode"
            reqs.append({"op": "read", "warehouse": wh, "table": t.identifier})
    res = java.run(reqs)
    i = 0
    for e in ENGINES:
        for side in ("j", "p"):
            assert _as_model(res[i]["rows"]) == models[(e, side)], f"{e} {side}: Java reads our last write"
            i += 1


def _layout(t) -> list[tuple]:
    from paimon_core.read.scan import live_entries

    snap = t.snapshots.latest()
    assert snap.index_manifest is None
    codec = t.partition_codec
    return sorted(
        (codec.from_bytes(e.partition), e.bucket, e.total_buckets, e.file.row_count, e.file.delete_row_count)
        for e in live_entries(t.manifests, snap)
        if e.file.level == 0 or t.schema.core_options.merge_engine == "first-row"
    )


def _layout_options(engine: str) -> dict:
    """Level-0 files stay where they are written, except for first-row: Java's bootstrap (its
    batch scan) skips level 0 of first-row tables, so there a write-only table would let Java put
    a key in two partitions (see the harness README)."""
    return {**_options(engine), **({} if engine == "first-row" else {"write-only": "true"})}


def test_a_moved_key_leaves_the_files_java_leaves(java, tmp_path):
    """The same two writes (key 1 in a, then in b) by Java and by us: the same data files per
    (partition, bucket) (a -D in a for deduplicate, an update in a for partial-update and
    aggregation, nothing new for first-row), ``_TOTAL_BUCKETS`` -1, no index manifest."""
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    first, second = [(1, 1, "x", "a", "+I"), (2, 2, "y", "a", "+I")], [(1, 3, None, "b", "+I")]
    reqs = []
    for e in ENGINES:
        name = f"db.j_{e.replace('-', '_')}"
        reqs.append(_java_create(wh, name, _layout_options(e)))
        reqs += [
            {"op": "write", "warehouse": wh, "table": name, "rows": _java_rows(r)} for r in (first, second)
        ]
    java.run(reqs)
    for e in ENGINES:
        p = _our_create(cat, f"db.p_{e.replace('-', '_')}", _layout_options(e))
        for rows in (first, second):
            _ours(p, rows)
        j = cat.get_table(f"db.j_{e.replace('-', '_')}")
        assert _layout(p) == _layout(j), e
        assert _read_ours(p) == _read_ours(j), e
