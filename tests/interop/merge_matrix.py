"""The merge-engine matrix: one primary-key table per merge engine, each with a column of every
type we support, aggregate functions that fit each type, and three overlapping commits with
NULLs, duplicate keys inside a commit and (where the engine takes them) retractions.

Rows are canonical JSON (harness/README.md), so the same commits go to Java Paimon 0.9 and to
our writer. Values respect the reference's documented reader bugs (tests/interop/harness/
README.md): no ROW value whose fields are all NULL, at any depth (Java 0.9's Parquet reader
returns it as NULL; a NULL ROW itself is fine), no NULL value in a ROW column that has a ROW
field (Java 0.9's reader fails on it with ArrayIndexOutOfBoundsException, for files it wrote
itself too), no NULL or empty MULTISET (Java 0.9 then reads other counts of the column as NULL
or fails with "could not read int", in files it wrote itself too), and no TIMESTAMP(7..9) before 1970 (Java 0.9 writes those as INT96 and cannot read
its own pre-1970 values back).
"""

from __future__ import annotations

import copy
import json
from typing import Any

_TS = [
    "2024-01-01T00:00:00.123456789",
    "1969-12-31T23:59:59.987654321",
    "2000-02-29T12:34:56.5",
    None,
    "2200-06-30T01:02:03.000000001",
    "1970-01-01T00:00:00",
]


def _ts(p: int, ltz: bool) -> list[Any]:
    out = []
    for v in _TS:
        if v is None:
            out.append(None)
            continue
        if p >= 7 and v < "1970":
            v = "1970-01-02T03:04:05.123456789"
        base, _, frac = v.partition(".")
        text = base + ("." + (frac + "0" * 9)[:p] if p else "")
        out.append(text + ("Z" if ltz else ""))
    return out


COLUMNS: list[tuple[str, str]] = [
    ("id", "INT NOT NULL"),
    ("g1", "INT"),
    ("g2", "BIGINT"),
    ("g3", "DATE"),  # sequence-group fields of `partial_groups`
    ("ti", "TINYINT"),
    ("si", "SMALLINT"),
    ("i", "INT"),
    ("bi", "BIGINT"),
    ("f", "FLOAT"),
    ("d", "DOUBLE"),
    ("dec10", "DECIMAL(10, 2)"),
    ("dec18", "DECIMAL(18, 4)"),
    ("dec38", "DECIMAL(38, 10)"),
    ("b", "BOOLEAN"),
    ("c", "CHAR(5)"),
    ("vc", "VARCHAR(20)"),
    ("s", "STRING"),
    ("bin", "BINARY(4)"),
    ("vbin", "VARBINARY(10)"),
    ("byt", "BYTES"),
    ("dt", "DATE"),
    ("tm", "TIME"),
    ("tm3", "TIME(3)"),
    *[(f"ts{p}", f"TIMESTAMP({p})") for p in range(10)],
    *[(f"ltz{p}", f"TIMESTAMP({p}) WITH LOCAL TIME ZONE") for p in range(10)],
    ("arr", "ARRAY<INT>"),
    ("arr_s", "ARRAY<STRING>"),
    ("mp", "MAP<STRING, INT>"),
    ("mp2", "MAP<INT, ARRAY<STRING>>"),
    ("ms", "MULTISET<STRING>"),
    ("ms2", "MULTISET<INT>"),
    ("rw", "ROW<a INT, b STRING>"),
    ("nrw", "ROW<x INT, inr ROW<y STRING, z ARRAY<INT>>>"),
    ("arw", "ARRAY<ROW<k INT, v STRING>>"),
]
TYPES = dict(COLUMNS)

