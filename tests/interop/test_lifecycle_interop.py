"""Snapshot lifecycle against Java: on copies of the same tables, our expire deletes exactly the
files Java Paimon 0.9's expire deletes; Java reads our tags (after their snapshot expired)."""

from __future__ import annotations

import os
import shutil

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.maintain import create_tag, expire_snapshots
from paimon_core.metadata.schema import Schema
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop


def _files(root: str) -> set[str]:
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def _build(wh: str) -> None:
    cat = FileSystemCatalog(wh)
    ap = cat.create_table(
        "db.ap", Schema(Schema.parse_columns("id BIGINT, dt STRING"), ("dt",), (), {"write-only": "true"})
    )
    pk = cat.create_table(
        "db.pk",
        Schema(
            Schema.parse_columns("id BIGINT NOT NULL, v STRING"),
            (),
            ("id",),
            {"bucket": "2", "write-only": "true", "changelog-producer": "input"},
        ),
    )
    for i in range(6):
        ap.write_arrow(
            pa.table({"id": pa.array([i, i + 10], pa.int64()), "dt": ["a", "b" if i % 2 else "a"]}),
            overwrite=(i == 3),
        )
        pk.write_arrow(pa.table({"id": pa.array([i % 3, i + 100], pa.int64()), "v": [f"v{i}", "x"]}))
        if i == 3:
            compact(cat.get_table("db.pk"), full=True)


@pytest.mark.parametrize("retain_max", [1, 2, 4])
def test_expire_deletes_what_java_deletes(tmp_path, java, retain_max):
    base = str(tmp_path / "base")
    _build(base)
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "java")
    shutil.copytree(base, ours)
    shutil.copytree(base, theirs)
    java.run(
        [
            {"op": "expire", "warehouse": theirs, "table": t, "retain_max": retain_max, "retain_min": 1}
            for t in ("db.ap", "db.pk")
        ]
    )
    cat = FileSystemCatalog(ours)
    for t in ("db.ap", "db.pk"):
        expire_snapshots(
            cat.get_table(t), retain_max=retain_max, retain_min=1, older_than_ms=0, max_deletes=10**6
        )
    assert _files(ours) == _files(theirs)


def test_java_reads_our_tags_after_expiry(tmp_path, java):
    wh = str(tmp_path / "wh")
    _build(wh)
    cat = FileSystemCatalog(wh)
    t = cat.get_table("db.pk")
    create_tag(t, "t2", 2)
    expected = rows_from_arrow(t.read(snapshot_id=2))
    expire_snapshots(t, retain_max=1, retain_min=1, older_than_ms=0, max_deletes=10**6)
    assert 2 not in t.snapshots.list_ids()
    res = java.run([{"op": "read", "warehouse": wh, "table": "db.pk", "options": {"scan.tag-name": "t2"}}])[0]
    assert_same_rows(res["rows"], expected, label_a="java read of tag t2", label_b="paimon-cli at snapshot 2")
    assert_same_rows(
        rows_from_arrow(cat.get_table("db.pk").read(tag="t2")),
        expected,
        label_a="paimon-cli read of tag t2",
        label_b="paimon-cli at snapshot 2",
    )
