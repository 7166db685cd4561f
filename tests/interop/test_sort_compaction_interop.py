"""Sort compaction against Java Paimon 0.9 and 1.4.2: Java reads the rows after each of our sort
compactions (order, zorder, hilbert) of an append table with deletion vectors, and its own
compaction after ours changes nothing it reads."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.sort_compaction import sort_compact
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

TYPES = {"a": "INT", "s": "STRING", "d": "DOUBLE", "dt": "STRING NOT NULL"}


def test_java_reads_after_our_sort_compactions(tmp_path, java):
    wh = str(tmp_path / "wh")
    ddl = ", ".join(f"{k} {v}" for k, v in TYPES.items())
    opts = {"target-file-size": "4kb", "deletion-vectors.enabled": "true"}
    t = FileSystemCatalog(wh).create_table("db.t", Schema(Schema.parse_columns(ddl), ("dt",), (), opts))
    rng = random.Random(3)
    for k in range(3):
        rows = [
            {
                "a": rng.randrange(-500, 500),
                "s": f"v{rng.randrange(99)}",
                "d": rng.random(),
                "dt": f"d{k % 2}",
            }
            for _ in range(1500)
        ]
        t.write_arrow(pa.Table.from_pylist(rows, t.schema.arrow_schema()))
    delete_where(t, "a < -400")
    reqs, wants = [], []
    for strategy, cols in (("order", ["s", "a"]), ("zorder", ["a", "d"]), ("hilbert", ["a", "d"])):
        res = sort_compact(t, strategy, cols)
        assert res.snapshot is not None and res.snapshot.commit_kind == "OVERWRITE"
        reqs.append({"op": "read", "warehouse": wh, "table": "db.t", "snapshot": res.snapshot.id})
        wants.append(rows_from_arrow(t.read(snapshot_id=res.snapshot.id), TYPES))
    reqs += [
        {"op": "compact", "warehouse": wh, "table": "db.t", "full": True},
        {"op": "read", "warehouse": wh, "table": "db.t"},
    ]
    results = java.run(reqs)
    for res, want in zip(results, wants):
        assert_same_rows(res["rows"], want, label_a=f"java {java.version}", label_b="paimon-cli")
    assert_same_rows(
        results[-1]["rows"], wants[-1], label_a="java after its compaction", label_b="paimon-cli"
    )
    assert_same_rows(
        rows_from_arrow(t.read(), TYPES), wants[-1], label_a="paimon-cli after java", label_b="before"
    )
