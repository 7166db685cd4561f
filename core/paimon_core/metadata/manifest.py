"""Manifest files (ManifestEntry records) and manifest lists (ManifestFileMeta records), in Avro
or, with ``manifest.format = orc``, in ORC with the same schemas (``metadata/orc_records.py``).

We write the newer layout (21-field ``_FILE``, 15-field manifest list, version 2) that Java 0.9
and pypaimon 2.1 both read; the reader also accepts the older Java field sets, treating missing
fields as absent. Containers are zstd-compressed, records named as Java names them.
"""

from __future__ import annotations

import io as _io
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

import fastavro

from paimon_core import paths
from paimon_core.data.binary_row import EMPTY_ROW
from paimon_core.errors import CorruptMetadata, InvalidInput
from paimon_core.metadata import manifest_cache
from paimon_core.metadata.manifest_columns import EntryColumns
from paimon_core.metadata.manifest_reader import EntryFilter, read_entries, read_many
from paimon_core.metadata.orc_records import is_orc, orc_bytes, orc_codec, read_orc_records
from paimon_core.storage.file_io import FileIO

if TYPE_CHECKING:
    from collections.abc import Iterable

    from fastavro.types import Schema as AvroSchema

NS = "org.apache.paimon.avro.generated"
ADD, DELETE = 0, 1
FILE_SOURCE_APPEND, FILE_SOURCE_COMPACT = 0, 1


def _stats_schema(name: str) -> dict:
    return {
        "type": "record",
        "name": name,
        "fields": [
            {"name": "_MIN_VALUES", "type": "bytes"},
            {"name": "_MAX_VALUES", "type": "bytes"},
            {
                "name": "_NULL_COUNTS",
                "type": ["null", {"type": "array", "items": ["null", "long"]}],
                "default": None,
            },
        ],
    }


def _f(name, t, nullable=False):
    if nullable:
        return {"name": name, "type": ["null", t], "default": None}
    return {"name": name, "type": t}


_FILE_SCHEMA = {
    "type": "record",
    "name": "record__FILE",
    "fields": [
        _f("_FILE_NAME", "string"),
        _f("_FILE_SIZE", "long"),
        _f("_ROW_COUNT", "long"),
        _f("_MIN_KEY", "bytes"),
        _f("_MAX_KEY", "bytes"),
        _f("_KEY_STATS", _stats_schema("record__FILE__KEY_STATS")),
        _f("_VALUE_STATS", _stats_schema("record__FILE__VALUE_STATS")),
        _f("_MIN_SEQUENCE_NUMBER", "long"),
        _f("_MAX_SEQUENCE_NUMBER", "long"),
        _f("_SCHEMA_ID", "long"),
        _f("_LEVEL", "int"),
        _f("_EXTRA_FILES", {"type": "array", "items": "string"}),
        _f("_CREATION_TIME", {"type": "long", "logicalType": "timestamp-millis"}, True),
        _f("_DELETE_ROW_COUNT", "long", True),
        _f("_EMBEDDED_FILE_INDEX", "bytes", True),
        _f("_FILE_SOURCE", "int", True),
        _f("_VALUE_STATS_COLS", {"type": "array", "items": "string"}, True),
        _f("_EXTERNAL_PATH", "string", True),
        _f("_FIRST_ROW_ID", "long", True),
        _f("_WRITE_COLS", {"type": "array", "items": "string"}, True),
        _f("_WRITE_COLS_SEQUENCES", {"type": "array", "items": "long"}, True),
    ],
}


def java_record_schema(fields: list[dict]):
    """A top-level Avro schema as Java Paimon writes it: a plain (non-null) record named
    ``org.apache.paimon.avro.generated.record``; readers such as ClickHouse's refuse a union."""
    return fastavro.parse_schema({"type": "record", "name": "record", "namespace": NS, "fields": fields})


ENTRY_SCHEMA = java_record_schema(
    [
        _f("_VERSION", "int"),
        _f("_KIND", "int"),
        _f("_PARTITION", "bytes"),
        _f("_BUCKET", "int"),
        _f("_TOTAL_BUCKETS", "int"),
        _f("_FILE", _FILE_SCHEMA),
    ]
)

LIST_SCHEMA = java_record_schema(
    [
        _f("_VERSION", "int"),
        _f("_FILE_NAME", "string"),
        _f("_FILE_SIZE", "long"),
        _f("_NUM_ADDED_FILES", "long"),
        _f("_NUM_DELETED_FILES", "long"),
        _f("_PARTITION_STATS", _stats_schema("record__PARTITION_STATS")),
        _f("_SCHEMA_ID", "long"),
        _f("_MIN_BUCKET", "int", True),
        _f("_MAX_BUCKET", "int", True),
        _f("_MIN_LEVEL", "int", True),
        _f("_MAX_LEVEL", "int", True),
        _f("_MIN_ROW_ID", "long", True),
        _f("_MAX_ROW_ID", "long", True),
        _f("_TOTAL_BUCKETS", "int", True),
        _f("_EXTRA_FILES", {"type": "array", "items": "string"}, True),
    ]
)


