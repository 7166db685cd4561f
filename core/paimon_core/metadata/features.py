"""Newer (Paimon 1.x/2.0) table features: which ones this library reads and writes, and a
one-line ``UnsupportedFeature`` naming each one it does not.

Handled elsewhere (read correctly): unknown snapshot JSON keys (kept in ``Snapshot.extra``),
``_VALUE_STATS_COLS`` (stats only for the listed columns, ``read/scan.py``), thin-mode files
without ``_KEY_`` columns (keys come from the value columns), ``_EXTERNAL_PATH`` (read from, and
expired at, that path), ``_EXTRA_FILES`` file indexes (referenced files for expire/orphans),
row tracking and data evolution (``metadata/row_ids.py`` assigns row ids at commit,
``read/row_tracking.py`` merges column files and gives ``_ROW_ID``),
postpone buckets (``write/postpone.py``), index manifests of every release's layout with
entries of index types we do not write, ``_GLOBAL_INDEX`` included (carried field for field,
``metadata/index_manifest.py``), primary-key index payloads of 2.0 (dropped by the commit that
makes them untrue, ``metadata/pk_index.py``).

Refused, because reading or writing them without the feature gives wrong rows:

* a file with ``_WRITE_COLS`` (data evolution) outside the read that merges them by row id
  (``read/row_tracking.py``): delta reads, deletes and compactions read whole files;
* row tracking on a primary-key or fixed-bucket table (Paimon has none); a commit that would
  make a global index over row ids untrue: one adding rows, writing an indexed column, or
  removing rows or files outside a compaction that keeps every row id
  (``index_manifest.check_writable_index``);
* ``bucket-function.type`` other than ``default``: rows would land in the wrong buckets;
  refused on write;
* column default values (``defaultValue``): a writer must fill them in; refused on write
  (compaction is fine);
* VARIANT and VECTOR columns: refused when the schema is parsed (``data/types.py``); BLOB
  columns are read and written (``.blob`` files, ``fileformat/blob.py``); descriptor columns
  (``blob-descriptor-field``: pointers to bytes elsewhere) are read where the bytes are on the
  table's file system (``read/blob_descriptors.py``), never written;
* ``type`` other than ``table`` (format tables and others have no snapshots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from paimon_core.errors import UnsupportedFeature
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.options.registry import DATA_EVOLUTION_ENABLED, ROW_TRACKING_ENABLED
from paimon_core.options.table_rules import DESCRIPTOR_OPTIONS, check_blob_descriptors, check_feature_options

if TYPE_CHECKING:
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext


def check_readable(schema: TableSchema, what: str = "table") -> None:
    check_feature_options(schema.options, writing=False, what=what)


def descriptor_columns(schema: TableSchema) -> list[str]:
    """BLOB columns whose data files hold serialized descriptors instead of the bytes
    (``blob-descriptor-field``; ``blob-external-storage-field`` names a subset of them)."""
    named: set[str] = set()
    for key in DESCRIPTOR_OPTIONS:
        named |= {n.strip() for n in str(schema.options.get(key) or "").split(",") if n.strip()}
    return [f.name for f in schema.fields if getattr(f.type, "root", None) == "BLOB" and f.name in named]


def blob_columns(schema: TableSchema) -> list[str]:
    """The top-level BLOB columns kept in ``.blob`` files, in schema order (descriptor columns
    are kept in the data files)."""
    inline = set(descriptor_columns(schema))
    return [f.name for f in schema.fields if getattr(f.type, "root", None) == "BLOB" and f.name not in inline]


def check_writable(schema: TableSchema, what: str = "table", compaction: bool = False) -> None:
    check_feature_options(schema.options, writing=True, what=what, assigns_buckets=not compaction)
    if blob_columns(schema) or descriptor_columns(schema):
        check_blob_descriptors(schema.options, what)
        if not schema.core_options.get(DATA_EVOLUTION_ENABLED):
            raise UnsupportedFeature(
                f"{what} has BLOB columns ({', '.join(blob_columns(schema))}) without "
                "data-evolution.enabled = true, which Paimon requires for them (with row tracking)"
            )
    evolution = schema.core_options.get(DATA_EVOLUTION_ENABLED)
    tracked = evolution or schema.core_options.get(ROW_TRACKING_ENABLED)
    if tracked and schema.bucket_mode is not BucketMode.BUCKET_UNAWARE:
        feature = "data evolution" if evolution else "row tracking"
        raise UnsupportedFeature(
            f"{what} uses {feature} with a primary key or fixed buckets; Paimon has it only on "
            "unaware-bucket append tables: writing it is not supported"
        )
    defaults = [f.name for f in schema.fields if getattr(f, "default_value", None) is not None]
    if defaults and not compaction:  # a compaction rewrites stored rows, it fills in nothing
        raise UnsupportedFeature(
            f"{what} has column default values ({', '.join(defaults)}): writing it is not supported"
        )


def check_file(f: DataFileMeta, where: str = "", columns: Sequence[str] | None = None) -> None:
    """A data file we must not read as a whole row set: one whose ``_WRITE_COLS`` leave out a
    column of ``columns`` (its schema's; None: any list refuses). A list of every column is a
    whole file: Java writes that when it compacts a row-tracking table without data evolution."""
    if f.write_cols is not None and (columns is None or not set(columns) <= set(f.write_cols)):
        raise UnsupportedFeature(
            f"{where}data file {f.file_name} holds only some columns (_WRITE_COLS, data "
            "evolution), which is not supported"
        )


def external_path(table: TableContext, uri: str, kind: str = "data file") -> str:
    """The path of a file stored outside the table directory (``_EXTERNAL_PATH``), on the
    table's own file system (``s3://`` and ``s3a://`` are one); another file system is refused
    by name."""
    from paimon_core.storage.file_io import split_scheme

    path = table.io.path_of(uri)
    if path is None:
        raise UnsupportedFeature(
            f"{kind} {uri} is on another file system ({split_scheme(uri)[0]}://) than the table "
            f"({table.io.scheme}://): external paths there are not supported"
        )
    return path
