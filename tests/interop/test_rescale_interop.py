"""Rescale against Java Paimon 0.9 and 1.4.2: after our rescale of one partition and an alter of
the table's ``bucket``, Java reads every row, writes into the rescaled partition and a new one
(we read what it wrote), and refuses a write into a partition still at the old count, as we do."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.errors import CommitConflict
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import SetOption
from paimon_core.ops.alter import alter_table
from paimon_core.ops.rescale import rescale
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

TYPES = {"id": "BIGINT NOT NULL", "v": "STRING", "dt": "STRING NOT NULL"}


def _rows(ids, v: str, dt: str) -> list[dict]:
    return [{"id": i, "v": f"{v}{i}", "dt": dt} for i in ids]


@pytest.mark.parametrize("dv", [False, True], ids=["plain", "dv"])
def test_java_after_our_rescale(tmp_path, java, dv):
    wh = str(tmp_path / "wh")
    options = {"bucket": "2"} | ({"deletion-vectors.enabled": "true"} if dv else {})
    t = FileSystemCatalog(wh).create_table(
        "db.t",
        Schema(
            Schema.parse_columns(", ".join(f"{k} {v}" for k, v in TYPES.items())),
            ("dt",),
            ("id", "dt"),
            options,
        ),
    )
    model: dict = {}
    for rows in (_rows(range(40), "a", "d1") + _rows(range(20), "a", "d2"), _rows(range(30, 60), "b", "d1")):
        t.write_arrow(pa.Table.from_pylist(rows, t.schema.arrow_schema()))
        model |= {(r["id"], r["dt"]): r for r in rows}
    if dv:
        from paimon_core.compaction.compaction import compact

        compact(t, full=True)
    rescale(t, 4, ["dt=d1"])
    t = alter_table(t, [SetOption("bucket", "4")])
    base = {"warehouse": wh, "table": "db.t"}
    write_d1 = _rows(range(55, 65), "j", "d1") + _rows(range(5), "j", "d3")
    read0, wrote, refused, read1 = java.run(
        [
            {"op": "read", **base},
            {"op": "write", **base, "rows": write_d1},
            {"op": "write", **base, "rows": _rows(range(3), "j", "d2")},
            {"op": "read", **base},
        ],
        check=False,
    )
    assert_same_rows(read0["rows"], list(model.values()), label_a=f"java {java.version}", label_b="model")
    assert "error" not in wrote, wrote
    assert "the previous bucket num is 2" in refused.get("error", ""), refused
    model |= {(r["id"], r["dt"]): r for r in write_d1}
    assert_same_rows(read1["rows"], list(model.values()), label_a=f"java {java.version}", label_b="model")
    assert_same_rows(
        rows_from_arrow(t.read(), TYPES), list(model.values()), label_a="paimon-cli", label_b="model"
    )
    with pytest.raises(CommitConflict, match="partition dt=d2 holds files of 2 buckets, this write has 4"):
        t.write_arrow(pa.Table.from_pylist(_rows(range(3), "o", "d2"), t.schema.arrow_schema()))
