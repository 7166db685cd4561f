"""Lookup changelog comes from the compaction that moves level-0 files up, in its COMPACT
snapshot (as Java 0.9 places it); readers still read tables with the older APPEND placement."""

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import SetOption
from paimon_core.ops.alter import alter_table
from paimon_core.read.diff import diff
from paimon_core.read.stream import StreamRead


def pk(catalog: FileSystemCatalog, producer="lookup", **opts):
    return catalog.create_table(
        "db.t",
        Schema(
            Schema.parse_columns("id INT NOT NULL, v STRING"),
            (),
            ("id",),
            {"bucket": "2", "changelog-producer": producer, **opts},
        ),
    )


def write(t, ids, vs, kinds=None):
    data = {"id": pa.array(ids, pa.int32()), "v": vs}
    if kinds:
        data["k"] = kinds
    t.write_arrow(pa.table(data), row_kind_column="k" if kinds else None)


def changelog_kinds(t):
    sm = t.snapshots
    return [
        (sm.snapshot(i).commit_kind, sm.snapshot(i).changelog_manifest_list is not None)
        for i in sm.list_ids()
    ]


def log(t, start=0):
    return sorted(
        tuple(r.values()) for r in diff(t, start, t.snapshots.latest_id(), mode="changelog").to_pylist()
    )


def streamed(t):
    r = StreamRead(t, mode="from-snapshot", start=1)
    r.start_batch()
    out = []
    while (b := r.poll()) is not None:
        out += [tuple(row.values()) for row in b.rows.to_pylist()]
    return sorted(out)


def test_each_write_is_an_append_without_changelog_then_a_compact_with_it(catalog):
    t = pk(catalog)
    write(t, [1, 2, 3], ["a", "b", "c"])
    write(t, [2, 3, 4], ["b2", "c", "d"], ["+U", "-D", "+I"])
    write(t, [1, 4], ["a3", "d"], ["+U", "+U"])
    # every commit: the level-0 files (APPEND, no changelog), then the lookup compaction with it
    assert changelog_kinds(t) == [("APPEND", False), ("COMPACT", True)] * 3
    expected = sorted(
        [
            ("+I", 1, "a"),
            ("+I", 2, "b"),
            ("+I", 3, "c"),
            ("-U", 2, "b"),
            ("+U", 2, "b2"),
            ("-D", 3, "c"),
            ("+I", 4, "d"),
            ("-U", 1, "a"),
            ("+U", 1, "a3"),
            ("-U", 4, "d"),
            ("+U", 4, "d"),
        ]
    )
    assert log(t) == expected
    assert streamed(t) == expected


def test_row_deduplicate_drops_unchanged_updates(catalog):
    t = pk(catalog, **{"changelog-producer.row-deduplicate": "true"})
    write(t, [1, 2], ["a", "b"])
    write(t, [1, 2], ["a", "b2"])
    assert log(t, 2) == [("+U", 2, "b2"), ("-U", 2, "b")]


def test_write_only_leaves_the_changelog_to_the_next_compaction(catalog):
    t = pk(catalog, **{"write-only": "true"})
    write(t, [1, 2], ["a", "b"])
    write(t, [2, 3], ["b2", "c"])
    assert changelog_kinds(t) == [("APPEND", False)] * 2
    compact(t)
    # one compaction over both writes' level-0 files: their changes, grouped per key
    assert changelog_kinds(t)[-1] == ("COMPACT", True)
    assert log(t) == sorted([("+I", 1, "a"), ("+I", 2, "b2"), ("+I", 3, "c")])
    write(t, [1], ["a2"], ["-D"])
    compact(t)
    assert log(t, 3) == [("-D", 1, "a")]


def test_older_tables_with_changelog_in_append_snapshots_are_still_read(catalog):
    # an `input` table's changelog is in APPEND snapshots; for inserts of new keys it is what the
    # earlier lookup writer put there, and that writer's compaction left no level-0 file (a
    # level-0 file counts as not yet in the changelog, as in Java). Switched to lookup, the
    # table has both placements.
    t = pk(catalog, producer="input")
    write(t, [1, 2], ["a", "b"])
    compact(t, full=True)
    t = alter_table(t, [SetOption("changelog-producer", "lookup")])
    write(t, [2, 3], ["b2", "c"])
    assert [k for k in changelog_kinds(t) if k[1]] == [("APPEND", True), ("COMPACT", True)]
    expected = sorted([("+I", 1, "a"), ("+I", 2, "b"), ("-U", 2, "b"), ("+U", 2, "b2"), ("+I", 3, "c")])
    assert log(t) == expected
    assert streamed(t) == expected


