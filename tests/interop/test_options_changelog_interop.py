"""Changelog options (``changelog-producer`` lookup / full-compaction,
``changelog-producer.row-deduplicate``, ``full-compaction.delta-commits``): the same snapshot
kinds and changelogs in our tables and Java's twins, and a model's changelog for lookup.
"""

from __future__ import annotations

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.read.diff import diff
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow
from tests.interop.option_twins import KIND, Case, create_ours, java_create, our_write

pytestmark = pytest.mark.interop


CL_COLS = [("id", "INT NOT NULL"), ("v", "STRING"), ("n", "BIGINT")]
CL_COMMITS = [
    [{"id": 1, "v": "a", "n": 1}, {"id": 2, "v": "b", "n": 2}, {"id": 3, "v": "c", "n": 3}],
    [{"id": 1, "v": "a", "n": 1}, {"id": 2, "v": "b2", "n": 2}, {"id": 4, "v": "d", "n": 4}],
    [{"id": 3, "v": "c", "n": 3, KIND: "-D"}, {"id": 4, "v": "d", "n": 4}, {"id": 5, "v": "e", "n": 5}],
    [{"id": 1, "v": "a1", "n": 1}, {"id": 5, "v": "e", "n": 5}],
]
CL_CASES = {
    "lookup_dedup": {"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"},
    "lookup_plain": {"changelog-producer": "lookup"},
    "full_dedup": {
        "changelog-producer": "full-compaction",
        "changelog-producer.row-deduplicate": "true",
        "full-compaction.delta-commits": "1",
    },
    "full_every_2": {"changelog-producer": "full-compaction", "full-compaction.delta-commits": "2"},
}


def _changelog_model(dedup: bool) -> list[dict]:
    """What a lookup changelog of CL_COMMITS holds over all snapshots: +I for a new key, -U old /
    +U new for a changed one (dropped with row-deduplicate when equal), -D for a delete."""
    state, out = {}, []
    for rows in CL_COMMITS:
        for r in rows:
            body = {c: r[c] for c, _ in CL_COLS}
            old = state.get(r["id"])
            if r.get(KIND) == "-D":
                if old is not None:
                    out.append({**old, KIND: "-D"})
                    del state[r["id"]]
            elif old is None:
                out.append({**body, KIND: "+I"})
                state[r["id"]] = body
            elif not (dedup and old == body):
                out += [{**old, KIND: "-U"}, {**body, KIND: "+U"}]
                state[r["id"]] = body
    return out


@pytest.fixture(scope="module")
def changelogs(tmp_path_factory, java):
    owh, jwh = str(tmp_path_factory.mktemp("cl_ours")), str(tmp_path_factory.mktemp("cl_java"))
    reqs = []
    for name, opts in CL_CASES.items():
        case = Case(CL_COLS, ("id",), {"bucket": "1", "file.format": "parquet", **opts}, CL_COMMITS)
        t = create_ours(owh, f"o.{name}", case)
        for rows in CL_COMMITS:
            our_write(t, CL_COLS, rows)
        reqs.append(java_create(jwh, f"j.{name}", case))
        every = int(opts.get("full-compaction.delta-commits", 0))
        for i, rows in enumerate(CL_COMMITS, start=1):
            reqs.append({"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows})
            if every and i % every == 0:
                # Java 0.9 applies full-compaction.delta-commits in its Flink sink only (a full
                # compaction after every checkpoint id divisible by it): done here by hand
                reqs.append({"op": "compact", "warehouse": jwh, "table": f"j.{name}", "full": True})
    java.run(reqs)
    reqs, keys = [], []
    for name in CL_CASES:
        for wh, tname in ((owh, f"o.{name}"), (jwh, f"j.{name}")):
            reqs.append({"op": "snapshots", "warehouse": wh, "table": tname})
            keys.append((name, tname, "snapshots"))
            last = FileSystemCatalog(wh).get_table(tname).snapshots.latest_id()
            for s in range(1, last + 1):
                reqs.append(
                    {
                        "op": "audit",
                        "warehouse": wh,
                        "table": tname,
                        "from": s - 1,
                        "to": s,
                        "mode": "changelog",
                    }
                )
                keys.append((name, tname, s))
    return owh, jwh, dict(zip(keys, java.run(reqs)))


def _per_snapshot(res, name, tname, n):
    return [res[(name, tname, s)]["rows"] for s in range(1, n + 1)]


@pytest.mark.parametrize("name", list(CL_CASES))
def test_changelog_options_match_java(changelogs, name):
    """row-deduplicate and full-compaction.delta-commits: the same snapshot kinds in our table
    and Java's twin, Java's audit of each of our snapshots equals our changelog, the whole
    changelog of Java's twin equals ours, and (lookup) the model's."""
    owh, jwh, res = changelogs
    kinds = {
        tn: [s["commitKind"] for s in res[(name, tn, "snapshots")]["snapshots"]]
        for tn in (f"o.{name}", f"j.{name}")
    }
    assert kinds[f"o.{name}"] == kinds[f"j.{name}"], kinds
    t = FileSystemCatalog(owh).get_table(f"o.{name}")
    n = len(kinds[f"o.{name}"])
    mine = [rows_from_arrow(diff(t, s - 1, s, mode="changelog")) for s in range(1, n + 1)]
    for s, (a, b) in enumerate(zip(mine, _per_snapshot(res, name, f"o.{name}", n)), start=1):
        assert_same_rows(
            a, b, ignore_kind=False, label_a=f"paimon-cli changelog {s}", label_b=f"java audit of ours {s}"
        )
    everything = [r for rows in mine for r in rows]
    javas = _per_snapshot(res, name, f"j.{name}", n)
    assert_same_rows(
        everything,
        [r for rows in javas for r in rows],
        ignore_kind=False,
        label_a="paimon-cli changelog",
        label_b="java's twin's changelog",
    )
    for s, (a, b) in enumerate(zip(mine, javas), start=1):  # lookup too: the same snapshots
        assert_same_rows(
            a,
            b,
            ignore_kind=False,
            label_a=f"paimon-cli changelog {s}",
            label_b=f"java's twin's changelog {s}",
        )
    if name.startswith("lookup"):
        assert_same_rows(
            everything,
            _changelog_model(name.endswith("dedup")),
            ignore_kind=False,
            label_a="paimon-cli changelog",
            label_b="model",
        )


def test_lookup_changelog_lands_in_javas_snapshot(changelogs):
    """Our lookup changelog is in the COMPACT snapshot of the lookup compaction, as Java's."""
    owh, jwh, res = changelogs
    name = "lookup_plain"
    n = len(res[(name, f"o.{name}", "snapshots")]["snapshots"])
    for s, (a, b) in enumerate(
        zip(_per_snapshot(res, name, f"o.{name}", n), _per_snapshot(res, name, f"j.{name}", n)), start=1
    ):
        assert_same_rows(
            a,
            b,
            ignore_kind=False,
            label_a=f"changelog of our snapshot {s}",
            label_b=f"changelog of java's snapshot {s}",
        )
