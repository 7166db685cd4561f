"""Schemas and deterministic canonical rows shared by the interop tests.

Rows are in the harness's canonical JSON encoding (see harness/README.md), so the same list can be
sent to Java Paimon / pypaimon as a write request, turned into Arrow for our writer
(`harness.arrow_from_rows`) and compared with what any side reads back.
"""

from __future__ import annotations

import copy
from typing import Any

# Every primitive type, plus the three nested ones. `id` is the key used by the tests.
ALL_TYPES: list[tuple[str, str]] = [
    ("id", "INT NOT NULL"),
    ("b", "BOOLEAN"),
    ("ti", "TINYINT"),
    ("si", "SMALLINT"),
    ("i", "INT"),
    ("bi", "BIGINT"),
    ("f", "FLOAT"),
    ("d", "DOUBLE"),
    ("dec10", "DECIMAL(10, 2)"),
    ("dec20", "DECIMAL(20, 4)"),
    ("dec38", "DECIMAL(38, 10)"),
    ("c", "CHAR(5)"),
    ("vc", "VARCHAR(20)"),
    ("s", "STRING"),
    ("bin", "BINARY(4)"),
    ("vbin", "VARBINARY(10)"),
    ("byt", "BYTES"),
    ("dt", "DATE"),
    ("tm", "TIME"),
    ("ts3", "TIMESTAMP(3)"),
    ("ts6", "TIMESTAMP(6)"),
    ("ts9", "TIMESTAMP(9)"),
    ("ltz", "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
    ("arr", "ARRAY<INT>"),
    ("mp", "MAP<STRING, INT>"),
    ("rw", "ROW<a INT, b STRING>"),
]

# Hand-picked edge values per column (cycled through by row number; None = NULL).
_EDGE: dict[str, list[Any]] = {
    "b": [True, False, None],
    "ti": [0, -128, 127, None, -1, 7],
    "si": [0, -32768, 32767, None, -2, 300],
    "i": [0, -2147483648, 2147483647, None, -1, 123456],
    "bi": [0, -9223372036854775808, 9223372036854775807, None, -1, 1 << 40],
    "f": [0.0, 1.5, -2.25, None, 3.4028234663852886e38, "NaN", "-Infinity", 1.100000023841858],
    "d": [0.0, 1.5, -1e308, None, 5e-324, "Infinity", "NaN", 0.1],
    "dec10": ["0.00", "12345678.91", "-99999999.99", None, "0.01", "-0.50"],
    "dec20": ["0.0000", "1234567890123456.7890", "-9999999999999999.9999", None, "0.0001"],
    "dec38": [
        "0.0000000000",
        "1234567890123456789012345678.0123456789",
        "-9999999999999999999999999999.9999999999",
        None,
        "0.0000000001",
    ],
    "c": ["abcde", "ab", "", None, "ü"],
    "vc": ["hello", "", "日本語テキスト", None, "x" * 20],
    "s": ["", "a", "1234567", "12345678", "a longer string of more than 16 bytes", None, "é€😀", "tab\tnl\n"],
    "bin": ["00000000", "deadbeef", "ffffffff", None, "01020304"],
    "vbin": ["", "00", "0102030405060708090a", None, "ff"],
    "byt": ["", "cafebabe" * 10, None, "00ff00", "7f"],
    "dt": ["2024-01-01", "1970-01-01", "1969-12-31", None, "2099-12-31", "1900-03-01"],
    "tm": ["00:00:00.000", "23:59:59.999", "12:34:56.789", None, "01:02:03.000"],
    "ts3": [
        "2024-01-01T00:00:00.000",
        "1969-12-31T23:59:59.999",
        "2000-02-29T12:34:56.789",
        None,
        "1900-01-01T00:00:00.001",
    ],
    "ts6": [
        "2024-01-01T00:00:00.000000",
        "1969-12-31T23:59:59.999999",
        "2000-02-29T12:34:56.123456",
        None,
        "2200-06-30T01:02:03.000001",
    ],
    "ts9": [
        "2024-01-01T00:00:00.000000000",
        "1969-12-31T23:59:59.999999999",
        "2000-02-29T12:34:56.123456789",
        None,
        "2200-06-30T01:02:03.000000001",
    ],
    "ltz": [
        "2024-01-01T00:00:00.000000Z",
        "1969-12-31T23:59:59.999999Z",
        "2000-02-29T12:34:56.123456Z",
        None,
        "2030-01-01T08:00:00.500000Z",
    ],
    "arr": [[], [1, 2, 3], [None, -1], None, [2147483647]],
    "mp": [{}, {"a": 1, "b": None}, {"é": -5}, None, {"k1": 1, "k2": 2, "k3": 3}],
    # Never a NULL ROW, nor a ROW whose fields are all NULL: Java 0.9's Parquet reader returns
    # both as NULL (a reference quirk, see README); a ROW with some NULL fields is fine.
    "rw": [{"a": 1, "b": "x"}, {"a": None, "b": "y"}, {"a": -7, "b": None}],
}


def _shift(name: str) -> int:
    return sum(map(ord, name)) % 7


def all_types_row(i: int) -> dict[str, Any]:
    """Row number i: every column gets an edge value (columns cycle with different phases)."""
    row: dict[str, Any] = {"id": i}
    for name, _ in ALL_TYPES[1:]:
        vals = _EDGE[name]
        row[name] = copy.deepcopy(vals[(i + _shift(name)) % len(vals)])
    return row


def all_types_rows(start: int, n: int, **extra: Any) -> list[dict[str, Any]]:
    """n rows with ids start..start+n-1; `extra` maps a column to a value or a list cycled by row."""
    rows = []
    for k in range(n):
        r = all_types_row(start + k)
        for col, v in extra.items():
            r[col] = v[k % len(v)] if isinstance(v, list) else v
        rows.append(r)
    return rows


def schema_json(columns: list[tuple[str, str]]) -> list[dict[str, str]]:
    """The harness's request shape for a schema."""
    return [{"name": n, "type": t} for n, t in columns]


def schema_ddl(columns: list[tuple[str, str]]) -> str:
    """`Schema.parse_columns` input: "id INT NOT NULL, b BOOLEAN, ..." """
    return ", ".join(f"{n} {t}" for n, t in columns)


def types_map(columns: list[tuple[str, str]]) -> dict[str, str]:
    return dict(columns)


# ------------------------------------------------------------------ table scenarios


class Commit:
    """One commit of a scenario: canonical rows (with `_row_kind` for PK tables) and whether it
    overwrites (dynamic partition overwrite for partitioned tables, whole table otherwise)."""

    def __init__(self, rows: list[dict[str, Any]], overwrite: bool = False, by: str = "ours"):
        self.rows = rows
        self.overwrite = overwrite
        self.by = by  # which side writes it: "ours", "java" or "pypaimon"


class TableSpec:
    def __init__(
        self,
        name: str,
        columns: list[tuple[str, str]],
        commits: list[Commit],
        partition_keys: tuple[str, ...] = (),
        primary_keys: tuple[str, ...] = (),
        options: dict[str, str] | None = None,
    ):
        self.name = name
        self.columns = columns
        self.commits = commits
        self.partition_keys = tuple(partition_keys)
        self.primary_keys = tuple(primary_keys)
        self.options = dict(options or {})

    @property
    def types(self) -> dict[str, str]:
        return dict(self.columns)

    @property
    def bucket(self) -> int:
        return int(self.options.get("bucket", "-1"))

    @property
    def bucket_keys(self) -> list[str]:
        if self.options.get("bucket-key"):
            return [k.strip() for k in self.options["bucket-key"].split(",")]
        if self.primary_keys:
            return [k for k in self.primary_keys if k not in self.partition_keys]
        return [n for n, _ in self.columns]

    def create_request(self, warehouse: str) -> dict[str, Any]:
        return {
            "op": "create_table",
            "warehouse": str(warehouse),
            "table": self.name,
            "schema": schema_json(self.columns),
            "partition_keys": list(self.partition_keys),
            "primary_keys": list(self.primary_keys),
            "options": self.options,
        }

    def write_request(self, warehouse: str, commit: Commit) -> dict[str, Any]:
        return {
            "op": "write",
            "warehouse": str(warehouse),
            "table": self.name,
            "rows": commit.rows,
            "overwrite": commit.overwrite,
        }

    def expected_states(self) -> list[list[dict[str, Any]]]:
        """The rows visible after each commit (index 0 = snapshot 1), append semantics."""
        state: list[dict[str, Any]] = []
        out = []
        pk = self.partition_keys
        for c in self.commits:
            if c.overwrite:
                if pk:
                    parts = {tuple(r.get(k) for k in pk) for r in c.rows}
                    state = [r for r in state if tuple(r.get(k) for k in pk) not in parts]
                else:
                    state = []
            state = state + [{k: v for k, v in r.items() if k != "_row_kind"} for r in c.rows]
            out.append(list(state))
        return out


def merge_pk(
    rows_in_order: list[dict[str, Any]], primary_keys: tuple[str, ...], engine: str = "deduplicate"
) -> list[dict[str, Any]]:
    """What a PK table holds after these changes (in commit order): deduplicate keeps the last
    +I/+U of a key and drops keys whose last change is -U/-D; first-row keeps the first +I/+U."""
    state: dict[tuple, dict[str, Any]] = {}
    for r in rows_in_order:
        key = tuple(r.get(k) for k in primary_keys)
        kind = r.get("_row_kind", "+I")
        body = {k: v for k, v in r.items() if k != "_row_kind"}
        if engine == "first-row":
            if kind in ("+I", "+U") and key not in state:
                state[key] = body
        elif kind in ("+I", "+U"):
            state[key] = body
        else:
            state.pop(key, None)
    return list(state.values())


def java_safe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows Java Paimon 0.9 can write AND read back. It writes TIMESTAMP(7..9) as INT96, and reading
    back a pre-1970 value with sub-millisecond digits (e.g. 1969-12-31T23:59:59.999999999) fails
    with IllegalArgumentException in Timestamp.fromEpochMillis (reference bug; INT96 files WE write
    with such values are read fine by Java). Such values lose their sub-millisecond digits here."""
    out = []
    for r in rows:
        v = r.get("ts9")
        if isinstance(v, str) and v < "1970" and not v.endswith("000000"):
            r = dict(r, ts9=v[:-6] + "000000")
        out.append(r)
    return out


def java_safe_spec(spec: TableSpec) -> TableSpec:
    for c in spec.commits:
        c.rows = java_safe(c.rows)
    return spec


def bucket_request(spec: TableSpec, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A Java `bucket_of` request for the bucket key of `rows` in a fixed-bucket table."""
    return {
        "op": "bucket_of",
        "types": [spec.types[k] for k in spec.bucket_keys],
        "rows": [[r.get(k) for k in spec.bucket_keys] for r in rows],
        "num_buckets": spec.bucket,
    }


def check_bucket_placement(
    spec: TableSpec, table_dir, files: list[dict], java_bucket_by_id: dict[int, int]
) -> list[int]:
    """Assert every live file Java lists (`files` op) lies in bucket-<b>/ of the partition Java
    names, and that Java hashes each of its rows to bucket b. Returns the ids seen."""
    from pathlib import Path

    import pyarrow.parquet as pq

    from tests.interop.harness import rows_from_arrow

    table_dir = Path(table_dir)
    seen: list[int] = []
    bad = []
    for f in files:
        assert 0 <= f["bucket"] < spec.bucket, f
        paths = list(table_dir.rglob(f["fileName"]))
        assert len(paths) == 1, f"{f['fileName']} not found exactly once under {table_dir}"
        assert paths[0].parent.name == f"bucket-{f['bucket']}", paths[0]
        data = pq.read_table(paths[0])
        ids = data.column("id").to_pylist()
        seen += ids
        for k in spec.partition_keys:  # the file's rows belong to the partition Java names
            vals = {r[k] for r in rows_from_arrow(data.select([k]), spec.types)}
            assert vals == {f["partitionValues"][k]}, (f["fileName"], k, vals, f["partitionValues"])
        bad += [(i, f["bucket"], java_bucket_by_id[i]) for i in ids if java_bucket_by_id[i] != f["bucket"]]
    assert not bad, f"rows in the wrong bucket (id, file's bucket, Java's bucket): {bad[:20]}"
    return seen


# The all-types columns that equality-filter tests query (one-row files, so a file's stats must
# keep every value it holds). SMALLINT/TINYINT are left out: Java 0.9's Parquet row-group filter
# throws ClassCastException (Short cannot be cast to Integer) on them, whoever wrote the file.
FILTER_COLUMNS = [
    "dec38",
    "dec20",
    "dec10",
    "ts9",
    "ts6",
    "ts3",
    "ltz",
    "s",
    "vc",
    "c",
    "dt",
    "tm",
    "bi",
    "i",
    "d",
]
