"""Primary-key tables WE write are read identically by Java Paimon 0.9, pypaimon 2.1.0 and us.

Deduplicate (partitioned and not, bucket = 2, and dynamic bucket = -1) with +I/-U/+U/-D rows and
our own full compaction between writes; first-row, where our writer (like Java's) follows each
write with a compaction out of level 0, since batch scans of first-row tables skip level-0 files.
Every reader is checked against the merged commits at every snapshot. One JVM call reads every
table at every snapshot, lists files + hashes bucket keys, then fully compacts each table and
reads it again (we read the Java-compacted tables afterwards); one pypaimon process reads every
snapshot.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop import data as D
from tests.interop.harness import arrow_from_rows, assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

from paimon_core.compaction.compaction import full_compact  # noqa: E402

ROW_KIND = "_row_kind"


def _rekey(rows: list[dict], ids: list[int], kind: str | None = None) -> list[dict]:
    out = []
    for r, i in zip(rows, ids, strict=True):
        r = dict(r, id=i)
        if kind:
            r[ROW_KIND] = kind
        out.append(r)
    return out


def _dedup_commits(extra: dict | None = None) -> list[D.Commit]:
    x = extra or {}
    c1 = D.all_types_rows(0, 20, **x)
    c2 = _rekey(D.all_types_rows(50, 5, **x), [10, 11, 12, 13, 14])
    c3 = D.all_types_rows(100, 2, **x)
    c2 += _rekey(D.all_types_rows(15, 2, **x), [15, 16], "-D")
    c3 += (
        _rekey(D.all_types_rows(0, 1, **x), [0], "-U")
        + _rekey(D.all_types_rows(60, 1, **x), [0], "+U")
        + _rekey(D.all_types_rows(1, 1, **x), [1], "-U")
        + _rekey(D.all_types_rows(2, 1, **x), [2], "-D")
    )
    c5 = _rekey(D.all_types_rows(70, 1, **x), [3])
    c5 += _rekey(D.all_types_rows(4, 1, **x), [4], "-D")
    return [D.Commit(c1), D.Commit(c2), D.Commit(c3), D.Commit([], by="compact"), D.Commit(c5)]


SPECS = [
    D.TableSpec(
        "ours.pk_dedup", D.ALL_TYPES, _dedup_commits(), primary_keys=("id",), options={"bucket": "2"}
    ),
    D.TableSpec(
        "ours.pk_dedup_part",
        D.ALL_TYPES + [("pt", "STRING NOT NULL")],
        _dedup_commits({"pt": ["a", "b/c d"]}),
        partition_keys=("pt",),
        primary_keys=("pt", "id"),
        options={"bucket": "2"},
    ),
    D.TableSpec(
        "ours.pk_dynamic",
        D.ALL_TYPES,
        [D.Commit(D.all_types_rows(0, 12)), D.Commit(_rekey(D.all_types_rows(30, 6), [1, 2, 3, 40, 41, 42]))],
        primary_keys=("id",),
        options={"bucket": "-1"},
    ),
    D.TableSpec(
        "ours.pk_first_row",
        D.ALL_TYPES,
        [
            D.Commit(D.all_types_rows(0, 10)),
            D.Commit(_rekey(D.all_types_rows(40, 10), list(range(5, 15)))),
        ]
        + [D.Commit([], by="compact")],
        primary_keys=("id",),
        options={"bucket": "2", "merge-engine": "first-row"},
    ),
]
# Java rewrites these tables (compaction), and cannot read back the INT96 it writes for pre-1970
# TIMESTAMP(9) values with sub-millisecond digits (see data.java_safe)
SPECS = [D.java_safe_spec(s) for s in SPECS]
SPEC_BY_NAME = {s.name: s for s in SPECS}


def _engine(spec: D.TableSpec) -> str:
    return spec.options.get("merge-engine", "deduplicate")


def _expected_at(spec: D.TableSpec, k: int) -> list[dict]:
    """State after commit k (0-based)."""
    rows = [r for c in spec.commits[: k + 1] for r in c.rows]
    return D.merge_pk(rows, spec.primary_keys, _engine(spec))


def _cases() -> list[tuple[str, int]]:
    """(table, commit index) pairs whose snapshot every reader must agree on: every commit of
    every table (first-row included: our writes leave nothing in level 0)."""
    out = []
    for s in SPECS:
        out += [(s.name, k) for k in range(len(s.commits))]
    return out


CASES = _cases()


def _case_id(c) -> str:
    return f"{c[0]}@commit{c[1] + 1}"


def _ok(res: dict, what: str) -> dict:
    if "error" in res:
        trace = "\n    ".join((res.get("trace") or [])[:12])
        pytest.fail(f"{what} failed: {res['error']}\n    {trace}")
    return res


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    wh = str(tmp_path_factory.mktemp("pk_interop"))
    cat = FileSystemCatalog(wh)
    snaps: dict[str, list[int | None]] = {}
    compacted: dict[str, list[bool]] = {}  # per explicit compaction: whether it had work to do
    for spec in SPECS:
        cat.create_table(
            spec.name,
            Schema(
                Schema.parse_columns(D.schema_ddl(spec.columns)),
                partition_keys=spec.partition_keys,
                primary_keys=spec.primary_keys,
                options=spec.options,
            ),
        )
        ids: list[int | None] = []
        for c in spec.commits:
            t = cat.get_table(spec.name)
            if c.by == "compact":
                res = full_compact(t)
                compacted.setdefault(spec.name, []).append(res.snapshot is not None)
                ids.append(res.snapshot.id if res.snapshot is not None else t.snapshots.latest().id)
                continue
            data = arrow_from_rows(c.rows, t.schema.arrow_schema())
            data = data.append_column(ROW_KIND, pa.array([r.get(ROW_KIND, "+I") for r in c.rows]))
            t.write_arrow(data, row_kind_column=ROW_KIND)
            # the write's own snapshot, or the COMPACT snapshot our writer adds right after it
            # (first-row tables: data must leave level 0 to be visible, as with Java's writer)
            ids.append(t.snapshots.latest_id())
        snaps[spec.name] = ids
    return {"warehouse": wh, "snapshots": snaps, "compacted": compacted}


def _snap(built: dict, case: tuple[str, int]) -> int:
    return built["snapshots"][case[0]][case[1]]


@pytest.fixture(scope="module")
def java_results(built, java) -> dict:
    """One JVM: reads at every case's snapshot, files + bucket hashes of fixed-bucket tables,
    then a Java full compaction of each table and a read of the result."""
    wh = built["warehouse"]
    reqs, keys = [], []
    for case in CASES:
        reqs.append({"op": "read", "warehouse": wh, "table": case[0], "snapshot": _snap(built, case)})
        keys.append(("read", case))
    for s in SPECS:
        reqs.append({"op": "files", "warehouse": wh, "table": s.name})
        keys.append(("files", s.name))
        if s.bucket > 0:
            reqs.append(D.bucket_request(s, [r for c in s.commits for r in c.rows]))
            keys.append(("bucket_of", s.name))
    first_row = [s for s in SPECS if _engine(s) == "first-row"]
    for s in first_row:  # right after our first write, before any compaction
        reqs.append(
            {"op": "read", "warehouse": wh, "table": s.name, "snapshot": built["snapshots"][s.name][0]}
        )
        keys.append(("read_first_write", s.name))
    for s in SPECS:
        reqs.append({"op": "compact", "warehouse": wh, "table": s.name, "full": True})
        keys.append(("compact", s.name))
        reqs.append({"op": "read", "warehouse": wh, "table": s.name})
        keys.append(("read_after_compact", s.name))
    return dict(zip(keys, java.run(reqs, check=False), strict=True))


@pytest.fixture(scope="module")
def pypaimon_results(built, pypaimon) -> dict:
    wh = built["warehouse"]
    reqs = [{"op": "read", "warehouse": wh, "table": c[0], "snapshot": _snap(built, c)} for c in CASES]
    return dict(zip(CASES, pypaimon.run(reqs, check=False), strict=True))


def _micros_ts9(rows: list[dict]) -> list[dict]:
    """pypaimon 2.1.0 truncates TIMESTAMP(9) to micros in merging PK reads (reference quirk)."""
    return [dict(r, ts9=r["ts9"][:-3] + "000") if r.get("ts9") else r for r in rows]


def test_pk_writes_made_one_snapshot_each(built):
    """One snapshot per write, plus one COMPACT snapshot right after each first-row write (its data
    leaves level 0, as with Java's writer); an explicit full compaction adds one when it has work
    (a first-row table's writes may already have left one file at the top level)."""
    for spec in SPECS:
        ids = built["snapshots"][spec.name]
        worked = iter(built["compacted"].get(spec.name, []))
        expected, sid = [], 0
        for c in spec.commits:
            if c.by == "compact":
                did = next(worked)
                assert did or _engine(spec) == "first-row", (
                    spec.name,
                    "a full compaction with nothing to do",
                )
                sid += 1 if did else 0
            else:
                sid += 2 if _engine(spec) == "first-row" else 1
            expected.append(sid)
        assert ids == expected, (spec.name, ids)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_we_read_our_pk_table(built, case):
    t = FileSystemCatalog(built["warehouse"]).get_table(case[0])
    ours = rows_from_arrow(t.read(snapshot_id=_snap(built, case)), SPEC_BY_NAME[case[0]].types)
    assert_same_rows(
        ours, _expected_at(SPEC_BY_NAME[case[0]], case[1]), label_a="paimon-cli", label_b="expected"
    )


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_java_reads_our_pk_table(java_results, case):
    rows = _ok(java_results[("read", case)], f"Java read of {case}")["rows"]
    assert_same_rows(rows, _expected_at(SPEC_BY_NAME[case[0]], case[1]), label_a="java", label_b="expected")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pypaimon_reads_our_pk_table(pypaimon_results, case):
    rows = _ok(pypaimon_results[case], f"pypaimon read of {case}")["rows"]
    expected = _expected_at(SPEC_BY_NAME[case[0]], case[1])
    assert_same_rows(_micros_ts9(rows), _micros_ts9(expected), label_a="pypaimon", label_b="expected")


@pytest.mark.parametrize("name", [s.name for s in SPECS if s.bucket > 0])
def test_java_finds_pk_rows_in_javas_bucket(built, java_results, name):
    spec = SPEC_BY_NAME[name]
    files = _ok(java_results[("files", name)], f"Java files of {name}")["files"]
    buckets = _ok(java_results[("bucket_of", name)], f"Java bucket_of for {name}")["buckets"]
    rows = [r for c in spec.commits for r in c.rows]
    by_id = {r["id"]: b for r, b in zip(rows, buckets, strict=True)}
    D.check_bucket_placement(spec, Path(built["warehouse"]) / "ours.db" / name.split(".")[1], files, by_id)


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_java_compacts_our_pk_table_and_all_agree(built, java_results, name):
    spec = SPEC_BY_NAME[name]
    _ok(java_results[("compact", name)], f"Java compaction of {name}")
    java_rows = _ok(java_results[("read_after_compact", name)], f"Java read of {name} after compaction")[
        "rows"
    ]
    expected = _expected_at(spec, len(spec.commits) - 1)
    assert_same_rows(java_rows, expected, label_a="java", label_b="expected")
    t = FileSystemCatalog(built["warehouse"]).get_table(name)
    ours = rows_from_arrow(t.read(), spec.types)
    assert_same_rows(ours, expected, label_a="paimon-cli after Java compaction", label_b="expected")


@pytest.mark.parametrize("name", [s.name for s in SPECS if _engine(s) == "first-row"])
def test_java_sees_our_first_row_write_before_compaction(built, java_results, name):
    """Java's batch scan of a first-row table skips level-0 files; Java's own writer therefore
    follows every first-row commit with a lookup compaction (a COMPACT snapshot) that moves the
    data out of level 0. A write of ours must be visible to Java the same way, or readers see
    nothing until someone compacts."""
    spec = SPEC_BY_NAME[name]
    rows = _ok(java_results[("read_first_write", name)], f"Java read of {name} after our first write")["rows"]
    # the state after our first write; Java reads the snapshot that write_arrow returned
    assert_same_rows(rows, _expected_at(spec, 0), label_a="java", label_b="expected")
