"""Table index files and the index manifest (Avro, or ORC with ``manifest.format = orc``) that
lists them.

The index manifest a snapshot references is the complete current set: each new one is the
previous set with this commit's DELETE/ADD changes applied (docs/format.md section 9). We write
HASH indexes (dynamic bucket mode) and deletion vectors; entries of other index types (global
indexes) are carried forward untouched, with every field they have, except primary-key index
payloads a commit makes untrue, which it drops (``pk_index.py``).

The record grew over Paimon releases (``IndexManifestEntry.SCHEMA``, serializer ``_VERSION``
1 in all of them); each layout is the schema Java derives for that release:

* 0.9: ``_KIND`` .. ``_ROW_COUNT``, ``_DELETIONS_VECTORS_RANGES`` items ``(f0, f1, f2)``;
* 1.0: each range gains ``_CARDINALITY`` (nullable long);
* 1.3: ``_EXTERNAL_PATH`` (nullable string);
* 1.4: ``_GLOBAL_INDEX`` (nullable record: row range, field ids, ``_INDEX_META``);
* 2.0: ``_GLOBAL_INDEX`` gains ``_SOURCE_META`` (nullable bytes).

A rewritten index manifest keeps the layout of the manifest it was built from (a table Java 0.9
wrote gets 0.9's schema back), or 1.3 for a table's first one (what this project has always
written; Java 0.9 reads it too, as its Avro reader maps fields by name and skips the ones it
does not know). The layout is raised when an entry holds a value only a newer layout has (our
deletion vectors carry ``_CARDINALITY``, so a 0.9 table with our vectors gets 1.0's), so no
value is ever dropped. Fields no layout here knows are refused by name when a manifest holding
them would be rewritten.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import fastavro
import numpy as np

from paimon_core import paths
from paimon_core.errors import CorruptMetadata, UnsupportedFeature
from paimon_core.metadata.manifest import ADD, DELETE, NS, read_records, record_bytes
from paimon_core.storage.file_io import FileIO

if TYPE_CHECKING:
    from collections.abc import Iterable

HASH_INDEX = "HASH"

LAYOUTS = ("0.9", "1.0", "1.3", "1.4", "2.0")
DEFAULT_LAYOUT = "1.3"


def _rank(layout: str) -> int:
    return LAYOUTS.index(layout)


def _nullable(name: str, t) -> dict:
    return {"name": name, "type": ["null", t], "default": None}


def _ranges_field(layout: str) -> dict:
    fields = [
        {"name": "f0", "type": "string"},
        {"name": "f1", "type": "int"},
        {"name": "f2", "type": "int"},
    ]
    if _rank(layout) >= _rank("1.0"):
        fields.append(_nullable("_CARDINALITY", "long"))
    item = {"type": "record", "name": "record__DELETIONS_VECTORS_RANGES", "fields": fields}
    return _nullable("_DELETIONS_VECTORS_RANGES", {"type": "array", "items": ["null", item]})


def _global_index_field(layout: str) -> dict:
    fields = [
        {"name": "_ROW_RANGE_START", "type": "long"},
        {"name": "_ROW_RANGE_END", "type": "long"},
        {"name": "_INDEX_FIELD_ID", "type": "int"},
        _nullable("_EXTRA_FIELD_IDS", {"type": "array", "items": "int"}),
        _nullable("_INDEX_META", "bytes"),
    ]
    if _rank(layout) >= _rank("2.0"):
        fields.append(_nullable("_SOURCE_META", "bytes"))
    return _nullable("_GLOBAL_INDEX", {"type": "record", "name": "record__GLOBAL_INDEX", "fields": fields})


def index_entry_schema(layout: str) -> dict:
    """The Avro schema Java of release ``layout`` writes for the index manifest: a plain
    (NOT NULL) top-level record, as ``VersionedObjectSerializer.versionType`` makes it, with
    ``_VERSION`` first and nested records named ``record_<FIELD>``."""
    fields = [
        {"name": "_VERSION", "type": "int"},
        {"name": "_KIND", "type": "int"},
        {"name": "_PARTITION", "type": "bytes"},
        {"name": "_BUCKET", "type": "int"},
        {"name": "_INDEX_TYPE", "type": "string"},
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_ROW_COUNT", "type": "long"},
        _ranges_field(layout),
    ]
    if _rank(layout) >= _rank("1.3"):
        fields.append(_nullable("_EXTERNAL_PATH", "string"))
    if _rank(layout) >= _rank("1.4"):
        fields.append(_global_index_field(layout))
    return {"type": "record", "name": "record", "namespace": NS, "fields": fields}


INDEX_SCHEMAS = {layout: fastavro.parse_schema(index_entry_schema(layout)) for layout in LAYOUTS}
INDEX_ENTRY_SCHEMA = INDEX_SCHEMAS[DEFAULT_LAYOUT]

_TOP_FIELDS = {f["name"] for f in index_entry_schema("2.0")["fields"]}
_RANGE_FIELDS = {"f0", "f1", "f2", "_CARDINALITY"}
_GLOBAL_FIELDS = {f["name"] for f in _global_index_field("2.0")["type"][1]["fields"]}


def _record(t):
    """The record inside a (possibly nullable, possibly array) Avro type, else None."""
    if isinstance(t, list):
        for u in t:
            r = _record(u)
            if r is not None:
                return r
        return None
    if isinstance(t, dict):
        if t.get("type") == "record":
            return t
        if t.get("type") == "array":
            return _record(t["items"])
        if isinstance(t.get("type"), (dict, list)):
            return _record(t["type"])
    return None


def layout_of(writer_schema) -> tuple[str, tuple[str, ...]]:
    """(layout, unknown fields) of an index manifest's writer schema: the oldest layout holding
    every field it has, and the fields none of the layouts has (as ``_GLOBAL_INDEX._X``)."""
    top = _record(writer_schema)
    if top is None:
        return DEFAULT_LAYOUT, ()
    names = {f["name"]: f for f in top["fields"]}
    unknown = [n for n in names if n not in _TOP_FIELDS]
    layout = "0.9"
    ranges = (
        _record(names["_DELETIONS_VECTORS_RANGES"]["type"]) if "_DELETIONS_VECTORS_RANGES" in names else None
    )
    if ranges is not None:
        sub = {f["name"] for f in ranges["fields"]}
        unknown += [f"_DELETIONS_VECTORS_RANGES.{n}" for n in sub - _RANGE_FIELDS]
        if "_CARDINALITY" in sub:
            layout = "1.0"
    if "_EXTERNAL_PATH" in names:
        layout = "1.3"
    if "_GLOBAL_INDEX" in names:
        layout = "1.4"
        gi = _record(names["_GLOBAL_INDEX"]["type"])
        sub = {f["name"] for f in gi["fields"]} if gi else set()
        unknown += [f"_GLOBAL_INDEX.{n}" for n in sorted(sub - _GLOBAL_FIELDS)]
        if "_SOURCE_META" in sub:
            layout = "2.0"
    return layout, tuple(unknown)


@dataclass(frozen=True)
class GlobalIndexMeta:
    """``_GLOBAL_INDEX`` (``index/GlobalIndexMeta.java``): the rows a global index file covers
    (row ids ``[row_range_start, row_range_end]``, inclusive), the field id(s) it indexes, the
    index implementation's own bytes and (2.0) ``source_meta``, which names the data files a
    primary-key table's index was built from (``index/pk/PrimaryKeyIndexSourceMeta``)."""

    row_range_start: int
    row_range_end: int
    index_field_id: int
    extra_field_ids: tuple[int, ...] | None = None
    index_meta: bytes | None = None
    source_meta: bytes | None = None

    def to_avro(self) -> dict:
        return {
            "_ROW_RANGE_START": self.row_range_start,
            "_ROW_RANGE_END": self.row_range_end,
            "_INDEX_FIELD_ID": self.index_field_id,
            "_EXTRA_FIELD_IDS": None if self.extra_field_ids is None else list(self.extra_field_ids),
            "_INDEX_META": self.index_meta,
            "_SOURCE_META": self.source_meta,
        }

    @staticmethod
    def from_avro(d: dict) -> GlobalIndexMeta:
        extra = d.get("_EXTRA_FIELD_IDS")
        return GlobalIndexMeta(
            d["_ROW_RANGE_START"],
            d["_ROW_RANGE_END"],
            d["_INDEX_FIELD_ID"],
            None if extra is None else tuple(extra),
            d.get("_INDEX_META"),
            d.get("_SOURCE_META"),
        )

    @property
    def over_row_ids(self) -> bool:
        """An index of row ids (row tracking / data evolution tables, 1.4+), not one built from
        a primary-key table's data files (which carries ``source_meta``)."""
        return self.source_meta is None


