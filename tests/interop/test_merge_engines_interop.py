"""Merge engines beyond deduplicate, both directions: partial-update (plain, sequence groups,
remove-record-on-delete) and aggregation (every aggregate function we support). Java Paimon 0.9
writes and compacts tables that Java and we read at every snapshot; we write tables that Java and
pypaimon read at every snapshot. Every read is checked against a plain-Python model of the merge
engine (tests/reference/merge_model.py), never against our own reader. One JVM per direction."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop.harness.canonical import arrow_from_rows, assert_same_rows, rows_from_arrow
from tests.reference.merge_model import PkModel

pytestmark = pytest.mark.interop

COLUMNS = [
    ("k", "INT NOT NULL"),
    ("a", "STRING"),
    ("b", "BIGINT"),
    ("g", "INT"),
    ("c", "STRING"),
    ("d", "DOUBLE"),
    ("flag", "BOOLEAN"),
    ("t", "STRING"),
]

TABLES = {
    "partial": {"merge-engine": "partial-update"},
    "partial_groups": {"merge-engine": "partial-update", "fields.g.sequence-group": "a,b"},
    "agg": {
        "merge-engine": "aggregation",
        "fields.b.aggregate-function": "sum",
        "fields.g.aggregate-function": "max",
        "fields.d.aggregate-function": "min",
        "fields.a.aggregate-function": "first_non_null_value",
        "fields.c.aggregate-function": "last_value",
        "fields.flag.aggregate-function": "bool_or",
        "fields.t.aggregate-function": "listagg",
    },
    "agg_product": {
        "merge-engine": "aggregation",
        "fields.b.aggregate-function": "product",
        "fields.g.aggregate-function": "min",
        "fields.a.aggregate-function": "first_value",
        "fields.flag.aggregate-function": "bool_and",
        "fields.default-aggregate-function": "last_non_null_value",
    },
}

COMMITS = [
    [
        {"k": 1, "a": "a1", "b": 1, "g": 1, "c": "c1", "d": 1.5, "flag": False, "t": "x"},
        {"k": 2, "a": None, "b": 2, "g": 5, "c": None, "d": None, "flag": True, "t": "y"},
        {"k": 3, "a": "a3", "b": None, "g": None, "c": "c3", "d": 3.0, "flag": None, "t": None},
    ],
    [
        {"k": 1, "a": "a1b", "b": 10, "g": 0, "c": None, "d": 0.5, "flag": True, "t": "z"},
        {"k": 2, "a": "a2", "b": 3, "g": 5, "c": "c2", "d": -1.0, "flag": False, "t": None},
        {"k": 4, "a": None, "b": 4, "g": 2, "c": "c4", "d": 4.0, "flag": True, "t": "w"},
    ],
    [
        {"k": 1, "a": None, "b": -2, "g": 3, "c": "c1c", "d": None, "flag": None, "t": "v"},
        {"k": 3, "a": "a3b", "b": 7, "g": None, "c": None, "d": 2.0, "flag": False, "t": "u"},
    ],
]


def _schema() -> pa.Schema:
    from paimon_core.data.types import parse_type, to_arrow_type

    return pa.schema(
        [pa.field(n, to_arrow_type(parse_type(t)), nullable="NOT NULL" not in t) for n, t in COLUMNS]
    )


def _options(name: str) -> dict:
    return {"bucket": "2", "file.format": "parquet", **TABLES[name]}


def _model_states(options: dict, commits: list[list[dict]]) -> list[list[dict]]:
    """The model's rows after each commit (index 0: after the first)."""
    model = PkModel([n for n, _ in COLUMNS], ("k",), options)
    out = []
    for rows in commits:
        model.apply(rows)
        out.append(model.rows())
    return out


@pytest.fixture(scope="module")
def java_written(tmp_path_factory, java):
    """Java writes every table (3 commits, then a full compaction) and reads each snapshot."""
    wh = str(tmp_path_factory.mktemp("java_engines"))
    reqs = []
    for name in TABLES:
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": f"j.{name}",
                "schema": [{"name": n, "type": t} for n, t in COLUMNS],
                "partition_keys": [],
                "primary_keys": ["k"],
                "options": _options(name),
            }
        )
        for rows in COMMITS:
            reqs.append({"op": "write", "warehouse": wh, "table": f"j.{name}", "rows": rows})
        reqs.append({"op": "compact", "warehouse": wh, "table": f"j.{name}", "full": True})
        for sid in range(1, len(COMMITS) + 2):
            reqs.append({"op": "read", "warehouse": wh, "table": f"j.{name}", "snapshot": sid})
    results = java.run(reqs)
    reads = [r for q, r in zip(reqs, results) if q["op"] == "read"]
    out, i = {}, 0
    for name in TABLES:
        for sid in range(1, len(COMMITS) + 2):
            out[(name, sid)] = reads[i]["rows"]
            i += 1
    return wh, out


