"""Branches against Java Paimon 0.9, both ways: Java creates a branch from a tag and writes into
it, we read it; we create and write, Java reads (``db.t$branch_b``); fast-forward on either side
and the other reads main; our orphan cleanup and expiries leave every file Java's read of any
branch needs (checked with Java after each); a random history of ours (``tests/reference/
branch_history.py``) ends with every branch read by Java as the model says."""

from __future__ import annotations

import os

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.maintain import create_tag, expire_snapshots, remove_orphans
from paimon_core.maintain.branches import create_branch, fast_forward
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow
from tests.reference.branch_history import FAR_FUTURE, History, as_rows

pytestmark = [pytest.mark.interop, pytest.mark.slow]

T = "db.t"
COLS = [
    {"name": "dt", "type": "STRING NOT NULL"},
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "v", "type": "STRING"},
]


def _rows(i: int, ids, dt: str = "d1") -> list[dict]:
    return [{"dt": dt, "id": k, "v": f"w{i}-{k}"} for k in ids]


def _java_table(java, wh: str) -> dict:
    """Java: db.t (PK dt,id; partitioned by dt; 1 bucket), snapshots 1-2, tag t1 on 2, branch b
    from t1 with two writes and a tag bt of its own."""
    t = {"warehouse": wh, "table": T}
    java.run(
        [
            {
                **t,
                "op": "create_table",
                "schema": COLS,
                "primary_keys": ["dt", "id"],
                "partition_keys": ["dt"],
                "options": {"bucket": "1"},
            },
            {**t, "op": "write", "rows": _rows(1, [1, 2, 3])},
            {**t, "op": "write", "rows": _rows(2, [2, 4], "d2")},
            {**t, "op": "create_tag", "tag": "t1", "tag_snapshot": 2},
            {**t, "op": "create_branch", "name": "b", "from_tag": "t1"},
            {**t, "branch": "b", "op": "write", "rows": _rows(3, [1, 5])},
            {**t, "branch": "b", "op": "write", "rows": _rows(4, [6], "d3")},
            {**t, "branch": "b", "op": "create_tag", "tag": "bt", "tag_snapshot": 3},
            {**t, "op": "write", "rows": _rows(5, [9])},
        ]
    )
    return t


def _java_reads(java, wh: str, branches: list[str]) -> dict[str, list[dict]]:
    reqs = [{"warehouse": wh, "table": T, "op": "read"}]
    reqs += [{"warehouse": wh, "table": f"{T}$branch_{b}", "op": "read"} for b in branches]
    res = java.run(reqs)
    return {name: r["rows"] for name, r in zip(["main", *branches], res)}


def _ours(wh: str, branch: str | None = None, **at) -> list[dict]:
    return rows_from_arrow(FileSystemCatalog(wh).get_table(T, branch=branch).read(**at))


def test_java_branch_read_by_us_and_java_fast_forward(tmp_path, java):
    wh = str(tmp_path / "wh")
    t = _java_table(java, wh)
    java_rows = _java_reads(java, wh, ["b"])
    assert_same_rows(_ours(wh, "b"), java_rows["b"], label_a="our read of Java's branch b", label_b="Java's")
    assert_same_rows(_ours(wh), java_rows["main"], label_a="our read of main", label_b="Java's")
    ours_by_name = rows_from_arrow(FileSystemCatalog(wh).get_table(f"{T}$branch_b").read())
    assert_same_rows(ours_by_name, java_rows["b"], label_a="db.t$branch_b", label_b="Java's")
    assert_same_rows(
        _ours(wh, "b", tag="bt"), _ours(wh, "b", snapshot_id=3), label_a="tag bt", label_b="snapshot 3"
    )
    # we write into Java's branch; Java reads it
    b = FileSystemCatalog(wh).get_table(T, branch="b")
    b.write_arrow(
        b.schema.arrow_schema().empty_table().from_pylist(_rows(6, [1, 7]), schema=b.schema.arrow_schema())
    )
    assert_same_rows(_java_reads(java, wh, ["b"])["b"], _ours(wh, "b"), label_a="Java's read", label_b="ours")
    # Java fast-forwards; we read main
    expected = _ours(wh, "b")
    java.run([{**t, "op": "fast_forward", "name": "b"}])
    assert_same_rows(
        _ours(wh), expected, label_a="our read of main after Java's fast-forward", label_b="branch b"
    )


def test_our_branch_read_by_java_our_fast_forward_and_maintenance(tmp_path, java):
    wh = str(tmp_path / "wh")
    t = _java_table(java, wh)
    cat = FileSystemCatalog(wh)
    main = cat.get_table(T)
    create_branch(main, "c", tag="t1")
    c = cat.get_table(f"{T}$branch_c")
    schema = c.schema.arrow_schema()
    for i, ids in enumerate(([1, 10], [2, 11], [12])):
        c.write_arrow(schema.empty_table().from_pylist(_rows(10 + i, ids), schema=schema), overwrite=i == 1)
    create_tag(c, "ct")
    create_branch(main, "e")  # empty
    e = cat.get_table(T, branch="e")
    e.write_arrow(schema.empty_table().from_pylist(_rows(20, [30]), schema=schema))
    branches = ["b", "c", "e"]

    def check(label: str) -> None:
        java_rows = _java_reads(java, wh, branches)
        for name in ["main", *branches]:
            assert_same_rows(
                java_rows[name],
                _ours(wh, None if name == "main" else name),
                label_a=f"Java {name} {label}",
                label_b="ours",
            )
        tag = java.run([{**t, "op": "read", "options": {"scan.tag-name": "t1"}}])[0]["rows"]
        assert_same_rows(tag, _ours(wh, tag="t1"), label_a=f"Java tag t1 {label}", label_b="ours")

    check("as written")
    for name in ["main", *branches]:  # every branch expires down to its latest snapshot
        expire_snapshots(cat.get_table(T, branch=name), retain_max=1, retain_min=1, now_ms=FAR_FUTURE)
        check(f"after expiring {name}")
    remove_orphans(cat.get_table(T), older_than_ms=0, now_ms=FAR_FUTURE)
    check("after remove-orphans")
    expected = _ours(wh, "c")
    fast_forward(cat.get_table(T), "c")
    main_rows = java.run([{**t, "op": "read"}])[0]["rows"]
    assert_same_rows(
        main_rows, expected, label_a="Java's read of main after our fast-forward", label_b="branch c"
    )
    java.run([{**t, "op": "write", "rows": _rows(30, [40])}])  # Java goes on writing main
    assert_same_rows(_ours(wh), java.run([{**t, "op": "read"}])[0]["rows"], label_a="ours", label_b="Java's")


