"""Manifest merging against Java Paimon 0.9 and 1.4.2: Java and we make the same commits (writes,
full compactions) and every snapshot's base and delta manifest lists have the same layout (number
of manifests, added and deleted entries of each), under minor merging (small
``manifest.merge-min-count``) and full compaction (a tiny ``manifest.full-compaction-threshold-size``);
then our ``compact --manifests`` leaves one manifest that Java reads the same rows through."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.compaction.manifest_compaction import compact_manifests
from paimon_core.metadata.schema import Schema
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

COLS = [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}]
TYPES = {c["name"]: c["type"] for c in COLS}
STEPS = ["w"] * 4 + ["c"] + ["w"] * 3 + ["c"] + ["w"] * 4


def _rows(step: int) -> list[dict]:
    return [{"id": (step * 7 + k) % 40, "v": f"s{step}-{k}"} for k in range(10)]


def _layout(table) -> list[tuple]:
    """Per snapshot: (kind, base manifests, delta manifests) as (added, deleted) counts."""
    store = table.manifests
    out = []
    for sid in range(1, table.snapshots.latest_id() + 1):
        s = table.snapshots.snapshot(sid)
        base = [(m.num_added_files, m.num_deleted_files) for m in store.read_list(s.base_manifest_list)]
        delta = [(m.num_added_files, m.num_deleted_files) for m in store.read_list(s.delta_manifest_list)]
        out.append((sid, s.commit_kind, base, delta))
    return out


@pytest.mark.parametrize(
    "options",
    [{"manifest.merge-min-count": "3"}, {"manifest.full-compaction-threshold-size": "1b"}],
    ids=["minor", "full"],
)
def test_same_manifest_layout_as_java(tmp_path, java, options):
    wh = str(tmp_path / "wh")
    opts = {
        "bucket": "1",
        "num-sorted-run.compaction-trigger": "100",
        "num-sorted-run.stop-trigger": "200",
    } | options
    base = {"warehouse": wh, "table": "j.t"}
    reqs = [{"op": "create_table", **base, "schema": COLS, "primary_keys": ["id"], "options": opts}]
    for i, step in enumerate(STEPS):
        reqs.append(
            {"op": "write", **base, "rows": _rows(i)}
            if step == "w"
            else {"op": "compact", **base, "full": True}
        )
    java.run(reqs)
    cat = FileSystemCatalog(wh)
    t = cat.create_table(
        "o.t", Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), (), ("id",), opts)
    )
    for i, step in enumerate(STEPS):
        if step == "w":
            t.write_arrow(pa.Table.from_pylist(_rows(i), t.schema.arrow_schema()))
        else:
            compact(t, full=True)
    theirs = _layout(cat.get_table("j.t"))
    assert _layout(t) == theirs
    assert any(len(b) < sid - 1 for sid, _, b, _ in theirs[2:]), "no merge happened: the test checks nothing"

    latest = t.snapshots.latest_id()
    res = compact_manifests(t)
    assert (
        res.snapshot is not None and res.snapshot.id == latest + 1 and res.snapshot.commit_kind == "COMPACT"
    )
    assert (res.manifests_after, _layout(t)[-1][3]) == (1, [])
    assert compact_manifests(t).snapshot is None  # already compact
    ours = rows_from_arrow(t.read(), TYPES)
    (read,) = java.run([{"op": "read", "warehouse": wh, "table": "o.t"}])
    assert_same_rows(read["rows"], ours, label_a=f"java {java.version}", label_b="paimon-cli")
    assert_same_rows(
        rows_from_arrow(t.read(snapshot_id=latest), TYPES), ours, label_a="before", label_b="after"
    )
