"""Bucket hashing: our `hash_columns` / `bucket_of_hash` against Java Paimon 0.9's
`KeyAndBucketExtractor.bucketKeyHashCode` / `bucket` on the same key rows (one JVM call)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.write.bucket import bucket_of_hash, hash_columns
from tests.interop.harness import arrow_from_rows

pytestmark = pytest.mark.interop

NUM_BUCKETS = [1, 2, 3, 4, 5, 7, 16, 128, 1000]

_STRINGS = [
    "",
    "a",
    "abc",
    "1234567",  # 7 bytes: the longest string stored inline in the fixed part
    "12345678",  # 8 bytes: the shortest stored in the variable part
    "123456789",
    "a string longer than sixteen bytes, hashed over several words",
    "é",
    "日本語",
    "😀 emoji",
    None,
]

# name -> (types, rows); every row is a list of canonical values, one per type
CASES: dict[str, tuple[list[str], list[list]]] = {
    "int": (
        ["INT"],
        [[v] for v in [0, 1, 2, 3, 4, 5, 9, -1, -2, 7, 2147483647, -2147483648, 123456789, None]],
    ),
    "bigint": (
        ["BIGINT"],
        [[v] for v in [0, 1, -1, -2, 2**31, -(2**31) - 1, 2**63 - 1, -(2**63), 1 << 40, None]],
    ),
    "tinyint": (["TINYINT"], [[v] for v in [0, 1, -1, 127, -128, None]]),
    "smallint": (["SMALLINT"], [[v] for v in [0, 1, -1, 32767, -32768, None]]),
    "boolean": (["BOOLEAN"], [[True], [False], [None]]),
    "float": (["FLOAT"], [[v] for v in [0.0, 1.5, -2.25, "NaN", "Infinity", None]]),
    "double": (["DOUBLE"], [[v] for v in [0.0, 1.5, -2.25, 1e300, "NaN", "-Infinity", None]]),
    "string": (["STRING"], [[v] for v in _STRINGS]),
    "varchar": (["VARCHAR(20)"], [[v] for v in ["", "abc", "12345678", None]]),
    "char": (["CHAR(5)"], [[v] for v in ["", "ab", "abcde", None]]),
    "bytes": (["BYTES"], [[v] for v in ["", "00", "deadbeef", "00112233445566778899", None]]),
    "binary": (["BINARY(4)"], [[v] for v in ["00000000", "deadbeef", None]]),
    "decimal_10_2": (
        ["DECIMAL(10, 2)"],
        [[v] for v in ["0.00", "1.00", "-1.00", "12345678.91", "-99999999.99", "0.01", None]],
    ),
    "decimal_18_4": (["DECIMAL(18, 4)"], [[v] for v in ["0.0000", "99999999999999.9999", "-1.5000", None]]),
    "decimal_20_2": (
        ["DECIMAL(20, 2)"],
        [[v] for v in ["0.00", "1.00", "-1.00", "123456789012345678.91", "-999999999999999999.99", None]],
    ),
    "decimal_38_10": (
        ["DECIMAL(38, 10)"],
        [[v] for v in ["0.0000000000", "1234567890123456789012345678.0123456789", "-0.0000000001", None]],
    ),
    "date": (
        ["DATE"],
        [[v] for v in ["1970-01-01", "2024-01-01", "1969-12-31", "1900-01-01", "9999-12-31", None]],
    ),
    "time": (["TIME"], [[v] for v in ["00:00:00.000", "12:34:56.789", "23:59:59.999", None]]),
    "timestamp_3": (
        ["TIMESTAMP(3)"],
        [
            [v]
            for v in ["1970-01-01T00:00:00.000", "2024-01-01T12:34:56.789", "1969-12-31T23:59:59.999", None]
        ],
    ),
    "timestamp_6": (
        ["TIMESTAMP(6)"],
        [
            [v]
            for v in [
                "1970-01-01T00:00:00.000000",
                "2024-01-01T12:34:56.123456",
                "1969-12-31T23:59:59.999999",
                "1900-01-01T00:00:00.000001",
                None,
            ]
        ],
    ),
    "timestamp_9": (
        ["TIMESTAMP(9)"],
        [[v] for v in ["2024-01-01T12:34:56.123456789", "1969-12-31T23:59:59.999999999", None]],
    ),
    "timestamp_ltz_6": (
        ["TIMESTAMP(6) WITH LOCAL TIME ZONE"],
        [[v] for v in ["2024-01-01T12:34:56.123456Z", "1969-12-31T23:59:59.999999Z", None]],
    ),
    "timestamp_ltz_3": (
        ["TIMESTAMP(3) WITH LOCAL TIME ZONE"],
        [[v] for v in ["2024-01-01T12:34:56.123Z", None]],
    ),
    "int_string": (
        ["INT", "STRING"],
        [
            [i, s]
            for i in [0, 1, -1, 2147483647, None]
            for s in ["", "a", "1234567", "12345678", "日本語", None]
        ],
    ),
    "string_int_bigint": (
        ["STRING", "INT", "BIGINT"],
        [["k", 1, 2], ["a much longer key string", -5, -(2**40)], [None, None, None], ["", 0, 0]],
    ),
    "date_decimal_20_2_ts6": (
        ["DATE", "DECIMAL(20, 2)", "TIMESTAMP(6)"],
        [
            ["2024-01-01", "1.50", "2024-01-01T00:00:00.000001"],
            ["1969-12-31", "-123456789012345678.91", "1969-12-31T23:59:59.999999"],
            [None, None, None],
            ["2024-01-01", None, "2024-01-01T00:00:00.000001"],
        ],
    ),
    "many_ints_9": (  # 9 fields: the null-bit header grows to 16 bytes
        ["INT"] * 9,
        [[k * j - 4 for k in range(9)] for j in range(6)] + [[None] * 9],
    ),
}


def _our_hashes(types: list[str], rows: list[list]) -> list[int]:
    ptypes = [parse_type(t) for t in types]
    names = [f"f{i}" for i in range(len(types))]
    schema = pa.schema([pa.field(n, to_arrow_type(t)) for n, t in zip(names, ptypes, strict=True)])
    tbl = arrow_from_rows([dict(zip(names, r, strict=True)) for r in rows], schema)
    return [int(h) for h in hash_columns([tbl.column(n).combine_chunks() for n in names], ptypes)]


@pytest.fixture(scope="module")
def java_hashes(java) -> dict:
    reqs = [
        {"op": "bucket_of", "types": types, "rows": rows, "num_buckets": n}
        for types, rows in CASES.values()
        for n in NUM_BUCKETS
    ]
    res = java.run(reqs, check=False)
    out: dict = {}
    it = iter(res)
    for name in CASES:
        for n in NUM_BUCKETS:
            out[(name, n)] = next(it)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_hash_and_bucket_match_java(java_hashes, name):
    types, rows = CASES[name]
    first = java_hashes[(name, NUM_BUCKETS[0])]
    if "error" in first:
        pytest.fail(f"Java bucket_of failed for {types}: {first['error']}")
    ours = _our_hashes(types, rows)
    diffs = [(r, o, j) for r, o, j in zip(rows, ours, first["hashes"], strict=True) if o != j]
    assert not diffs, f"hash differs for {types} (row, ours, Java): {diffs[:10]}"
    for n in NUM_BUCKETS:
        jb = java_hashes[(name, n)]["buckets"]
        ob = [int(bucket_of_hash(h, n)) for h in ours]
        assert ob == jb, f"buckets differ for n={n}"
        # the vectorised path (numpy array) gives the same buckets as the scalar one
        import numpy as np

        assert [int(b) for b in bucket_of_hash(np.array(ours, dtype=np.int32), n)] == jb


# ---- universal compaction: our pure strategy against Java's own UniversalCompaction.pick ----


def _random_run_layouts(n: int = 300):
    import random

    rng = random.Random(7)
    cases = []
    for _ in range(n):
        levels = sorted(rng.sample(range(1, 6), rng.randint(0, 3)))
        l0 = rng.randint(0, 7)
        runs = [[0, rng.choice([1, 2, 3, 5, 8, 13, 40, 100, 1000])] for _ in range(l0)]
        runs += [[lv, rng.choice([1, 5, 10, 50, 100, 500, 1000, 10000])] for lv in levels]
        if runs:
            cases.append(
                {
                    "runs": runs,
                    "trigger": rng.choice([2, 3, 4, 5]),
                    "max_size_amp": rng.choice([100, 200, 400]),
                    "size_ratio": rng.choice([0, 1, 10]),
                    "num_levels": 6,
                }
            )
    return cases


@pytest.mark.interop
def test_universal_compaction_picks_what_java_picks(java):
    from paimon_core.merge.universal_compaction import Run, pick

    cases = _random_run_layouts()
    results = java.run([{"op": "universal_pick", **c} for c in cases])
    for c, res in zip(cases, results):
        ours = pick(
            c["num_levels"],
            [Run(lv, size) for lv, size in c["runs"]],
            trigger=c["trigger"],
            max_size_amp=c["max_size_amp"],
            size_ratio=c["size_ratio"],
        )
        want = None if res["output_level"] is None else (res["run_count"], res["output_level"])
        got = None if ours is None else (ours.run_count, ours.output_level)
        assert got == want, c
