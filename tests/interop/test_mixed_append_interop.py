"""Java Paimon 0.9 appends to tables WE wrote, and we append to tables Java wrote; afterwards Java,
pypaimon and we all read the union (at the latest snapshot and at every earlier one).

Exactly two JVM calls: (1) Java appends to our tables and creates + fills its own; we then append
to all of them; (2) Java reads everything, lists the live files and hashes every row's bucket key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop import data as D
from tests.interop.harness import arrow_from_rows, assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

SPECS = [
    D.TableSpec(  # ours first: we create + write, Java appends, we append again
        "mix.ours_first",
        D.ALL_TYPES + [("p", "STRING")],
        [
            D.Commit(D.all_types_rows(0, 12, p=["x", "a/b c:d=e%", None]), by="ours"),
            D.Commit(D.java_safe(D.all_types_rows(100, 12, p=["x", "y"])), by="java"),
            D.Commit(D.all_types_rows(200, 6, p=["x", "a/b c:d=e%"]), by="ours"),
        ],
        partition_keys=("p",),
        options={"bucket": "2", "bucket-key": "id"},
    ),
    D.TableSpec(
        "mix.ours_first_unaware",
        D.ALL_TYPES,
        [
            D.Commit(D.all_types_rows(0, 10), by="ours"),
            D.Commit(D.java_safe(D.all_types_rows(100, 10)), by="java"),
            D.Commit(D.all_types_rows(200, 5), by="ours"),
        ],
        options={"bucket": "-1"},
    ),
    D.TableSpec(  # Java first: Java creates + writes twice, we append
        "mix.java_first",
        D.ALL_TYPES + [("pd", "DATE")],
        [
            D.Commit(D.java_safe(D.all_types_rows(0, 12, pd=["2024-01-01", None])), by="java"),
            D.Commit(D.java_safe(D.all_types_rows(100, 6, pd=["2024-01-01"])), by="java"),
            D.Commit(D.all_types_rows(200, 10, pd=["2024-01-01", "2024-01-02", None]), by="ours"),
        ],
        partition_keys=("pd",),
        options={"bucket": "-1"},
    ),
    D.TableSpec(
        "mix.java_first_fixed",
        D.ALL_TYPES,
        [
            D.Commit(D.java_safe(D.all_types_rows(0, 15)), by="java"),
            D.Commit(D.all_types_rows(100, 15), by="ours"),
        ],
        options={"bucket": "3", "bucket-key": "id"},
    ),
]
SPEC_BY_NAME = {s.name: s for s in SPECS}
CASES = [(s.name, i + 1) for s in SPECS for i in range(len(s.commits))] + [(s.name, None) for s in SPECS]


def _case_id(c) -> str:
    return f"{c[0]}@{'latest' if c[1] is None else c[1]}"


def _ok(res: dict, what: str) -> dict:
    if "error" in res:
        trace = "\n    ".join((res.get("trace") or [])[:12])
        pytest.fail(f"{what} failed: {res['error']}\n    {trace}")
    return res


def _our_write(cat: FileSystemCatalog, spec: D.TableSpec, commit: D.Commit) -> None:
    if not cat.table_exists(spec.name):
        cat.create_table(
            spec.name,
            Schema(
                Schema.parse_columns(D.schema_ddl(spec.columns)),
                partition_keys=spec.partition_keys,
                primary_keys=(),
                options=spec.options,
            ),
        )
    t = cat.get_table(spec.name)
    t.write_arrow(arrow_from_rows(commit.rows, t.schema.arrow_schema()), overwrite=commit.overwrite)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, java) -> dict:
    wh = str(tmp_path_factory.mktemp("mixed"))
    cat = FileSystemCatalog(wh)
    # Each table's commits are: ours* java* ours*. Run the leading ours now, every Java commit in
    # one JVM, then the trailing ours. A table whose first commit is Java's is created by Java.
    java_reqs: list[dict] = []
    later: list[tuple[D.TableSpec, D.Commit]] = []
    for spec in SPECS:
        kinds = "".join("j" if c.by == "java" else "o" for c in spec.commits)
        assert kinds.strip("o").count("o") == 0, f"{spec.name}: Java commits must be contiguous"
        if kinds.startswith("j"):
            java_reqs.append(spec.create_request(wh))
        seen_java = False
        for c in spec.commits:
            if c.by == "java":
                seen_java = True
                java_reqs.append(spec.write_request(wh, c))
            elif not seen_java:
                _our_write(cat, spec, c)
            else:
                later.append((spec, c))
    setup = java.run(java_reqs, check=False)
    errors = [(q, r) for q, r in zip(java_reqs, setup, strict=True) if "error" in r]
    for spec, c in later:
        _our_write(cat, spec, c)
    reads = []
    for name, snap in CASES:
        reads.append({"op": "read", "warehouse": wh, "table": name, "snapshot": snap})
    extra_keys = []
    for s in SPECS:
        reads.append({"op": "snapshots", "warehouse": wh, "table": s.name})
        extra_keys.append(("snapshots", s.name))
        if s.bucket > 0:
            reads.append({"op": "files", "warehouse": wh, "table": s.name})
            extra_keys.append(("files", s.name))
            reads.append(D.bucket_request(s, [r for c in s.commits for r in c.rows]))
            extra_keys.append(("bucket_of", s.name))
    res = java.run(reads, check=False)
    return {
        "warehouse": wh,
        "setup_errors": errors,
        "java_reads": dict(zip(CASES, res[: len(CASES)], strict=True)),
        "java_extra": dict(zip(extra_keys, res[len(CASES) :], strict=True)),
    }


@pytest.fixture(scope="module")
def pypaimon_reads(mixed, pypaimon) -> dict:
    wh = mixed["warehouse"]
    reqs = [
        {"op": "read", "warehouse": wh, "table": n, "snapshot": s, "java09_compat": True} for n, s in CASES
    ]
    return dict(zip(CASES, pypaimon.run(reqs, check=False), strict=True))


def _expected(name: str, snap: int | None) -> list[dict]:
    states = SPEC_BY_NAME[name].expected_states()
    return states[-1 if snap is None else snap - 1]


def test_java_side_of_setup_ran(mixed):
    if mixed["setup_errors"]:
        pytest.fail(
            "Java failed: "
            + "; ".join(f"{q['op']} {q['table']}: {r['error']}" for q, r in mixed["setup_errors"])
        )


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_one_snapshot_per_commit_on_both_sides(mixed, name):
    spec = SPEC_BY_NAME[name]
    snaps = _ok(mixed["java_extra"][("snapshots", name)], f"Java snapshots of {name}")["snapshots"]
    assert [s["id"] for s in snaps] == list(range(1, len(spec.commits) + 1))
    assert [s["totalRecordCount"] for s in snaps] == [len(x) for x in spec.expected_states()]
    ours = FileSystemCatalog(mixed["warehouse"]).get_table(name).snapshots.latest()
    assert ours.id == len(spec.commits)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_java_reads_union(mixed, case):
    name, snap = case
    rows = _ok(mixed["java_reads"][case], f"Java read of {name}@{snap}")["rows"]
    assert_same_rows(rows, _expected(name, snap), label_a="java", label_b="expected")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_we_read_union(mixed, case):
    name, snap = case
    t = FileSystemCatalog(mixed["warehouse"]).get_table(name)
    rows = rows_from_arrow(t.read(snapshot_id=snap), SPEC_BY_NAME[name].types)
    assert_same_rows(rows, _expected(name, snap), label_a="paimon-cli", label_b="expected")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pypaimon_reads_union(pypaimon_reads, case):
    name, snap = case
    rows = _ok(pypaimon_reads[case], f"pypaimon read of {name}@{snap}")["rows"]
    assert_same_rows(rows, _expected(name, snap), label_a="pypaimon", label_b="expected")


@pytest.mark.parametrize("name", [s.name for s in SPECS if s.bucket > 0])
def test_both_writers_put_rows_in_javas_bucket(mixed, name):
    spec = SPEC_BY_NAME[name]
    files = _ok(mixed["java_extra"][("files", name)], f"Java files of {name}")["files"]
    buckets = _ok(mixed["java_extra"][("bucket_of", name)], f"Java bucket_of for {name}")["buckets"]
    rows = [r for c in spec.commits for r in c.rows]
    by_id = {r["id"]: b for r, b in zip(rows, buckets, strict=True)}
    table_dir = Path(mixed["warehouse"]) / "mix.db" / name.split(".")[1]
    seen = D.check_bucket_placement(spec, table_dir, files, by_id)
    assert sorted(seen) == sorted(r["id"] for r in _expected(name, None))