# Edge values per column, cycled with a per-column phase (None = NULL).
EDGE: dict[str, list[Any]] = {
    "g1": [3, 1, None, 2, 5, 4],
    "g2": [10, None, 10, 7, 30, 20],
    "g3": ["2024-01-03", "2024-01-01", None, "2024-01-02"],
    "ti": [1, -128, 127, None, -1, 7, 100],
    "si": [300, -32768, 32767, None, -2, 12],
    "i": [5, -2147483648, 2147483647, None, -1, 123456],
    "bi": [3, -9223372036854775808, 9223372036854775807, None, -1, 1 << 40],
    # FLOAT values are float32 numbers (canonical FLOAT is the exact double): sums must round
    # in float32 at every step, as Java's do
    "f": [0.10000000149011612, 1.5, -2.25, None, 16777216.0, 1.0, 3.0, "NaN"],
    "d": [0.1, 1e308, -1e308, None, 5e-324, 0.30000000000000004, 2.5, "-Infinity"],
    "dec10": ["1.25", "-0.50", "12345.67", None, "0.01", "99.99"],
    "dec18": ["1.0005", "-12345678901234.5678", None, "0.0001", "2.5000"],
    "dec38": [
        "1.0000000001",
        "-1234567890123456789012345678.0123456789",
        None,
        "0.0000000001",
        "3.5000000000",
    ],
    "b": [True, False, None, True],
    "c": ["abcde", "ab", "", None, "ü"],
    "vc": ["hello", "", "日本語", None, "x" * 20],
    "s": ["a", "", "é€😀", None, "tab\tnl\n", "zz"],
    "bin": ["00000000", "deadbeef", "ffffffff", None, "01020304"],
    "vbin": ["", "00", "0102030405060708090a", None, "ff"],
    "byt": ["", "cafebabe", None, "00ff00", "7f"],
    "dt": ["2024-01-01", "1970-01-01", "1969-12-31", None, "2099-12-31", "1900-03-01"],
    "tm": ["00:00:00.000", "23:59:59.000", "12:34:56.000", None],
    "tm3": ["00:00:00.001", "23:59:59.999", None, "12:00:00.500"],
    **{f"ts{p}": _ts(p, False) for p in range(10)},
    **{f"ltz{p}": _ts(p, True) for p in range(10)},
    "arr": [[], [1, 2, 3], [None, -1], None, [2147483647], [1, 1, 2]],
    "arr_s": [["a", "b"], [], None, ["a", None], ["c", "a"]],
    "mp": [{}, {"a": 1, "b": None}, {"é": -5}, None, {"a": 2, "c": 3}],
    "mp2": [{"1": ["x"]}, None, {"2": [], "1": None}, {}, {"3": ["y", None]}],
    # no NULL and no empty MULTISET (Java 0.9 misreads the counts around them, see above)
    "ms": [{"a": 1, "b": 2}, {"a": 5}, {"é": 3}],
    "ms2": [{"1": 1}, {"2": 2, "-3": 1}, {"0": 4}],
    "rw": [{"a": 1, "b": "x"}, {"a": None, "b": "y"}, {"a": -7, "b": None}, None],
    "nrw": [
        {"x": 1, "inr": {"y": "a", "z": [1]}},
        {"x": None, "inr": {"y": "b", "z": None}},
        {"x": 2, "inr": None},
        {"x": 3, "inr": {"y": None, "z": []}},
    ],
    "arw": [[{"k": 1, "v": "a"}, {"k": 2, "v": "b"}], [], None, [{"k": 1, "v": "c"}], [{"k": 3, "v": None}]],
}


def _value(name: str, key: int, batch: int) -> Any:
    vals = EDGE[name]
    phase = sum(map(ord, name)) % 5
    return copy.deepcopy(vals[(key * 7 + batch * 3 + phase) % len(vals)])


def row(key: int, batch: int, kind: str = "+I") -> dict:
    r = {"id": key, **{n: _value(n, key, batch) for n, _ in COLUMNS[1:]}}
    if kind != "+I":
        r["_row_kind"] = kind
    return r


def commits(retract: str) -> list[list[dict]]:
    """Three commits. 1: keys 0-9. 2: keys 5-14, keys 6 and 7 twice (merged in the write
    buffer). 3: ``retract`` "all": -U/+U pairs for keys 0-2, -D of key 3, +I of 15; "update":
    +U only (engines that refuse retractions); "delete-ignored": -D of keys 0-3 and +I of 15."""
    c1 = [row(k, 1) for k in range(10)]
    c2 = [row(k, 2) for k in range(5, 15)] + [row(6, 4), row(7, 5)]
    if retract == "all":
        c3 = []
        for k in range(3):
            c3 += [row(k, 1, "-U"), row(k, 3, "+U")]
        c3 += [row(3, 1, "-D"), row(15, 3)]
    elif retract == "update":
        c3 = [row(k, 3, "+U") for k in range(4)] + [row(15, 3)]
    else:
        c3 = [row(k, 1, "-D") for k in range(4)] + [row(15, 3)]
    return [c1, c2, c3]


_TS_AGG = {f"fields.ts{p}.aggregate-function": ("max" if p % 2 else "min") for p in range(10)}
_LTZ_AGG = {f"fields.ltz{p}.aggregate-function": ("min" if p % 2 else "max") for p in range(10)}


def _funcs(**kw) -> dict[str, str]:
    return {f"fields.{c}.aggregate-function": f for c, f in kw.items()}


