"""The Java Paimon 1.x/2.0 fixture tables (``tests/java1x.py``), written to by us: on a copy of
each, an ingest (the table's own rows once more), a full compaction and an expiry down to one
snapshot; our read after the ingest and after the expiry equals the model (append tables: the
rows before, doubled; primary-key tables whose batch reads see no level-0 tail: unchanged; the
aggregation table: its source's rows after a full compaction), and a reference reads the same
rows as we do at the ingest's and the compaction's snapshots: pypaimon 2.1.0
where the manifests are Avro (it reads no ORC manifests), Java Paimon 0.9 where they are ORC
(0.9 reads no data evolution: that table is checked against the model only; the BLOB table is
read back by Java 1.4.2). Tables with
indexes this project does not maintain refuse the ingest by name and stay as they were."""

from __future__ import annotations

from collections import Counter

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import UnsupportedFeature
from paimon_core.maintain import expire_snapshots
from tests.interop.harness import assert_same_rows, rows_from_arrow
from tests.java1x import fixture_copy, fixtures_root

pytestmark = [pytest.mark.interop, pytest.mark.slow]

WRITABLE = {  # fixture -> who else reads it
    "append-schema-evolution-parquet-1.2": "pypaimon",
    "pk-agg-lookup-dv-parquet-1.4": "pypaimon",
    "pk-dv-avro-1.4": "pypaimon",
    "timestamps-parquet-1.3dev": "pypaimon",
    "append-bucketed-orc-1.0": "java14",
    "pk-first-row-orc-1.3dev": "java14",
    "data-evolution-alter-cast-orc-1.3": None,
    "multi-blob-orc-1.4": "java14",  # ORC manifests: pypaimon 2.1 reads none
}
MODELS = {  # fixture -> rows after ingest + compaction, from the rows before
    "append-schema-evolution-parquet-1.2": lambda before: before + before,
    "timestamps-parquet-1.3dev": lambda before: before + before,
    "append-bucketed-orc-1.0": lambda before: before + before,
    "data-evolution-alter-cast-orc-1.3": lambda before: before + before,
    "multi-blob-orc-1.4": lambda before: before + before,
    "pk-agg-lookup-dv-parquet-1.4": lambda before: _expected_rows(
        "pk-agg-lookup-dv-parquet-1.4", "expected-after-full-compaction.jsonl"
    ),
}
INDEXED = [  # the primary-key index tables are written in test_pk_index_interop.py
    "global-bitmap-index-orc-1.3",
]


def _expected_rows(name: str, file: str) -> list[dict]:
    """The fixture's expectation file as canonical rows (JSON values as our canonical form has
    them for the aggregation table's types: BIGINT, STRING, DOUBLE)."""
    import json

    return [json.loads(x) for x in (fixtures_root() / name / file).read_text().splitlines() if x.strip()]


def _rows(t) -> list[dict]:
    return rows_from_arrow(t.read(), {f.name: str(f.type) for f in t.schema.fields})


def _key(rows):
    return Counter(repr(sorted(r.items())) for r in rows)


@pytest.mark.parametrize("name", sorted(WRITABLE))
def test_ingest_compact_expire_on_a_fixture(name, tmp_path, request):
    wh, ident = fixture_copy(name, tmp_path)
    catalog = FileSystemCatalog(wh)
    t = catalog.get_table(ident)
    before = _rows(t)
    t.write_arrow(t.read())
    t = catalog.get_table(ident)
    if not t.schema.primary_keys:
        assert _key(_rows(t)) == _key(before + before), "ours after ingest"
    ours = {"ingest": (t.snapshots.latest_id(), _rows(t))}
    full_compact(t)
    t = catalog.get_table(ident)
    ours["compact"] = (t.snapshots.latest_id(), _rows(t))
    expire_snapshots(t, retain_max=1, retain_min=1, older_than_ms=0)
    t = catalog.get_table(ident)
    assert t.snapshots.earliest_id() == t.snapshots.latest_id()
    assert _key(_rows(t)) == _key(ours["compact"][1]), "ours after expire"
    model = MODELS.get(name)
    if model is not None:
        assert _key(_rows(t)) == _key(model(before)), "ours against the model"
    reader = WRITABLE[name]
    if reader is None:
        return
    driver = request.getfixturevalue(reader)
    for step, (snap, rows) in ours.items():
        if step == "ingest":  # expired by now: read it again from a fresh copy
            continue
        if reader == "pypaimon":
            theirs = driver.run([{"op": "read", "warehouse": wh, "table": ident, "snapshot": snap}])[0][
                "rows"
            ]
        else:
            theirs = driver.read(wh, ident, snapshot=snap)
        assert_same_rows(theirs, rows, label_a=f"{reader} after our {step}", label_b="ours")