@pytest.mark.parametrize("name", list(TABLES))
def test_we_and_java_read_java_merge_engine_tables_as_modelled(java_written, name):
    """Snapshots 1..3 are Java's commits, 4 its full compaction (the same rows as 3)."""
    wh, java_reads = java_written
    states = _model_states(_options(name), COMMITS)
    states.append(states[-1])
    t = FileSystemCatalog(wh).get_table(f"j.{name}")
    for sid, want in enumerate(states, start=1):
        assert_same_rows(java_reads[(name, sid)], want, label_a=f"java@{sid}", label_b=f"model@{sid}")
        ours = rows_from_arrow(t.read(snapshot_id=sid))
        assert_same_rows(ours, want, label_a=f"paimon-cli@{sid}", label_b=f"model@{sid}")


@pytest.fixture(scope="module")
def ours_written(tmp_path_factory):
    """We write every table (one snapshot per commit, no compaction); the expected rows of each
    snapshot come from the model."""
    wh = str(tmp_path_factory.mktemp("our_engines"))
    cat = FileSystemCatalog(wh)
    expected = {}
    for name in TABLES:
        t = cat.create_table(
            f"o.{name}",
            Schema(
                Schema.parse_columns(", ".join(f"{n} {ty}" for n, ty in COLUMNS)), (), ("k",), _options(name)
            ),
        )
        sids = [t.write_arrow(arrow_from_rows(rows, _schema())).id for rows in COMMITS]
        assert sids == [1, 2, 3] and t.snapshots.latest_id() == 3
        expected[name] = dict(zip(sids, _model_states(_options(name), COMMITS)))
    return wh, expected


@pytest.mark.parametrize("name", list(TABLES))
def test_java_pypaimon_and_we_read_our_merge_engine_tables_as_modelled(ours_written, java, pypaimon, name):
    wh, expected = ours_written
    sids = sorted(expected[name])
    t = FileSystemCatalog(wh).get_table(f"o.{name}")
    for sid in sids:
        assert_same_rows(
            rows_from_arrow(t.read(snapshot_id=sid)),
            expected[name][sid],
            label_a=f"paimon-cli@{sid}",
            label_b=f"model@{sid}",
        )
    reqs = [{"op": "read", "warehouse": wh, "table": f"o.{name}", "snapshot": sid} for sid in sids]
    for sid, res in zip(sids, java.run(reqs)):
        assert_same_rows(res["rows"], expected[name][sid], label_a=f"java@{sid}", label_b=f"model@{sid}")
    if "fields.g.sequence-group" in TABLES[name]:
        return  # pypaimon 2.1.0 refuses sequence groups ("not yet implement"); Java checked above
    for sid, res in zip(sids, pypaimon.run(reqs)):
        assert_same_rows(res["rows"], expected[name][sid], label_a=f"pypaimon@{sid}", label_b=f"model@{sid}")


def test_we_compact_java_tables_and_java_reads_them(java_written, java, tmp_path):
    """We write on top of Java's compacted tables, compact them fully (every merge engine), and
    Java and we read the modelled rows."""
    import shutil

    from paimon_core.compaction.compaction import compact

    wh, _ = java_written
    copy = str(tmp_path / "wh")
    shutil.copytree(wh, copy)
    cat = FileSystemCatalog(copy)
    for name in TABLES:
        t = cat.get_table(f"j.{name}")
        # more runs first, then our compaction on top of Java's top level
        t.write_arrow(arrow_from_rows(COMMITS[0], _schema()))
        res = compact(cat.get_table(f"j.{name}"), full=True)
        assert res.snapshot is not None and res.snapshot.commit_kind == "COMPACT"
    names = list(TABLES)
    results = java.run([{"op": "read", "warehouse": copy, "table": f"j.{n}"} for n in names])
    for name, res in zip(names, results):
        want = _model_states(_options(name), COMMITS + [COMMITS[0]])[-1]
        assert_same_rows(res["rows"], want, label_a=f"java after our compaction of {name}", label_b="model")
        ours = rows_from_arrow(cat.get_table(f"j.{name}").read())
        assert_same_rows(ours, want, label_a=f"paimon-cli after our compaction of {name}", label_b="model")


