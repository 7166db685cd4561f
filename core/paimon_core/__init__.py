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

from typing import TYPE_CHECKING

from paimon_core.lazy_exports import lazy_exports

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
    # schema changes, values and their text forms, and the other operations commands call
    "AddColumn": "paimon_core.metadata.schema_evolution",
    "DropColumn": "paimon_core.metadata.schema_evolution",
    "RemoveOption": "paimon_core.metadata.schema_evolution",
    "RenameColumn": "paimon_core.metadata.schema_evolution",
    "SetOption": "paimon_core.metadata.schema_evolution",
    "UpdateColumnType": "paimon_core.metadata.schema_evolution",
    "UpdateComment": "paimon_core.metadata.schema_evolution",
    "compact_manifests": "paimon_core.compaction.manifest_compaction",
    "sort_compact": "paimon_core.compaction.sort_compaction",
    "changes_schema": "paimon_core.read.diff",
    "diff_parts": "paimon_core.read.diff",
    "StreamRead": "paimon_core.read.stream",
    "is_system_table": "paimon_core.systables",
    "open_system_table": "paimon_core.systables",
    "commit_journal": "paimon_core.journal",
    "now_ms": "paimon_core.clock",
    "parse_duration_ms": "paimon_core.options.values",
    "parse_time_millis": "paimon_core.data.times",
    "parse_partition_spec": "paimon_core.read.partition_spec",
    "InputConversion": "paimon_core.write.input_notes",
    "no_rows": "paimon_core.data.no_rows",
    "renders": "paimon_core.data.text_forms",
    "csv_header": "paimon_core.data.text_lines",
    "csv_lines": "paimon_core.data.text_lines",
    "json_lines": "paimon_core.data.text_lines",
    "S3_STORAGE_OPTIONS": "paimon_core.storage.s3",
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
    "AddColumn", "AlreadyExists", "CommitConflict", "CommitMessage", "CommitOptions", "CoreOptions",
    "CorruptMetadata", "DropColumn", "FileStoreTable", "FileSystemCatalog", "InputConversion",
    "InvalidInput", "NotFound", "PaimonError", "RemoveOption", "RenameColumn", "S3_STORAGE_OPTIONS", "Schema", "SchemaMismatch",
    "SetOption", "Snapshot", "SnapshotNotFound", "StreamRead", "TableNotFound", "TableSchema",
    "UnsupportedFeature", "UpdateColumnType", "UpdateComment", "changes_schema", "commit_journal",
    "compact", "compact_manifests", "create_branch", "create_catalog", "create_tag", "csv_header",
    "csv_lines", "delete_branch", "diff", "diff_parts", "expire_snapshots", "fast_forward", "get_engine",
    "ingest_files", "is_system_table", "json_lines", "list_branches", "no_rows", "now_ms",
    "open_system_table", "parse_duration_ms", "parse_identifier", "parse_partition_spec",
    "parse_time_millis", "parse_type", "remove_orphans", "rename_branch", "renders", "rollback",
    "sort_compact", "write_tables",
]  # fmt: skip

if TYPE_CHECKING:  # a type checker sees each export's own type; at run time __getattr__ imports it
    from paimon_core.catalog import FileSystemCatalog, parse_identifier
    from paimon_core.catalog.factory import create_catalog
    from paimon_core.clock import now_ms
    from paimon_core.commit.file_store_commit import CommitOptions
    from paimon_core.compaction.compaction import compact
    from paimon_core.compaction.manifest_compaction import compact_manifests
    from paimon_core.compaction.sort_compaction import sort_compact
    from paimon_core.data.no_rows import no_rows
    from paimon_core.data.text_forms import renders
    from paimon_core.data.text_lines import csv_header, csv_lines, json_lines
    from paimon_core.data.times import parse_time_millis
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
    from paimon_core.journal import commit_journal
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
    from paimon_core.metadata.schema_evolution import (
        AddColumn,
        DropColumn,
        RemoveOption,
        RenameColumn,
        SetOption,
        UpdateColumnType,
        UpdateComment,
    )
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.ops.ingest import ingest_files, write_tables
    from paimon_core.options.core_options import CoreOptions
    from paimon_core.options.values import parse_duration_ms
    from paimon_core.read.diff import changes_schema, diff, diff_parts
    from paimon_core.read.partition_spec import parse_partition_spec
    from paimon_core.read.stream import StreamRead
    from paimon_core.storage.s3 import S3_STORAGE_OPTIONS
    from paimon_core.systables import is_system_table, open_system_table
    from paimon_core.table import FileStoreTable
    from paimon_core.write.input_notes import InputConversion


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