@pytest.mark.parametrize("name", INDEXED)
def test_writes_to_fixtures_with_unmaintained_indexes_are_refused(name, tmp_path):
    wh, ident = fixture_copy(name, tmp_path)
    t = FileSystemCatalog(wh).get_table(ident)
    latest = t.snapshots.latest_id()
    with pytest.raises(UnsupportedFeature, match="index"):
        t.write_arrow(t.read())
    assert FileSystemCatalog(wh).get_table(ident).snapshots.latest_id() == latest


def test_global_bitmap_index_stays_true_through_updates_compaction_expiry(tmp_path, java14):
    """The global bitmap fixture (an index over row ids of f0, f1, f2): an update of f3 (no index
    covers it) and a compaction that keeps every row id are taken, the index kept as it is, as
    Java keeps it; an update of f0 and an append are refused by name (the index would lie);
    expiring down to the last snapshot keeps its index files. After each step Java 1.4.2 (which
    knows ``_GLOBAL_INDEX``) reads the rows we read, without a filter and with one on each
    indexed column."""
    import pyarrow as pa

    from paimon_core.ops.update_columns import update_columns

    wh, ident = fixture_copy("global-bitmap-index-orc-1.3", tmp_path)
    catalog = FileSystemCatalog(wh)
    index_dir = tmp_path / "global-bitmap-index-orc-1.3" / ident.replace(".", ".db/", 1) / "index"
    filters = [("f0", "=", "Bob"), ("f1", "=", 20), ("f2", "is_null", None)]

    def check(step):
        t = catalog.get_table(ident)
        ours = _rows(t)
        reqs = [{"op": "read", "warehouse": wh, "table": ident}]
        reqs += [
            {"op": "read", "warehouse": wh, "table": ident, "filter": {"field": f, "op": o, "value": v}}
            for f, o, v in filters
        ]
        answers = java14.run(reqs)
        assert_same_rows(answers[0]["rows"], ours, label_a=f"Java 1.4.2 after our {step}", label_b="ours")
        for (f, o, v), answer in zip(filters, answers[1:]):
            model = [r for r in ours if (r[f] is None if o == "is_null" else r[f] == v)]
            theirs = [r for r in answer["rows"] if (r[f] is None if o == "is_null" else r[f] == v)]
            assert model, (f, o, v)
            assert_same_rows(
                theirs, model, label_a=f"Java 1.4.2 {f} {o} {v} after our {step}", label_b="ours"
            )
        return ours

    before = check("nothing")
    t = catalog.get_table(ident)
    update_columns(t, pa.table({"_ROW_ID": pa.array([1, 5], pa.int64()), "f3": [99.5, 77.5]}), ["f3"])
    after_update = check("update of f3")
    assert sorted(r["f3"] for r in after_update if r["f0"] == "Bob") == [77.5, 99.5]
    latest = catalog.get_table(ident).snapshots.latest_id()
    with pytest.raises(UnsupportedFeature, match="indexed column f0"):
        update_columns(
            catalog.get_table(ident), pa.table({"_ROW_ID": pa.array([1], pa.int64()), "f0": ["X"]}), ["f0"]
        )
    t = catalog.get_table(ident)
    with pytest.raises(UnsupportedFeature, match="global index over row ids.*adding rows"):
        t.write_arrow(t.read())
    assert catalog.get_table(ident).snapshots.latest_id() == latest
    full_compact(catalog.get_table(ident))
    t = catalog.get_table(ident)
    assert t.snapshots.latest().commit_kind == "COMPACT" and t.snapshots.latest_id() == latest + 1
    assert _key(check("compaction")) == _key(after_update)
    expire_snapshots(t, retain_max=1, retain_min=1, older_than_ms=0)
    t = catalog.get_table(ident)
    assert t.snapshots.earliest_id() == t.snapshots.latest_id()
    assert len(list(index_dir.iterdir())) == 3, "the three bitmap index files stay"
    assert _key(check("expiry")) == _key(after_update)
    assert len(before) == len(after_update) == 8
