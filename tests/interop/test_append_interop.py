"""Append tables WE write are read identically by Java Paimon 0.9, pypaimon 2.1.0 and ourselves.

All tables are built once per module (several commits each, an overwrite, every primitive and
nested type, NULLs, awkward partition values); then one JVM and one pypaimon process read every
table at every snapshot. Each (table, snapshot, reader) is its own test against the expected rows.

Also here (same single JVM call): bucket placement — for fixed-bucket tables, every live data
file Java lists sits in the bucket that Java's own hash gives each of its rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop import data as D
from tests.interop.harness import arrow_from_rows, assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

PARTS = ["x", "a/b c:d=e%", "", None]  # includes an empty string and NULL partition value

SPECS = [
    # bucket-unaware, partitioned by STRING; 3 appends then a dynamic partition overwrite of 'x'
    D.TableSpec(
        "app.unaware_str",
        D.ALL_TYPES + [("p", "STRING")],
        [
            D.Commit(D.all_types_rows(0, 16, p=PARTS)),
            D.Commit(D.all_types_rows(100, 12, p=["x", "y", "=?#&"])),
            D.Commit(D.all_types_rows(200, 7, p=[None, "a/b c:d=e%"])),
            D.Commit(D.all_types_rows(300, 5, p="x"), overwrite=True),
        ],
        partition_keys=("p",),
        options={"bucket": "-1"},
    ),
    # fixed buckets with bucket-key, partitioned by DATE (with a NULL date partition)
    D.TableSpec(
        "app.fixed_date",
        D.ALL_TYPES + [("pd", "DATE")],
        [
            D.Commit(D.all_types_rows(0, 20, pd=["2024-01-01", "1969-12-31", None])),
            D.Commit(D.all_types_rows(100, 15, pd=["2024-01-01", "2024-02-29"])),
            D.Commit(D.all_types_rows(200, 6, pd="2024-01-01"), overwrite=True),
        ],
        partition_keys=("pd",),
        options={"bucket": "3", "bucket-key": "id"},
    ),
    # fixed buckets with a composite (INT, STRING) bucket key, partitioned by INT
    D.TableSpec(
        "app.fixed_int_composite",
        D.ALL_TYPES + [("pi", "INT")],
        [
            D.Commit(D.all_types_rows(0, 24, pi=[7, -1, None])),
            D.Commit(D.all_types_rows(100, 24, pi=[7, 2147483647])),
        ],
        partition_keys=("pi",),
        options={"bucket": "4", "bucket-key": "id,s"},
    ),
    # two partition levels (STRING, INT), fixed buckets
    D.TableSpec(
        "app.two_level",
        D.ALL_TYPES + [("p", "STRING"), ("hr", "INT")],
        [
            D.Commit(D.all_types_rows(0, 18, p=PARTS, hr=[0, 23, None])),
            D.Commit(D.all_types_rows(100, 10, p=["x", "a/b c:d=e%"], hr=[23])),
        ],
        partition_keys=("p", "hr"),
        options={"bucket": "2", "bucket-key": "id"},
    ),
    # unpartitioned, bucket-unaware: append, append, whole-table overwrite, append
    D.TableSpec(
        "app.unpart_unaware",
        D.ALL_TYPES,
        [
            D.Commit(D.all_types_rows(0, 25)),
            D.Commit(D.all_types_rows(100, 25)),
            D.Commit(D.all_types_rows(200, 10), overwrite=True),
            D.Commit(D.all_types_rows(300, 4)),
        ],
        options={"bucket": "-1"},
    ),
    # unpartitioned, fixed buckets keyed on a STRING column that holds NULLs and non-ASCII text
    D.TableSpec(
        "app.unpart_fixed_str",
        D.ALL_TYPES,
        [D.Commit(D.all_types_rows(0, 30)), D.Commit(D.all_types_rows(100, 30))],
        options={"bucket": "5", "bucket-key": "s"},
    ),
]
SPEC_BY_NAME = {s.name: s for s in SPECS}
FIXED = [s.name for s in SPECS if s.bucket > 0]


# Equality filters on a table of one-row files (min = max = the value, so stats must be exact):
# stats-based file skipping, ours and Java's on the stats WE wrote, must keep the matching files.
FILTER_TABLE = "app.one_row_files"
FILTER_COLUMNS = D.FILTER_COLUMNS
FILTER_ROWS = D.all_types_rows(0, 8)
FILTERS: list[tuple[str, object]] = []
for _r in FILTER_ROWS:
    for _c in FILTER_COLUMNS:
        _v = _r[_c]
        if _v is not None and not (isinstance(_v, str) and _v in ("NaN", "Infinity", "-Infinity")):
            if (_c, _v) not in FILTERS:
                FILTERS.append((_c, _v))
# our --where literal for each column (quoted strings are cast to the column type)
WHERE = {c: "'{}'" for c in ["dec38", "dec20", "dec10", "ts9", "ts6", "ts3", "s", "vc", "c", "dt", "tm"]}
WHERE.update({"bi": "{}", "i": "{}", "d": "{!r}"})
SPECS.append(
    D.TableSpec(FILTER_TABLE, D.ALL_TYPES, [D.Commit([r]) for r in FILTER_ROWS], options={"bucket": "-1"})
)
SPEC_BY_NAME[FILTER_TABLE] = SPECS[-1]


def _cases() -> list[tuple[str, int | None]]:
    out = []
    for s in SPECS:
        out += [(s.name, i + 1) for i in range(len(s.commits))] + [(s.name, None)]
    return out


CASES = _cases()


def _case_id(c: tuple[str, int | None]) -> str:
    return f"{c[0]}@{'latest' if c[1] is None else c[1]}"


def _expected(name: str, snapshot: int | None) -> list[dict]:
    states = SPEC_BY_NAME[name].expected_states()
    return states[-1 if snapshot is None else snapshot - 1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """Write every table with our core; returns warehouse + snapshot ids of each commit."""
    wh = tmp_path_factory.mktemp("append_interop")
    cat = FileSystemCatalog(str(wh))
    snaps: dict[str, list[int]] = {}
    for spec in SPECS:
        t = cat.create_table(
            spec.name,
            Schema(
                Schema.parse_columns(D.schema_ddl(spec.columns)),
                partition_keys=spec.partition_keys,
                primary_keys=(),
                options=spec.options,
            ),
        )
        ids = []
        for c in spec.commits:
            snap = t.write_arrow(arrow_from_rows(c.rows, t.schema.arrow_schema()), overwrite=c.overwrite)
            ids.append(snap.id)
            t = cat.get_table(spec.name)
        snaps[spec.name] = ids
    return {"warehouse": str(wh), "snapshots": snaps}


@pytest.fixture(scope="module")
def java_results(built, java) -> dict:
    """One JVM: every (table, snapshot) read, the snapshot list and live files of every table, and
    Java's bucket of every row ever written to a fixed-bucket table."""
    wh = built["warehouse"]
    reqs, keys = [], []
    for name, snap in CASES:
        reqs.append({"op": "read", "warehouse": wh, "table": name, "snapshot": snap})
        keys.append(("read", name, snap))
    for s in SPECS:
        reqs.append({"op": "snapshots", "warehouse": wh, "table": s.name})
        keys.append(("snapshots", s.name, None))
        if s.bucket > 0:
            reqs.append({"op": "files", "warehouse": wh, "table": s.name})
            keys.append(("files", s.name, None))
            reqs.append(D.bucket_request(s, [r for c in s.commits for r in c.rows]))
            keys.append(("bucket_of", s.name, None))
    for idx, (col, value) in enumerate(FILTERS):
        reqs.append(
            {
                "op": "read",
                "warehouse": wh,
                "table": FILTER_TABLE,
                "filter": {"field": col, "op": "=", "value": value},
            }
        )
        keys.append(("filter", idx, None))
    res = java.run(reqs, check=False)
    return dict(zip(keys, res, strict=True))


