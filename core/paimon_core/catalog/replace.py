"""Replacing a table in place (Java 2.0's ``Catalog.replaceTable``): the table keeps its name, id,
files and history, its rows are removed and a new schema becomes its latest.

Two commits, in Java's order (``AbstractCatalog.replaceTableImpl``): a truncating snapshot (an
OVERWRITE that removes every live file, as ``TableCommit.truncateTable``) at the old schema, then
``schema-(latest+1)`` made from the new schema alone (its own columns, field ids from 0, options
and keys; nothing of the old schema carries over), written if absent and retried on a lost race,
under the catalog's lock. The older snapshots stay readable by time travel with the schema each
was committed with, until they expire. Invariant: a refused replace (changed partition keys, a
schema that does not validate, a table we cannot write) writes nothing; a failure between the two
commits leaves the table truncated at its old schema (Java's replace is not atomic either), and
running the replace again completes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.errors import CommitConflict, CorruptMetadata, UnsupportedByCatalog
from paimon_core.journal import record_commit
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import TYPE

if TYPE_CHECKING:
    from paimon_core.metadata.schema import Schema, TableSchema
    from paimon_core.table import FileStoreTable

SCHEMA_RETRIES = 10


def check_replaceable(table: FileStoreTable, schema: Schema) -> TableSchema:
    """The new schema as it would be written now (validated), or the refusal: a table that is not
    a Paimon table with snapshots (Java's server answers a format table so), or a change of the
    partition keys (Java: UnsupportedOperationException; drop and create the table instead)."""
    kind = CoreOptions(table.schema.options).get(TYPE).strip().lower()
    if kind != "table":
        raise UnsupportedByCatalog(
            f"table {table.identifier} has type = {kind}: replace-table replaces only Paimon tables"
        )
    latest = table.schemas.latest() or table.schema
    staged = schema.to_table_schema(latest.id + 1)
    if tuple(staged.partition_keys) != tuple(latest.partition_keys):
        raise UnsupportedByCatalog(
            f"replace-table cannot change the partition keys of {table.identifier} (old: "
            f"{list(latest.partition_keys)}, new: {list(staged.partition_keys)}); drop the table and "
            "create it again instead"
        )
    table.require_writable()  # the truncating commit is refused otherwise: refuse before it
    return staged


def replace_table(table: FileStoreTable, schema: Schema) -> TableSchema:
    """Truncate ``table`` (main branch) and commit ``schema`` as its next schema; returns the
    schema written (see the module docstring)."""
    from paimon_core.ops.truncate import truncate

    check_replaceable(table, schema)
    truncate(table)
    new = append_schema(table, schema)
    table.env.after_schema_change(table, new)
    return new


def append_schema(table: FileStoreTable, schema: Schema) -> TableSchema:
    """Write ``schema`` as ``schema-(latest+1)`` (Java's ``appendNewSchema``), under the catalog's
    lock; another writer taking that id first means a retry on the new latest."""
    import time

    for attempt in range(SCHEMA_RETRIES + 1):
        with table.env.lock():
            latest = table.schemas.latest()
            if latest is None:
                raise CorruptMetadata(f"table {table.identifier} has no schema file to replace")
            staged = schema.to_table_schema(latest.id + 1)
            if table.schemas.commit(staged):
                record_commit(table.branch_path, staged.id, "schema")
                return staged
        time.sleep(min(0.01 * (2**attempt), 0.5))
    raise CommitConflict(
        f"gave up replacing the schema of {table.identifier} after {SCHEMA_RETRIES + 1} attempts: "
        "other writers kept changing it"
    )
