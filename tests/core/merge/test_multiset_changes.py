"""The changes of an append table (no key): rows matched by value as multisets, nested values
included, against a model that counts Python values. Each row's key is built in Arrow from
length-prefixed value keys, so values whose bytes hold any separator never collide."""

from __future__ import annotations

import math
import random
from collections import Counter
from decimal import Decimal

import pyarrow as pa

from paimon_core.data.system_columns import KIND
from paimon_core.merge.changelog import changes
from paimon_core.merge.merge_engines import DELETE, INSERT

ITEM = pa.struct([("sku", pa.string()), ("price", pa.decimal128(12, 2)), ("tags", pa.list_(pa.string()))])
SCHEMA = pa.schema(
    [
        ("s", pa.string()),
        ("d", pa.float64()),
        ("b", pa.binary()),
        ("row", pa.struct([("x", pa.int32()), ("geo", pa.struct([("lat", pa.float64())]))])),
        ("items", pa.list_(ITEM)),
        ("attrs", pa.map_(pa.string(), pa.int64())),
    ]
)
TEXTS = [None, "", "a", "a\x1f", "\x01b", "\x00", "\x1f\x00", "a\x1f\x01b", "é"]


def _value(rng: random.Random) -> dict:
    def item():
        return {
            "sku": rng.choice(TEXTS),
            "price": rng.choice([None, Decimal("1.00"), Decimal("-0.50")]),
            "tags": rng.choice([None, [], [None], [""], ["a", "b"], ["a\x1fb"]]),
        }

    return {
        "s": rng.choice(TEXTS),
        "d": rng.choice([None, 0.0, -0.0, 1.5, math.nan]),
        "b": rng.choice([None, b"", b"\x00", b"\x01\x1f"]),
        "row": rng.choice(
            [None, {"x": None, "geo": None}, {"x": 1, "geo": {"lat": None}}, {"x": 1, "geo": None}]
        ),
        "items": rng.choice([None, [], [None], [item()], [item(), item()]]),
        "attrs": rng.choice([None, [], [("k", 1)], [("k", None)], [("k", 1), ("j", 2)]]),
    }


def _model_key(v):
    """A Python value as a hashable, exact key: NaN equals NaN, -0.0 differs from 0.0 (as Java's
    Double.equals), a list differs from None."""
    if isinstance(v, dict):
        return ("row", tuple((k, _model_key(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("list", tuple(_model_key(x) for x in v))
    if isinstance(v, tuple):
        return ("entry", tuple(_model_key(x) for x in v))
    if isinstance(v, float):
        return ("float", "nan") if math.isnan(v) else ("float", math.copysign(1, v), abs(v))
    return (type(v).__name__, v)


def _counted(rows: list[dict]) -> Counter:
    return Counter(_model_key(r) for r in rows)


def test_nested_multiset_changes_equal_the_model():
    for seed in range(20):
        rng = random.Random(seed)
        pool = [_value(rng) for _ in range(12)]
        old = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        new = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        got = changes(pa.Table.from_pylist(old, SCHEMA), pa.Table.from_pylist(new, SCHEMA), [])
        kinds = got.column(KIND).to_pylist()
        rows = got.drop_columns([KIND]).to_pylist()
        added = [r for r, k in zip(rows, kinds, strict=True) if k == INSERT]
        removed = [r for r, k in zip(rows, kinds, strict=True) if k == DELETE]
        assert len(added) + len(removed) == got.num_rows
        want_added = _counted(new) - _counted(old)
        want_removed = _counted(old) - _counted(new)
        assert _counted(added) == want_added, seed
        assert _counted(removed) == want_removed, seed


def test_values_that_join_to_the_same_text_are_different_rows():
    """('a\\x1f\\x01b', NULL) and ('a', 'b\\x1f\\x00') made the same text key when each value was
    cast to text and the texts joined by a separator."""
    schema = pa.schema([("a", pa.string()), ("b", pa.string())])
    old = pa.Table.from_pylist([{"a": "a\x1f\x01b", "b": None}], schema)
    new = pa.Table.from_pylist([{"a": "a", "b": "b\x1f\x00"}], schema)
    got = changes(old, new, [])
    assert sorted(got.column(KIND).to_pylist()) == [INSERT, DELETE]
