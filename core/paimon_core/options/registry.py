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
from typing import Any, Generic, TypeVar, cast

from paimon_core.errors import InvalidInput
from paimon_core.options.merge_engine import MERGE_ENGINES, MergeEngineKind
from paimon_core.options.values import describe, parse_value

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MAX = 2**63 - 1
T = TypeVar("T")


@dataclass(frozen=True)
class Option(Generic[T]):
    """One implemented option: Paimon's key, its type, default, and the range Java accepts.

    ``T`` is the Python type of its value (``int`` for int, long, size and duration; ``bool``;
    ``str`` for str and enum), with ``None`` when it has no default: as Java's
    ``ConfigOption<T>``, every read (``CoreOptions.get``) is typed by the option it reads."""

    key: str
    kind: str  # int | long | bool | str | enum | size | duration
    default: T
    doc: str
    choices: tuple[str, ...] = ()  # enum values, lower case
    lo: int | None = None  # inclusive bounds for int/long/size
    hi: int | None = None
    aliases: tuple[str, ...] = ()  # older or engine-scoped keys that mean the same

    # unhashable: an option is read through ``CoreOptions.get``, never looked up in a dict of raw
    # strings (``options.get(BUCKET)`` on a plain dict raises instead of answering None)
    __hash__ = None  # type: ignore[assignment]

    def parse(self, raw: str) -> T:
        """The typed value of ``raw``; InvalidInput names the key, the value and what is expected."""
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
        # ``parse_value`` returns the Python type of ``kind``, which is ``T`` by the registry's
        # invariant (tests/core/options: every ``Option[T]`` against its kind and default)
        return cast(T, value)

    def expected(self) -> str:
        return describe(self.kind, self.choices)


CHANGELOG_PRODUCERS = ("none", "input", "lookup", "full-compaction")

