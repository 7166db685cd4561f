"""Where lookup / full-compaction changelog lives, against Java Paimon 0.9.

Java's writers produce these changelogs while compacting (lookup: the compaction of level-0
files at prepareCommit; full-compaction: a full compaction), so the files travel in the
commit's compact increment and land in a COMPACT snapshot; Java's streaming read of such a
table (CompactionChangelogFollowUpScanner) reads changelog from COMPACT snapshots only.

Each table here gets the same commits twice, once through this project and once through
Java; Java's stream of both, our stream and our ``diff --mode changelog`` must all equal a
plain-Python model of the changelog, and the snapshots that carry changelog must have the
same commit kinds in both tables.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff
from paimon_core.read.stream import StreamRead
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

PRODUCERS = ["lookup", "full-compaction"]
COLUMNS = "id INT NOT NULL, v STRING, n BIGINT"
JAVA_SCHEMA = [
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "n", "type": "BIGINT"},
]
# (id, v, n, kind) per commit; no -D of an absent key, no two records of one key in a commit
COMMITS = [
    [(1, "a", 1, "+I"), (2, "b", 2, "+I"), (3, "c", 3, "+I")],
    [(2, "b2", 20, "+U"), (3, "c", 3, "-D"), (4, "d", 4, "+I")],
    [(1, "a3", 10, "+U"), (4, "d", 4, "+U"), (5, "e", 5, "+I")],
    [(5, None, None, "-D"), (6, "f", 6, "+I"), (3, "c4", 30, "+I")],
]


def model_changelog(commits) -> list[dict]:
    """Plain-Python changelog of a deduplicate table, one commit after another: a new key +I, a
    changed key -U(old)/+U(new) (also when the values are equal: row-deduplicate is off by
    default), a deleted key -D(old)."""
    state: dict[int, tuple] = {}
    out = []
    for commit in commits:
        for id_, v, n, kind in commit:
            old = state.get(id_)
            if kind == "-D":
                if old is not None:
                    out.append({"id": id_, "v": old[0], "n": old[1], "_row_kind": "-D"})
                    del state[id_]
                continue
            if old is None:
                out.append({"id": id_, "v": v, "n": n, "_row_kind": "+I"})
            else:
                out.append({"id": id_, "v": old[0], "n": old[1], "_row_kind": "-U"})
                out.append({"id": id_, "v": v, "n": n, "_row_kind": "+U"})
            state[id_] = (v, n)
    return out


def _arrow(commit) -> pa.Table:
    ids, vs, ns, ks = zip(*commit)
    return pa.table(
        {"id": pa.array(ids, pa.int32()), "v": list(vs), "n": pa.array(ns, pa.int64()), "k": list(ks)}
    )


def _name(producer: str) -> str:
    return producer.replace("-", "_")


@pytest.fixture(scope="module")
def tables(tmp_path_factory, java):
    """Warehouse with ``ours.<p>`` (written by us) and ``java.<p>`` (written by Java)."""
    wh = str(tmp_path_factory.mktemp("lookup_changelog"))
    cat = FileSystemCatalog(wh)
    cat.create_database("ours", ignore_if_exists=True)
    reqs = [{"op": "catalog", "warehouse": wh, "action": "create_database", "database": "java"}]
    for p in PRODUCERS:
        opts = {"bucket": "2", "changelog-producer": p}
        t = cat.create_table(
            f"ours.{_name(p)}", Schema(Schema.parse_columns(COLUMNS), (), ("id",), dict(opts))
        )
        for c in COMMITS:
            t.write_arrow(_arrow(c), row_kind_column="k")
        name = f"java.{_name(p)}"
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": name,
                "schema": JAVA_SCHEMA,
                "primary_keys": ["id"],
                "options": {**opts, "file.format": "parquet"},
            }
        )
        for c in COMMITS:
            rows = [{"id": i, "v": v, "n": n, "_row_kind": k} for i, v, n, k in c]
            reqs.append({"op": "write", "warehouse": wh, "table": name, "rows": rows})
            if p == "full-compaction":  # Java's batch writers do not full-compact by themselves
                reqs.append({"op": "compact", "warehouse": wh, "table": name, "full": True})
    java.run(reqs)
    return wh


def _java_stream(java, wh, name):
    res = java.call(
        "stream", warehouse=wh, table=name, options={"scan.mode": "from-snapshot", "scan.snapshot-id": "1"}
    )
    return [{k: v for k, v in r.items() if k != "_plan"} for r in res["rows"]]


def _changelog_kinds(java, wh, name):
    snaps = java.call("snapshots", warehouse=wh, table=name)["snapshots"]
    return [s["commitKind"] for s in snaps if s["changelogManifestList"]]


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("writer", ["ours", "java"])
def test_java_streams_the_whole_changelog(tables, java, producer, writer):
    expected = model_changelog(COMMITS)
    got = _java_stream(java, tables, f"{writer}.{_name(producer)}")
    assert_same_rows(
        got, expected, ignore_kind=False, label_a=f"java stream of {writer}'s table", label_b="model"
    )


def _changelog_file_levels(wh, name):
    """(level, file source) of every changelog file of the table."""
    t = FileSystemCatalog(wh).get_table(name)
    store, out = t.manifests, []
    for sid in t.snapshots.list_ids():
        s = t.snapshots.snapshot(sid)
        if s.changelog_manifest_list:
            out += [
                (e.file.level, e.file.file_source)
                for m in store.read_list(s.changelog_manifest_list)
                for e in store.read_manifest(m.file_name)
            ]
    return out


@pytest.mark.parametrize("producer", PRODUCERS)
def test_changelog_is_in_compact_snapshots_as_javas(tables, java, producer):
    ours = _changelog_kinds(java, tables, f"ours.{_name(producer)}")
    theirs = _changelog_kinds(java, tables, f"java.{_name(producer)}")
    assert theirs and set(theirs) == {"COMPACT"}, theirs
    assert ours == theirs
    # Java's compactions write changelog files at their output level (never 0 here), file source
    # APPEND; which level depends on file sizes, which differ between the two writers
    for writer in ("java", "ours"):
        levels = _changelog_file_levels(tables, f"{writer}.{_name(producer)}")
        assert levels and all(level > 0 and source == 0 for level, source in levels), (writer, levels)


@pytest.mark.parametrize("producer", PRODUCERS)
@pytest.mark.parametrize("writer", ["ours", "java"])
def test_our_stream_and_diff_read_the_whole_changelog(tables, producer, writer):
    t = FileSystemCatalog(tables).get_table(f"{writer}.{_name(producer)}")
    expected = model_changelog(COMMITS)
    r = StreamRead(t, mode="from-snapshot", start=1)
    r.start_batch()
    streamed = []
    while (b := r.poll()) is not None:
        streamed += rows_from_arrow(b.rows)
    assert_same_rows(
        streamed, expected, ignore_kind=False, label_a=f"our stream of {writer}'s table", label_b="model"
    )
    d = diff(t, 0, t.snapshots.latest_id(), mode="changelog")
    assert_same_rows(
        rows_from_arrow(d),
        expected,
        ignore_kind=False,
        label_a=f"our diff of {writer}'s table",
        label_b="model",
    )


@pytest.mark.parametrize("engine", ["aggregation", "partial-update"])
def test_lookup_merge_reads_the_same_both_ways(tmp_path, java, engine):
    """Java 0.9 merges lookup tables with its LookupMergeFunction: only the newest record above
    level 0 counts, and lookup compactions write whole values. Once a key is in two levels above
    0, merging every level (as for other tables) double counts a sum and, on a table whose
    compactions did not fold the older value in, Java loses a partial-update field."""
    wh = str(tmp_path)
    opts = {"bucket": "1", "changelog-producer": "lookup", "merge-engine": engine}
    if engine == "aggregation":
        opts["fields.n.aggregate-function"] = "sum"
    t = FileSystemCatalog(wh).create_table(
        "ours.t", Schema(Schema.parse_columns("id INT NOT NULL, n BIGINT, m BIGINT"), (), ("id",), dict(opts))
    )
    reqs = [
        {
            "op": "create_table",
            "warehouse": wh,
            "table": "java.t",
            "primary_keys": ["id"],
            "schema": [
                {"name": "id", "type": "INT NOT NULL"},
                {"name": "n", "type": "BIGINT"},
                {"name": "m", "type": "BIGINT"},
            ],
            "options": {**opts, "file.format": "parquet"},
        }
    ]
    big = 3000  # a big first run stays in the top level; later writes of key 1 land in a level above it
    batches = [[(i, 1, 7) for i in range(big)]] + [[(1, 1, None)]] * 4
    # model: sum of n / partial-update keeps m = 7 from the first write, n = 1
    expected = {"id": 1, "n": 5, "m": 7} if engine == "aggregation" else {"id": 1, "n": 1, "m": 7}
    for rows in batches:
        ids, ns, ms = zip(*rows)
        t.write_arrow(
            pa.table(
                {
                    "id": pa.array(ids, pa.int32()),
                    "n": pa.array(ns, pa.int64()),
                    "m": pa.array(ms, pa.int64()),
                }
            )
        )
        reqs.append(
            {
                "op": "write",
                "warehouse": wh,
                "table": "java.t",
                "rows": [{"id": i, "n": n, "m": m} for i, n, m in rows],
            }
        )
    java.run(reqs)
    levels = {f["level"] for f in java.call("files", warehouse=wh, table="ours.t")["files"]}
    assert len(levels - {0}) >= 2, levels  # the case under test: key 1 in two levels above 0
    for name in ("ours.t", "java.t"):
        ours = [r for r in FileSystemCatalog(wh).get_table(name).read().to_pylist() if r["id"] == 1]
        theirs = [
            {k: v for k, v in r.items() if k != "_row_kind"}
            for r in java.call("read", warehouse=wh, table=name)["rows"]
            if r["id"] == 1
        ]
        assert (ours, theirs) == ([expected], [expected]), name


def test_first_row_lookup_changelog_has_only_new_keys(tmp_path, java):
    """first-row with lookup changelog: a key written again keeps its first row and gives no
    changelog; Java's stream of our table and of its twin is +I of each key's first row."""
    wh = str(tmp_path)
    opts = {"bucket": "2", "changelog-producer": "lookup", "merge-engine": "first-row"}
    t = FileSystemCatalog(wh).create_table(
        "ours.fr", Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), (), ("id",), dict(opts))
    )
    reqs = [
        {
            "op": "create_table",
            "warehouse": wh,
            "table": "java.fr",
            "primary_keys": ["id"],
            "schema": [{"name": "id", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}],
            "options": {**opts, "file.format": "parquet"},
        }
    ]
    commits = [([1, 2], "a"), ([2, 3], "b"), ([1, 3, 4], "c")]
    for ids, v in commits:
        t.write_arrow(pa.table({"id": pa.array(ids, pa.int32()), "v": [v] * len(ids)}))
        reqs.append(
            {"op": "write", "warehouse": wh, "table": "java.fr", "rows": [{"id": i, "v": v} for i in ids]}
        )
    java.run(reqs)
    first: dict = {}
    for ids, v in commits:
        for i in ids:
            first.setdefault(i, v)
    expected = [{"id": i, "v": v, "_row_kind": "+I"} for i, v in first.items()]
    for name in ("ours.fr", "java.fr"):
        assert_same_rows(
            _java_stream(java, wh, name),
            expected,
            ignore_kind=False,
            label_a=f"java stream of {name}",
            label_b="model",
        )
        tt = FileSystemCatalog(wh).get_table(name)
        assert_same_rows(
            rows_from_arrow(diff(tt, 0, tt.snapshots.latest_id(), mode="changelog")),
            expected,
            ignore_kind=False,
            label_a=f"our changelog of {name}",
            label_b="model",
        )