@dataclass(frozen=True)
class IndexEntry:
    kind: int
    partition: bytes
    bucket: int
    index_type: str
    file_name: str
    file_size: int
    row_count: int
    dv_ranges: tuple | None = None
    external_path: str | None = None
    global_index: GlobalIndexMeta | None = None

    @property
    def identifier(self) -> tuple:
        return (self.partition, self.bucket, self.index_type, self.file_name)

    def needed_layout(self) -> str:
        """The oldest layout that holds every value of this entry."""
        if self.global_index is not None:
            return "2.0" if self.global_index.source_meta is not None else "1.4"
        if self.external_path is not None:
            return "1.3"
        if self.dv_ranges and any(len(r) > 3 and r[3] is not None for r in self.dv_ranges):
            return "1.0"
        return "0.9"

    def to_avro(self, layout: str = "2.0") -> dict:
        """The record in ``layout`` (fields the layout lacks are left out: the caller picks a
        layout that holds every value, see :meth:`needed_layout`)."""
        with_card = _rank(layout) >= _rank("1.0")
        ranges = None
        if self.dv_ranges is not None:
            ranges = []
            for r in self.dv_ranges:
                item = {"f0": r[0], "f1": r[1], "f2": r[2]}
                if with_card:
                    item["_CARDINALITY"] = r[3] if len(r) > 3 else None
                ranges.append(item)
        d = {
            "_VERSION": 1,
            "_KIND": self.kind,
            "_PARTITION": self.partition,
            "_BUCKET": self.bucket,
            "_INDEX_TYPE": self.index_type,
            "_FILE_NAME": self.file_name,
            "_FILE_SIZE": self.file_size,
            "_ROW_COUNT": self.row_count,
            "_DELETIONS_VECTORS_RANGES": ranges,
        }
        if _rank(layout) >= _rank("1.3"):
            d["_EXTERNAL_PATH"] = self.external_path
        if _rank(layout) >= _rank("1.4"):
            gi = None if self.global_index is None else self.global_index.to_avro()
            if gi is not None and _rank(layout) < _rank("2.0"):
                del gi["_SOURCE_META"]
            d["_GLOBAL_INDEX"] = gi
        return d

    @staticmethod
    def from_avro(d: dict) -> IndexEntry:
        version = d.get("_VERSION", 1)
        if version != 1:
            raise UnsupportedFeature(
                f"index manifest entry version {version} is not supported (only version 1)"
            )
        ranges = d.get("_DELETIONS_VECTORS_RANGES")
        if ranges is not None:
            ranges = tuple(
                (r["f0"], r["f1"], r["f2"], r.get("_CARDINALITY")) for r in ranges if r is not None
            )
        gi = d.get("_GLOBAL_INDEX")
        return IndexEntry(
            d["_KIND"],
            d["_PARTITION"],
            d["_BUCKET"],
            d["_INDEX_TYPE"],
            d["_FILE_NAME"],
            d["_FILE_SIZE"],
            d["_ROW_COUNT"],
            ranges,
            d.get("_EXTERNAL_PATH"),
            None if gi is None else GlobalIndexMeta.from_avro(gi),
        )

    def as_delete(self) -> IndexEntry:
        return replace(self, kind=DELETE)