@pytest.mark.parametrize("seed", [3, 7])
def test_random_history_read_by_java_after_expire_and_orphan_cleanup(tmp_path, java, seed):
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    h = History(cat, T, seed).run(30)
    for name, m in sorted(h.model.items()):
        expire_snapshots(cat.get_table(T, branch=name), retain_max=1, retain_min=1, now_ms=FAR_FUTURE)
        m.snapshots = {i: s for i, s in m.snapshots.items() if i == m.latest}
    remove_orphans(cat.get_table(T), older_than_ms=0, now_ms=FAR_FUTURE)
    h.check()
    names = sorted(h.model)
    reqs = [
        {"warehouse": wh, "table": T, "op": "read", **({"branch": n} if n != "main" else {})} for n in names
    ]
    main_tags = sorted(h.model["main"].tags)
    reqs += [{"warehouse": wh, "table": T, "op": "read", "options": {"scan.tag-name": n}} for n in main_tags]
    res = java.run(reqs)
    for name, r in zip(names, res):
        assert_same_rows(
            r["rows"], as_rows(h.model[name].rows), label_a=f"Java {name}", label_b=f"model {h.log}"
        )
    for tag, r in zip(main_tags, res[len(names) :]):
        assert_same_rows(
            r["rows"], as_rows(h.model["main"].tags[tag][1]), label_a=f"Java tag {tag}", label_b="model"
        )


def test_java09_branch_over_an_evolved_schema(tmp_path, java):
    """Java 0.9 copies only the tag's schema file into a branch (schema-1 here), then fails to
    read the branch's files written with schema 0; we read them with main's schema-0, the file
    Java 1.x copies into the branch."""
    wh = str(tmp_path / "wh")
    t = {"warehouse": wh, "table": T}
    res = java.run(
        [
            {
                **t,
                "op": "create_table",
                "schema": COLS,
                "primary_keys": ["dt", "id"],
                "partition_keys": ["dt"],
                "options": {"bucket": "1"},
            },
            {**t, "op": "write", "rows": _rows(1, [1, 2])},
            {**t, "op": "alter", "changes": [{"add_column": {"name": "extra", "type": "INT"}}]},
            {**t, "op": "write", "rows": [{"dt": "d1", "id": 3, "v": "w2-3", "extra": 7}]},
            {**t, "op": "create_tag", "tag": "t2", "tag_snapshot": 2},
            {**t, "op": "create_branch", "name": "b", "from_tag": "t2"},
            {**t, "op": "read", "branch": "b"},
        ],
        check=False,
    )
    schemas = sorted(os.listdir(os.path.join(wh, "db.db", "t", "branch", "branch-b", "schema")))
    if java.version == "0.9":  # Java 0.9's own quirk: it copies the tag's schema file alone
        assert "schema-0" in res[-1].get("error", ""), res[-1]
        assert schemas == ["schema-1"]
    else:  # Java 1.4.2 copies every schema up to the tag's and reads its own branch
        assert schemas == ["schema-0", "schema-1"]
        assert sorted((r["id"], r["extra"]) for r in res[-1]["rows"]) == [(1, None), (2, None), (3, 7)]
    ours = sorted(
        (r["id"], r["extra"]) for r in FileSystemCatalog(wh).get_table(f"{T}$branch_b").read().to_pylist()
    )
    assert ours == [(1, None), (2, None), (3, 7)]


def test_fallback_branch_read_like_java(tmp_path, java):
    """``scan.fallback-branch``: main's partitions from main, the others from the branch."""
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    wh = str(tmp_path / "wh")
    t = {"warehouse": wh, "table": T}
    java.run(
        [
            {
                **t,
                "op": "create_table",
                "schema": COLS,
                "primary_keys": ["dt", "id"],
                "partition_keys": ["dt"],
                "options": {"bucket": "1"},
            },
            {**t, "op": "create_branch", "name": "fb"},
            {**t, "branch": "fb", "op": "write", "rows": _rows(1, [1, 2]) + _rows(1, [3], "d2")},
            {**t, "op": "write", "rows": _rows(2, [1])},
        ]
    )
    cat = FileSystemCatalog(wh)
    alter_table(cat.get_table(T), [SetOption("scan.fallback-branch", "fb")])
    ours = rows_from_arrow(cat.get_table(T).read())
    assert sorted((r["dt"], r["id"], r["v"]) for r in ours) == [("d1", 1, "w2-1"), ("d2", 3, "w1-3")]
    java_rows = java.run([{**t, "op": "read"}])[0]["rows"]
    assert_same_rows(java_rows, ours, label_a="Java's fallback read", label_b="ours")
