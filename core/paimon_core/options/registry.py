"""The registry of table option keys: every option this project implements (``OPTIONS``: kind,
Java's default, range, enum values, aliases; per-column ``FIELD_OPTIONS``) and every Paimon
option whose effect it does not implement (``UNSUPPORTED``, each with its reason).

Invariant: a key is in ``OPTIONS`` or ``UNSUPPORTED`` (or is one of the harmless keys of
``options.keys``); the text of a value is read only through ``Option.parse`` (``values``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paimon_core.errors import InvalidInput
from paimon_core.options.merge_engine import MERGE_ENGINES, MergeEngineKind
from paimon_core.options.values import describe, parse_value

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MAX = 2**63 - 1


@dataclass(frozen=True)
class Option:
    """One implemented option: Paimon's key, its type, default, and the range Java accepts."""

    key: str
    kind: str  # int | long | bool | str | enum | size | duration
    default: object
    doc: str
    choices: tuple[str, ...] = ()  # enum values, lower case
    lo: int | None = None  # inclusive bounds for int/long/size
    hi: int | None = None
    aliases: tuple[str, ...] = ()  # older or engine-scoped keys that mean the same

    def parse(self, raw: str) -> Any:
        """The typed value of ``raw``; InvalidInput names the key, the value and what is expected.

        Its Python type follows ``kind`` (int, bool or str), which only the registry entry knows,
        so it is typed ``Any`` for the checker."""
        text = str(raw).strip()
        try:
            value = parse_value(self.kind, text, self.choices)
        except (ValueError, InvalidInput):
            raise InvalidInput(
                f"option '{self.key}' has a bad value '{raw}' (expected {self.expected()})"
            ) from None
        if isinstance(value, int) and not isinstance(value, bool):
            lo = (
                self.lo
                if self.lo is not None
                else (INT_MIN if self.kind == "int" else 0 if self.kind == "size" else None)
            )
            hi = self.hi if self.hi is not None else (INT_MAX if self.kind == "int" else LONG_MAX)
            if (lo is not None and value < lo) or value > hi:
                raise InvalidInput(f"option '{self.key}' is {value}, out of range [{lo}, {hi}]")
        return value

    def expected(self) -> str:
        return describe(self.kind, self.choices)


CHANGELOG_PRODUCERS = ("none", "input", "lookup", "full-compaction")

