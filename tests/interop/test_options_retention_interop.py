"""Snapshot retention options (``snapshot.num-retained.min/max``, ``snapshot.time-retained``,
``snapshot.expire.limit``, ``write-only``): expiry after each commit leaves the snapshots Java's
leaves.
"""

from __future__ import annotations

import time

import pytest

from paimon_core.catalog import FileSystemCatalog
from tests.interop.option_twins import KV, Case, create_ours, java_create, our_write

pytestmark = pytest.mark.interop


SNAP_CASES = {
    "retain_max": {"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "3"},
    "time_retained": {
        "snapshot.num-retained.min": "2",
        "snapshot.num-retained.max": "100",
        "snapshot.time-retained": "1 ms",
    },
    "time_keeps": {
        "snapshot.num-retained.min": "1",
        "snapshot.num-retained.max": "100",
        "snapshot.time-retained": "1 h",
    },
    "expire_limit": {
        "snapshot.num-retained.min": "1",
        "snapshot.num-retained.max": "1",
        "snapshot.expire.limit": "2",
        "write-only": "true",
    },
}


def test_snapshot_retention_matches_java(tmp_path, java):
    """Expiry after each commit from the table's options (num-retained.min/max, time-retained,
    expire.limit, write-only): the same snapshots are left in our table and Java's twin. The
    expire_limit tables are written write-only, then one commit without it expires at most 2."""
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    commits = [[{"k": i, "v": "x", "n": i, "s": 0}] for i in range(6)]
    java_reqs = []
    for name, opts in SNAP_CASES.items():
        case = Case(KV, ("k",), {"bucket": "1", "file.format": "parquet", **opts}, commits)
        t = create_ours(owh, f"o.{name}", case)
        java_reqs.append(java_create(jwh, f"j.{name}", case))
        for rows in commits:
            time.sleep(0.01)
            our_write(t, KV, rows)
        java_reqs += [
            {"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows} for rows in commits
        ]
        if "write-only" in opts:
            t = alter_table(t, [SetOption("write-only", "false")])
            our_write(t, KV, commits[0])
            java_reqs += [
                {
                    "op": "alter",
                    "warehouse": jwh,
                    "table": f"j.{name}",
                    "changes": [{"set_option": {"key": "write-only", "value": "false"}}],
                },
                {"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": commits[0]},
            ]
    # Java's writes are ms apart as well: a JVM commit takes longer than 1 ms
    names = list(SNAP_CASES)
    java_reqs += [
        {"op": "snapshots", "warehouse": wh, "table": f"{db}.{n}"}
        for n in names
        for wh, db in ((owh, "o"), (jwh, "j"))
    ]
    res = java.run(java_reqs)[-2 * len(names) :]
    for i, n in enumerate(names):
        ours = [s["id"] for s in res[2 * i]["snapshots"]]
        javas = [s["id"] for s in res[2 * i + 1]["snapshots"]]
        last = res[2 * i]["latest"]  # the 6th commit compacted (trigger 5): a COMPACT snapshot too
        want = {
            "retain_max": [last - 2, last - 1, last],
            "time_retained": [last - 1, last],
            "time_keeps": list(range(1, last + 1)),
            "expire_limit": list(range(3, last + 1)),
        }[n]
        assert ours == javas == want, (n, ours, javas)
        assert FileSystemCatalog(owh).get_table(f"o.{n}").snapshots.list_ids() == want