# name -> (options, retract mode of commit 3, columns whose list order Java leaves unspecified)
TABLES: dict[str, tuple[dict, str, tuple[str, ...]]] = {
    "dedup": ({"changelog-producer": "input"}, "all", ()),
    "first_row": (
        {"merge-engine": "first-row", "changelog-producer": "lookup", "first-row.ignore-delete": "true"},
        "delete-ignored",
        (),
    ),
    "partial": (
        {
            "merge-engine": "partial-update",
            "changelog-producer": "lookup",
            "num-sorted-run.compaction-trigger": "2",
        },
        "update",
        (),
    ),
    "partial_groups": (
        {
            # not lookup: Java 0.9's lookup merge of a retraction in a sequence group keeps the old
            # sequence number, so two levels tie and Java's heap picks either (nondeterministic)
            "merge-engine": "partial-update",
            "changelog-producer": "full-compaction",
            "fields.g1.sequence-group": "s,arr,mp,i,dec10,f",
            "fields.g2,g3.sequence-group": "rw,byt,d,vc,ts9,ltz3,bi",
            **_funcs(
                i="sum", dec10="max", f="sum", d="max", vc="last_non_null_value", byt="last_value", bi="min"
            ),
            "fields.dec10.ignore-retract": "true",
            "fields.d.ignore-retract": "true",
            "fields.bi.ignore-retract": "true",
        },
        "all",
        (),
    ),
    "agg": (
        {
            "merge-engine": "aggregation",
            "changelog-producer": "lookup",
            "num-sorted-run.compaction-trigger": "2",
            **_funcs(
                ti="sum",
                si="sum",
                i="sum",
                bi="sum",
                f="sum",
                d="sum",
                dec10="sum",
                dec18="sum",
                dec38="sum",
                b="bool_and",
                c="max",
                vc="listagg",
                s="listagg",
                bin="min",
                vbin="max",
                byt="last_non_null_value",
                dt="max",
                tm="min",
                tm3="max",
                arr="collect",
                arr_s="collect",
                mp="merge_map",
                ms="last_value",
                rw="last_value",
                nrw="first_not_null_value",
                arw="nested_update",
            ),
            **_TS_AGG,
            **_LTZ_AGG,
            "fields.vc.list-agg-delimiter": "|",
            "fields.arr_s.distinct": "true",
            "fields.arw.nested-key": "k",
            **{
                f"fields.{c}.ignore-retract": "true"
                for c in (
                    "b",
                    "c",
                    "vc",
                    "s",
                    "bin",
                    "vbin",
                    "dt",
                    "tm",
                    "tm3",
                    "arr",
                    "arr_s",
                    "mp",
                    "nrw",
                    "arw",
                    "g1",
                    "g2",
                    "g3",
                    *[f"ts{p}" for p in range(10)],
                    *[f"ltz{p}" for p in range(10)],
                )
            },
        },
        "all",
        ("arr_s", "arw"),
    ),
    "agg2": (
        {
            "merge-engine": "aggregation",
            "fields.default-aggregate-function": "first_non_null_value",
            **_funcs(
                ti="product",
                si="product",
                i="product",
                bi="product",
                f="product",
                d="product",
                dec10="product",
                dec18="product",
                dec38="product",
                b="bool_or",
                c="min",
                vc="max",
                s="min",
                bin="max",
                vbin="min",
                byt="first_value",
                dt="min",
                tm="max",
                arr="collect",
                arr_s="collect",
                mp="last_value",
                mp2="merge_map",
                ms="first_value",
                rw="first_value",
                arw="nested_update",
            ),
            **{k: ("min" if v == "max" else "max") for k, v in {**_TS_AGG, **_LTZ_AGG}.items()},
            "fields.arr.distinct": "true",
        },
        "update",
        ("arr",),
    ),
}


def options(name: str) -> dict[str, str]:
    return {"bucket": "2", "file.format": "parquet", **TABLES[name][0]}


def normalize(rows: list[dict], unordered: tuple[str, ...]) -> list[dict]:
    """Rows with the lists of ``unordered`` columns sorted (Java builds them in hash order)."""
    out = []
    for r in rows:
        r = dict(r)
        for c in unordered:
            if isinstance(r.get(c), list):
                r[c] = sorted(r[c], key=lambda v: json.dumps(v, sort_keys=True))
        out.append(r)
    return out


def schema_ddl() -> str:
    return ", ".join(f"{n} {t}" for n, t in COLUMNS)


def arrow_schema():
    import pyarrow as pa

    from paimon_core.data.types import parse_type, to_arrow_type

    return pa.schema(
        [pa.field(n, to_arrow_type(parse_type(t)), nullable="NOT NULL" not in t) for n, t in COLUMNS]
    )