# layout
BUCKET = Option[int](
    "bucket", "int", -1, "buckets per partition: N>0 fixed, -1 dynamic (PK) or unaware (append)"
)
BUCKET_KEY = Option[str | None](
    "bucket-key", "str", None, "comma-separated columns hashed to pick the bucket"
)
FILE_FORMAT = Option[str]("file.format", "enum", "parquet", "data file format", ("parquet", "orc", "avro"))
FILE_COMPRESSION = Option[str](
    "file.compression",
    "str",
    "zstd",
    "data file codec, checked per format by fileformat.formats (parquet: "
    "zstd gzip uncompressed none; orc: zstd lz4 snappy zlib none; avro: zstd deflate null none)",
)
FILE_COMPRESSION_ZSTD_LEVEL = Option[int](
    "file.compression.zstd-level", "int", 1, "zstd level of data files", lo=-131072, hi=22
)
MANIFEST_FORMAT = Option[str](
    "manifest.format", "enum", "avro", "manifest format", ("avro", "parquet", "orc")
)
MANIFEST_COMPRESSION = Option[str]("manifest.compression", "str", "zstd", "manifest compression")
MANIFEST_TARGET_FILE_SIZE = Option[int](
    "manifest.target-file-size", "size", 8 * 1024 * 1024, "target size of merged manifests", lo=1
)
MANIFEST_MERGE_MIN_COUNT = Option[int](
    "manifest.merge-min-count", "int", 30, "merge manifests once there are this many small ones", lo=1
)
MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE = Option[int](
    "manifest.full-compaction-threshold-size",
    "size",
    16 * 1024 * 1024,
    "rewrite all manifests once the delta ones total this size",
    lo=1,
)
TARGET_FILE_SIZE = Option[int | None](
    "target-file-size", "size", None, "roll data files at this size (128 MB PK, 256 MB append)", lo=1
)
BLOB_TARGET_FILE_SIZE = Option[int | None](
    "blob.target-file-size",
    "size",
    None,
    "roll .blob files at this size (default target-file-size)",
    lo=1,
)
BLOB_FIELD = Option[str | None](
    "blob-field", "str", None, "BYTES columns created as BLOB columns (comma-separated)"
)
WRITE_BUFFER_SIZE = Option[int](
    "write-buffer-size", "size", 256 * 1024 * 1024, "in-memory sort buffer of PK writers", lo=1
)
PARTITION_DEFAULT_NAME = Option[str](
    "partition.default-name", "str", "__DEFAULT_PARTITION__", "directory name of null partitions"
)
PARTITION_LEGACY_NAME = Option[bool](
    "partition.legacy-name", "bool", True, "render partition values the legacy way"
)
METADATA_STATS_MODE = Option[str](
    "metadata.stats-mode", "str", "truncate(16)", "value stats: none | counts | truncate(N) | full"
)
# Iceberg-compatible metadata (Java's IcebergOptions; core/paimon_core/iceberg/sync.py)
METADATA_ICEBERG_STORAGE = Option[str](
    "metadata.iceberg.storage",
    "enum",
    "disabled",
    "Iceberg metadata after each commit (hive-catalog and rest-catalog refused)",
    ("disabled", "table-location", "hadoop-catalog", "hive-catalog", "rest-catalog"),
)
METADATA_ICEBERG_STORAGE_LOCATION = Option[str | None](
    "metadata.iceberg.storage-location",
    "enum",
    None,
    "where the Iceberg metadata goes (default: by metadata.iceberg.storage)",
    ("table-location", "catalog-location"),
)
METADATA_ICEBERG_COMPATIBLE = Option[bool](
    "metadata.iceberg-compatible", "bool", False, "Java 0.9: Iceberg metadata in <table>/metadata"
)
METADATA_ICEBERG_FORMAT_VERSION = Option[int](
    "metadata.iceberg.format-version",
    "int",
    2,
    "Iceberg format version (2, or 3 with deletion vectors)",
    lo=2,
    hi=3,
)
METADATA_ICEBERG_MANIFEST_COMPRESSION = Option[str](
    "metadata.iceberg.manifest-compression", "str", "snappy", "codec of Iceberg manifests"
)
METADATA_ICEBERG_PREVIOUS_VERSIONS_MAX = Option[int](
    "metadata.iceberg.previous-versions-max", "int", 0, "older vN.metadata.json kept", lo=0
)
METADATA_ICEBERG_DELETE_AFTER_COMMIT_ENABLED = Option[bool](
    "metadata.iceberg.delete-after-commit.enabled", "bool", True, "delete older metadata versions"
)
METADATA_ICEBERG_COMPACTION_MIN_FILE_NUM = Option[int](
    "metadata.iceberg.compaction.min.file-num", "int", 10, "small Iceberg manifests before merging", lo=1
)
METADATA_ICEBERG_COMPACTION_MAX_FILE_NUM = Option[int](
    "metadata.iceberg.compaction.max.file-num", "int", 50, "small Iceberg manifests always merged", lo=1
)
DATA_FILE_PREFIX = Option[str]("data-file.prefix", "str", "data-", "prefix of data file names")
CHANGELOG_FILE_PREFIX = Option[str](
    "changelog-file.prefix", "str", "changelog-", "prefix of changelog file names"
)
# merging
MERGE_ENGINE = Option[str](
    "merge-engine",
    "enum",
    MergeEngineKind.DEDUPLICATE.value,
    "how records of one key merge",
    MERGE_ENGINES,
)
CHANGELOG_PRODUCER = Option[str](
    "changelog-producer", "enum", "none", "what changelog files writers produce", CHANGELOG_PRODUCERS
)
CHANGELOG_PRODUCER_ROW_DEDUPLICATE = Option[bool](
    "changelog-producer.row-deduplicate", "bool", False, "drop -U/+U pairs with equal values"
)
SEQUENCE_FIELD = Option[str | None](
    "sequence.field", "str", None, "fields that order records instead of arrival"
)
SEQUENCE_FIELD_SORT_ORDER = Option[str](
    "sequence.field.sort-order",
    "enum",
    "ascending",
    "order of sequence.field",
    ("ascending", "descending"),
)
IGNORE_DELETE = Option[bool](
    "ignore-delete",
    "bool",
    False,
    "drop -U/-D input records",
    aliases=("first-row.ignore-delete", "deduplicate.ignore-delete", "partial-update.ignore-delete"),
)
PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE = Option[bool](
    "partial-update.remove-record-on-delete", "bool", False, "a -D removes the whole partial-update row"
)
FIELDS_DEFAULT_AGGREGATE_FUNCTION = Option[str | None](
    "fields.default-aggregate-function", "str", None, "aggregate function of columns without their own"
)
# commits and lifecycle
COMMIT_MAX_RETRIES = Option[int](
    "commit.max-retries", "int", 10, "retries of a commit that lost a race", lo=0
)
SNAPSHOT_NUM_RETAINED_MIN = Option[int](
    "snapshot.num-retained.min", "int", 10, "snapshots always kept by expiry", lo=1
)
SNAPSHOT_NUM_RETAINED_MAX = Option[int](
    "snapshot.num-retained.max", "int", INT_MAX, "snapshots kept at most", lo=1
)
SNAPSHOT_TIME_RETAINED = Option[int](
    "snapshot.time-retained", "duration", 3600_000, "keep snapshots younger than this"
)
SNAPSHOT_EXPIRE_LIMIT = Option[int](
    "snapshot.expire.limit", "int", 50, "most snapshots expired per run", lo=1
)
CHANGELOG_NUM_RETAINED_MIN = Option[int | None](
    "changelog.num-retained.min", "int", None, "changelogs always kept (default: as snapshots)", lo=1
)
CHANGELOG_NUM_RETAINED_MAX = Option[int | None](
    "changelog.num-retained.max", "int", None, "changelogs kept at most (default: as snapshots)", lo=1
)
CHANGELOG_TIME_RETAINED = Option[int | None](
    "changelog.time-retained",
    "duration",
    None,
    "keep changelogs younger than this (default: as snapshots)",
)
WRITE_ONLY = Option[bool](
    "write-only",
    "bool",
    False,
    "skip compaction, expiry, partition expiry and automatic tags after writes",
)
# partition expiry and partition commands (maintain/partition_expire.py, maintain/partitions.py)
PARTITION_EXPIRATION_TIME = Option[int | None](
    "partition.expiration-time", "duration", None, "drop partitions older than this after commits"
)
PARTITION_EXPIRATION_CHECK_INTERVAL = Option[int](
    "partition.expiration-check-interval",
    "duration",
    3600_000,
    "a writer checks partition expiry at most this often (from its start)",
)
PARTITION_EXPIRATION_STRATEGY = Option[str](
    "partition.expiration-strategy",
    "enum",
    "values-time",
    "age of a partition: from its values or from its newest file",
    ("values-time", "update-time"),
)
PARTITION_TIMESTAMP_FORMATTER = Option[str | None](
    "partition.timestamp-formatter", "str", None, "Java DateTimeFormatter pattern of partition times"
)
PARTITION_TIMESTAMP_PATTERN = Option[str | None](
    "partition.timestamp-pattern", "str", None, "partition time from keys, e.g. $dt $hr:00:00"
)
PARTITION_EXPIRATION_MAX_NUM = Option[int](
    "partition.expiration-max-num", "int", 100, "most partitions dropped by one expiry", lo=1
)
END_INPUT_CHECK_PARTITION_EXPIRE = Option[bool](
    "end-input.check-partition-expire", "bool", False, "batch commits check partition expiry at once"
)
PARTITION_MARK_DONE_ACTION = Option[str](
    "partition.mark-done-action", "str", "success-file", "what mark-done does (comma list)"
)
# automatic tags (maintain/auto_tags.py)
TAG_AUTOMATIC_CREATION = Option[str](
    "tag.automatic-creation",
    "enum",
    "none",
    "tags made after commits",
    ("none", "process-time", "watermark", "batch"),
)
TAG_CREATION_PERIOD = Option[str](
    "tag.creation-period", "enum", "daily", "period of automatic tags", ("daily", "hourly", "two-hours")
)
TAG_CREATION_DELAY = Option[int](
    "tag.creation-delay", "duration", 0, "wait this long after a period ends before tagging it"
)
TAG_PERIOD_FORMATTER = Option[str](
    "tag.period-formatter",
    "enum",
    "with_dashes",
    "names of automatic tags",
    ("with_dashes", "without_dashes", "without_dashes_and_spaces"),
)
TAG_NUM_RETAINED_MAX = Option[int | None](
    "tag.num-retained-max", "int", None, "automatic tags kept at most", lo=1
)
TAG_DEFAULT_TIME_RETAINED = Option[int | None](
    "tag.default-time-retained", "duration", None, "time-to-live of automatic tags"
)
TAG_AUTOMATIC_COMPLETION = Option[bool](
    "tag.automatic-completion", "bool", False, "tag every missed period, not only the newest"
)
SINK_WATERMARK_TIME_ZONE = Option[str](
    "sink.watermark-time-zone", "str", "UTC", "zone of watermarks (watermark tags)"
)
# compaction
NUM_SORTED_RUN_COMPACTION_TRIGGER = Option[int](
    "num-sorted-run.compaction-trigger", "int", 5, "sorted runs that trigger compaction", lo=1
)
NUM_LEVELS = Option[int | None]("num-levels", "int", None, "LSM levels (default trigger + 1)", lo=2)
COMPACTION_MIN_FILE_NUM = Option[int](
    "compaction.min.file-num", "int", 5, "small files that trigger append compaction", lo=1
)
COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT = Option[int](
    "compaction.max-size-amplification-percent",
    "int",
    200,
    "universal compaction size amplification",
    lo=0,
)
COMPACTION_SIZE_RATIO = Option[int](
    "compaction.size-ratio", "int", 1, "universal compaction size ratio (percent)", lo=0
)
FULL_COMPACTION_DELTA_COMMITS = Option[int | None](
    "full-compaction.delta-commits",
    "int",
    None,
    "full compaction every N commits (full-compaction producer)",
    lo=1,
)
DYNAMIC_BUCKET_TARGET_ROW_NUM = Option[int](
    "dynamic-bucket.target-row-num", "long", 2_000_000, "keys per bucket in dynamic mode", lo=1
)
CROSS_PARTITION_UPSERT_INDEX_TTL = Option[int | None](
    "cross-partition-upsert.index-ttl",
    "duration",
    None,
    "cross-partition tables: keys of buckets with no file this young are left out of the key index",
)
CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM = Option[int](
    "cross-partition-upsert.bootstrap-parallelism",
    "int",
    10,
    "cross-partition tables: threads reading the key index at the start of a write",
    lo=1,
)
# catalogs
METASTORE_PARTITIONED_TABLE = Option[bool](
    "metastore.partitioned-table", "bool", False, "Hive catalog: partitions registered in the metastore"
)
# table kind and layout switches whose other values are refused (see UNSUPPORTED, features)
TYPE = Option[str]("type", "str", "table", "table kind: only 'table' (others refused by metadata.features)")
INDEX_FILE_IN_DATA_FILE_DIR = Option[bool](
    "index-file-in-data-file-dir", "bool", False, "index files beside data files (true refused)"
)
# schema evolution
DISABLE_EXPLICIT_TYPE_CASTING = Option[bool](
    "disable-explicit-type-casting", "bool", False, "refuse narrowing alter-column casts"
)
# postpone buckets and newer metadata (write/postpone.py, compaction/postpone_compaction.py,
# metadata/features.py, which refuses what of these is not implemented)
POSTPONE_BATCH_WRITE_FIXED_BUCKET = Option[bool](
    "postpone.batch-write-fixed-bucket", "bool", True, "postpone tables: batch writes into real buckets"
)
POSTPONE_DEFAULT_BUCKET_NUM = Option[int](
    "postpone.default-bucket-num",
    "int",
    1,
    "postpone tables: buckets of a partition's first compaction",
    lo=1,
)
POSTPONE_TARGET_ROW_NUM_PER_BUCKET = Option[int | None](
    "postpone.target-row-num-per-bucket",
    "long",
    None,
    "postpone tables: rows per bucket of a new partition",
    lo=1,
)
POSTPONE_MERGE_ON_READ = Option[bool](
    "postpone.merge-on-read",
    "bool",
    False,
    "postpone tables: reads merge waiting rows (refused while any wait)",
)
BUCKET_FUNCTION_TYPE = Option[str](
    "bucket-function.type",
    "enum",
    "default",
    "bucket hash: only default is written here",
    ("default", "mod", "hive"),
)
ROW_TRACKING_ENABLED = Option[bool](
    "row-tracking.enabled", "bool", False, "row ids (_ROW_ID), unaware-bucket append tables"
)
DATA_EVOLUTION_ENABLED = Option[bool](
    "data-evolution.enabled", "bool", False, "files of some columns merged by row id (append tables)"
)
DATA_FILE_THIN_MODE = Option[bool](
    "data-file.thin-mode", "bool", False, "PK files without _KEY_ columns (read; we write full files)"
)
# data file formats (fileformat/formats.py checks formats and codecs per level)
FILE_FORMAT_PER_LEVEL = Option[str | None](
    "file.format.per.level", "str", None, "format per LSM level, e.g. 0:avro,3:parquet"
)
FILE_COMPRESSION_PER_LEVEL = Option[str | None](
    "file.compression.per.level", "str", None, "codec per LSM level, e.g. 0:lz4,1:zstd"
)
SCAN_FALLBACK_BRANCH = Option[str | None](
    "scan.fallback-branch", "str", None, "branch a read of main falls back to for partitions main lacks"
)
CHANGELOG_FILE_FORMAT = Option[str | None](
    "changelog-file.format", "str", None, "format of changelog files (default: as data files)"
)
CHANGELOG_FILE_COMPRESSION = Option[str | None](
    "changelog-file.compression", "str", None, "codec of changelog files (default: as data files)"
)
FILE_SUFFIX_INCLUDE_COMPRESSION = Option[bool](
    "file.suffix.include.compression", "bool", False, "name files like data-<uuid>-0.zst.parquet"
)
ORC_TIMESTAMP_LTZ_LEGACY_TYPE = Option[bool](
    "orc.timestamp-ltz.legacy.type", "bool", True, "ORC LTZ values stored as the writer zone's wall clock"
)
# streaming (read/stream.py, metadata/consumer.py)
CONSUMER_EXPIRATION_TIME = Option[int | None](
    "consumer.expiration-time", "duration", None, "delete consumer files idle this long (after commits)"
)
CONSUMER_IGNORE_PROGRESS = Option[bool](
    "consumer.ignore-progress", "bool", False, "streaming reads ignore a consumer's stored progress"
)
SCAN_MODE = Option[str](
    "scan.mode",
    "str",
    "default",
    "streaming start: latest-full | latest | from-snapshot | from-snapshot-full | compacted-full",
)
# deletion vectors (metadata/deletion_vectors.py)
DELETION_VECTORS_ENABLED = Option[bool](
    "deletion-vectors.enabled", "bool", False, "mark deleted/superseded rows in deletion vectors"
)
DELETION_VECTORS_BITMAP64 = Option[bool](
    "deletion-vectors.bitmap64", "bool", False, "write 64-bit (v2) deletion vectors"
)
# primary-key indexes of Paimon 2.0 (metadata/pk_index.py): reads need none; our commits drop
# the payloads of the levels they rewrite (Java rebuilds them; uncovered files read as usual)
GLOBAL_INDEX_ENABLED = Option[bool](
    "global-index.enabled",
    "bool",
    True,
    "readers may use global indexes (ours do not; commits keep them true or are refused)",
)
PK_BTREE_INDEX_COLUMNS = Option[str | None](
    "pk-btree.index.columns", "str", None, "columns with a primary-key BTree index (2.0)"
)
PK_BITMAP_INDEX_COLUMNS = Option[str | None](
    "pk-bitmap.index.columns", "str", None, "columns with a primary-key Bitmap index (2.0)"
)
# p16opt: fixed-bucket append compaction as Java's writers do it (compaction/compaction.py)
COMPACTION_MAX_FILE_NUM = Option[int | None](
    "compaction.max.file-num",
    "int",
    None,
    "fixed-bucket append: files that trigger compaction (default 5)",
    lo=1,
    aliases=("compaction.early-max.file-num",),
)

