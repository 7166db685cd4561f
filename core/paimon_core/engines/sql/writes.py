"""The writes ``paimon sql`` takes, on either engine: ``INSERT INTO|OVERWRITE db.t [PARTITION
(...)] <query>``, ``DELETE FROM db.t [WHERE ...]`` and ``TRUNCATE TABLE db.t [PARTITION (...)]``
(``sql.script.parse_write``).

The engine runs an INSERT's query (DuckDB here, Spark on the cluster) and hands its rows over as
one Arrow table; they are cast to the table's types (safe casts only: nothing is rounded) and
written by our table write, a DELETE by ``ops.delete.delete_where``, a TRUNCATE (and a DELETE
without a filter) by ``ops.truncate``.

Invariant: each statement is exactly one commit (none when there is nothing to write); a
statement that fails commits nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.engines.sql import script as sql_script
from paimon_core.engines.sql.refs import TableRef, parse_suffix
from paimon_core.errors import InvalidInput, SqlError

if TYPE_CHECKING:
    from paimon_core.catalog import Catalog


@dataclass(frozen=True)
class WriteSummary:
    """What a write statement did: ``action`` inserted | overwrote | deleted."""

    action: str  # inserted | overwrote | deleted | truncated
    table: str
    rows: int  # the rows written, or removed (counted at the snapshot before)
    snapshot: int | None  # the snapshot it made (None: nothing to commit)


def target_table(catalog: Catalog, name: str, verb: str):
    """The table a write names (``db.t``, or ``db.t$branch_b``): its latest snapshot only."""
    db, dot, rest = name.partition(".")
    if not dot or not db or not rest:
        raise InvalidInput(f"{verb} needs a table named db.table, not '{name}'")
    ref = parse_suffix(db, rest) if "$" in rest else TableRef(db, rest)
    if ref.kind != "latest":
        raise InvalidInput(f"{verb} writes the latest snapshot of a table: `{name}` names a {ref.kind}")
    return catalog.get_table(ref.identifier)


def insert_rows(
    catalog: Catalog, ins: sql_script.Insert, run_query: Callable[[str], pa.Table]
) -> WriteSummary:
    """Run ``ins``'s query with ``run_query`` (the engine's) and write its rows in one commit."""
    table = target_table(catalog, ins.table, "INSERT")
    data = run_query(ins.query)
    # with PARTITION (k = 'v'), the query gives the other columns (Spark's static partitions)
    names = ins.columns or [n for n in table.schema.field_names if n not in ins.partition]
    if data.num_columns != len(names):
        raise SqlError(
            f"INSERT into {ins.table}: the query gives {data.num_columns} column(s), "
            f"{'the column list' if ins.columns else 'the table'} has {len(names)}"
        )
    data = data.rename_columns(names)
    for key, value in ins.partition.items():
        if key not in names:
            data = data.append_column(key, pa.array([value] * data.num_rows, pa.string()))
    data = _cast(data, table.schema.arrow_schema(), ins.table)
    snap = table.write_arrow(data, overwrite=ins.overwrite, partition=ins.partition or None)
    action = "overwrote" if ins.overwrite else "inserted"
    return WriteSummary(action, table.identifier, data.num_rows, snap.id if snap else None)


def delete_rows(catalog: Catalog, d: sql_script.Delete) -> WriteSummary:
    from paimon_core.ops.delete import delete_where

    table = target_table(catalog, d.table, "DELETE")
    if d.where is None:  # every row: a truncation, as Java's DELETE without a filter
        return _truncate(table, None, "deleted")
    result = delete_where(table, d.where)
    snap = result.snapshot
    return WriteSummary("deleted", table.identifier, result.rows, getattr(snap, "id", None))


def truncate_rows(catalog: Catalog, t: sql_script.Truncate) -> WriteSummary:
    table = target_table(catalog, t.table, "TRUNCATE")
    return _truncate(table, t.partition or None, "truncated")


def _truncate(table, spec: dict | None, action: str) -> WriteSummary:
    """One TRUNCATE commit of ``table`` (of the partitions ``spec`` names); the rows it held."""
    from paimon_core.ops.truncate import truncate, truncated_partitions

    partitions = truncated_partitions(table, spec)
    rows = table.at().count(partitions=partitions)
    snap = truncate(table, partitions)
    return WriteSummary(action, table.identifier, rows if snap is not None else 0, getattr(snap, "id", None))


def _cast(data: pa.Table, schema: pa.Schema, name: str) -> pa.Table:
    """``data``'s columns cast to the table's types (safe casts only: nothing is rounded)."""
    out = []
    for col_name, column in zip(data.column_names, data.columns, strict=True):
        if schema.get_field_index(col_name) < 0:
            raise SqlError(f"INSERT into {name}: the table has no column '{col_name}'")
        target = schema.field(col_name).type
        try:
            out.append(column.cast(target) if column.type != target else column)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise SqlError(
                f"INSERT into {name}: column {col_name} ({column.type}) does not fit {target}: "
                f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
            ) from e
    return pa.table(out, names=data.column_names)


def run_write(catalog: Catalog, statement: str, run_query: Callable[[str], pa.Table]) -> WriteSummary | None:
    """``statement`` run when it is a write this module takes (one commit, an INSERT's query run
    by ``run_query``); None for any other statement, which the engine runs itself."""
    try:
        write = sql_script.parse_write(statement)
    except ValueError as e:
        raise SqlError(str(e)) from e
    if isinstance(write, sql_script.Insert):
        return insert_rows(catalog, write, run_query)
    if isinstance(write, sql_script.Delete):
        return delete_rows(catalog, write)
    if isinstance(write, sql_script.Truncate):
        return truncate_rows(catalog, write)
    return None
