"""Paimon's system tables: ``db.t$snapshots`` and the rest, and the global ``sys.*`` tables.

:func:`open_system_table` maps a name to a :class:`SystemTable`: Java's columns (``fields``, an
Arrow ``schema``) and its rows as Arrow tables (``batches()``; ``to_arrow()``). Names are split
by ``metadata/branches.py`` (the one place that parses ``$`` suffixes), so
``db.t$branch_b$files`` is ``$files`` of branch ``b``. Metadata tables are built whole (they are
small: one row per snapshot, file, manifest...); ``$audit_log``, ``$binlog``, ``$ro`` and
``$row_tracking`` are reads of the data and stream split by split. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from paimon_core.data.no_rows import no_rows
from paimon_core.data.types import DataField, to_arrow_schema
from paimon_core.errors import InvalidInput, NotFound
from paimon_core.metadata.branches import SYSTEM_DATABASE, split_system
from paimon_core.systables import data_tables, file_tables, global_tables, metadata_tables

if TYPE_CHECKING:
    from paimon_core.read.predicate import Predicate
    from paimon_core.table import FileStoreTable

# name -> (columns of the table, builder): builders return one Arrow table
_METADATA: dict[str, tuple[tuple[DataField, ...], Callable[[FileStoreTable], pa.Table]]] = {
    "snapshots": (metadata_tables.SNAPSHOTS, metadata_tables.snapshots),
    "schemas": (metadata_tables.SCHEMAS, metadata_tables.schemas),
    "options": (metadata_tables.OPTIONS, metadata_tables.options),
    "files": (file_tables.FILES, file_tables.files),
    "file_key_ranges": (file_tables.FILE_KEY_RANGES, file_tables.file_key_ranges),
    "manifests": (file_tables.MANIFESTS, file_tables.manifests),
    "partitions": (file_tables.PARTITIONS, file_tables.partitions),
    "buckets": (file_tables.BUCKETS, file_tables.buckets),
    "tags": (metadata_tables.TAGS, metadata_tables.tags),
    "branches": (metadata_tables.BRANCHES, metadata_tables.branches),
    "consumers": (metadata_tables.CONSUMERS, metadata_tables.consumers),
    "statistics": (metadata_tables.STATISTICS, metadata_tables.statistics),
    "table_indexes": (file_tables.TABLE_INDEXES, file_tables.table_indexes),
    "aggregation_fields": (metadata_tables.AGGREGATION_FIELDS, metadata_tables.aggregation_fields),
}
# name -> (columns of the table given the data table, batch reader)
_DATA: dict[
    str, tuple[Callable[[FileStoreTable], tuple[DataField, ...]], Callable[..., Iterator[pa.Table]]]
] = {
    "audit_log": (data_tables.audit_log_fields, data_tables.audit_log),
    "binlog": (data_tables.binlog_fields, data_tables.binlog),
    "ro": (lambda t: tuple(t.schema.fields), data_tables.read_optimized),
    "row_tracking": (data_tables.row_tracking_fields, data_tables.row_tracking_rows),
}
_GLOBAL = {  # Java's SystemTableLoader.GLOBAL_SYSTEM_TABLES, in its order
    "tables": (global_tables.TABLES, global_tables.tables),
    "partitions": (global_tables.PARTITIONS, global_tables.partitions),
    "all_table_options": (global_tables.ALL_TABLE_OPTIONS, global_tables.all_table_options),
    "catalog_options": (global_tables.CATALOG_OPTIONS, global_tables.catalog_options),
}
TABLE_SYSTEM_TABLES = tuple(_METADATA) + tuple(_DATA)
GLOBAL_SYSTEM_TABLES = tuple(_GLOBAL)


@dataclass
class SystemTable:
    """One system table: its name as given, Java's columns and a source of its rows."""

    name: str
    fields: tuple[DataField, ...]
    _rows: Callable[[], Iterator[pa.Table]]

    @property
    def schema(self) -> pa.Schema:
        return to_arrow_schema(self.fields)

    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def parse_filter(self, where: str | None) -> Predicate | None:
        """A ``--where`` text bound to this table's columns (None for no filter)."""
        from paimon_core.read.predicate import bind, parse_where

        return None if not where else bind(parse_where(where), {f.name: f.type for f in self.fields})

    def batches(
        self,
        columns: Sequence[str] | None = None,
        predicate: Predicate | None = None,
        limit: int | None = None,
    ) -> Iterator[pa.Table]:
        """The rows as Arrow tables with this table's schema, filtered, then projected to
        ``columns`` (in the order given), at most ``limit`` rows in all."""
        from paimon_core.read.predicate import to_expression

        cols = self.check_columns(columns)
        schema = self.schema
        remaining = limit
        for t in self._rows():
            t = t.cast(schema) if t.schema != schema else t
            if predicate is not None:
                t = t.filter(to_expression(predicate))
            t = t.select(cols)
            if remaining is not None:
                t = t.slice(0, remaining)
                remaining -= t.num_rows
            if t.num_rows:
                yield t
            if remaining is not None and remaining <= 0:
                return

    def to_arrow(
        self, columns: Sequence[str] | None = None, where: str | None = None, limit: int | None = None
    ) -> pa.Table:
        cols = self.check_columns(columns)
        parts = list(self.batches(cols, self.parse_filter(where), limit))
        if not parts:
            return no_rows(self.schema).select(cols)
        return pa.concat_tables(parts)

    def check_columns(self, columns: Sequence[str] | None) -> list[str]:
        """``columns`` (all when none), each a column of this table, else InvalidInput naming it."""
        names = self.field_names
        if not columns:
            return names
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise InvalidInput(f"{self.name} has no column '{unknown[0]}' (columns: {', '.join(names)})")
        return list(columns)


