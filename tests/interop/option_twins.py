"""Shared pieces of the table-option interop tests (tests/interop/test_options_*_interop.py): a
``Case`` (a table written by us and by Java from the same commits), our writes and Java's create
requests for it, and the plain-Python models of what a read must return."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.metadata.schema import Schema
from tests.interop.harness.canonical import arrow_from_rows
from tests.reference.merge_model import PkModel

KIND = "_row_kind"


@dataclass
class Case:
    """A table written by us and by Java from the same commits. ``model(commits)`` returns the
    rows a read of the latest snapshot must give (None: the three reads only agree)."""

    columns: list[tuple[str, str]]
    pks: tuple[str, ...]
    options: dict[str, str]
    commits: list[list[dict]]
    model: object = None
    partitions: tuple[str, ...] = ()
    java_twin: bool = True  # False: Java 0.9 cannot write the twin (it still reads ours)
    java_model: object = None  # an option Java 0.9 lacks: what Java 0.9 reads instead (else as ours)
    chunks: int = 1  # we hand each commit to the writer in this many Arrow tables


def arrow_schema(columns) -> pa.Schema:
    return pa.schema(
        [pa.field(n, to_arrow_type(parse_type(t)), nullable="NOT NULL" not in t) for n, t in columns]
    )


MERGE_KEYS = ("merge-engine", "ignore-delete", "first-row.", "deduplicate.", "partial-update.", "fields.")


def pk_model(case: Case, drop: tuple[str, ...] = ()) -> list[dict]:
    """PkModel of the case's merge options (the others change files, not rows)."""
    opts = {k: v for k, v in case.options.items() if k.startswith(MERGE_KEYS) and k not in drop}
    m = PkModel([n for n, _ in case.columns], case.pks, opts)
    for rows in case.commits:
        m.apply(rows)
    return m.rows()


def model_pk(case):
    return pk_model(case)


def model_append(case):
    return [{k: v for k, v in r.items() if k != KIND} for rows in case.commits for r in rows]


KV = [("k", "INT NOT NULL"), ("v", "STRING"), ("n", "BIGINT"), ("s", "INT")]


def kv(k, v, n, s=0, kind="+I"):
    return {"k": k, "v": v, "n": n, "s": s, KIND: kind}


DELETES = [
    [kv(1, "a", 1), kv(2, "b", 2), kv(3, "c", 3)],
    [kv(2, "b", 2, kind="-D"), kv(3, "c2", None), kv(4, "d", 4)],
    [kv(1, "a", 1, kind="-U"), kv(1, "a3", 10, kind="+U"), kv(4, "d", 4, kind="-D")],
]


def our_write(t, columns, rows, chunks: int = 1):
    from paimon_core.ops.ingest import write_tables

    schema = arrow_schema(columns)
    data = arrow_from_rows([{k: v for k, v in r.items() if k != KIND} for r in rows], schema)
    data = data.append_column("_kind", pa.array([r.get(KIND, "+I") for r in rows]))
    if chunks == 1:
        return t.write_arrow(data, row_kind_column="_kind")
    step = -(-len(rows) // chunks)
    parts = [data.slice(i, step) for i in range(0, len(rows), step)]
    return write_tables(t, parts, row_kind_column="_kind").snapshot


def create_ours(wh, name, case: Case):
    cols = ", ".join(f"{n} {t}" for n, t in case.columns)
    return FileSystemCatalog(wh).create_table(
        name, Schema(Schema.parse_columns(cols), case.partitions, case.pks, dict(case.options))
    )


def java_create(wh, name, case: Case) -> dict:
    return {
        "op": "create_table",
        "warehouse": wh,
        "table": name,
        "schema": [{"name": n, "type": t} for n, t in case.columns],
        "partition_keys": list(case.partitions),
        "primary_keys": list(case.pks),
        "options": dict(case.options),
    }
