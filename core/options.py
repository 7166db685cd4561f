"""Table options: the one registry of what this project implements, and the safety net for the rest.

Options are stored in the schema file as strings. Every module reads them through
:class:`CoreOptions` (typed, validated, registry defaults); no module parses option strings itself.

Three kinds of keys (the invariant: an option that changes which rows a reader must return or how a
writer must write is either implemented here or refused by name, never ignored):

* **implemented** (:data:`OPTIONS` and :data:`FIELD_OPTIONS`): typed, range-checked, with Paimon's
  defaults. Values this project does not implement (``file.format=orc`` while only Parquet is
  written, ``bucket=-2``...) are listed in :data:`UNSUPPORTED` and refused like unsupported keys.
* **unsupported** (:data:`UNSUPPORTED`): Paimon options whose effect this project does not implement
  and that change rows or layout. Refused at create-table/alter-table, and by every read or write of a
  table that has them (:func:`check_supported`), each with its own reason. Newer features whose
  refusal depends on more than one option value (table ``type``, data evolution, row tracking,
  ``bucket-function.type``, column defaults, per-file ``_WRITE_COLS``) are checked by
  ``paimon_core.metadata.features``.
* **harmless**: every other key Java Paimon knows (:data:`paimon_core.option_keys.PAIMON_OPTION_KEYS`):
  tuning of Java engines, caches, Flink behaviour. Kept and ignored, as Paimon keeps unknown keys.
  A key that is none of these but is close to a known key is a typo ("did you mean").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.option_keys import PAIMON_OPTION_KEYS

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
            value = _PARSERS[self.kind](text, self)
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
        if self.kind == "enum":
            return " | ".join(self.choices)
        return {
            "int": "an integer",
            "long": "an integer",
            "bool": "true or false",
            "str": "text",
            "size": "a size such as 128mb",
            "duration": "a duration such as 1h",
        }[self.kind]


def _parse_bool(text: str, _opt: Option) -> bool:
    if text.lower() not in ("true", "false"):
        raise ValueError(text)
    return text.lower() == "true"


def _parse_enum(text: str, opt: Option) -> str:
    if text.lower() not in opt.choices:
        raise ValueError(text)
    return text.lower()


_PARSERS: dict[str, Callable[[str, Option], object]] = {
    "int": lambda t, _o: int(t),
    "long": lambda t, _o: int(t),
    "bool": _parse_bool,
    "str": lambda t, _o: t,
    "enum": _parse_enum,
    "size": lambda t, _o: parse_size(t),
    "duration": lambda t, _o: parse_duration_ms(t),
}


class MergeEngineKind(str, Enum):
    """A primary-key table's ``merge-engine``, with what the rest of the system needs to know
    about it; no code compares the option's text itself."""

    DEDUPLICATE = "deduplicate"  # the newest record of a key wins
    PARTIAL_UPDATE = "partial-update"  # non-null fields of newer records overwrite
    AGGREGATION = "aggregation"  # per-field aggregate functions
    FIRST_ROW = "first-row"  # the oldest insert wins, retractions ignored

    @property
    def picks_rows(self) -> bool:
        """Whether the merge result of a key is one of its stored records, whole."""
        return self in (MergeEngineKind.DEDUPLICATE, MergeEngineKind.FIRST_ROW)

    @property
    def merges_fields(self) -> bool:
        """Whether the merge result is built field by field (aggregate functions apply)."""
        return not self.picks_rows

    @property
    def reads_compacted_only(self) -> bool:
        """Whether batch reads skip level 0 (Java's first-row: compaction removes later inserts)."""
        return self is MergeEngineKind.FIRST_ROW


MERGE_ENGINES = tuple(k.value for k in MergeEngineKind)
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
    # Iceberg-compatible metadata (Java's IcebergOptions; core/iceberg/sync.py)
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
    Option("merge-engine", "enum", "deduplicate", "how records of one key merge", MERGE_ENGINES),
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
        "streaming start: latest-full | latest | from-snapshot | from-snapshot-full",
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
_ALIASES: dict[str, str] = {a: o.key for o in _REGISTRY for a in o.aliases}

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


# ---------------------------------------------------------------------------------------------
# sizes and durations, as Java's MemorySize and TimeUtils parse them

