"""Value statistics options (``metadata.stats-mode``, ``fields.<column>.stats-mode``): our manifests
hold the statistics Java writes for the same rows.
"""

from __future__ import annotations

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.binary_row import deserialize_row
from paimon_core.metadata.live_files import live_entries
from tests.interop.harness.canonical import assert_same_rows
from tests.interop.option_twins import Case, create_ours, java_create, our_write

pytestmark = pytest.mark.interop


STATS_MODES = ["none", "counts", "truncate(4)", "full", "per-column"]
STATS_COLS = [("id", "INT NOT NULL"), ("s", "STRING"), ("d", "DOUBLE")]
STATS_ROWS = [
    {"id": i, "s": None if i % 3 == 0 else f"string-{i:04d}", "d": None if i % 4 == 0 else i / 2}
    for i in range(10, 30)
]


def _value_stats(wh, tname):
    """(min, max, null counts, stats columns) of each file, decoded with the table's types."""
    t = FileSystemCatalog(wh).get_table(tname)
    by_name = {f.name: f.type for f in t.schema.fields}
    out = []
    for e in live_entries(t.manifests, t.snapshots.latest()):
        vs, cols = e.file.value_stats, e.file.value_stats_cols
        ts = [by_name[c] for c in (by_name if cols is None else cols)]
        lo, hi = (
            (deserialize_row(vs.min_values, ts), deserialize_row(vs.max_values, ts)) if ts else (None, None)
        )
        out.append({"min": lo, "max": hi, "nulls": vs.null_counts, "cols": cols})
    return out


def _dense_stats_as_09(stats: dict, names: list[str]) -> dict:
    """Java 1.4.2 stores value stats densely (``metadata.stats-dense-store``, on by default in
    1.x): only the columns that have stats, named in _VALUE_STATS_COLS (empty rows and an empty
    list under stats-mode none). Java 0.9 (and we) store a field per column, NULL where a column
    has no stats, and no column list. The same stats: the 1.4.2 form, mapped to 0.9's."""
    if stats["cols"] is None:
        return stats
    pos = {c: i for i, c in enumerate(stats["cols"])}

    def spread(values, empty):
        return [empty if c not in pos else values[pos[c]] for c in names]

    return {
        "min": spread(stats["min"] or [], None),
        "max": spread(stats["max"] or [], None),
        "nulls": tuple(spread(stats["nulls"], None)),
        "cols": None,
    }


def test_stats_mode_writes_javas_value_stats(tmp_path, java):
    """metadata.stats-mode none / counts / truncate(4) / full, and fields.<column>.stats-mode
    over a table-wide none: the value stats in our manifest
    (min, max, null counts, stats columns) equal the ones Java writes for the same rows, and
    Java's filtered reads of our table equal its reads of its own and keep every matching row."""
    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    reqs = []
    for i, mode in enumerate(STATS_MODES):
        modes = (
            {
                "metadata.stats-mode": "none",
                "fields.s.stats-mode": "truncate(3)",
                "fields.d.stats-mode": "full",
            }
            if mode == "per-column"
            else {"metadata.stats-mode": mode}
        )
        case = Case(
            STATS_COLS,
            (),
            {"bucket": "1", "bucket-key": "id", "file.format": "parquet", **modes},
            [STATS_ROWS],
        )
        our_write(create_ours(owh, f"o.m{i}", case), STATS_COLS, STATS_ROWS)
        reqs += [
            java_create(jwh, f"j.m{i}", case),
            {"op": "write", "warehouse": jwh, "table": f"j.m{i}", "rows": STATS_ROWS},
        ]
    filters = [
        {"field": "id", "op": ">", "value": 100},
        {"field": "s", "op": "=", "value": "zzz"},
        {"field": "id", "op": "=", "value": 12},
    ]
    for i in range(len(STATS_MODES)):
        for f in filters:
            reqs += [
                {"op": "read", "warehouse": wh, "table": f"{db}.m{i}", "filter": f}
                for wh, db in ((owh, "o"), (jwh, "j"))
            ]
    res = java.run(reqs)[2 * len(STATS_MODES) :]
    for i, mode in enumerate(STATS_MODES):
        ours, javas = _value_stats(owh, f"o.m{i}"), _value_stats(jwh, f"j.m{i}")
        if java.version == "1.4.2":
            javas = [_dense_stats_as_09(s, [n for n, _ in STATS_COLS]) for s in javas]
        assert ours == javas, (mode, ours, javas)
        for j, f in enumerate(filters):
            a, b = res[(i * len(filters) + j) * 2], res[(i * len(filters) + j) * 2 + 1]
            assert_same_rows(
                a["rows"], b["rows"], label_a=f"java of ours {mode} {f}", label_b=f"java of java {mode}"
            )
            # Java also skips Parquet row groups on the footer's stats, so only "every matching
            # row is there" holds whatever the manifest says
            matching = [r for r in STATS_ROWS if f["op"] == "=" and r[f["field"]] == f["value"]]
            assert all(any(x["id"] == m["id"] for x in a["rows"]) for m in matching), (mode, f)
