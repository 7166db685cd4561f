"""Merge-on-read without ``_SEQUENCE_NUMBER``: when the files of a bucket have disjoint sequence
ranges the reader orders records by file and position instead (``table_read.seq_ordered``); the
result must equal the merge over the stored sequence numbers, for every engine and row kind."""

from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest

from paimon_core.metadata.schema import Schema
from paimon_core.read import table_read
from paimon_core.read.table_read import seq_ordered


def meta(lo, hi, name=""):
    return SimpleNamespace(min_sequence_number=lo, max_sequence_number=hi, file_name=name)


def test_seq_ordered_sorts_disjoint_ranges_and_refuses_overlaps():
    a, b, c = meta(0, 9, "a"), meta(10, 10, "b"), meta(11, 20, "c")
    assert [f.file_name for f in seq_ordered([c, a, b])] == ["a", "b", "c"]
    assert seq_ordered([meta(0, 10), meta(10, 20)]) is None  # shared sequence number
    assert seq_ordered([meta(0, 10), meta(5, 20)]) is None
    assert seq_ordered([meta(0, 0), meta(0, 0)]) is None  # metadata without sequence ranges
    assert seq_ordered([meta(5, 4), meta(10, 20)]) is None  # an inconsistent range
    assert [f.file_name for f in seq_ordered([a])] == ["a"]
    assert seq_ordered([]) is None


ENGINES = [
    {},
    {"merge-engine": "first-row", "first-row.ignore-delete": "true"},  # (without it, -D input is refused)
    {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    {
        "merge-engine": "aggregation",
        "fields.v.aggregate-function": "sum",
        "fields.name.aggregate-function": "max",
    },
    {"sequence.field": "ver"},
    {"merge-engine": "partial-update", "fields.ver.sequence-group": "name"},
]
KEYS = ["id INT NOT NULL", "id STRING NOT NULL"]


@pytest.mark.parametrize("options", ENGINES)
@pytest.mark.parametrize("key", KEYS)
def test_position_order_equals_sequence_order(catalog, monkeypatch, options, key):
    cols = f"{key}, name STRING, v BIGINT, ver INT"
    t = catalog.create_table(
        "db.t",
        Schema(Schema.parse_columns(cols), (), ("id",), {"bucket": "2", "write-only": "true", **options}),
    )
    rng = np.random.default_rng(7)
    retract_ok = options.get("merge-engine") != "aggregation" and "sequence-group" not in str(options)
    for batch in range(5):
        ids = rng.choice(60, size=30, replace=False)
        kinds = rng.choice(["+I", "+U", "-D"] if retract_ok and batch else ["+I"], size=30)
        idcol = pa.array(ids.astype(np.int32)) if "INT" in key else pa.array([f"k{i:03d}" for i in ids])
        t.write_arrow(
            pa.table(
                {
                    "id": idcol,
                    "name": pa.array([None if i % 4 == 0 else f"n{batch}_{i}" for i in ids]),
                    "v": pa.array(rng.integers(0, 100, 30), pa.int64()),
                    "ver": pa.array(rng.integers(0, 5, 30).astype(np.int32)),
                    "kind": kinds,
                }
            ),
            row_kind_column="kind",
        )
    got = t.read().sort_by("id")
    got_cols = t.read(columns=["id", "v"]).sort_by("id")
    if options.get("merge-engine") != "first-row":  # first-row reads compacted files only
        snap = t.resolve_snapshot(None, None, None)
        assert any(seq_ordered(s.files) is not None and len(s.files) > 1 for s in t.plan(snap, None))
    monkeypatch.setattr(table_read, "seq_ordered", lambda files: None)  # read _SEQUENCE_NUMBER
    assert got.equals(t.read().sort_by("id"))
    assert got_cols.equals(t.read(columns=["id", "v"]).sort_by("id"))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64])
@pytest.mark.parametrize("span", ["small", "extreme"])
def test_key_order_is_the_stable_sort(dtype, span):
    from paimon_core.merge.merge_engines import _key_then_sequence_order

    rng = np.random.default_rng(3)
    info = np.iinfo(dtype)
    lo, hi = (info.min, info.max) if span == "extreme" else (-5, 40)
    for n in (0, 1, 2, 7, 1000):
        k = rng.integers(lo, hi, size=n, dtype=dtype, endpoint=True)
        if n > 2 and span == "extreme":
            k[:2] = [info.min, info.max]
        order, bounds = _key_then_sequence_order([k], None)
        want = np.argsort(k, kind="stable")
        assert np.array_equal(order, want)
        ks = k[want]
        assert np.array_equal(bounds, np.r_[True, ks[1:] != ks[:-1], True][: n + 1] if n else [True])
        seq = np.arange(n, dtype=np.int64)
        order2, bounds2 = _key_then_sequence_order([k], seq)
        assert np.array_equal(order2, want) and np.array_equal(bounds2, bounds)


@pytest.mark.parametrize("runs", [1, 5, 40])
def test_key_order_of_concatenated_sorted_runs(runs):
    """A merge-on-read's keys arrive as sorted runs one after another: sorted by timsort
    (``_sort_kind``), with the same order and bounds as a stable sort."""
    from paimon_core.merge.merge_engines import _key_then_sequence_order, _sort_kind

    rng = np.random.default_rng(runs)
    k = np.concatenate([np.sort(rng.choice(5000, size=800, replace=False)) for _ in range(runs)])
    order, bounds = _key_then_sequence_order([k], None)
    want = np.argsort(k, kind="stable")
    assert np.array_equal(order, want)
    ks = k[want]
    assert np.array_equal(bounds, np.r_[True, ks[1:] != ks[:-1], True])
    assert _sort_kind(k) == "stable"
    assert _sort_kind(rng.permutation(k)) == "quicksort"