_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "bytes": 1,
    "k": 1024,
    "kb": 1024,
    "kibibytes": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mebibytes": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gibibytes": 1024**3,
    "t": 1024**4,
    "tb": 1024**4,
    "tebibytes": 1024**4,
}
_DUR_UNITS = {
    "": 1,
    "ms": 1,
    "milli": 1,
    "millis": 1,
    "millisecond": 1,
    "milliseconds": 1,
    "s": 1000,
    "sec": 1000,
    "secs": 1000,
    "second": 1000,
    "seconds": 1000,
    "m": 60_000,
    "min": 60_000,
    "mins": 60_000,
    "minute": 60_000,
    "minutes": 60_000,
    "h": 3_600_000,
    "hour": 3_600_000,
    "hours": 3_600_000,
    "d": 86_400_000,
    "day": 86_400_000,
    "days": 86_400_000,
}


def parse_size(text: str) -> int:
    """'128mb', '64 MB', '1gb', '1024' -> bytes."""
    m = _AMOUNT.match(str(text))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise InvalidInput(f"bad size '{text}' (use e.g. 128mb, 64 MB, 1gb)")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])


def parse_duration_ms(text: str) -> int:
    """'30m', '12h', '7d', '1 h', '500ms' -> milliseconds (a bare number is milliseconds, as in Java)."""
    m = _AMOUNT.match(str(text))
    if not m or m.group(2).lower() not in _DUR_UNITS:
        raise InvalidInput(f"bad duration '{text}' (use e.g. 30m, 12h, 7d)")
    return int(float(m.group(1)) * _DUR_UNITS[m.group(2).lower()])


# ---------------------------------------------------------------------------------------------
# validation and the safety net


def _field_parts(key: str) -> tuple[str, str] | None:
    m = _FIELD_KEY.match(key)
    return (m.group("column"), m.group("name")) if m else None


def _unsupported_entry(key: str) -> Unsupported | None:
    if key in UNSUPPORTED:
        return UNSUPPORTED[key]
    parts = _field_parts(key)
    return UNSUPPORTED.get(f"fields.*.{parts[1]}") if parts else None


def unsupported_options(options: dict[str, str], *, reads: bool = False) -> list[tuple[str, str, str]]:
    """(key, value, why) of every option in ``options`` whose effect is not implemented; with
    ``reads`` only those that would make a read return wrong rows."""
    found = []
    for key, value in options.items():
        u = _unsupported_entry(key)
        if u and u.applies(value) and (u.reads or not reads):
            found.append((key, str(value), u.why))
    return found


def check_supported(options: dict[str, str], *, writing: bool, what: str = "this table") -> None:
    """Raise UnsupportedFeature naming the first option of ``options`` that a read (or, with
    ``writing``, a write) of the table would otherwise silently get wrong."""
    bad = unsupported_options(options, reads=not writing)
    if bad:
        key, value, why = bad[0]
        verb = "written" if writing else "read"
        raise UnsupportedFeature(
            f"{what} cannot be {verb} here: it uses {why} ({key}={value}), "
            "which this project does not implement"
        ).with_hint("unsupported_option", option=key)


def _known(key: str) -> bool:
    if key in OPTIONS or key in _ALIASES or key in PAIMON_OPTION_KEYS or key in UNSUPPORTED:
        return True
    if _field_parts(key):
        return True
    return key.startswith(
        ("orc.", "parquet.", "avro.", "file-index.", "lookup.", "fs.", "hadoop.", "metastore.")
    )


def suggest(key: str) -> str | None:
    """A known option key that ``key`` is probably a typo of, or None."""
    candidates = list(OPTIONS) + list(_ALIASES) + sorted(PAIMON_OPTION_KEYS)
    close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.85)
    return close[0] if close else None