def test_lookup_tables_keep_whole_values_above_level_0(catalog):
    """Aggregation (sum) on a lookup table, a key spread over two levels above 0: reads, and the
    changelog replayed, equal a plain model; the newest record above level 0 is the whole sum
    (what Java 0.9's LookupMergeFunction reads)."""
    import random

    from paimon_core.read.scan import DataSplit
    from paimon_core.read.table_read import TableRead

    t = catalog.create_table(
        "db.agg",
        Schema(
            Schema.parse_columns("id INT NOT NULL, n BIGINT"),
            (),
            ("id",),
            {
                "bucket": "1",
                "changelog-producer": "lookup",
                "merge-engine": "aggregation",
                "fields.n.aggregate-function": "sum",
            },
        ),
    )
    big = 3000
    t.write_arrow(pa.table({"id": pa.array(range(big), pa.int32()), "n": pa.array([1] * big, pa.int64())}))
    model = dict.fromkeys(range(big), 1)
    rng = random.Random(7)
    for _ in range(6):
        ids = rng.sample(range(20), 5)
        t.write_arrow(pa.table({"id": pa.array(ids, pa.int32()), "n": pa.array([2] * 5, pa.int64())}))
        for i in ids:
            model[i] += 2
    assert {r["id"]: r["n"] for r in t.read().to_pylist()} == model
    replay: dict = {}
    for r in diff(t, 0, t.snapshots.latest_id(), mode="changelog").to_pylist():
        if r["_row_kind"] in ("+I", "+U"):
            replay[r["id"]] = r["n"]
        else:
            replay.pop(r["id"], None)
    assert replay == model
    (split,) = t.plan(t.snapshots.latest(), all_levels=True)
    upper = sorted({f.level for f in split.files} - {0})
    assert len(upper) >= 2, upper  # the case under test
    newest = next(f for f in split.files if f.level == upper[0])
    rows = TableRead(t).read_file(DataSplit(split.partition, b"", split.bucket, 1, (newest,)), newest, False)
    assert {r["id"]: r["n"] for r in rows.to_pylist()} == {i: model[i] for i in rows.column("id").to_pylist()}


def changelog_files(t):
    """(commit kind, level, file source) of every changelog file of the table."""
    sm, store, out = t.snapshots, t.manifests, []
    for i in sm.list_ids():
        s = sm.snapshot(i)
        if s.changelog_manifest_list is not None:
            out += [
                (s.commit_kind, e.file.level, e.file.file_source)
                for m in store.read_list(s.changelog_manifest_list)
                for e in store.read_manifest(m.file_name)
            ]
    return out


@pytest.mark.parametrize(
    "opts",
    [{}, {"deletion-vectors.enabled": "true"}, {"merge-engine": "first-row"}],
    ids=["plain", "deletion-vectors", "first-row"],
)
def test_changelog_files_are_in_compact_snapshots_at_the_output_level(catalog, opts):
    """Deletion-vector and first-row tables too: the compaction that moves level 0 up writes
    the changelog, at its output level (above 0, where Java's scans of these tables look), with
    file source APPEND (0); first-row gives +I of new keys only."""
    t = pk(catalog, **opts)
    write(t, [1, 2], ["a", "b"])
    write(t, [2, 3], ["b2", "c"])
    files = changelog_files(t)
    assert files and all(kind == "COMPACT" and level > 0 and source == 0 for kind, level, source in files), (
        files
    )
    if opts.get("merge-engine") == "first-row":
        assert log(t) == [("+I", 1, "a"), ("+I", 2, "b"), ("+I", 3, "c")]
    else:
        assert log(t) == sorted(
            [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 2, "b"), ("+U", 2, "b2"), ("+I", 3, "c")]
        )
    assert streamed(t) == log(t)