RETRACT_OPTIONS = {
    "bucket": "1",
    "file.format": "parquet",
    "merge-engine": "aggregation",
    "fields.b.aggregate-function": "sum",
    "fields.c.aggregate-function": "last_value",
    "fields.a.aggregate-function": "last_non_null_value",
    "fields.g.aggregate-function": "max",
    "fields.g.ignore-retract": "true",
    "fields.d.aggregate-function": "sum",
    "fields.t.aggregate-function": "listagg",
    "fields.t.ignore-retract": "true",
}
RETRACT_COMMITS = [
    [
        {"k": 1, "a": "a1", "b": 5, "g": 1, "c": "c1", "d": 1.0, "t": "x", "_row_kind": "+I"},
        {"k": 2, "a": "a2", "b": 7, "g": 9, "c": "c2", "d": 2.0, "t": "y", "_row_kind": "+I"},
        {"k": 3, "a": "a3", "b": 1, "g": 1, "c": "c3", "d": None, "t": "z", "_row_kind": "+I"},
    ],
    [
        {"k": 1, "a": "a1", "b": 5, "g": 1, "c": "c1", "d": 1.0, "t": "x", "_row_kind": "-U"},
        {"k": 1, "a": None, "b": 8, "g": 4, "c": "c1b", "d": 0.5, "t": "w", "_row_kind": "+U"},
        {"k": 2, "a": None, "b": 2, "g": 20, "c": None, "d": 1.0, "t": None, "_row_kind": "-D"},
        {"k": 4, "a": "a4", "b": 3, "g": 2, "c": "c4", "d": 4.0, "t": "v", "_row_kind": "-U"},
    ],
    [{"k": 3, "a": None, "b": 10, "g": 0, "c": None, "d": 3.0, "t": "u", "_row_kind": "+I"}],
]


def test_aggregation_retractions_match_java(tmp_path, java):
    """-U/-D into an aggregation table (sum, last_value and last_non_null_value retract; max and
    listagg ignore retractions; a lone -U of a new key stays invisible): Java's reads of the table
    Java wrote, our reads of the twin we wrote, and Java's reads of ours all equal the model."""
    cols = [{"name": n, "type": t} for n, t in COLUMNS]
    jwh, owh = str(tmp_path / "java"), str(tmp_path / "ours")
    reqs = [
        {
            "op": "create_table",
            "warehouse": jwh,
            "table": "j.r",
            "schema": cols,
            "primary_keys": ["k"],
            "options": RETRACT_OPTIONS,
        }
    ]
    reqs += [{"op": "write", "warehouse": jwh, "table": "j.r", "rows": rows} for rows in RETRACT_COMMITS]
    reqs += [{"op": "read", "warehouse": jwh, "table": "j.r", "snapshot": s} for s in (1, 2, 3)]
    java_reads = [r["rows"] for r in java.run(reqs)[-3:]]
    states = _model_states(RETRACT_OPTIONS, RETRACT_COMMITS)
    t = FileSystemCatalog(owh).create_table(
        "o.r",
        Schema(
            Schema.parse_columns(", ".join(f"{n} {ty}" for n, ty in COLUMNS)), (), ("k",), RETRACT_OPTIONS
        ),
    )
    for rows in RETRACT_COMMITS:
        data = arrow_from_rows([{k: v for k, v in r.items() if k != "_row_kind"} for r in rows], _schema())
        t.write_arrow(
            data.append_column("kind", pa.array([r["_row_kind"] for r in rows])), row_kind_column="kind"
        )
    ours_read = java.run([{"op": "read", "warehouse": owh, "table": "o.r", "snapshot": s} for s in (1, 2, 3)])
    for sid, want, java_read, java_of_ours in zip((1, 2, 3), states, java_reads, ours_read):
        assert_same_rows(java_read, want, label_a=f"java@{sid}", label_b=f"model@{sid}")
        assert_same_rows(
            rows_from_arrow(t.read(snapshot_id=sid)),
            want,
            label_a=f"paimon-cli@{sid}",
            label_b=f"model@{sid}",
        )
        assert_same_rows(
            java_of_ours["rows"], want, label_a=f"java reading ours@{sid}", label_b=f"model@{sid}"
        )