_REGISTRY = [
    # layout
    Option("bucket", "int", -1, "buckets per partition: N>0 fixed, -1 dynamic (PK) or unaware (append)"),
    Option("bucket-key", "str", None, "comma-separated columns hashed to pick the bucket"),
    Option("file.format", "enum", "parquet", "data file format", ("parquet", "orc", "avro")),
    Option(
        "file.compression",
        "str",
        "zstd",
        "data file codec, checked per format by fileformat.formats (parquet: "
        "zstd gzip uncompressed none; orc: zstd lz4 snappy zlib none; avro: zstd deflate null none)",
    ),
    Option("file.compression.zstd-level", "int", 1, "zstd level of data files", lo=-131072, hi=22),
    Option("manifest.format", "enum", "avro", "manifest format", ("avro", "parquet", "orc")),
    Option("manifest.compression", "str", "zstd", "manifest compression"),
    Option("manifest.target-file-size", "size", 8 * 1024 * 1024, "target size of merged manifests", lo=1),
    Option(
        "manifest.merge-min-count", "int", 30, "merge manifests once there are this many small ones", lo=1
    ),
    Option(
        "manifest.full-compaction-threshold-size",
        "size",
        16 * 1024 * 1024,
        "rewrite all manifests once the delta ones total this size",
        lo=1,
    ),
    Option("target-file-size", "size", None, "roll data files at this size (128 MB PK, 256 MB append)", lo=1),
    Option(
        "blob.target-file-size",
        "size",
        None,
        "roll .blob files at this size (default target-file-size)",
        lo=1,
    ),
    Option("blob-field", "str", None, "BYTES columns created as BLOB columns (comma-separated)"),
    Option("write-buffer-size", "size", 256 * 1024 * 1024, "in-memory sort buffer of PK writers", lo=1),
    Option("partition.default-name", "str", "__DEFAULT_PARTITION__", "directory name of null partitions"),
    Option("partition.legacy-name", "bool", True, "render partition values the legacy way"),
    Option("metadata.stats-mode", "str", "truncate(16)", "value stats: none | counts | truncate(N) | full"),
    # Iceberg-compatible metadata (Java's IcebergOptions; core/paimon_core/iceberg/sync.py)
    Option(
        "metadata.iceberg.storage",
        "enum",
        "disabled",
        "Iceberg metadata after each commit (hive-catalog and rest-catalog refused)",
        ("disabled", "table-location", "hadoop-catalog", "hive-catalog", "rest-catalog"),
    ),
    Option(
        "metadata.iceberg.storage-location",
        "enum",
        None,
        "where the Iceberg metadata goes (default: by metadata.iceberg.storage)",
        ("table-location", "catalog-location"),
    ),
    Option("metadata.iceberg-compatible", "bool", False, "Java 0.9: Iceberg metadata in <table>/metadata"),
    Option(
        "metadata.iceberg.format-version",
        "int",
        2,
        "Iceberg format version (2, or 3 with deletion vectors)",
        lo=2,
        hi=3,
    ),
    Option("metadata.iceberg.manifest-compression", "str", "snappy", "codec of Iceberg manifests"),
    Option("metadata.iceberg.previous-versions-max", "int", 0, "older vN.metadata.json kept", lo=0),
    Option("metadata.iceberg.delete-after-commit.enabled", "bool", True, "delete older metadata versions"),
    Option(
        "metadata.iceberg.compaction.min.file-num", "int", 10, "small Iceberg manifests before merging", lo=1
    ),
    Option(
        "metadata.iceberg.compaction.max.file-num", "int", 50, "small Iceberg manifests always merged", lo=1
    ),
    Option("data-file.prefix", "str", "data-", "prefix of data file names"),
    Option("changelog-file.prefix", "str", "changelog-", "prefix of changelog file names"),
    # merging
    Option(
        "merge-engine",
        "enum",
        MergeEngineKind.DEDUPLICATE.value,
        "how records of one key merge",
        MERGE_ENGINES,
    ),
    Option("changelog-producer", "enum", "none", "what changelog files writers produce", CHANGELOG_PRODUCERS),
    Option("changelog-producer.row-deduplicate", "bool", False, "drop -U/+U pairs with equal values"),
    Option("sequence.field", "str", None, "fields that order records instead of arrival"),
    Option(
        "sequence.field.sort-order",
        "enum",
        "ascending",
        "order of sequence.field",
        ("ascending", "descending"),
    ),
    Option(
        "ignore-delete",
        "bool",
        False,
        "drop -U/-D input records",
        aliases=("first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"),
    ),
    Option(
        "partial-update.remove-record-on-delete", "bool", False, "a -D removes the whole partial-update row"
    ),
    Option(
        "fields.default-aggregate-function", "str", None, "aggregate function of columns without their own"
    ),
    # commits and lifecycle
    Option("commit.max-retries", "int", 10, "retries of a commit that lost a race", lo=0),
    Option("snapshot.num-retained.min", "int", 10, "snapshots always kept by expiry", lo=1),
    Option("snapshot.num-retained.max", "int", INT_MAX, "snapshots kept at most", lo=1),
    Option("snapshot.time-retained", "duration", 3600_000, "keep snapshots younger than this"),
    Option("snapshot.expire.limit", "int", 50, "most snapshots expired per run", lo=1),
    Option("changelog.num-retained.min", "int", None, "changelogs always kept (default: as snapshots)", lo=1),
    Option(
        "changelog.num-retained.max", "int", None, "changelogs kept at most (default: as snapshots)", lo=1
    ),
    Option(
        "changelog.time-retained",
        "duration",
        None,
        "keep changelogs younger than this (default: as snapshots)",
    ),
    Option(
        "write-only",
        "bool",
        False,
        "skip compaction, expiry, partition expiry and automatic tags after writes",
    ),
    # partition expiry and partition commands (maintain/partition_expire.py, maintain/partitions.py)
    Option("partition.expiration-time", "duration", None, "drop partitions older than this after commits"),
    Option(
        "partition.expiration-check-interval",
        "duration",
        3600_000,
        "a writer checks partition expiry at most this often (from its start)",
    ),
    Option(
        "partition.expiration-strategy",
        "enum",
        "values-time",
        "age of a partition: from its values or from its newest file",
        ("values-time", "update-time"),
    ),
    Option("partition.timestamp-formatter", "str", None, "Java DateTimeFormatter pattern of partition times"),
    Option("partition.timestamp-pattern", "str", None, "partition time from keys, e.g. $dt $hr:00:00"),
    Option("partition.expiration-max-num", "int", 100, "most partitions dropped by one expiry", lo=1),
    Option("end-input.check-partition-expire", "bool", False, "batch commits check partition expiry at once"),
    Option("partition.mark-done-action", "str", "success-file", "what mark-done does (comma list)"),
    # automatic tags (maintain/auto_tags.py)
    Option(
        "tag.automatic-creation",
        "enum",
        "none",
        "tags made after commits",
        ("none", "process-time", "watermark", "batch"),
    ),
    Option(
        "tag.creation-period", "enum", "daily", "period of automatic tags", ("daily", "hourly", "two-hours")
    ),
    Option("tag.creation-delay", "duration", 0, "wait this long after a period ends before tagging it"),
    Option(
        "tag.period-formatter",
        "enum",
        "with_dashes",
        "names of automatic tags",
        ("with_dashes", "without_dashes", "without_dashes_and_spaces"),
    ),
    Option("tag.num-retained-max", "int", None, "automatic tags kept at most", lo=1),
    Option("tag.default-time-retained", "duration", None, "time-to-live of automatic tags"),
    Option("tag.automatic-completion", "bool", False, "tag every missed period, not only the newest"),
    Option("sink.watermark-time-zone", "str", "UTC", "zone of watermarks (watermark tags)"),
    # compaction
    Option("num-sorted-run.compaction-trigger", "int", 5, "sorted runs that trigger compaction", lo=1),
    Option("num-levels", "int", None, "LSM levels (default trigger + 1)", lo=2),
    Option("compaction.min.file-num", "int", 5, "small files that trigger append compaction", lo=1),
    Option(
        "compaction.max-size-amplification-percent",
        "int",
        200,
        "universal compaction size amplification",
        lo=0,
    ),
    Option("compaction.size-ratio", "int", 1, "universal compaction size ratio (percent)", lo=0),
    Option(
        "full-compaction.delta-commits",
        "int",
        None,
        "full compaction every N commits (full-compaction producer)",
        lo=1,
    ),
    Option("dynamic-bucket.target-row-num", "long", 2_000_000, "keys per bucket in dynamic mode", lo=1),
    Option(
        "cross-partition-upsert.index-ttl",
        "duration",
        None,
        "cross-partition tables: keys of buckets with no file this young are left out of the key index",
    ),
    Option(
        "cross-partition-upsert.bootstrap-parallelism",
        "int",
        10,
        "cross-partition tables: threads reading the key index at the start of a write",
        lo=1,
    ),
    # catalogs
    Option(
        "metastore.partitioned-table", "bool", False, "Hive catalog: partitions registered in the metastore"
    ),
    # table kind and layout switches whose other values are refused (see UNSUPPORTED, features)
    Option("type", "str", "table", "table kind: only 'table' (others refused by metadata.features)"),
    Option("index-file-in-data-file-dir", "bool", False, "index files beside data files (true refused)"),
    # schema evolution
    Option("disable-explicit-type-casting", "bool", False, "refuse narrowing alter-column casts"),
    # postpone buckets and newer metadata (write/postpone.py, compaction/postpone_compaction.py,
    # metadata/features.py, which refuses what of these is not implemented)
    Option(
        "postpone.batch-write-fixed-bucket", "bool", True, "postpone tables: batch writes into real buckets"
    ),
    Option(
        "postpone.default-bucket-num",
        "int",
        1,
        "postpone tables: buckets of a partition's first compaction",
        lo=1,
    ),
    Option(
        "postpone.target-row-num-per-bucket",
        "long",
        None,
        "postpone tables: rows per bucket of a new partition",
        lo=1,
    ),
    Option(
        "postpone.merge-on-read",
        "bool",
        False,
        "postpone tables: reads merge waiting rows (refused while any wait)",
    ),
    Option(
        "bucket-function.type",
        "enum",
        "default",
        "bucket hash: only default is written here",
        ("default", "mod", "hive"),
    ),
    Option("row-tracking.enabled", "bool", False, "row ids (_ROW_ID), unaware-bucket append tables"),
    Option("data-evolution.enabled", "bool", False, "files of some columns merged by row id (append tables)"),
    Option(
        "data-file.thin-mode", "bool", False, "PK files without _KEY_ columns (read; we write full files)"
    ),
    # data file formats (fileformat/formats.py checks formats and codecs per level)
    Option("file.format.per.level", "str", None, "format per LSM level, e.g. 0:avro,3:parquet"),
    Option("file.compression.per.level", "str", None, "codec per LSM level, e.g. 0:lz4,1:zstd"),
    Option(
        "scan.fallback-branch", "str", None, "branch a read of main falls back to for partitions main lacks"
    ),
    Option("changelog-file.format", "str", None, "format of changelog files (default: as data files)"),
    Option("changelog-file.compression", "str", None, "codec of changelog files (default: as data files)"),
    Option("file.suffix.include.compression", "bool", False, "name files like data-<uuid>-0.zst.parquet"),
    Option(
        "orc.timestamp-ltz.legacy.type", "bool", True, "ORC LTZ values stored as the writer zone's wall clock"
    ),
    # streaming (read/stream.py, metadata/consumer.py)
    Option(
        "consumer.expiration-time", "duration", None, "delete consumer files idle this long (after commits)"
    ),
    Option("consumer.ignore-progress", "bool", False, "streaming reads ignore a consumer's stored progress"),
    Option(
        "scan.mode",
        "str",
        "default",
        "streaming start: latest-full | latest | from-snapshot | from-snapshot-full | compacted-full",
    ),
    # deletion vectors (metadata/deletion_vectors.py)
    Option("deletion-vectors.enabled", "bool", False, "mark deleted/superseded rows in deletion vectors"),
    Option("deletion-vectors.bitmap64", "bool", False, "write 64-bit (v2) deletion vectors"),
    # primary-key indexes of Paimon 2.0 (metadata/pk_index.py): reads need none; our commits drop
    # the payloads of the levels they rewrite (Java rebuilds them; uncovered files read as usual)
    Option(
        "global-index.enabled",
        "bool",
        True,
        "readers may use global indexes (ours do not; commits keep them true or are refused)",
    ),
    Option("pk-btree.index.columns", "str", None, "columns with a primary-key BTree index (2.0)"),
    Option("pk-bitmap.index.columns", "str", None, "columns with a primary-key Bitmap index (2.0)"),
    # p16opt: fixed-bucket append compaction as Java's writers do it (compaction/compaction.py)
    Option(
        "compaction.max.file-num",
        "int",
        None,
        "fixed-bucket append: files that trigger compaction (default 5)",
        lo=1,
        aliases=("compaction.early-max.file-num",),
    ),
]
OPTIONS: dict[str, Option] = {o.key: o for o in _REGISTRY}
ALIASES: dict[str, str] = {a: o.key for o in _REGISTRY for a in o.aliases}

