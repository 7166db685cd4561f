"""Deletion-vector tables both ways. Java Paimon 0.9 writes primary-key tables with
``deletion-vectors.enabled`` (inserts, -D deletes, updates; its writer compacts each write and
marks superseded rows in vectors): we read every snapshot as Java does. Then we write into the
same tables (upserts, deletes, ``delete_where``) and compact them; Java and pypaimon 2.1.0 read
what we read, and Java's own full compaction of our result keeps our reads unchanged. Append
tables with vectors written by our ``delete_where`` are read the same by Java and pypaimon, and
stay so after Java compacts them. Java reading its own table is the reference throughout."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.metadata.deletion_vectors import dv_entries
from paimon_core.ops.delete import delete_where
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

SCHEMA = [
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "n", "type": "BIGINT"},
    {"name": "p", "type": "STRING"},
]
TABLES = {  # name -> (partition keys, primary keys, options)
    "pk": ([], ["id"], {"bucket": "2"}),
    "pkp": (["p"], ["id", "p"], {"bucket": "2"}),
    "agg": ([], ["id"], {"bucket": "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum"}),
}


def _row(i: int, v: str, n: int = 1, kind: str | None = None) -> dict:
    r = {"id": i, "v": v, "n": n, "p": f"p{i % 3}"}
    if kind:
        r["_row_kind"] = kind
    return r


def _java_commits(name: str) -> list[list[dict]]:
    """2000 inserts; 40 deletes; 40 updates (aggregation: no deletes, its sums grow)."""
    inserts = [_row(i, f"v{i}", i) for i in range(2000)]
    if name == "agg":
        return [
            inserts,
            [_row(i, f"x{i}", 5) for i in range(0, 80, 2)],
            [_row(i, f"u{i}", 7) for i in range(1, 80, 2)],
        ]
    deletes = [_row(i, f"v{i}", i, "-D") for i in range(0, 80, 2)]
    updates = [_row(i, f"u{i}", 1000 + i) for i in range(1, 80, 2)]
    return [inserts, deletes, updates]


def _ours(t, snapshot_id=None) -> list[dict]:
    return rows_from_arrow(t.read(snapshot_id=snapshot_id))


@pytest.fixture(scope="module")
def java_tables(java, tmp_path_factory):
    wh = str(tmp_path_factory.mktemp("dv_java"))
    reqs = []
    for name, (parts, pks, opts) in TABLES.items():
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": f"db.{name}",
                "schema": SCHEMA,
                "partition_keys": parts,
                "primary_keys": pks,
                "options": {**opts, "deletion-vectors.enabled": "true"},
            }
        )
        for rows in _java_commits(name):
            reqs.append({"op": "write", "warehouse": wh, "table": f"db.{name}", "rows": rows})
    java.run(reqs)
    # every snapshot of every table, read by Java
    ids = {name: FileSystemCatalog(wh).get_table(f"db.{name}").snapshots.list_ids() for name in TABLES}
    reads = java.run(
        [
            {"op": "read", "warehouse": wh, "table": f"db.{name}", "snapshot": sid}
            for name in TABLES
            for sid in ids[name]
        ]
    )
    it = iter(reads)
    java_reads = {name: {sid: next(it)["rows"] for sid in ids[name]} for name in TABLES}
    return wh, java_reads


def test_we_read_java_dv_tables_at_every_snapshot(java_tables):
    wh, java_reads = java_tables
    cat = FileSystemCatalog(wh)
    for name, by_snapshot in java_reads.items():
        t = cat.get_table(f"db.{name}")
        assert dv_entries(t, t.snapshots.latest()), f"{name}: Java wrote no deletion vectors"
        for sid, rows in by_snapshot.items():
            assert_same_rows(_ours(t, sid), rows, label_a=f"ours {name}@{sid}", label_b="java")
    pk = cat.get_table("db.pk")
    assert pk.read().num_rows == 1960


def test_java_and_pypaimon_read_what_we_write_into_dv_tables(java, pypaimon, java_tables):
    wh, _ = java_tables
    cat = FileSystemCatalog(wh)
    ours = {}
    for name in TABLES:
        t = cat.get_table(f"db.{name}")
        ids = list(range(100, 160)) + list(range(5000, 5010))
        kinds = ["+U"] * 30 + (["+U"] * 30 if name == "agg" else ["-D"] * 30) + ["+I"] * 10
        t.write_arrow(
            pa.table(
                {
                    "id": pa.array(ids, pa.int32()),
                    "v": [f"w{i}" for i in ids],
                    "n": pa.array([3] * len(ids), pa.int64()),
                    "p": [f"p{i % 3}" for i in ids],
                    "op": kinds,
                }
            ),
            row_kind_column="op",
        )
        if name != "agg":
            assert delete_where(t, "id >= 1990 OR v = 'u7'").rows == 21  # 1990..1999, 5000..5009, 7
        ours[name] = _ours(t)
    expected_pk = 1960 - 30 + 10 - 21
    assert len(ours["pk"]) == len(ours["pkp"]) == expected_pk
    reads = java.run([{"op": "read", "warehouse": wh, "table": f"db.{n}"} for n in TABLES])
    for name, r in zip(TABLES, reads):
        assert_same_rows(ours[name], r["rows"], label_a=f"ours {name}", label_b="java")
    py = pypaimon.run(
        [{"op": "read", "warehouse": wh, "table": f"db.{n}", "java09_compat": True} for n in TABLES]
    )
    for name, r in zip(TABLES, py):
        assert_same_rows(ours[name], r["rows"], label_a=f"ours {name}", label_b="pypaimon")

    # our full compaction and Java's keep every reader's rows
    for name in TABLES:
        compact(cat.get_table(f"db.{name}"), full=True)
        assert not dv_entries(cat.get_table(f"db.{name}"), cat.get_table(f"db.{name}").snapshots.latest())
    reqs = []
    for n in TABLES:
        reqs += [
            {"op": "read", "warehouse": wh, "table": f"db.{n}"},
            {"op": "write", "warehouse": wh, "table": f"db.{n}", "rows": [_row(3, "java", 1)]},
            {"op": "compact", "warehouse": wh, "table": f"db.{n}", "full": True},
            {"op": "read", "warehouse": wh, "table": f"db.{n}"},
        ]
    res = java.run(reqs)
    for i, name in enumerate(TABLES):
        assert_same_rows(
            ours[name], res[4 * i]["rows"], label_a=f"ours {name}", label_b="java after our compaction"
        )
        assert_same_rows(
            _ours(cat.get_table(f"db.{name}")),
            res[4 * i + 3]["rows"],
            label_a=f"ours {name}",
            label_b="java after its compaction",
        )


@pytest.mark.parametrize("dv,bucketed", [(True, False), (False, False), (True, True)])
def test_java_and_pypaimon_read_our_append_deletes(java, pypaimon, tmp_path, dv, bucketed):
    wh = str(tmp_path / "wh")
    opts = {
        "deletion-vectors.enabled": str(dv).lower(),
        **({"bucket": "2", "bucket-key": "id"} if bucketed else {}),
    }
    java.run(
        [
            {
                "op": "create_table",
                "warehouse": wh,
                "table": "db.a",
                "schema": SCHEMA,
                "partition_keys": ["p"],
                "primary_keys": [],
                "options": opts,
            }
        ]
    )
    t = FileSystemCatalog(wh).get_table("db.a")
    for lo in (0, 500, 1000):
        ids = list(range(lo, lo + 500))
        t.write_arrow(
            pa.table(
                {
                    "id": pa.array(ids, pa.int32()),
                    "v": [f"v{i}" for i in ids],
                    "n": pa.array(ids, pa.int64()),
                    "p": [f"p{i % 3}" for i in ids],
                }
            )
        )
    assert delete_where(t, "id < 100 OR (id >= 700 AND id < 760)").rows == 160
    assert delete_where(t, "p = 'p1' AND id < 1200").rows == 1200 // 3 - len(
        [i for i in list(range(100)) + list(range(700, 760)) if i % 3 == 1]
    )
    ours = _ours(t)
    py = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.a"}])[0]
    res = java.run(
        [
            {"op": "read", "warehouse": wh, "table": "db.a"},
            {"op": "compact", "warehouse": wh, "table": "db.a", "full": True},
            {"op": "read", "warehouse": wh, "table": "db.a"},
        ]
    )
    assert_same_rows(ours, res[0]["rows"], label_a="ours", label_b="java")
    assert_same_rows(ours, py["rows"], label_a="ours", label_b="pypaimon")
    assert_same_rows(
        _ours(FileSystemCatalog(wh).get_table("db.a")),
        res[2]["rows"],
        label_a="ours",
        label_b="java after its compaction",
    )
    compact(FileSystemCatalog(wh).get_table("db.a"), full=True)
    assert_same_rows(java.read(wh, "db.a"), ours, label_a="java after our compaction", label_b="ours before")


@pytest.mark.parametrize("engine", ["deduplicate", "partial-update"])
def test_java_reads_dv_pk_tables_we_create(java, pypaimon, tmp_path, engine):
    """Our table, our writes (each compacted out of level 0 with lookups into older levels),
    then Java writes on top with its own lookup compaction: every reader agrees after each side."""
    from paimon_core.metadata.schema import Schema

    wh = str(tmp_path / "wh")
    opts = (
        {
            "bucket": "2",
            "deletion-vectors.enabled": "true",
            "merge-engine": engine,
            "partial-update.remove-record-on-delete": "true",
        }
        if engine == "partial-update"
        else {"bucket": "2", "deletion-vectors.enabled": "true"}
    )
    t = FileSystemCatalog(wh).create_table(
        "db.o",
        Schema(Schema.parse_columns("id INT NOT NULL, v STRING, n BIGINT, p STRING"), (), ("id",), opts),
    )
    model: dict = {}
    for r in range(4):
        ids = list(range(r * 150, r * 150 + 400))
        v = [None if (i + r) % 4 == 0 else f"r{r}_{i}" for i in ids]
        n = [None if (i + r) % 5 == 0 else i * 10 + r for i in ids]
        t.write_arrow(
            pa.table(
                {"id": pa.array(ids, pa.int32()), "v": v, "n": pa.array(n, pa.int64()), "p": ["x"] * len(ids)}
            )
        )
        for i, vi, ni in zip(ids, v, n):
            old = model.get(i, (None, None))
            model[i] = (
                (vi, ni)
                if engine == "deduplicate"
                else (vi if vi is not None else old[0], ni if ni is not None else old[1])
            )
    assert delete_where(t, "id < 50 OR id BETWEEN 500 AND 520").rows == 71
    for i in list(range(50)) + list(range(500, 521)):
        model.pop(i)
    ours = _ours(t)
    assert {(r["id"], r["v"], r["n"]) for r in ours} == {(k, a, b) for k, (a, b) in model.items()}
    res = java.run(
        [
            {"op": "read", "warehouse": wh, "table": "db.o"},
            {
                "op": "write",
                "warehouse": wh,
                "table": "db.o",
                "rows": [{"id": i, "v": f"j{i}", "n": None, "p": "x"} for i in range(590, 610)],
            },
            {"op": "read", "warehouse": wh, "table": "db.o"},
        ]
    )
    assert_same_rows(ours, res[0]["rows"], label_a="ours", label_b="java")
    assert_same_rows(
        _ours(FileSystemCatalog(wh).get_table("db.o")),
        res[2]["rows"],
        label_a="ours",
        label_b="java after its write",
    )
    if engine == "deduplicate":  # pypaimon 2.1.0 refuses partial-update.remove-record-on-delete
        py = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.o", "java09_compat": True}])[0]
        assert_same_rows(
            _ours(FileSystemCatalog(wh).get_table("db.o")), py["rows"], label_a="ours", label_b="pypaimon"
        )


def test_java_reads_our_lookup_changelog_on_a_dv_table(java, tmp_path):
    """changelog-producer=lookup with vectors: Java's audit log of each of our snapshots is our
    changelog, and Java's read is ours."""
    from paimon_core.metadata.schema import Schema
    from paimon_core.read.diff import diff

    wh = str(tmp_path / "wh")
    t = FileSystemCatalog(wh).create_table(
        "db.l",
        Schema(
            Schema.parse_columns("id INT NOT NULL, v STRING, n BIGINT, p STRING"),
            (),
            ("id",),
            {"bucket": "2", "deletion-vectors.enabled": "true", "changelog-producer": "lookup"},
        ),
    )
    t.write_arrow(
        pa.table(
            {
                "id": pa.array(range(300), pa.int32()),
                "v": [f"v{i}" for i in range(300)],
                "n": pa.array(range(300), pa.int64()),
                "p": ["x"] * 300,
            }
        )
    )
    for r, (ids, kind) in enumerate([(range(0, 20), "-D"), (range(10, 30), "+U"), (range(0, 5), "+I")]):
        ids = list(ids)
        t.write_arrow(
            pa.table(
                {
                    "id": pa.array(ids, pa.int32()),
                    "v": [f"r{r}"] * len(ids),
                    "n": pa.array([r] * len(ids), pa.int64()),
                    "p": ["x"] * len(ids),
                    "k": [kind] * len(ids),
                }
            ),
            row_kind_column="k",
        )
    assert dv_entries(t, t.snapshots.latest())
    last = t.snapshots.latest_id()
    # from snapshot 1 on: Java 0.9's incremental scan of a DV table from 0 returns nothing (or
    # fails) on its own tables as well
    res = java.run(
        [
            {"op": "audit", "warehouse": wh, "table": "db.l", "from": s - 1, "to": s, "mode": "changelog"}
            for s in range(2, last + 1)
        ]
        + [{"op": "read", "warehouse": wh, "table": "db.l"}]
    )
    for s, r in zip(range(2, last + 1), res):
        assert_same_rows(
            rows_from_arrow(diff(t, s - 1, s, mode="changelog")),
            r["rows"],
            ignore_kind=False,
            label_a=f"our changelog of snapshot {s}",
            label_b="java audit log",
        )
    assert_same_rows(_ours(t), res[-1]["rows"], label_a="ours", label_b="java")