_REGISTRY: list[Option[Any]] = [
    BUCKET,
    BUCKET_KEY,
    FILE_FORMAT,
    FILE_COMPRESSION,
    FILE_COMPRESSION_ZSTD_LEVEL,
    MANIFEST_FORMAT,
    MANIFEST_COMPRESSION,
    MANIFEST_TARGET_FILE_SIZE,
    MANIFEST_MERGE_MIN_COUNT,
    MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE,
    TARGET_FILE_SIZE,
    BLOB_TARGET_FILE_SIZE,
    BLOB_FIELD,
    WRITE_BUFFER_SIZE,
    PARTITION_DEFAULT_NAME,
    PARTITION_LEGACY_NAME,
    METADATA_STATS_MODE,
    METADATA_ICEBERG_STORAGE,
    METADATA_ICEBERG_STORAGE_LOCATION,
    METADATA_ICEBERG_COMPATIBLE,
    METADATA_ICEBERG_FORMAT_VERSION,
    METADATA_ICEBERG_MANIFEST_COMPRESSION,
    METADATA_ICEBERG_PREVIOUS_VERSIONS_MAX,
    METADATA_ICEBERG_DELETE_AFTER_COMMIT_ENABLED,
    METADATA_ICEBERG_COMPACTION_MIN_FILE_NUM,
    METADATA_ICEBERG_COMPACTION_MAX_FILE_NUM,
    DATA_FILE_PREFIX,
    CHANGELOG_FILE_PREFIX,
    MERGE_ENGINE,
    CHANGELOG_PRODUCER,
    CHANGELOG_PRODUCER_ROW_DEDUPLICATE,
    SEQUENCE_FIELD,
    SEQUENCE_FIELD_SORT_ORDER,
    IGNORE_DELETE,
    PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE,
    FIELDS_DEFAULT_AGGREGATE_FUNCTION,
    COMMIT_MAX_RETRIES,
    SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_TIME_RETAINED,
    SNAPSHOT_EXPIRE_LIMIT,
    CHANGELOG_NUM_RETAINED_MIN,
    CHANGELOG_NUM_RETAINED_MAX,
    CHANGELOG_TIME_RETAINED,
    WRITE_ONLY,
    PARTITION_EXPIRATION_TIME,
    PARTITION_EXPIRATION_CHECK_INTERVAL,
    PARTITION_EXPIRATION_STRATEGY,
    PARTITION_TIMESTAMP_FORMATTER,
    PARTITION_TIMESTAMP_PATTERN,
    PARTITION_EXPIRATION_MAX_NUM,
    END_INPUT_CHECK_PARTITION_EXPIRE,
    PARTITION_MARK_DONE_ACTION,
    TAG_AUTOMATIC_CREATION,
    TAG_CREATION_PERIOD,
    TAG_CREATION_DELAY,
    TAG_PERIOD_FORMATTER,
    TAG_NUM_RETAINED_MAX,
    TAG_DEFAULT_TIME_RETAINED,
    TAG_AUTOMATIC_COMPLETION,
    SINK_WATERMARK_TIME_ZONE,
    NUM_SORTED_RUN_COMPACTION_TRIGGER,
    NUM_LEVELS,
    COMPACTION_MIN_FILE_NUM,
    COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT,
    COMPACTION_SIZE_RATIO,
    FULL_COMPACTION_DELTA_COMMITS,
    DYNAMIC_BUCKET_TARGET_ROW_NUM,
    CROSS_PARTITION_UPSERT_INDEX_TTL,
    CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM,
    METASTORE_PARTITIONED_TABLE,
    TYPE,
    INDEX_FILE_IN_DATA_FILE_DIR,
    DISABLE_EXPLICIT_TYPE_CASTING,
    POSTPONE_BATCH_WRITE_FIXED_BUCKET,
    POSTPONE_DEFAULT_BUCKET_NUM,
    POSTPONE_TARGET_ROW_NUM_PER_BUCKET,
    POSTPONE_MERGE_ON_READ,
    BUCKET_FUNCTION_TYPE,
    ROW_TRACKING_ENABLED,
    DATA_EVOLUTION_ENABLED,
    DATA_FILE_THIN_MODE,
    FILE_FORMAT_PER_LEVEL,
    FILE_COMPRESSION_PER_LEVEL,
    SCAN_FALLBACK_BRANCH,
    CHANGELOG_FILE_FORMAT,
    CHANGELOG_FILE_COMPRESSION,
    FILE_SUFFIX_INCLUDE_COMPRESSION,
    ORC_TIMESTAMP_LTZ_LEGACY_TYPE,
    CONSUMER_EXPIRATION_TIME,
    CONSUMER_IGNORE_PROGRESS,
    SCAN_MODE,
    DELETION_VECTORS_ENABLED,
    DELETION_VECTORS_BITMAP64,
    GLOBAL_INDEX_ENABLED,
    PK_BTREE_INDEX_COLUMNS,
    PK_BITMAP_INDEX_COLUMNS,
    COMPACTION_MAX_FILE_NUM,
]
OPTIONS: dict[str, Option[Any]] = {o.key: o for o in _REGISTRY}
ALIASES: dict[str, str] = {a: o.key for o in _REGISTRY for a in o.aliases}