_new_tuple = tuple.__new__  # a NamedTuple from a tuple of its fields, without __new__'s arguments


class SimpleStats(NamedTuple):
    """Min/max as serialized BinaryRows and null counts, over some columns.

    SimpleStats, DataFileMeta and ManifestEntry are NamedTuples (immutable, compared and hashed
    by value, changed with ``_replace``): a plan builds one of each per manifest entry, millions
    for a large table, and a tuple is built from its fields several times faster than a
    dataclass instance."""

    min_values: bytes = EMPTY_ROW
    max_values: bytes = EMPTY_ROW
    null_counts: tuple | None = ()

    def to_avro(self) -> dict:
        return {
            "_MIN_VALUES": self.min_values,
            "_MAX_VALUES": self.max_values,
            "_NULL_COUNTS": None if self.null_counts is None else list(self.null_counts),
        }

    @staticmethod
    def from_avro(d: dict) -> SimpleStats:
        nc = d.get("_NULL_COUNTS")
        return _new_tuple(
            SimpleStats, (d["_MIN_VALUES"], d["_MAX_VALUES"], None if nc is None else tuple(nc))
        )


EMPTY_STATS = SimpleStats()


class DataFileMeta(NamedTuple):
    """One data (or changelog) file as a manifest describes it."""

    file_name: str
    file_size: int
    row_count: int
    min_key: bytes = EMPTY_ROW
    max_key: bytes = EMPTY_ROW
    key_stats: SimpleStats = EMPTY_STATS
    value_stats: SimpleStats = EMPTY_STATS
    min_sequence_number: int = 0
    max_sequence_number: int = 0
    schema_id: int = 0
    level: int = 0
    extra_files: tuple[str, ...] = ()
    creation_time: datetime | int | None = None
    delete_row_count: int | None = None
    embedded_index: bytes | None = None
    file_source: int | None = FILE_SOURCE_APPEND
    value_stats_cols: tuple[str, ...] | None = None
    external_path: str | None = None
    first_row_id: int | None = None
    write_cols: tuple[str, ...] | None = None

    def to_avro(self) -> dict:
        return {
            "_FILE_NAME": self.file_name,
            "_FILE_SIZE": self.file_size,
            "_ROW_COUNT": self.row_count,
            "_MIN_KEY": self.min_key,
            "_MAX_KEY": self.max_key,
            "_KEY_STATS": self.key_stats.to_avro(),
            "_VALUE_STATS": self.value_stats.to_avro(),
            "_MIN_SEQUENCE_NUMBER": self.min_sequence_number,
            "_MAX_SEQUENCE_NUMBER": self.max_sequence_number,
            "_SCHEMA_ID": self.schema_id,
            "_LEVEL": self.level,
            "_EXTRA_FILES": list(self.extra_files),
            "_CREATION_TIME": self.creation_time,
            "_DELETE_ROW_COUNT": self.delete_row_count,
            "_EMBEDDED_FILE_INDEX": self.embedded_index,
            "_FILE_SOURCE": self.file_source,
            "_VALUE_STATS_COLS": None if self.value_stats_cols is None else list(self.value_stats_cols),
            "_EXTERNAL_PATH": self.external_path,
            "_FIRST_ROW_ID": self.first_row_id,
            "_WRITE_COLS": None if self.write_cols is None else list(self.write_cols),
            "_WRITE_COLS_SEQUENCES": None,
        }

    def upgrade(self, level: int) -> DataFileMeta:
        return self._replace(level=level)


class ManifestEntry(NamedTuple):
    kind: int
    partition: bytes  # serialized BinaryRow
    bucket: int
    total_buckets: int
    file: DataFileMeta

    @property
    def identifier(self) -> tuple:
        """What makes a file unique in a table: an ADD and a later DELETE with it cancel."""
        return (
            self.partition,
            self.bucket,
            self.file.level,
            self.file.file_name,
            self.file.extra_files,
            self.file.external_path,
        )

    def to_avro(self) -> dict:
        return {
            "_VERSION": 2,
            "_KIND": self.kind,
            "_PARTITION": self.partition,
            "_BUCKET": self.bucket,
            "_TOTAL_BUCKETS": self.total_buckets,
            "_FILE": self.file.to_avro(),
        }

    @staticmethod
    def from_avro(d: dict) -> ManifestEntry:
        """The entry of one decoded manifest record."""
        return ENTRY_COLUMNS.entries_of(ENTRY_COLUMNS.columns_of([d]))[0]