# Per-column options ``fields.<column>.<name>``: name -> (kind, meaning).
FIELD_OPTIONS: dict[str, Option] = {
    o.key: o
    for o in (
        Option("aggregate-function", "str", None, "aggregate function of the column (aggregation engine)"),
        Option("ignore-retract", "bool", False, "the column ignores -U/-D (aggregation engine)"),
        Option("list-agg-delimiter", "str", ",", "listagg delimiter"),
        Option("sequence-group", "str", None, "columns this sequence field orders (partial-update)"),
        Option("distinct", "bool", False, "collect and listagg keep distinct elements (aggregation)"),
        Option("nested-key", "str", None, "key fields of nested_update rows (aggregation)"),
        Option("stats-mode", "str", None, "value stats of the column (p16opt): as metadata.stats-mode"),
    )
}
_FIELD_KEY = re.compile(r"^fields\.(?P<column>.+)\.(?P<name>[a-z-]+)$")


def field_parts(key: str) -> tuple[str, str] | None:
    """(column, name) of a per-column key ``fields.<column>.<name>``; None for other keys."""
    m = _FIELD_KEY.match(key)
    return (m.group("column"), m.group("name")) if m else None


@dataclass(frozen=True)
class Unsupported:
    """A Paimon option (or some of its values) whose effect this project does not implement."""

    key: str  # exact key, or a ``fields.*.name`` pattern
    why: str
    harmless: Callable[[str], bool] = lambda v: False  # values that change nothing (e.g. the default)
    reads: bool = True  # reads would return wrong rows; else only writes are refused

    def applies(self, value: str) -> bool:
        return not self.harmless(str(value).strip().lower())


