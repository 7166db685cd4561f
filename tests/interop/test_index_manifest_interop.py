"""Index manifest layouts against Java Paimon 0.9 (docs/format.md section 9):

* Java 0.9's own index manifests have exactly the 0.9 schema spelled out in
  ``tests/core/metadata/test_newer_index_manifest.py``; our rewrite of such a table keeps it (hash
  indexes) or moves to 1.0's (our deletion vectors carry ``_CARDINALITY``), and Java 0.9 reads
  our result and writes and compacts on top of it, every reader agreeing;
* an index manifest in Paimon 2.0's schema, with a global index entry of a type nobody here
  knows, rewritten by our commit in 2.0's schema: Java 0.9 and pypaimon 2.1.0 read the table
  as we do (Java 0.9 skips ``_GLOBAL_INDEX``, a field it does not know)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where
from tests.core.metadata.test_newer_index_manifest import (
    SPEC_2_0,
    _by_name,
    _canon,
    _global,
    _plant,
    _raw,
    _spec,
)
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

SCHEMA = [{"name": "k", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}]
TABLES = {  # name -> (options, layout of our rewrite)
    "dv": ({"bucket": "2", "deletion-vectors.enabled": "true"}, "1.0"),
    "dyn": ({"bucket": "-1", "dynamic-bucket.target-row-num": "50"}, "0.9"),
}


def _rows(ks, v):
    return [{"k": k, "v": f"{v}{k}"} for k in ks]


def _ours(t) -> list[dict]:
    return rows_from_arrow(t.read())


def test_java_09_tables_keep_their_layout_through_our_rewrites(java, tmp_path):
    wh = str(tmp_path / "wh")
    reqs = []
    for name, (opts, _) in TABLES.items():
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": f"db.{name}",
                "schema": SCHEMA,
                "partition_keys": [],
                "primary_keys": ["k"],
                "options": opts,
            }
        )
        reqs.append({"op": "write", "warehouse": wh, "table": f"db.{name}", "rows": _rows(range(200), "a")})
        reqs.append(
            {"op": "write", "warehouse": wh, "table": f"db.{name}", "rows": _rows(range(0, 200, 3), "b")}
        )
    java.run(reqs)
    cat = FileSystemCatalog(wh)
    ours = {}
    for name, (_, layout) in TABLES.items():
        t = cat.get_table(f"db.{name}")
        # Java 0.9 writes the 0.9 schema; Java 1.4.2 its own (_CARDINALITY, _EXTERNAL_PATH,
        # _GLOBAL_INDEX without 2.0's _SOURCE_META), which our rewrite then keeps
        own = _spec("0.9") if java.version == "0.9" else _spec("1.4")
        assert _canon(_raw(t)[0]) == _canon(own), f"{name}: Java {java.version}'s own index manifest"
        ks = list(range(150, 260))
        t.write_arrow(pa.table({"k": pa.array(ks, pa.int32()), "v": [f"c{k}" for k in ks]}))
        if name == "dv":
            assert delete_where(t, "k < 20").rows == 20
        rewrite = _spec(layout) if java.version == "0.9" else _spec("1.4")
        assert _canon(_raw(t)[0]) == _canon(rewrite), f"{name}: our rewrite"
        ours[name] = _ours(t)
    reqs = []
    for name in TABLES:
        reqs += [
            {"op": "read", "warehouse": wh, "table": f"db.{name}"},
            {"op": "write", "warehouse": wh, "table": f"db.{name}", "rows": _rows(range(250, 300), "j")},
            {"op": "compact", "warehouse": wh, "table": f"db.{name}", "full": True},
            {"op": "read", "warehouse": wh, "table": f"db.{name}"},
        ]
    res = java.run(reqs)
    for i, name in enumerate(TABLES):
        assert_same_rows(ours[name], res[4 * i]["rows"], label_a=f"ours {name}", label_b="java 0.9")
        assert_same_rows(
            _ours(cat.get_table(f"db.{name}")),
            res[4 * i + 3]["rows"],
            label_a=f"ours {name}",
            label_b="java 0.9 after its write and compaction",
        )


def test_java_09_and_pypaimon_read_a_2_0_index_manifest_we_rewrote(java, pypaimon, tmp_path):
    wh = str(tmp_path / "wh")
    t = FileSystemCatalog(wh).create_table(
        "db.g",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"),
            (),
            ("k",),
            {"bucket": "2", "deletion-vectors.enabled": "true"},
        ),
    )
    ks = list(range(300))
    t.write_arrow(pa.table({"k": pa.array(ks, pa.int32()), "v": [f"a{k}" for k in ks]}))
    assert delete_where(t, "k < 30").rows == 30
    g = _global("index-g-0", "btree")
    with open(f"{t.path}/index/index-g-0", "wb") as f:
        f.write(b"btree")
    _plant(t, SPEC_2_0, [g])
    t = FileSystemCatalog(wh).get_table("db.g")
    ks = list(range(250, 350))
    t.write_arrow(pa.table({"k": pa.array(ks, pa.int32()), "v": [f"b{k}" for k in ks]}))
    assert delete_where(t, "k BETWEEN 100 AND 109").rows == 10
    schema, records = _raw(t)
    assert _canon(schema) == _canon(SPEC_2_0)
    assert _by_name(records)["index-g-0"] == g
    ours = _ours(t)
    assert len(ours) == 350 - 30 - 10
    res = java.run([{"op": "read", "warehouse": wh, "table": "db.g"}])
    assert_same_rows(ours, res[0]["rows"], label_a="ours", label_b="java 0.9")
    py = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.g", "java09_compat": True}])
    assert_same_rows(ours, py[0]["rows"], label_a="ours", label_b="pypaimon")