ENTRY_COLUMNS = EntryColumns(ManifestEntry, DataFileMeta, SimpleStats)  # how entries are decoded and cached


@dataclass(frozen=True)
class ManifestFileMeta:
    file_name: str
    file_size: int
    num_added_files: int
    num_deleted_files: int
    partition_stats: SimpleStats
    schema_id: int
    min_bucket: int | None = None
    max_bucket: int | None = None
    min_level: int | None = None
    max_level: int | None = None
    total_buckets: int | None = None

    def to_avro(self) -> dict:
        return {
            "_VERSION": 2,
            "_FILE_NAME": self.file_name,
            "_FILE_SIZE": self.file_size,
            "_NUM_ADDED_FILES": self.num_added_files,
            "_NUM_DELETED_FILES": self.num_deleted_files,
            "_PARTITION_STATS": self.partition_stats.to_avro(),
            "_SCHEMA_ID": self.schema_id,
            "_MIN_BUCKET": self.min_bucket,
            "_MAX_BUCKET": self.max_bucket,
            "_MIN_LEVEL": self.min_level,
            "_MAX_LEVEL": self.max_level,
            "_MIN_ROW_ID": None,
            "_MAX_ROW_ID": None,
            "_TOTAL_BUCKETS": self.total_buckets,
            "_EXTRA_FILES": None,
        }

    @staticmethod
    def from_avro(d: dict) -> ManifestFileMeta:
        return ManifestFileMeta(
            d["_FILE_NAME"],
            d["_FILE_SIZE"],
            d["_NUM_ADDED_FILES"],
            d["_NUM_DELETED_FILES"],
            SimpleStats.from_avro(d["_PARTITION_STATS"]),
            d["_SCHEMA_ID"],
            d.get("_MIN_BUCKET"),
            d.get("_MAX_BUCKET"),
            d.get("_MIN_LEVEL"),
            d.get("_MAX_LEVEL"),
            d.get("_TOTAL_BUCKETS"),
        )


# manifest.compression -> Avro codec: Paimon's "zstd" is Avro's zstandard, other values are Avro
# codec names; only those the Java 0.9 jar reads are written here (it has no snappy, xz or bzip2).
MANIFEST_CODECS = {"zstd": "zstandard", "zstandard": "zstandard", "deflate": "deflate", "null": "null"}


def manifest_codec(name: str) -> str:
    """The Avro codec of a ``manifest.compression`` value; InvalidInput for one not written here."""
    codec = MANIFEST_CODECS.get(str(name).strip().lower())
    if codec is None:
        raise InvalidInput(f"manifest.compression '{name}' is not supported here (use zstd, deflate or null)")
    return codec


def avro_bytes(schema: AvroSchema, records: Iterable[dict], codec: str = "zstandard") -> bytes:
    buf = _io.BytesIO()
    fastavro.writer(buf, schema, records, codec=codec)
    return buf.getvalue()


def read_avro(fileio: FileIO, path: str, what: str = "metadata file") -> list[dict]:
    """Records of an Avro (or ORC) metadata file; a missing or damaged file is CorruptMetadata
    naming it."""
    return read_records(fileio, path, what)[0]


def read_records(fileio: FileIO, path: str, what: str = "metadata file") -> tuple[list[dict], object]:
    """(records, writer schema) of a metadata file in Avro or ORC (told apart by its first
    bytes); a missing or damaged file is CorruptMetadata naming it."""
    try:
        data = fileio.read_bytes(path)
    except FileNotFoundError:
        raise CorruptMetadata(f"{what} {path} is missing") from None
    try:
        if is_orc(data):
            records, schema = read_orc_records(data)
        else:
            reader = fastavro.reader(_io.BytesIO(data))
            records = [r for r in reader if r is not None]
            schema = reader.writer_schema
    except Exception as e:  # fastavro and pyarrow raise many kinds on damaged input
        raise CorruptMetadata(f"{what} {path} is unreadable: {e}") from None
    return as_records(records, f"{what} {path}"), schema


def record_bytes(schema, records: list[dict], manifest_format: str, compression: str) -> bytes:
    """``records`` as a metadata file in ``manifest_format`` (avro or orc), ``compression``
    being the table's ``manifest.compression``."""
    if manifest_format == "orc":
        return orc_bytes(schema, records, compression)
    return avro_bytes(schema, records, manifest_codec(compression))


def check_manifest_format(manifest_format: str, compression: str) -> None:
    """InvalidInput for a manifest format or compression this project does not write."""
    if manifest_format not in ("avro", "orc"):
        raise InvalidInput(f"manifest.format '{manifest_format}' is not supported here (use avro or orc)")
    if manifest_format == "orc":
        if orc_codec(compression) is None:
            raise InvalidInput(
                f"manifest.compression '{compression}' is not supported for ORC manifests "
                "(use zstd, zlib, snappy, lz4 or none)"
            )
    else:
        manifest_codec(compression)