def is_system_table(identifier: str) -> bool:
    """Whether ``identifier`` names a system table (``db.t$x`` other than a branch, or ``sys.x``)."""
    base, system = split_system(identifier)
    return system is not None or base.partition(".")[0] == SYSTEM_DATABASE


def open_system_table(catalog: Any, identifier: str) -> SystemTable:
    """The system table ``identifier`` names: ``db.t$x``, ``db.t$branch_b$x`` or ``sys.x``
    (``catalog`` opens the table; the global tables list the whole catalog). InvalidInput
    naming the served tables for an unknown name."""
    base, system = split_system(identifier)
    db, _, rest = base.partition(".")
    if system is None:
        if db != SYSTEM_DATABASE or rest not in _GLOBAL:
            raise InvalidInput(
                f"unknown system table '{identifier}': the global ones are "
                + ", ".join(f"sys.{n}" for n in _GLOBAL)
            )
        if rest == "catalog_options" and not global_tables.catalog_options_enabled(catalog):
            raise NotFound(
                f"table '{identifier}' exists only with the catalog option "
                "catalog-options-table.enabled=true (as in Java 2.0: it lists every catalog option, "
                "passwords and tokens included)"
            ).with_hint("catalog_options_table", table=identifier)
        cols, build = _GLOBAL[rest]
        return SystemTable(identifier, cols, lambda: iter([build(catalog)]))
    key = system.lower()
    if key not in _METADATA and key not in _DATA:
        raise InvalidInput(
            f"unknown system table '${system}' in '{identifier}': use one of "
            + ", ".join(f"${n}" for n in TABLE_SYSTEM_TABLES)
        )
    table = catalog.get_table(base)
    if key in _METADATA:
        cols, build = _METADATA[key]
        return SystemTable(identifier, cols, lambda: iter([build(table)]))
    table.require_readable()
    cols_of, reader = _DATA[key]
    return SystemTable(identifier, cols_of(table), lambda: reader(table))


__all__ = [
    "GLOBAL_SYSTEM_TABLES",
    "TABLE_SYSTEM_TABLES",
    "SystemTable",
    "is_system_table",
    "open_system_table",
]