def _is(*values: str) -> Callable[[str], bool]:
    return lambda v: v in values


_FALSE = _is("false")
_UNSUPPORTED = [
    # rows a reader must return
    Unsupported("manifest.format", "manifests in another format than Avro or ORC", _is("avro", "orc")),
    Unsupported("deletion-vectors.merge-on-read", "merge-on-read of deletion-vector tables", _FALSE),
    Unsupported("data-file.path-directory", "data files under a path directory"),
    Unsupported("index-file-in-data-file-dir", "index files in data file directories", _FALSE),
    Unsupported("partition.legacy-name", "non-legacy partition directory names", _is("true")),
    Unsupported("chain-table.enabled", "chain tables", _FALSE),
    Unsupported("pk-clustering-override", "primary-key tables clustered by other columns", _FALSE),
    Unsupported("sequence.snapshot-ordering", "snapshot-ordered sequence numbers", _FALSE),
    Unsupported("aggregation.remove-record-on-delete", "aggregation.remove-record-on-delete", _FALSE),
    Unsupported(
        "partial-update.remove-record-on-sequence-group",
        "partial-update.remove-record-on-sequence-group",
        _FALSE,
    ),
    Unsupported("ignore-update-before", "ignore-update-before", _FALSE),
    Unsupported("changelog-producer.row-deduplicate-ignore-fields", "row-deduplicate ignore fields"),
    Unsupported("upsert-key", "upsert keys on append tables"),
    Unsupported("branch", "a default branch stored in the table's options", _is("main")),
    Unsupported("scan.fallback-snapshot-branch", "fallback branches"),
    Unsupported("scan.fallback-delta-branch", "fallback branches"),
    Unsupported("scan.primary-branch", "fallback branches"),
    Unsupported("fields.*.default-value", "column default values"),
    Unsupported(
        "scan.mode", "a batch scan mode stored in the table", _is("default", "latest", "latest-full")
    ),
    Unsupported("scan.snapshot-id", "a snapshot stored in the table's scan options"),
    Unsupported("scan.tag-name", "a tag stored in the table's scan options"),
    Unsupported("scan.version", "a version stored in the table's scan options"),
    Unsupported("scan.timestamp", "a time stored in the table's scan options"),
    Unsupported("scan.timestamp-millis", "a time stored in the table's scan options"),
    Unsupported("scan.watermark", "a watermark stored in the table's scan options"),
    Unsupported("scan.file-creation-time-millis", "a file creation time filter"),
    Unsupported("scan.creation-time-millis", "a file creation time filter"),
    Unsupported("scan.bucket", "a bucket filter stored in the table"),
    Unsupported("incremental-between", "an incremental range stored in the table"),
    Unsupported("incremental-between-timestamp", "an incremental range stored in the table"),
    Unsupported("incremental-to-auto-tag", "an incremental range stored in the table"),
    Unsupported("incremental-between-tag-to-snapshot", "an incremental range stored in the table"),
    Unsupported("record-level.expire-time", "record-level expiry"),
    # how a writer must write
    Unsupported("rowkind.field", "row kinds from a column", reads=False),
    Unsupported("data-file.external-paths", "external data paths", reads=False),
    Unsupported("pk-full-text.index.columns", "primary-key full-text indexes", reads=False),
    Unsupported("pk-vector.index.columns", "primary-key vector indexes", reads=False),
    Unsupported("pk-multivalue.index.columns", "primary-key multivalue indexes", reads=False),
    Unsupported(
        "dynamic-partition-overwrite",
        "static-partition overwrite of the whole table",
        _is("true"),
        reads=False,
    ),
    Unsupported("delete.force-produce-changelog", "forced changelogs on delete", _FALSE, reads=False),
    Unsupported(
        "metadata.iceberg.storage",
        "Iceberg metadata committed to a Hive metastore or an Iceberg REST catalog (not reached from here)",
        _is("disabled", "table-location", "hadoop-catalog"),
        reads=False,
    ),
]
UNSUPPORTED: dict[str, Unsupported] = {u.key: u for u in _UNSUPPORTED}

# Keys a schema keeps outside ``options`` (Java moves them into the schema at creation).
STRUCTURAL_KEYS = frozenset({"primary-key", "partition"})
