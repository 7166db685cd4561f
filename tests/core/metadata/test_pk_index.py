"""Primary-key indexes of Paimon 2.0 (``metadata/pk_index.py``) on the two fixtures Java wrote
with them: their payloads parse and cover exactly their level's files, reads (with filters on
the indexed columns) are exact, and our writes keep every live payload true: a commit that
rewrites a level drops that level's payloads, one that only adds level-0 files keeps them."""

from __future__ import annotations

import struct
from collections import Counter

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import CorruptMetadata
from paimon_core.metadata.index_manifest import IndexStore
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.pk_index import SourceMeta, is_payload, is_source
from tests.java1x import encoded_rows, expected, fixture_copy, precisions, table_dir

GOLDEN = "pk-global-index-golden-parquet-2.0dev"
BTREE = "pk-btree-partitioned-parquet-2.0"


def payload_problems(t, snapshot=None) -> list[str]:
    """Every live payload whose sources differ from the source files of its level in its bucket
    (the invariant; Java ignores such a payload, we never leave one behind)."""
    snap = t.snapshots.snapshot(snapshot) if snapshot else t.snapshots.latest()
    files: dict = {}
    for e in live_entries(t.manifests, snap):
        if is_source(e.file.level, e.file.file_source):
            files.setdefault((e.partition, e.bucket, e.file.level), set()).add(
                (e.file.file_name, e.file.row_count)
            )
    out = []
    for e in IndexStore(t.io, t.path).read_manifest(snap.index_manifest):
        if is_payload(e):
            assert e.global_index is not None and e.global_index.source_meta is not None
            meta = SourceMeta.parse(e.global_index.source_meta)
            if set(meta.files) != files.get((e.partition, e.bucket, meta.level), set()):
                out.append(f"{e.index_type} {e.file_name} level {meta.level}: {meta.files}")
    return out


def payloads(t) -> list:
    snap = t.snapshots.latest()
    return [e for e in IndexStore(t.io, t.path).read_manifest(snap.index_manifest) if is_payload(e)]


@pytest.mark.parametrize("name", [GOLDEN, BTREE])
def test_java_payloads_cover_their_level_exactly(name):
    wh, ident, _ = table_dir(name)
    t = FileSystemCatalog(str(wh)).get_table(ident)
    assert payloads(t), "the fixture has primary-key index payloads"
    assert payload_problems(t) == []


def test_golden_payloads_parse():
    wh, ident, _ = table_dir(GOLDEN)
    t = FileSystemCatalog(str(wh)).get_table(ident)
    got = {
        (e.index_type, e.global_index.index_field_id): SourceMeta.parse(e.global_index.source_meta)
        for e in payloads(t)
        if e.global_index is not None and e.global_index.source_meta is not None
    }
    src = (("data-1204a156-ccd1-48bf-96e6-31ac2028e91a-0.parquet", 4),)
    assert got == {("btree", 1): SourceMeta(2, src), ("bitmap", 2): SourceMeta(2, src)}


@pytest.mark.parametrize(
    "data",
    [
        b"",
        struct.pack(">iii", 1, 0, 0),  # level 0 is never indexed
        struct.pack(">iiiH", 1, 1, 1, 3) + b"abc",  # row count missing
        struct.pack(">iii", 1, 1, 0) + b"x",  # trailing bytes
    ],
)
def test_bad_source_meta_is_corrupt_metadata(data):
    with pytest.raises(CorruptMetadata, match="_SOURCE_META"):
        SourceMeta.parse(data)


def test_unknown_source_meta_version_is_refused_by_name():
    from paimon_core.errors import UnsupportedFeature

    with pytest.raises(UnsupportedFeature, match="_SOURCE_META version 2 is not supported"):
        SourceMeta.parse(struct.pack(">iii", 2, 1, 0))


def test_source_meta_modified_utf8():
    name = "data-\u00e9\U0001f600-0.parquet"
    units = name.encode("utf-16-be", "surrogatepass")
    enc = bytearray()
    for i in range(0, len(units), 2):  # Java's writeUTF: each UTF-16 unit on its own
        c = (units[i] << 8) | units[i + 1]
        if 0 < c < 0x80:
            enc.append(c)
        elif c < 0x800:
            enc += bytes((0xC0 | c >> 6, 0x80 | c & 0x3F))
        else:
            enc += bytes((0xE0 | c >> 12, 0x80 | (c >> 6) & 0x3F, 0x80 | c & 0x3F))
    data = struct.pack(">iiiH", 1, 3, 1, len(enc)) + bytes(enc) + struct.pack(">q", 7)
    assert SourceMeta.parse(data) == SourceMeta(3, ((name, 7),))


def _ids(t, where) -> list[int]:
    return sorted(r["id"] for r in t.read(where=where).to_pylist())


def test_filters_the_fixtures_assert():
    """pypaimon's golden test: name = 'name-4' -> [4], category = 'odd' -> [1, 3, 5]; the btree
    fixture's test reads every row of snapshot 2 with score >= 0."""
    wh, ident, _ = table_dir(GOLDEN)
    t = FileSystemCatalog(str(wh)).get_table(ident)
    assert _ids(t, "name = 'name-4'") == [4]
    assert _ids(t, "category = 'odd'") == [1, 3, 5]
    wh, ident, table = table_dir(BTREE)
    t = FileSystemCatalog(str(wh)).get_table(ident)
    got = encoded_rows(t.read(where="score >= 0", snapshot_id=2), precisions(table))
    assert got == expected(BTREE, "expected-snapshot-2.jsonl")


