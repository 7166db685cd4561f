"""Changelogs both ways: Java's audit log of each snapshot of our tables equals our
`diff --mode changelog --per-snapshot` (producers input, lookup, full-compaction), we read
the changelog Java's writers produced the same way Java does, and changelog lands in snapshots
of the kinds Java's writers put it in."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

PRODUCERS = ["input", "lookup", "full-compaction"]
COLUMNS = "id INT NOT NULL, v STRING, n BIGINT"


def _commits():
    return [
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int32()),
                "v": ["a", "b", "c"],
                "n": pa.array([1, 2, 3], pa.int64()),
                "k": ["+I", "+I", "+I"],
            }
        ),
        pa.table(
            {
                "id": pa.array([2, 3, 4], pa.int32()),
                "v": ["b2", "c", "d"],
                "n": pa.array([20, 3, 4], pa.int64()),
                "k": ["+U", "-D", "+I"],
            }
        ),
        pa.table(
            {
                "id": pa.array([1, 4], pa.int32()),
                "v": ["a3", "d"],
                "n": pa.array([10, 4], pa.int64()),
                "k": ["+U", "+U"],
            }
        ),
    ]


def _kinds(rows):
    return [{**r, "_row_kind": r["_row_kind"]} for r in rows]


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    wh = str(tmp_path_factory.mktemp("our_changelog"))
    cat = FileSystemCatalog(wh)
    for p in PRODUCERS:
        t = cat.create_table(
            f"db.{p.replace('-', '_')}",
            Schema(Schema.parse_columns(COLUMNS), (), ("id",), {"bucket": "2", "changelog-producer": p}),
        )
        for c in _commits():
            t.write_arrow(c, row_kind_column="k")
    return wh


@pytest.mark.parametrize("producer", PRODUCERS)
def test_java_audit_log_equals_our_changelog(ours, java, producer):
    name = f"db.{producer.replace('-', '_')}"
    t = FileSystemCatalog(ours).get_table(name)
    last = t.snapshots.latest_id()
    reqs = [
        {"op": "audit", "warehouse": ours, "table": name, "from": s - 1, "to": s, "mode": "changelog"}
        for s in range(1, last + 1)
    ]
    for s, res in zip(range(1, last + 1), java.run(reqs)):
        mine = diff(t, s - 1, s, mode="changelog")
        assert_same_rows(
            rows_from_arrow(mine),
            res["rows"],
            ignore_kind=False,
            label_a=f"paimon-cli changelog of snapshot {s}",
            label_b=f"java audit log of snapshot {s}",
        )


@pytest.fixture(scope="module")
def javas(tmp_path_factory, java):
    wh = str(tmp_path_factory.mktemp("java_changelog"))
    reqs = []
    for p in PRODUCERS:
        name = f"j.{p.replace('-', '_')}"
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": name,
                "schema": [
                    {"name": "id", "type": "INT NOT NULL"},
                    {"name": "v", "type": "STRING"},
                    {"name": "n", "type": "BIGINT"},
                ],
                "primary_keys": ["id"],
                "options": {"bucket": "2", "changelog-producer": p, "file.format": "parquet"},
            }
        )
        for c in _commits():
            rows = [{"id": r["id"], "v": r["v"], "n": r["n"], "_row_kind": r["k"]} for r in c.to_pylist()]
            reqs.append({"op": "write", "warehouse": wh, "table": name, "rows": rows})
            if p == "full-compaction":
                reqs.append({"op": "compact", "warehouse": wh, "table": name, "full": True})
    java.run(reqs)
    return wh


@pytest.mark.parametrize("producer", PRODUCERS)
def test_we_read_javas_changelog(javas, java, producer):
    name = f"j.{producer.replace('-', '_')}"
    t = FileSystemCatalog(javas).get_table(name)
    last = t.snapshots.latest_id()
    reqs = [
        {"op": "audit", "warehouse": javas, "table": name, "from": s - 1, "to": s, "mode": "changelog"}
        for s in range(1, last + 1)
    ]
    for s, res in zip(range(1, last + 1), java.run(reqs)):
        assert_same_rows(
            rows_from_arrow(diff(t, s - 1, s, mode="changelog")),
            res["rows"],
            ignore_kind=False,
            label_a=f"paimon-cli changelog of Java's snapshot {s}",
            label_b=f"java audit log {s}",
        )


@pytest.mark.parametrize("producer", PRODUCERS)
def test_changelog_is_in_the_snapshots_java_puts_it(ours, javas, java, producer):
    """The audit logs above read the same files on both sides, so they cannot see in which
    snapshot a changelog sits; Java's streaming read of lookup and full-compaction tables only
    looks at COMPACT snapshots (input: APPEND). The same commits must put changelog in
    snapshots of the same kinds as Java's writers do."""

    def kinds(wh, name):
        snaps = java.call("snapshots", warehouse=wh, table=name)["snapshots"]
        return [s["commitKind"] for s in snaps if s["changelogManifestList"]]

    mine = kinds(ours, f"db.{producer.replace('-', '_')}")
    theirs = kinds(javas, f"j.{producer.replace('-', '_')}")
    assert set(theirs) == {"APPEND" if producer == "input" else "COMPACT"}
    assert mine == theirs
