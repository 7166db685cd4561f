"""paimon_core: a Python implementation of the Apache Paimon table format.

Entry points (imported lazily, so ``import paimon_core`` stays cheap)::

    from paimon_core import FileSystemCatalog, Schema
    catalog = FileSystemCatalog("./warehouse")             # or "s3://bucket/path", storage_options={...}
    table = catalog.create_table("db.t", Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"),
                                                primary_keys=("id",)))
    table.write_arrow(arrow_table)                          # one commit; or new_writer() + commit()
    table.read(snapshot_id=None, columns=None, where=None)  # a pyarrow.Table, merged on read

The library never imports the CLI (typer, rich) and imports pyspark only inside
``paimon_core.engines.spark``. Progress reaches callers through callbacks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_EXPORTS = {
    # catalog and tables
    "FileSystemCatalog": "paimon_core.catalog",
    "create_catalog": "paimon_core.catalog.factory",
    "parse_identifier": "paimon_core.catalog",
    "FileStoreTable": "paimon_core.table",
    "Schema": "paimon_core.metadata.schema",
    "TableSchema": "paimon_core.metadata.schema",
    "parse_type": "paimon_core.data.types",
    "CoreOptions": "paimon_core.options.core_options",
    # write, read, commit
    "ingest_files": "paimon_core.ops.ingest",
    "write_tables": "paimon_core.ops.ingest",
    "CommitMessage": "paimon_core.metadata.commit_message",
    "CommitOptions": "paimon_core.commit.file_store_commit",
    "diff": "paimon_core.read.diff",
    "compact": "paimon_core.compaction.compaction",
    "get_engine": "paimon_core.engines",
    # snapshots and maintenance
    "Snapshot": "paimon_core.metadata.snapshot",
    "expire_snapshots": "paimon_core.maintain",
    "create_tag": "paimon_core.maintain",
    "rollback": "paimon_core.maintain",
    "remove_orphans": "paimon_core.maintain",
    # branches
    "create_branch": "paimon_core.maintain.branches",
    "delete_branch": "paimon_core.maintain.branches",
    "fast_forward": "paimon_core.maintain.branches",
    "list_branches": "paimon_core.maintain.branches",
    "rename_branch": "paimon_core.maintain.branches",
    # errors
    "PaimonError": "paimon_core.errors",
    "InvalidInput": "paimon_core.errors",
    "SchemaMismatch": "paimon_core.errors",
    "NotFound": "paimon_core.errors",
    "TableNotFound": "paimon_core.errors",
    "SnapshotNotFound": "paimon_core.errors",
    "AlreadyExists": "paimon_core.errors",
    "CommitConflict": "paimon_core.errors",
    "CorruptMetadata": "paimon_core.errors",
    "UnsupportedFeature": "paimon_core.errors",
}
# the names of _EXPORTS (tests/test_packaging.py checks that the three lists agree)
__all__ = [
    "AlreadyExists", "CommitConflict", "CommitMessage", "CommitOptions", "CoreOptions", "CorruptMetadata",
    "FileStoreTable", "FileSystemCatalog", "InvalidInput", "NotFound", "PaimonError", "Schema",
    "SchemaMismatch", "Snapshot", "SnapshotNotFound", "TableNotFound", "TableSchema", "UnsupportedFeature",
    "compact", "create_branch", "create_catalog", "create_tag", "delete_branch", "diff", "expire_snapshots",
    "fast_forward", "get_engine", "ingest_files", "list_branches", "parse_identifier", "parse_type",
    "remove_orphans", "rename_branch", "rollback", "write_tables",
]  # fmt: skip

if TYPE_CHECKING:  # a type checker sees each export's own type; at run time __getattr__ imports it
    from paimon_core.catalog import FileSystemCatalog, parse_identifier
    from paimon_core.catalog.factory import create_catalog
    from paimon_core.commit.file_store_commit import CommitOptions
    from paimon_core.compaction.compaction import compact
    from paimon_core.data.types import parse_type
    from paimon_core.engines import get_engine
    from paimon_core.errors import (
        AlreadyExists,
        CommitConflict,
        CorruptMetadata,
        InvalidInput,
        NotFound,
        PaimonError,
        SchemaMismatch,
        SnapshotNotFound,
        TableNotFound,
        UnsupportedFeature,
    )
    from paimon_core.maintain import create_tag, expire_snapshots, remove_orphans, rollback
    from paimon_core.maintain.branches import (
        create_branch,
        delete_branch,
        fast_forward,
        list_branches,
        rename_branch,
    )
    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.schema import Schema, TableSchema
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.ops.ingest import ingest_files, write_tables
    from paimon_core.options.core_options import CoreOptions
    from paimon_core.read.diff import diff
    from paimon_core.table import FileStoreTable


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'paimon_core' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