@pytest.fixture(scope="module")
def pypaimon_results(built, pypaimon) -> dict:
    wh = built["warehouse"]
    reqs = [{"op": "read", "warehouse": wh, "table": n, "snapshot": s} for n, s in CASES]
    res = pypaimon.run(reqs, check=False)
    return dict(zip(CASES, res, strict=True))


def _ok(res: dict, what: str) -> dict:
    if "error" in res:
        trace = "\n    ".join((res.get("trace") or [])[:12])
        pytest.fail(f"{what} failed: {res['error']}\n    {trace}")
    return res


# ---------------------------------------------------------------- reads


def test_commits_made_one_snapshot_each(built):
    for spec in SPECS:
        assert built["snapshots"][spec.name] == list(range(1, len(spec.commits) + 1)), spec.name


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_we_read_our_table(built, case):
    name, snap = case
    t = FileSystemCatalog(built["warehouse"]).get_table(name)
    ours = rows_from_arrow(t.read(snapshot_id=snap), SPEC_BY_NAME[name].types)
    assert_same_rows(ours, _expected(name, snap), label_a="paimon-cli", label_b="expected")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_java_reads_our_table(java_results, case):
    name, snap = case
    res = _ok(java_results[("read", name, snap)], f"Java read of {name} at snapshot {snap}")
    assert_same_rows(res["rows"], _expected(name, snap), label_a="java", label_b="expected")


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pypaimon_reads_our_table(pypaimon_results, case):
    name, snap = case
    res = _ok(pypaimon_results[case], f"pypaimon read of {name} at snapshot {snap}")
    assert_same_rows(res["rows"], _expected(name, snap), label_a="pypaimon", label_b="expected")