def validate_options(options: dict[str, str], columns: list[str] | None = None) -> None:
    """Checks for create-table and alter-table: implemented options parse and are in range, no
    unsupported option is set, field options name existing columns, and a key that is a likely
    typo of a known key is refused with the key it probably meant. Other unknown keys are kept."""
    for key, value in options.items():
        if key in STRUCTURAL_KEYS:
            raise InvalidInput(
                f"'{key}' is not a table option here: it is part of the schema "
                "(primary key and partition keys are given at create-table)"
            )
        opt = OPTIONS.get(_ALIASES.get(key, key))
        if opt is not None:
            opt.parse(value)
        parts = _field_parts(key)
        if parts and parts[1] in FIELD_OPTIONS:
            replace(FIELD_OPTIONS[parts[1]], key=key).parse(value)
            # Java's sequence-group keys may name several columns: fields.a,b.sequence-group
            missing = [c for c in parts[0].split(",") if columns is not None and c not in columns]
            if missing:
                raise InvalidInput(
                    f"option '{key}' names column '{missing[0]}', which the table does not have"
                )
        if not _known(key):
            near = suggest(key)
            if near:
                raise InvalidInput(f"unknown table option '{key}': did you mean '{near}'?")
    _check_retention(CoreOptions(options))
    check_supported(options, writing=True, what="the table")


def _check_retention(opts: CoreOptions) -> None:
    """Java's SchemaValidation: each minimum retention at most its maximum (an unset changelog
    bound is the snapshot's)."""
    smin, smax = opts.get("snapshot.num-retained.min"), opts.get("snapshot.num-retained.max")
    if smin > smax:
        raise InvalidInput("snapshot.num-retained.min should not be larger than snapshot.num-retained.max")
    cmin, cmax = opts.get("changelog.num-retained.min"), opts.get("changelog.num-retained.max")
    if (smin if cmin is None else cmin) > (smax if cmax is None else cmax):
        raise InvalidInput("changelog.num-retained.min should not be larger than changelog.num-retained.max")


class CoreOptions:
    """Typed view over a table's option strings: the only way modules read options."""

    def __init__(self, options: dict[str, str], primary_keys: tuple[str, ...] = ()):
        self.raw = dict(options)
        self.has_pk = bool(primary_keys)

    def get(self, key: str) -> Any:
        """The typed value of an implemented option (its Paimon default when unset); its type
        follows the option's ``kind`` (see ``Option.parse``)."""
        opt = OPTIONS[key]
        for k in (key, *opt.aliases):
            if k in self.raw:
                return opt.parse(self.raw[k])
        return opt.default

    def is_set(self, key: str) -> bool:
        return key in self.raw or any(a in self.raw for a in OPTIONS[key].aliases)

    def field(self, column: str, name: str) -> Any:
        """The typed value of ``fields.<column>.<name>`` (None when unset and without default)."""
        key = f"fields.{column}.{name}"
        raw = self.raw.get(key)
        return (
            FIELD_OPTIONS[name].default if raw is None else replace(FIELD_OPTIONS[name], key=key).parse(raw)
        )

    def fields_with(self, name: str) -> dict[str, str]:
        """column -> raw value of every ``fields.<column>.<name>`` option set."""
        out = {}
        for key, value in self.raw.items():
            parts = _field_parts(key)
            if parts and parts[1] == name:
                out[parts[0]] = value
        return out

    @property
    def bucket(self) -> int:
        return self.get("bucket")

    @property
    def bucket_key(self) -> list[str]:
        v = self.get("bucket-key")
        return [s.strip() for s in v.split(",") if s.strip()] if v else []

    @property
    def target_file_size(self) -> int:
        v = self.get("target-file-size")
        if v is None:
            return (128 if self.has_pk else 256) * 1024 * 1024
        return v

    @property
    def file_format(self) -> str:
        return self.get("file.format")

    @property
    def partition_default_name(self) -> str:
        return self.get("partition.default-name")

    @property
    def stats_mode(self) -> str:
        return self.get("metadata.stats-mode").lower()

    @property
    def merge_engine(self) -> MergeEngineKind:
        return MergeEngineKind(self.get("merge-engine"))

    @property
    def changelog_producer(self) -> str:
        return self.get("changelog-producer")

    @property
    def sequence_fields(self) -> list[str]:
        v = self.get("sequence.field")
        return [s.strip() for s in v.split(",") if s.strip()] if v else []

    @property
    def num_levels(self) -> int:
        n = self.get("num-levels")
        return n if n is not None else self.get("num-sorted-run.compaction-trigger") + 1