def as_records(values: list, what: str) -> list[dict]:
    """The values read from an Avro metadata file, which are records (dicts) when its schema
    is a record schema as every Paimon metadata schema is; CorruptMetadata otherwise."""
    out = [v for v in values if isinstance(v, dict)]
    if len(out) != len(values):
        raise CorruptMetadata(f"{what} is unreadable: its values are not Avro records")
    return out


class ManifestStore:
    """Reads and writes manifests and manifest lists in ``<table>/manifest``."""

    def __init__(
        self, fileio: FileIO, table_path: str, compression: str = "zstd", manifest_format: str = "avro"
    ):
        """``compression``, ``manifest_format``: the table's ``manifest.compression`` and
        ``manifest.format`` (checked when a manifest is written; reads take any format)."""
        self.io = fileio
        self.compression = compression
        self.format = str(manifest_format).strip().lower()
        self.dir = fileio.join(table_path, paths.MANIFEST_DIR)
        self._prefix = str(uuid.uuid4())
        self._counter = 0

    def _next_name(self, kind: str) -> str:
        name = f"{kind}-{self._prefix}-{self._counter}"
        self._counter += 1
        return name

    def path(self, name: str) -> str:
        return self.io.join(self.dir, name)

    def write_manifest(
        self, entries: list[ManifestEntry], schema_id: int, partition_stats: SimpleStats
    ) -> ManifestFileMeta:
        name = self._next_name("manifest")
        data = record_bytes(ENTRY_SCHEMA, [e.to_avro() for e in entries], self.format, self.compression)
        self.io.write_bytes(self.path(name), data)
        buckets = [e.bucket for e in entries]
        levels = [e.file.level for e in entries]
        totals = {e.total_buckets for e in entries}
        return ManifestFileMeta(
            file_name=name,
            file_size=len(data),
            num_added_files=sum(1 for e in entries if e.kind == ADD),
            num_deleted_files=sum(1 for e in entries if e.kind == DELETE),
            partition_stats=partition_stats,
            schema_id=schema_id,
            min_bucket=min(buckets) if buckets else None,
            max_bucket=max(buckets) if buckets else None,
            min_level=min(levels) if levels else None,
            max_level=max(levels) if levels else None,
            total_buckets=totals.pop() if len(totals) == 1 else None,
        )

    def write_list(self, metas: list[ManifestFileMeta]) -> tuple[str, int]:
        name = self._next_name("manifest-list")
        data = record_bytes(LIST_SCHEMA, [m.to_avro() for m in metas], self.format, self.compression)
        self.io.write_bytes(self.path(name), data)
        return name, len(data)

    def read_manifest(self, name: str, entry_filter: EntryFilter | None = None) -> list[ManifestEntry]:
        """The entries of manifest ``name`` (those ``entry_filter`` keeps), through the
        process-wide cache of decoded manifests (``manifest_reader``)."""
        return read_entries(self.io, self.path(name), ENTRY_COLUMNS, entry_filter)

    def read_manifests(
        self, names: list[str], entry_filter: EntryFilter | None = None, sizes: list[int] | None = None
    ) -> list[list[ManifestEntry]]:
        """``read_manifest`` of each name, read in parallel, in the order of ``names``
        (``sizes``: their sizes as the manifest list records them)."""
        return read_many(self.io, [self.path(n) for n in names], ENTRY_COLUMNS, entry_filter, sizes)

    def read_list(self, name: str) -> list[ManifestFileMeta]:
        return self.read_lists([name])[0]

    def read_lists(self, names: list[str]) -> list[list[ManifestFileMeta]]:
        """The metas of each manifest list, through the process-wide cache; lists not in it
        are read at once on a remote store (``FileIO.together``)."""
        keys = [manifest_cache.key_of(self.io, self.path(n)) for n in names]
        got = [manifest_cache.get(k) for k in keys]
        missing = [i for i, g in enumerate(got) if not isinstance(g, tuple)]
        read = self.io.together(*(lambda n=names[i]: read_avro(self.io, self.path(n)) for i in missing))
        for i, records in zip(missing, read):
            got[i] = tuple(ManifestFileMeta.from_avro(r) for r in records)
            manifest_cache.put(keys[i], got[i], len(records))
        return [list(g) for g in got]  # pyright: ignore[reportArgumentType]


__all__ = [
    "ADD",
    "DELETE",
    "DataFileMeta",
    "ManifestEntry",
    "ManifestFileMeta",
    "ManifestStore",
    "SimpleStats",
    "field",
]