@pytest.mark.parametrize("name", [s.name for s in SPECS])
def test_java_sees_our_snapshots(java_results, name):
    spec = SPEC_BY_NAME[name]
    res = _ok(java_results[("snapshots", name, None)], f"Java snapshots of {name}")
    snaps = res["snapshots"]
    assert [s["id"] for s in snaps] == list(range(1, len(spec.commits) + 1))
    kinds = ["OVERWRITE" if c.overwrite else "APPEND" for c in spec.commits]
    assert [s["commitKind"] for s in snaps] == kinds
    states = spec.expected_states()
    assert [s["totalRecordCount"] for s in snaps] == [len(x) for x in states]


def test_java_parses_our_schema(built, java):
    """Java's view of the schema file we wrote equals the file (fields with ids and JSON types,
    highestFieldId, partition/primary keys, options other than Java's added 'path')."""
    wh = built["warehouse"]
    res = java.run([{"op": "schema", "warehouse": wh, "table": s.name} for s in SPECS], check=False)
    for spec, r in zip(SPECS, res, strict=True):
        theirs = _ok(r, f"Java schema of {spec.name}")["schema"]
        table_dir = Path(wh) / "app.db" / spec.name.split(".")[1]
        ours = json.loads((table_dir / "schema" / "schema-0").read_text())
        for key in ("version", "id", "fields", "highestFieldId", "partitionKeys", "primaryKeys"):
            assert theirs[key] == ours[key], (spec.name, key)
        opts = {k: v for k, v in theirs["options"].items() if k != "path"}
        assert opts == ours["options"], spec.name


# ---------------------------------------------------------------- bucket placement


@pytest.mark.parametrize("name", FIXED)
def test_java_finds_rows_in_javas_bucket(built, java_results, name):
    """Every live data file Java lists is in a bucket < N, and every row in it hashes (by Java) to
    that bucket; the files hold exactly the expected rows."""
    spec = SPEC_BY_NAME[name]
    files = _ok(java_results[("files", name, None)], f"Java files of {name}")["files"]
    buckets = _ok(java_results[("bucket_of", name, None)], f"Java bucket_of for {name}")["buckets"]
    all_rows = [r for c in spec.commits for r in c.rows]
    java_bucket = {r["id"]: b for r, b in zip(all_rows, buckets, strict=True)}
    table_dir = Path(built["warehouse"]) / "app.db" / name.split(".")[1]
    seen_ids = D.check_bucket_placement(spec, table_dir, files, java_bucket)
    assert sorted(seen_ids) == sorted(r["id"] for r in _expected(name, None))


# ---------------------------------------------------------------- filters (stats we wrote)


def _matching_ids(col: str, value) -> list[int]:
    return sorted(r["id"] for r in _expected(FILTER_TABLE, None) if r.get(col) == value)


@pytest.mark.parametrize("idx", range(len(FILTERS)), ids=[f"{c}={v}"[:60] for c, v in FILTERS])
def test_java_filter_keeps_files_with_matches(java_results, idx):
    col, value = FILTERS[idx]
    want = _matching_ids(col, value)
    assert want, "the filter value must occur in the table"
    res = _ok(java_results[("filter", idx, None)], f"Java filtered read {col} = {value!r}")
    got = sorted(r["id"] for r in res["rows"] if r.get(col) == value)
    assert got == want, f"Java skipped a file holding {col} = {value!r}: the stats we wrote exclude it"


@pytest.mark.parametrize(
    "flt", [f for f in FILTERS if f[0] in WHERE], ids=[f"{c}={v}"[:60] for c, v in FILTERS if c in WHERE]
)
def test_our_where_finds_matches(built, flt):
    col, value = flt
    t = FileSystemCatalog(built["warehouse"]).get_table(FILTER_TABLE)
    lit = WHERE[col].format(str(value).replace("T", " ") if col.startswith("ts") else value)
    got = sorted(t.read(where=f"{col} = {lit}").column("id").to_pylist())
    assert got == _matching_ids(col, value), f"where {col} = {lit}"