def test_java_writes_after_our_full_compaction_purges_vectors(java, tmp_path):
    """A bucket that is one top-level run of many files, with vectors in two files far apart: our
    full compaction rewrites the span between them without the deleted rows. Java restores the
    bucket (it validates that the top level is one run of disjoint files), writes and compacts on
    top, and reads what the model holds."""
    from paimon_core.metadata.schema import Schema

    wh = str(tmp_path / "wh")
    opts = {"bucket": "1", "deletion-vectors.enabled": "true", "target-file-size": "1kb"}
    t = FileSystemCatalog(wh).create_table(
        "db.purge",
        Schema(Schema.parse_columns("id INT NOT NULL, v STRING, n BIGINT, p STRING"), (), ("id",), opts),
    )
    ids = list(range(2000))
    t.write_arrow(
        pa.table(
            {
                "id": pa.array(ids, pa.int32()),
                "v": [f"value {i:06d}" for i in ids],
                "n": ids,
                "p": ["x"] * 2000,
            }
        )
    )
    compact(t, full=True)
    gone = [44, 1936]
    t.write_arrow(
        pa.table(
            {
                "id": pa.array(gone, pa.int32()),
                "v": ["x", "x"],
                "n": [0, 0],
                "p": ["x", "x"],
                "k": ["-D", "-D"],
            }
        ),
        row_kind_column="k",
    )
    assert len(t.plan(t.snapshots.latest(), all_levels=True)[0].deletion_files) == 2  # the case under test
    assert compact(t, full=True).snapshot is not None
    model = {i: (f"value {i:06d}", i) for i in ids if i not in gone}
    model[3] = ("java", 1)
    model[5000] = ("java", 1)
    res = java.run(
        [
            {
                "op": "write",
                "warehouse": wh,
                "table": "db.purge",
                "rows": [_row(3, "java", 1), _row(5000, "java", 1)],
            },
            {"op": "compact", "warehouse": wh, "table": "db.purge", "full": False},
            {"op": "compact", "warehouse": wh, "table": "db.purge", "full": True},
            {"op": "read", "warehouse": wh, "table": "db.purge"},
        ]
    )
    got = {r["id"]: (r["v"], r["n"]) for r in res[3]["rows"]}
    assert got == model
    assert {r["id"]: (r["v"], r["n"]) for r in _ours(FileSystemCatalog(wh).get_table("db.purge"))} == model