def check_writable_index(
    entries: Iterable[IndexEntry],
    what: str = "table",
    adds: Iterable = (),
    deletes: Iterable = (),
    compact: bool = False,
    fields: Iterable = (),
    removes: bool = False,
) -> None:
    """Refuse (UnsupportedFeature) a commit that would make a global index over row ids (1.4+,
    row-tracking / data-evolution tables) untrue for its readers; this project builds no global
    index. Such an index names row ids and, per row id, the values of its column(s) then.

    * Rows a commit adds get new row ids (``adds`` whose files have no ``first_row_id``): Java
      leaves them outside every index's row range, and its default
      ``scalar-index.search-mode = fast`` (2.0, pypaimon 2.1) answers a filter from the index
      alone, so they would be missing from filtered reads: refused.
    * A write of an indexed column's values (a file whose ``_WRITE_COLS``, or every column when
      unset, holds an indexed field; Java's default ``global-index.column-update-action =
      THROW_ERROR``), removed files, or ``removes`` (an overwrite, deletion vectors or other
      index changes): refused.
    * A compaction that keeps every row id (``compact``; its files carry ``first_row_id``)
      keeps each row's id and values: the index stays true and is kept, as Java keeps it (it
      drops a partition's global indexes only when a compaction gives rows new ids).
    * Column updates of columns no index covers keep the index true and are kept.

    Global indexes built from a primary-key table's files (2.0, with ``_SOURCE_META``) are kept
    true by the commit itself (``pk_index.stale_payloads``)."""
    rowid = [e for e in entries if e.global_index is not None and e.global_index.over_row_ids]
    if not rowid:
        return
    e = rowid[0]
    gi = e.global_index
    assert gi is not None
    desc = (
        f"{what} has a global index over row ids ({e.index_type} index file {e.file_name}, "
        f"rows {gi.row_range_start}..{gi.row_range_end}), which this project does not build: "
    )
    names = {f.id: f.name for f in fields}
    indexed = set()
    for x in rowid:
        g = x.global_index
        assert g is not None
        indexed |= {names.get(i, f"field id {i}") for i in (g.index_field_id, *(g.extra_field_ids or ()))}
    adds = list(adds)
    if any(a.kind == ADD and a.file.first_row_id is None for a in adds):
        raise UnsupportedFeature(
            desc + "filtered reads that use it would miss the rows a write adds, so adding rows "
            "is not supported"
        )
    if compact:
        deletes = list(deletes)
        if _row_ids(deletes) != _row_ids(adds) or removes:
            raise UnsupportedFeature(
                desc + "a compaction that does not keep every row id as it was (deleted rows "
                "dropped, rows renumbered) would make it untrue, so it is not supported"
            )
        return
    if list(deletes) or removes:
        raise UnsupportedFeature(
            desc + "a write that removes rows or files would leave it naming them, so it is not supported"
        )
    for a in adds:
        cols = a.file.write_cols if a.file.write_cols is not None else tuple(names.values())
        hit = sorted(set(cols) & indexed)
        if hit:
            raise UnsupportedFeature(
                desc + f"a write of indexed column {hit[0]} would make it untrue (Java refuses it "
                "too, global-index.column-update-action = THROW_ERROR)"
            )


