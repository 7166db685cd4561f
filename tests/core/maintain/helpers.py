"""Tables built with the core API and the checks every maintenance test makes."""

from __future__ import annotations

import os

import pyarrow as pa

from paimon_core.maintain import referenced_files
from paimon_core.metadata.schema import Schema

FAR_FUTURE = 10**13  # a clock after every commit: only the count rules decide


def make_table(catalog, name: str, pk: bool, options: dict | None = None):
    if pk:
        schema = Schema(
            Schema.parse_columns("id BIGINT NOT NULL, v STRING"),
            (),
            ("id",),
            {"bucket": "2", **(options or {})},
        )
    else:
        schema = Schema(
            Schema.parse_columns("id BIGINT, p STRING, v STRING"), ("p",), (), dict(options or {})
        )
    return catalog.create_table(name, schema)


def batch(table, ids, tag: str) -> pa.Table:
    ids = pa.array(list(ids), pa.int64())
    cols = {"id": ids, "v": [f"{tag}-{i}" for i in ids.to_pylist()]}
    if not table.is_primary_key_table:
        cols = {"id": ids, "p": ["a" if i % 2 else "b" for i in ids.to_pylist()], "v": cols["v"]}
    return pa.table(cols)


def rows(t: pa.Table) -> list:
    return sorted(t.to_pylist(), key=lambda r: tuple(str(v) for v in r.values()))


def data_and_meta_files(table) -> set[str]:
    """Every file under the table directory except schema/snapshot/tag metadata."""
    out = set()
    for d, _dirs, names in os.walk(table.path):
        rel = os.path.relpath(d, table.path).split(os.sep)[0]
        if rel in ("schema", "snapshot", "tag"):
            continue
        out.update(os.path.join(d, n) for n in names)
    return out


def assert_files_equal_referenced(table) -> None:
    left = data_and_meta_files(table)
    refs = referenced_files(table).all_paths()
    assert left == refs, {"unreferenced": sorted(left - refs), "missing": sorted(refs - left)}
