"""Raw-convertible splits (``TableRead._raw_convertible``): a primary-key bucket whose files
form one sorted run without retract rows is read file by file, value columns only, unmerged
(as Java's ``MergeTreeSplitGenerator`` marks such splits); the rows equal the merged read."""

from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest

from paimon_core.compaction.compaction import compact
from paimon_core.data.system_columns import KIND, SEQ
from paimon_core.metadata.schema import Schema
from paimon_core.read import table_read
from paimon_core.read.table_read import TableRead

ENGINES = [
    {},
    {"merge-engine": "first-row"},
    {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"},
    {"sequence.field": "ver"},
    {"deletion-vectors.enabled": "true"},
]


def _write_history(t, rng, retracts: bool) -> None:
    for batch in range(4):
        ids = rng.choice(80, size=40, replace=False)
        kinds = rng.choice(["+I", "+U", "-D"] if retracts and batch else ["+I"], size=40)
        t.write_arrow(
            pa.table(
                {
                    "id": pa.array(ids.astype(np.int32)),
                    "name": pa.array([f"n{batch}_{i}" for i in ids]),
                    "v": pa.array(rng.integers(0, 100, 40), pa.int64()),
                    "ver": pa.array(rng.integers(0, 5, 40).astype(np.int32)),
                    "kind": kinds,
                }
            ),
            row_kind_column="kind",
        )


@pytest.mark.parametrize("options", ENGINES, ids=lambda o: next(iter(o.values()), "deduplicate"))
def test_compacted_bucket_reads_value_columns_only_and_equals_the_merge(catalog, monkeypatch, options):
    cols = Schema.parse_columns("id INT NOT NULL, name STRING, v BIGINT, ver INT")
    t = catalog.create_table("db.t", Schema(cols, (), ("id",), {"bucket": "2", **options}))
    retracts = options.get("merge-engine") not in ("aggregation", "first-row")
    _write_history(t, np.random.default_rng(11), retracts)
    compact(t, full=True)
    asked: list[list[str]] = []
    real = table_read.read_data_file

    def spy(io, path, columns, *a, **k):
        asked.append(list(columns))
        return real(io, path, columns, *a, **k)

    monkeypatch.setattr(table_read, "read_data_file", spy)
    got = t.read().sort_by("id")
    assert asked and all(KIND not in c and SEQ not in c for c in asked)
    monkeypatch.setattr(TableRead, "_raw_convertible", lambda self, split: False)
    assert got.equals(t.read().sort_by("id"))


def _split(*files, deletion_files=()):
    return SimpleNamespace(
        files=[SimpleNamespace(level=lv, delete_row_count=d) for lv, d in files],
        deletion_files=deletion_files,
    )


@pytest.mark.parametrize("kind", ["plain", "dv", "first-row"])
def test_which_splits_are_raw(catalog, kind):
    cols = Schema.parse_columns("id INT NOT NULL, v BIGINT")
    opts = {"bucket": "1"}
    if kind == "dv":
        opts["deletion-vectors.enabled"] = "true"
    if kind == "first-row":
        opts["merge-engine"] = "first-row"
    reader = TableRead(catalog.create_table("db.t", Schema(cols, (), ("id",), opts)))
    raw = reader._raw_convertible
    assert raw(_split((5, 0), (5, 0), (5, 0)))  # one level above 0: one sorted run
    assert not raw(_split((5, 0), (5, None)))  # a delete count unknown (files before 0.9)
    assert not raw(_split((5, 0), (5, 2)))  # retract rows must be merged away
    assert not raw(_split((0, 0), (0, 0)))  # level-0 files overlap
    assert not raw(_split())
    # two runs above level 0: a key's older rows are hidden by vectors, or never written (first-row)
    assert raw(_split((4, 0), (5, 0))) == (kind != "plain")
    assert raw(_split((0, 0)))  # a lone file holds one record a key


def test_a_lone_level0_file_reads_raw_and_equals_the_merge(catalog, monkeypatch):
    cols = Schema.parse_columns("id INT NOT NULL, name STRING, v BIGINT, ver INT")
    t = catalog.create_table("db.t", Schema(cols, (), ("id",), {"bucket": "1"}))
    _write_history(t, np.random.default_rng(5), False)  # four level-0 files: merged
    splits = t.plan(t.snapshots.latest(), None)
    assert not any(TableRead(t)._raw_convertible(s) for s in splits)
    t2 = catalog.create_table("db.one", Schema(cols, (), ("id",), {"bucket": "1"}))
    t2.write_arrow(t.read())
    (split,) = t2.plan(t2.snapshots.latest(), None)
    assert [f.level for f in split.files] == [0] and TableRead(t2)._raw_convertible(split)
    got = t2.read().sort_by("id")
    monkeypatch.setattr(TableRead, "_raw_convertible", lambda self, split: False)
    assert got.equals(t2.read().sort_by("id"))
