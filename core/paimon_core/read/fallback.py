"""``scan.fallback-branch``: a read of the main branch also returns, for every partition the main
branch does not have, that partition's rows from the named branch (Java's
``FallbackReadFileStoreTable``), e.g. a batch-corrected branch behind a streaming main.

Rules (as Java): only reads of the main branch fall back (maintenance, writes and reads of a
branch never do); a partition is "had" by main when main's snapshot holds any live file in it,
whatever the filter; the fallback branch is read at its latest snapshot; both branches must have
the same columns (by name and type, nullability aside), partition keys and primary keys, else
the read is refused. Fallback splits carry ``schema_branch`` so their files are decoded with the
fallback branch's schema files (``TableRead._file_schema``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from paimon_core.errors import InvalidInput
from paimon_core.metadata.branches import BranchNotFound, branch_path
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import SchemaManager, TableSchema
from paimon_core.metadata.snapshot import SnapshotManager
from paimon_core.options.registry import SCAN_FALLBACK_BRANCH
from paimon_core.read.scan import DataSplit, TableScan

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext
    from paimon_core.read.predicate import Predicate


@dataclass
class BranchSchemas:
    """The schema files of one branch, read once per table object."""

    manager: SchemaManager
    latest: TableSchema
    cache: dict[int, TableSchema]

    def schema(self, schema_id: int) -> TableSchema:
        if schema_id not in self.cache:
            self.cache[schema_id] = self.manager.schema(schema_id)
        return self.cache[schema_id]


def branch_schemas(table: TableContext, branch: str) -> BranchSchemas:
    cache = table.__dict__.setdefault("_branch_schemas", {})
    if branch not in cache:
        manager = SchemaManager(table.io, branch_path(table.path, branch))
        latest = manager.latest()
        if latest is None:
            raise BranchNotFound(branch, table.identifier)
        cache[branch] = BranchSchemas(manager, latest, {latest.id: latest})
    return cache[branch]


def fallback_branch(table: TableContext) -> str | None:
    """The branch a read of ``table`` falls back to, or None."""
    if not table.is_main_branch:
        return None
    name = table.schema.core_options.get(SCAN_FALLBACK_BRANCH)
    return name or None


def _check_compatible(main: TableSchema, other: TableSchema, branch: str) -> None:
    def cols(s: TableSchema) -> list[tuple[str, str]]:
        return [(f.name, str(f.type.with_nullable(True))) for f in s.fields]

    if cols(main) != cols(other):
        raise InvalidInput(
            f"{SCAN_FALLBACK_BRANCH.key} = '{branch}': the branch's columns differ from main's; a fallback branch needs the same columns"
        )
    if tuple(main.partition_keys) != tuple(other.partition_keys) or (
        tuple(main.primary_keys) != tuple(other.primary_keys)
    ):
        raise InvalidInput(
            f"{SCAN_FALLBACK_BRANCH.key} = '{branch}': the branch's partition or primary keys differ from main's"
        )


def with_fallback(
    table: TableContext, snapshot: Snapshot | None, splits: list[DataSplit], predicate: Predicate | None
) -> list[DataSplit]:
    """``splits`` of main plus the fallback branch's splits of partitions main does not have."""
    branch = fallback_branch(table)
    if branch is None:
        return splits
    from paimon_core.metadata.table_context import TableContext as Ctx

    schemas = branch_schemas(table, branch)
    _check_compatible(table.schema, schemas.latest, branch)
    other = Ctx(table.io, table.path, table.identifier, schemas.latest, branch)
    latest = SnapshotManager(table.io, other.branch_path).latest()
    if latest is None:
        return splits
    had = {e.partition for e in live_entries(table.manifests, snapshot)} if snapshot is not None else set()
    extra = [
        replace(s, schema_branch=branch)
        for s in TableScan(other, latest, predicate).plan()
        if s.partition_bytes not in had
    ]
    return splits + extra