def _rows(t, where=None) -> Counter:
    return Counter(tuple(sorted(r.items())) for r in t.read(where=where).to_pylist())


def test_level0_ingest_keeps_payloads_and_compaction_drops_the_rewritten_level(tmp_path):
    """The btree fixture is write-only: an ingest adds level-0 files and leaves the payloads as
    Java wrote them (still exact); a full compaction rewrites the buckets with more than one sorted run and drops their payloads,
    keeping those of the buckets it leaves alone."""
    wh, ident = fixture_copy(BTREE, tmp_path)
    t = FileSystemCatalog(wh).get_table(ident)
    before = payloads(t)
    rows = pa.table(
        {
            "pt": pa.array([1, 2], pa.int32()),
            "id": pa.array([20, 9999], pa.int32()),
            "score": pa.array([777, 5], pa.int32()),
            "tag": ["upd", "new"],
        }
    )
    t.write_arrow(rows)
    t = FileSystemCatalog(wh).get_table(ident)
    assert {e.file_name for e in payloads(t)} == {e.file_name for e in before}
    assert payload_problems(t) == []
    full_compact(t)
    t = FileSystemCatalog(wh).get_table(ident)
    assert payload_problems(t) == [], "no payload names a rewritten file"
    after = {e.file_name for e in payloads(t)}
    assert after < {e.file_name for e in before}, "the rewritten buckets' payloads are gone, the others stay"
    got = _rows(t, "score = 777")
    assert got == Counter([(("id", 20), ("pt", 1), ("score", 777), ("tag", "upd"))])


def test_compaction_of_the_golden_table_keeps_its_index_true(tmp_path):
    wh, ident = fixture_copy(GOLDEN, tmp_path)
    t = FileSystemCatalog(wh).get_table(ident)
    t.write_arrow(
        pa.table(
            {
                "id": pa.array([4, 7], pa.int32()),
                "name": ["name-40", "name-4"],
                "category": ["odd", "even"],
            }
        )
    )
    t = FileSystemCatalog(wh).get_table(ident)
    full_compact(t)
    t = FileSystemCatalog(wh).get_table(ident)
    assert payload_problems(t) == []
    assert _ids(t, "name = 'name-4'") == [7]
    assert _ids(t, "category = 'odd'") == [1, 3, 4, 5]


_OK = {"bucket": "2", "deletion-vectors.enabled": "true", "pk-btree.index.columns": "s"}


@pytest.mark.parametrize(
    ("keys", "options", "words"),
    [
        (("id",), {**_OK, "deletion-vectors.enabled": "false"}, "deletion-vectors.enabled = true"),
        ((), {"deletion-vectors.enabled": "true", "pk-bitmap.index.columns": "s"}, "primary-key table"),
        (("id",), {**_OK, "bucket": "-1"}, "bucket is -1"),
        (("id",), {**_OK, "pk-btree.index.columns": "s,s"}, "duplicate columns"),
        (("id",), {**_OK, "pk-bitmap.index.columns": "s"}, "at most one primary-key index"),
        (("id",), {**_OK, "pk-btree.index.columns": "x"}, "entry 'x' must reference an existing column"),
    ],
)
def test_java_rules_for_index_options_at_create(tmp_path, keys, options, words):
    from paimon_core.errors import InvalidInput
    from paimon_core.metadata.schema import Schema

    cols = Schema.parse_columns("id INT NOT NULL, s STRING")
    with pytest.raises(InvalidInput, match=words.replace("(", r"\(")):
        FileSystemCatalog(str(tmp_path)).create_table("db.t", Schema(cols, (), keys, options))


def test_a_table_with_index_options_is_created_and_written(tmp_path):
    """Our writes build no payload: the table reads as usual, every file uncovered."""
    from paimon_core.metadata.schema import Schema

    cols = Schema.parse_columns("id INT NOT NULL, s STRING")
    t = FileSystemCatalog(str(tmp_path)).create_table(
        "db.t", Schema(cols, (), ("id",), {**_OK, "pk-bitmap.index.columns": "id"})
    )
    t.write_arrow(pa.table({"id": pa.array([1, 2], pa.int32()), "s": ["a", "b"]}))
    full_compact(FileSystemCatalog(str(tmp_path)).get_table("db.t"))
    t = FileSystemCatalog(str(tmp_path)).get_table("db.t")
    assert _ids(t, "s = 'b'") == [2] and payloads(t) == []


def test_global_index_enabled_is_a_reader_option_writes_take(tmp_path):
    """``global-index.enabled`` only says whether readers may use the indexes: a table that sets
    it takes our writes (before, any value but false was refused on write)."""
    from paimon_core.metadata.schema import Schema

    cols = Schema.parse_columns("id INT NOT NULL, s STRING")
    t = FileSystemCatalog(str(tmp_path)).create_table(
        "db.t", Schema(cols, (), ("id",), {**_OK, "global-index.enabled": "true"})
    )
    t.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "s": ["a"]}))
    assert _ids(FileSystemCatalog(str(tmp_path)).get_table("db.t"), "s = 'a'") == [1]
