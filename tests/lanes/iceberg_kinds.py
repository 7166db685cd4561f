"""Tables with Iceberg-compatible metadata, written by us, for the lanes whose engines read Iceberg
(DuckDB's iceberg extension, Trino's Iceberg connector).

Each kind is a few commits through the library on a warehouse (local path, ``file:`` URI or
``s3://``); `write_kinds` returns, per kind, the table's location, its latest Iceberg metadata
file and the rows our own read gives at every snapshot an Iceberg reader must answer exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.data.types import parse_type
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.ops.alter import alter_table
from tests.interop.harness import rows_from_arrow
from tests.interop.option_twins import Case, our_write

from .rows import C1, C2, C3, COLUMNS

ICEBERG = {"metadata.iceberg.storage": "table-location"}
NESTED = [
    ("k", "INT NOT NULL"),
    ("r", "ROW<x INT, y STRING>"),
    ("a", "ARRAY<BIGINT>"),
    ("m", "MAP<STRING, INT>"),
]


@dataclass(frozen=True)
class Kind:
    case: Case
    compact: bool = False  # a full compaction after the commits
    add_column: bool = False  # ADD COLUMN c STRING between the first commit and the rest
    every_snapshot: bool = True  # each snapshot's Iceberg view equals our read of it (append tables)


KINDS = {
    "append": Kind(Case(COLUMNS, (), {"bucket": "-1", **ICEBERG}, [C1, C2])),
    "append-partitioned": Kind(Case(COLUMNS, (), {"bucket": "-1", **ICEBERG}, [C1, C2], partitions=("p",))),
    "append-evolved": Kind(
        Case(COLUMNS, (), {"bucket": "-1", **ICEBERG}, [C1, [dict(r, c="new") for r in C2]]), add_column=True
    ),
    "append-nested": Kind(
        Case(
            NESTED,
            (),
            {"bucket": "-1", **ICEBERG},
            [
                [{"k": 1, "r": {"x": 1, "y": "a"}, "a": [1, 2], "m": {"a": 1}}],
                [{"k": 2, "r": None, "a": [], "m": {"b": None}}, {"k": 3, "r": {"x": None, "y": "c"}}],
            ],
        )
    ),
    # a primary-key table's Iceberg view is its top level: what a full compaction wrote
    "pk-compacted": Kind(
        Case(COLUMNS, ("k", "p"), {"bucket": "2", **ICEBERG}, [C1, C2, C3], partitions=("p",)),
        compact=True,
        every_snapshot=False,
    ),
}

# a v3 deletion-vector table: written compacted, then a delete (a vector on the compacted file)
DV_V3 = Kind(
    Case(
        COLUMNS,
        ("k",),
        {
            "bucket": "1",
            "deletion-vectors.enabled": "true",
            "deletion-vectors.bitmap64": "true",
            "metadata.iceberg.format-version": "3",
            **ICEBERG,
        },
        [C1 + C2, C3],
    ),
    every_snapshot=False,
)


@dataclass
class Written:
    """One table: its location as its Iceberg metadata records it, its latest Iceberg metadata
    file, our rows per snapshot id."""

    location: str
    metadata: str
    types: dict[str, str]
    rows: dict[int, list[dict]] = field(default_factory=dict)  # snapshot id -> our read
    latest: int = 0


def types_of(kind: Kind) -> dict[str, str]:
    return dict(kind.case.columns) | ({"c": "STRING"} if kind.add_column else {})


def write_kind(warehouse: str, name: str, kind: Kind, storage: dict | None = None) -> Written:
    """Our commits of `kind` as db.<name>; the snapshots an Iceberg reader must read as we do."""
    cat = FileSystemCatalog(warehouse, storage)
    ident = f"db.{name}"
    cat.create_table(ident, _schema(kind.case))
    columns = list(kind.case.columns)
    for i, rows in enumerate(kind.case.commits):
        if i == 1 and kind.add_column:
            alter_table(cat.get_table(ident), [AddColumn("c", parse_type("STRING"))])
            columns.append(("c", "STRING"))
        our_write(cat.get_table(ident), columns, rows)
    if kind.compact:
        full_compact(cat.get_table(ident))
    table = cat.get_table(ident)
    types = types_of(kind)
    latest = table.snapshots.latest_id()
    ids = table.snapshots.list_ids() if kind.every_snapshot else [latest]
    metadata = _latest_metadata(table)
    location = json.loads(table.io.read_text(metadata))["location"]
    out = Written(location, metadata, types, latest=latest)
    for sid in ids:
        out.rows[sid] = rows_from_arrow(table.read(snapshot_id=sid), types)
    return out


def write_kinds(warehouse: str, storage: dict | None = None) -> dict[str, Written]:
    return {name: write_kind(warehouse, name, kind, storage) for name, kind in KINDS.items()}


def _schema(case: Case) -> Schema:
    cols = ", ".join(f"{n} {t}" for n, t in case.columns)
    return Schema(Schema.parse_columns(cols), case.partitions, case.pks, dict(case.options))


def _latest_metadata(table) -> str:
    hint = table.io.read_text(f"{table.path}/metadata/version-hint.text").strip()
    path = f"{table.path}/metadata/v{hint}.metadata.json"
    assert json.loads(table.io.read_text(path))["format-version"] in (2, 3), path
    return path