# Per-column options ``fields.<column>.<name>``: name -> (kind, meaning).
FIELD_AGGREGATE_FUNCTION = Option[str | None](
    "aggregate-function", "str", None, "aggregate function of the column (aggregation engine)"
)
FIELD_IGNORE_RETRACT = Option[bool](
    "ignore-retract", "bool", False, "the column ignores -U/-D (aggregation engine)"
)
FIELD_LIST_AGG_DELIMITER = Option[str]("list-agg-delimiter", "str", ",", "listagg delimiter")
FIELD_SEQUENCE_GROUP = Option[str | None](
    "sequence-group", "str", None, "columns this sequence field orders (partial-update)"
)
FIELD_DISTINCT = Option[bool](
    "distinct", "bool", False, "collect and listagg keep distinct elements (aggregation)"
)
FIELD_NESTED_KEY = Option[str | None](
    "nested-key", "str", None, "key fields of nested_update rows (aggregation)"
)
FIELD_STATS_MODE = Option[str | None](
    "stats-mode", "str", None, "value stats of the column (p16opt): as metadata.stats-mode"
)
FIELD_OPTIONS: dict[str, Option[Any]] = {
    o.key: o
    for o in (
        FIELD_AGGREGATE_FUNCTION,
        FIELD_IGNORE_RETRACT,
        FIELD_LIST_AGG_DELIMITER,
        FIELD_SEQUENCE_GROUP,
        FIELD_DISTINCT,
        FIELD_NESTED_KEY,
        FIELD_STATS_MODE,
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