def _row_ids(entries) -> list[tuple[int, int]]:
    """The row ids of the files of ``entries`` (data files with ``first_row_id``), as merged
    half-open ranges."""
    spans = sorted(
        (e.file.first_row_id, e.file.first_row_id + e.file.row_count)
        for e in entries
        if e.file.first_row_id is not None
    )
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


class IndexStore:
    """Index files in ``<table>/index`` and index manifests in ``<table>/manifest``."""

    def __init__(
        self, fileio: FileIO, table_path: str, manifest_format: str = "avro", compression: str = "zstd"
    ):
        """``manifest_format``, ``compression``: how index manifests are written (the table's
        ``manifest.format`` and ``manifest.compression``); reads take Avro and ORC alike."""
        self.io = fileio
        self.format = str(manifest_format).strip().lower()
        self.compression = compression
        self.index_dir = fileio.join(table_path, paths.INDEX_DIR)
        self.manifest_dir = fileio.join(table_path, paths.MANIFEST_DIR)
        self._prefix = str(uuid.uuid4())
        self._counter = 0
        self._cache: dict[str, list[IndexEntry]] = {}
        self.layout: str | None = None  # the newest layout among the manifests read
        self.unknown: dict[str, tuple[str, ...]] = {}  # manifest name -> fields no layout has

    def _name(self, kind: str) -> str:
        name = f"{kind}-{self._prefix}-{self._counter}"
        self._counter += 1
        return name

    def read_manifest(self, name: str | None) -> list[IndexEntry]:
        """The live entries of an index manifest (ADDs not cancelled by a later DELETE)."""
        if not name:
            return []
        if name not in self._cache:
            self._cache[name] = self._read(name)
        return list(self._cache[name])

    def _read(self, name: str) -> list[IndexEntry]:
        path = self.io.join(self.manifest_dir, name)
        records, writer_schema = read_records(self.io, path, "index manifest")
        layout, unknown = layout_of(writer_schema)
        if self.layout is None or _rank(layout) > _rank(self.layout):
            self.layout = layout
        if unknown:
            self.unknown[name] = unknown
        live: dict = {}
        for r in records:
            e = IndexEntry.from_avro(r)
            if e.kind == ADD:
                live[e.identifier] = e
            else:
                live.pop(e.identifier, None)
        return list(live.values())

    def write_manifest(self, entries: list[IndexEntry]) -> str:
        """Write ``entries`` as a new index manifest in the layout of the manifests this store
        read (1.3 when it read none), or a newer one when an entry holds a value only that one
        has; refused when a manifest read had fields no layout here knows (they would be lost)."""
        if self.unknown:
            name, fields = next(iter(self.unknown.items()))
            raise UnsupportedFeature(
                f"index manifest {name} has fields this version does not know ({', '.join(fields)}): "
                "rewriting it would drop them"
            )
        base = self.layout or DEFAULT_LAYOUT
        layout = max([base] + [e.needed_layout() for e in entries], key=_rank)
        name = self._name("index-manifest")
        self.io.write_bytes(
            self.io.join(self.manifest_dir, name),
            record_bytes(
                INDEX_SCHEMAS[layout], [e.to_avro(layout) for e in entries], self.format, self.compression
            ),
        )
        return name

    def read_hashes(self, entry: IndexEntry) -> np.ndarray:
        path = self.io.join(self.index_dir, entry.file_name)
        try:
            data = self.io.read_bytes(path)
        except FileNotFoundError:
            raise CorruptMetadata(f"hash index file {path} is missing") from None
        return np.frombuffer(data, dtype=">i4").astype(np.int32)

    def write_hashes(self, partition: bytes, bucket: int, hashes: np.ndarray) -> IndexEntry:
        name = self._name("index")
        data = np.asarray(hashes, dtype=">i4").tobytes()
        self.io.write_bytes(self.io.join(self.index_dir, name), data)
        return IndexEntry(ADD, partition, bucket, HASH_INDEX, name, len(data), int(len(hashes)))

    def delete_file(self, entry: IndexEntry) -> None:
        self.io.delete(self.io.join(self.index_dir, entry.file_name))
