"""Iceberg-compatible metadata (issue #23 point 6): after each commit of ours, pyiceberg (the
independent Iceberg reader) reads, at every Iceberg snapshot the metadata keeps, exactly the rows
Paimon reads at that snapshot; through compaction, expiry, rollback and orphan cleanup."""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from tests.cli.conftest import write_parquet

pytest.importorskip("pyiceberg", reason="pyiceberg is in the dev extra: pip install -e '.[dev]'")

SCHEMA = "id BIGINT NOT NULL, v STRING, dt STRING NOT NULL"


def _input(tmp_path, name, ids, tag):
    t = pa.table(
        {"id": pa.array(ids, pa.int64()), "v": [f"{tag}{i}" for i in ids], "dt": [f"d{i % 2}" for i in ids]}
    )
    return write_parquet(tmp_path / name, t)


def _rows(arrow: pa.Table) -> list[tuple]:
    return sorted(tuple(r[c] for c in ("id", "v", "dt")) for r in arrow.to_pylist())


def _metadata_dir(wh, storage="table-location"):
    if storage == "hadoop-catalog":
        return os.path.join(wh, "iceberg", "db", "t", "metadata")
    return os.path.join(wh, "db.db", "t", "metadata")


def _iceberg(wh, storage="table-location"):
    from pyiceberg.table import StaticTable

    d = _metadata_dir(wh, storage)
    with open(os.path.join(d, "version-hint.text")) as f:
        version = f.read().strip()
    return StaticTable.from_metadata(os.path.join(d, f"v{version}.metadata.json"))


def _check(wh, storage="table-location") -> list[int]:
    """pyiceberg's rows at each Iceberg snapshot equal Paimon's at that snapshot (an append
    table); returns the Iceberg snapshot ids."""
    ice = _iceberg(wh, storage)
    table = FileSystemCatalog(str(wh)).get_table("db.t")
    ids = [s.snapshot_id for s in ice.metadata.snapshots]
    for sid in ids:
        got = _rows(ice.scan(snapshot_id=sid).to_arrow())
        want = _rows(table.read(snapshot_id=sid))
        assert got == want, f"snapshot {sid}"
    return ids


@pytest.mark.slow
def test_append_table_through_ingest_compact_expire_rollback_orphans(cli, tmp_path):
    cli(
        "create-table",
        "db.t",
        "--schema",
        SCHEMA,
        "--partition",
        "dt",
        "-O",
        "metadata.iceberg.storage=table-location",
    )
    for n in range(3):
        cli("ingest", "-t", "db.t", _input(tmp_path, f"a{n}.parquet", list(range(n * 3, n * 3 + 3)), "a"))
        assert _check(cli.wh) == list(range(1, n + 2))
    cli("compact", "-t", "db.t", "--full")
    ids = _check(cli.wh)
    assert ids == [1, 2, 3, 4]
    ice = _iceberg(cli.wh)
    assert ice.metadata.snapshot_by_id(4).summary.operation.value == "overwrite"
    assert len(ice.scan().plan_files()) == 2  # one compacted file a partition
    cli("expire", "-t", "db.t", "--retain-min", "2", "--older-than", "0s")
    paimon_ids = [s["id"] for s in cli.json("snapshots", "-t", "db.t")]
    assert _check(cli.wh) == paimon_ids == [3, 4]
    cli("ingest", "-t", "db.t", _input(tmp_path, "b.parquet", [1, 20], "b"))
    assert _check(cli.wh) == [3, 4, 5]
    cli("rollback", "-t", "db.t", "--to", "4")
    assert _check(cli.wh) == [4]
    cli("ingest", "-t", "db.t", _input(tmp_path, "c.parquet", [30], "c"))
    assert _check(cli.wh) == [4, 5]
    names = sorted(os.listdir(_metadata_dir(cli.wh)))
    cli("remove-orphans", "-t", "db.t", "--older-than", "0s")
    assert sorted(os.listdir(_metadata_dir(cli.wh))) == names  # out of the orphan scan's scope
    assert _check(cli.wh) == [4, 5]
    # only the live version and the files its snapshots use are left
    ice = _iceberg(cli.wh)
    used = {os.path.basename(s.manifest_list) for s in ice.metadata.snapshots}
    for s in ice.metadata.snapshots:
        used |= {os.path.basename(m.manifest_path) for m in s.manifests(ice.io)}
    assert set(names) == used | {"v5.metadata.json", "version-hint.text"}


@pytest.mark.slow
def test_primary_key_table_exposes_compacted_rows(cli, tmp_path):
    cli(
        "create-table",
        "db.t",
        "--schema",
        SCHEMA,
        "--primary-key",
        "id",
        "--bucket",
        "1",
        "-O",
        "metadata.iceberg.storage=table-location",
    )
    cli("ingest", "-t", "db.t", _input(tmp_path, "a.parquet", [1, 2, 3], "a"))
    cli("ingest", "-t", "db.t", _input(tmp_path, "b.parquet", [2, 3, 4], "b"))
    # as Java: the first metadata (without base) exposes the bucket's lone level-0 file; later
    # level-0 files are not exposed until a full compaction moves the rows to the top level
    assert _rows(_iceberg(cli.wh).scan().to_arrow()) == [(1, "a1", "d1"), (2, "a2", "d0"), (3, "a3", "d1")]
    cli("compact", "-t", "db.t", "--full")
    ice = _iceberg(cli.wh)
    assert _rows(ice.scan().to_arrow()) == [
        (1, "a1", "d1"),
        (2, "b2", "d0"),
        (3, "b3", "d1"),
        (4, "b4", "d0"),
    ]
    cli("ingest", "-t", "db.t", _input(tmp_path, "c.parquet", [1], "c"))
    assert _rows(_iceberg(cli.wh).scan().to_arrow())[0] == (1, "a1", "d1")  # not compacted yet
    cli("compact", "-t", "db.t", "--full")
    assert _rows(_iceberg(cli.wh).scan().to_arrow())[0] == (1, "c1", "d1")
    ice, table = _iceberg(cli.wh), FileSystemCatalog(str(cli.wh)).get_table("db.t")
    for sid in (3, 5):  # the full compactions: every row is in a top-level file
        assert _rows(ice.scan(snapshot_id=sid).to_arrow()) == _rows(table.read(snapshot_id=sid))


def test_hadoop_catalog_path(cli, tmp_path):
    cli("create-table", "db.t", "--schema", SCHEMA, "-O", "metadata.iceberg.storage=hadoop-catalog")
    cli("ingest", "-t", "db.t", _input(tmp_path, "a.parquet", [1, 2], "a"))
    assert not os.path.exists(os.path.join(cli.wh, "db.db", "t", "metadata"))
    assert _check(cli.wh, "hadoop-catalog") == [1]
    meta = json.loads(open(os.path.join(_metadata_dir(cli.wh, "hadoop-catalog"), "v1.metadata.json")).read())
    assert meta["location"] == os.path.join(str(cli.wh), "db.db", "t")


def test_java09_option_writes_table_location_metadata(cli, tmp_path):
    cli("create-table", "db.t", "--schema", SCHEMA, "-O", "metadata.iceberg-compatible=true")
    cli("ingest", "-t", "db.t", _input(tmp_path, "a.parquet", [1, 2], "a"))
    assert _check(cli.wh) == [1]


@pytest.mark.parametrize(
    "options,schema,words",
    [
        (["metadata.iceberg.storage=hive-catalog"], SCHEMA, ["metadata.iceberg.storage"]),
        (
            ["metadata.iceberg.storage=table-location", "deletion-vectors.enabled=true"],
            SCHEMA,
            ["format-version=3", "deletion-vectors.bitmap64=true"],
        ),
        (
            [
                "metadata.iceberg.storage=table-location",
                "deletion-vectors.enabled=true",
                "metadata.iceberg.format-version=3",
            ],
            SCHEMA,
            ["deletion-vectors.bitmap64=true"],
        ),
        (["metadata.iceberg.storage=table-location"], "id BIGINT NOT NULL, t TIME", ["column t"]),
    ],
)
def test_what_is_not_written_is_refused_by_name(cli, tmp_path, options, schema, words):
    args = [x for o in options for x in ("-O", o)]
    r = cli("create-table", "db.t", "--schema", schema, *args, code=None)
    if r.exit_code == 0:  # accepted at create: the first write is refused, nothing committed
        if schema == SCHEMA:
            src = _input(tmp_path, "x.parquet", [1], "x")
        else:
            src = write_parquet(tmp_path / "x.parquet", pa.table({"id": pa.array([1], pa.int64())}))
        r = cli("ingest", "-t", "db.t", src, code=1)
        assert not cli.json("snapshots", "-t", "db.t")
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err


@pytest.mark.slow
def test_tags_become_iceberg_tags(cli, tmp_path):
    """A tag on a snapshot the metadata keeps is an Iceberg tag (created, renamed, deleted with
    the Paimon tag; Java's tag callback), readable by pyiceberg by name."""
    cli("create-table", "db.t", "--schema", SCHEMA, "-O", "metadata.iceberg.storage=table-location")
    cli("ingest", "-t", "db.t", _input(tmp_path, "a.parquet", [1, 2], "a"))
    cli("ingest", "-t", "db.t", _input(tmp_path, "b.parquet", [3], "b"))
    cli("tag", "create", "-t", "db.t", "first", "--snapshot", "1")
    ice = _iceberg(cli.wh)
    assert {k: r.snapshot_id for k, r in ice.metadata.refs.items() if k != "main"} == {"first": 1}
    assert _rows(ice.scan(snapshot_id=ice.metadata.refs["first"].snapshot_id).to_arrow()) == [
        (1, "a1", "d1"),
        (2, "a2", "d0"),
    ]
    cli("tag", "rename", "-t", "db.t", "first", "one")
    assert {k for k in _iceberg(cli.wh).metadata.refs if k != "main"} == {"one"}
    cli("ingest", "-t", "db.t", _input(tmp_path, "c.parquet", [4], "c"))  # kept by the next commit
    assert {k for k in _iceberg(cli.wh).metadata.refs if k != "main"} == {"one"}
    cli("tag", "delete", "-t", "db.t", "one")
    assert {k for k in _iceberg(cli.wh).metadata.refs if k != "main"} == set()


@pytest.mark.slow
def test_typed_bounds_prune_right(cli, tmp_path):
    """Every mapped type's bounds (Iceberg's single-value bytes) and a DATE partition: pyiceberg
    prunes files by them, so a filter matching one row finds it (a wrong bound loses it)."""
    import datetime as dt
    from decimal import Decimal

    from pyiceberg.expressions import EqualTo, GreaterThan, LessThan

    schema = (
        "id INT NOT NULL, d DATE, ts TIMESTAMP(6), ts3 TIMESTAMP(3), dec DECIMAL(10,2), "
        "big DECIMAL(30,4), f DOUBLE, b BOOLEAN, s STRING, bin BYTES, sm SMALLINT, p DATE NOT NULL"
    )
    cli(
        "create-table",
        "db.t",
        "--schema",
        schema,
        "--partition",
        "p",
        "-O",
        "metadata.iceberg.storage=table-location",
    )
    day = dt.date(2024, 1, 1)
    t = pa.table(
        {
            "id": pa.array([1, 2, -3], pa.int32()),
            "d": [day, None, dt.date(1960, 5, 6)],
            "ts": pa.array(
                [dt.datetime(2024, 1, 1, 1, 2, 3, 456789), None, dt.datetime(1950, 1, 1)], pa.timestamp("us")
            ),
            "ts3": pa.array(
                [dt.datetime(2024, 1, 1, 1, 2, 3, 456000), None, dt.datetime(1950, 1, 1)], pa.timestamp("ms")
            ),
            "dec": pa.array([Decimal("1.25"), Decimal("-128.00"), None], pa.decimal128(10, 2)),
            "big": pa.array(
                [Decimal("12345678901234567890.1234"), Decimal("-1.0000"), None], pa.decimal128(30, 4)
            ),
            "f": [1.5, None, -2.0],
            "b": [True, False, None],
            "s": ["x", "yé", None],
            "bin": [b"a", None, b"zz"],
            "sm": pa.array([1, None, -5], pa.int16()),
            "p": [day, dt.date(2024, 1, 2), day],
        }
    )
    cli("ingest", "-t", "db.t", write_parquet(tmp_path / "typed.parquet", t))
    ice = _iceberg(cli.wh)
    cases = [
        (EqualTo("id", -3), [-3]),
        (EqualTo("d", "1960-05-06"), [-3]),
        (GreaterThan("ts", "2023-01-01T00:00:00"), [1]),
        (LessThan("ts3", "1960-01-01T00:00:00"), [-3]),
        (EqualTo("dec", Decimal("-128.00")), [2]),
        (GreaterThan("big", Decimal("1000000000000000000.0000")), [1]),
        (LessThan("big", Decimal("0.0000")), [2]),
        (LessThan("f", 0.0), [-3]),
        (EqualTo("b", False), [2]),
        (EqualTo("s", "yé"), [2]),
        (EqualTo("sm", -5), [-3]),
        (EqualTo("p", "2024-01-02"), [2]),
        (EqualTo("bin", b"zz"), [-3]),
    ]
    for expr, ids in cases:
        assert [r["id"] for r in ice.scan(row_filter=expr).to_arrow().to_pylist()] == ids, expr


@pytest.mark.slow
def test_missed_snapshots_are_caught_up(cli, tmp_path):
    """A commit whose metadata was not written (a crash after the commit) gets it at the next
    commit, built snapshot by snapshot on the last version there is; with
    ``metadata.iceberg.previous-versions-max`` older versions stay."""
    opts = ["-O", "metadata.iceberg.storage=table-location", "-O", "metadata.iceberg.previous-versions-max=9"]
    cli("create-table", "db.t", "--schema", SCHEMA, *opts)
    for n in range(3):
        cli("ingest", "-t", "db.t", _input(tmp_path, f"a{n}.parquet", [n], "a"))
    d = _metadata_dir(cli.wh)
    for v in (2, 3):
        os.remove(os.path.join(d, f"v{v}.metadata.json"))
    cli("ingest", "-t", "db.t", _input(tmp_path, "b.parquet", [9], "b"))
    assert sorted(n for n in os.listdir(d) if n.endswith(".json")) == [
        f"v{v}.metadata.json" for v in (1, 2, 3, 4)
    ]
    assert _check(cli.wh) == [1, 2, 3, 4]
    assert [s.parent_snapshot_id for s in _iceberg(cli.wh).metadata.snapshots] == [None, 1, 2, 3]


def test_storage_location_versions_kept_and_manifest_codec(cli, tmp_path):
    """``metadata.iceberg.storage-location=table-location`` puts a hadoop-catalog table's metadata
    in the table folder; ``metadata.iceberg.delete-after-commit.enabled=false`` keeps every
    ``vN.metadata.json``; ``metadata.iceberg.manifest-compression=deflate`` writes deflate Avro
    manifests that pyiceberg reads."""
    cli(
        "create-table", "db.t", "--schema", SCHEMA,
        "-O", "metadata.iceberg.storage=hadoop-catalog",
        "-O", "metadata.iceberg.storage-location=table-location",
        "-O", "metadata.iceberg.delete-after-commit.enabled=false",
        "-O", "metadata.iceberg.manifest-compression=deflate",
    )  # fmt: skip
    for k in range(3):
        cli("ingest", "-t", "db.t", _input(tmp_path, f"{k}.parquet", [k * 10, k * 10 + 1], "a"))
    d = _metadata_dir(cli.wh)  # the table folder, not <warehouse>/iceberg
    assert not os.path.exists(os.path.join(cli.wh, "iceberg"))
    assert {f for f in os.listdir(d) if f.endswith(".metadata.json")} == {
        f"v{n}.metadata.json" for n in (1, 2, 3)
    }
    assert _check(cli.wh) == [1, 2, 3]
    from fastavro import reader

    manifests = [f for f in os.listdir(d) if f.endswith(".avro") and "-m" in f]
    assert manifests
    with open(os.path.join(d, manifests[0]), "rb") as f:
        assert reader(f).codec == "deflate"


DV_OPTIONS = [
    "metadata.iceberg.storage=table-location",
    "metadata.iceberg.format-version=3",
    "deletion-vectors.enabled=true",
    "deletion-vectors.bitmap64=true",
]


def _avro(path: str) -> list[dict]:
    import fastavro

    with open(path, "rb") as f:
        return list(fastavro.reader(f))


def _latest_metadata(wh) -> dict:
    d = _metadata_dir(wh)
    with open(os.path.join(d, "version-hint.text")) as f:
        return json.loads(open(os.path.join(d, f"v{f.read().strip()}.metadata.json")).read())


def _deletes(meta: dict) -> list[tuple]:
    """The position-delete entries of the current snapshot: (data file name, record count,
    offset, size, index file name, format)."""
    current = next(s for s in meta["snapshots"] if s["snapshot-id"] == meta["current-snapshot-id"])
    out = []
    for m in _avro(current["manifest-list"]):
        for e in _avro(m["manifest_path"]):
            d = e["data_file"]
            assert (d["content"] == 1) == (m["content"] == 1)
            if d["content"] == 1:
                out.append(
                    (
                        os.path.basename(d["referenced_data_file"]),
                        d["record_count"],
                        d["content_offset"],
                        d["content_size_in_bytes"],
                        os.path.basename(d["file_path"]),
                        d["file_format"],
                    )
                )
    return sorted(out)


@pytest.mark.slow
def test_deletion_vectors_as_iceberg_v3(cli, tmp_path):
    """Java 1.4.2's v3 metadata of a deletion-vector table: files above level 0 exposed, one
    position-delete entry per vector naming the Paimon index file at the vector's offset."""
    args = [x for o in DV_OPTIONS for x in ("-O", o)]
    cli("create-table", "db.t", "--schema", SCHEMA, "--primary-key", "id", "--bucket", "1", *args)
    cli("ingest", "-t", "db.t", _input(tmp_path, "a.parquet", [1, 2, 3, 4], "a"))
    cli("ingest", "-t", "db.t", _input(tmp_path, "b.parquet", [2, 3], "b"))
    table = FileSystemCatalog(str(cli.wh)).get_table("db.t")
    latest = table.snapshots.latest()
    meta = json.loads(open(os.path.join(_metadata_dir(cli.wh), f"v{latest.id}.metadata.json")).read())
    assert meta["format-version"] == 3
    from paimon_core.metadata.deletion_vectors import dv_entries

    want = sorted(
        (r[0], r[3], r[1], r[2], e.file_name, "puffin")
        for e in dv_entries(table, latest)
        for r in e.dv_ranges
    )
    assert want, "the update made deletion vectors"
    assert _deletes(meta) == want
    # each entry's bytes are an Iceberg deletion-vector blob: length, magic, bitmap, CRC
    import struct
    import zlib

    from pyroaring import BitMap64

    for _name, card, offset, size, index_file, _ in want:
        with open(os.path.join(cli.wh, "db.db", "t", "index", index_file), "rb") as f:
            blob = f.read()[offset : offset + size]
        (length,) = struct.unpack(">i", blob[:4])
        assert length == size - 8 and blob[4:8] == b"\xd1\xd3\x39\x64"
        assert struct.unpack(">I", blob[-4:])[0] == zlib.crc32(blob[4:-4])
        assert len(BitMap64.deserialize(blob[8:-4])) == card
    # pyiceberg 0.12 takes a deletion vector only from a whole Puffin file, which Paimon's index
    # file is not: it fails by name rather than reading deleted rows; a reader that can must
    # see Paimon's rows
    try:
        got = _rows(_iceberg(cli.wh).scan().to_arrow())
    except ValueError as e:
        assert "magic bytes" in str(e), e
    else:
        assert got == _rows(table.read())
    # a commit that leaves the vectors as they were keeps the delete manifests
    cli("ingest", "-t", "db.t", _input(tmp_path, "c.parquet", [9], "c"))
    nxt = _latest_metadata(cli.wh)
    if {e.file_name for e in dv_entries(table, table.snapshots.latest())} == {e[4] for e in want}:
        assert _deletes(nxt) == want
    cli("compact", "-t", "db.t", "--full")
    assert _deletes(_latest_metadata(cli.wh)) == []  # a full compaction leaves no vector


def test_nested_columns_as_java_maps_them(cli, tmp_path):
    """ARRAY, MAP and ROW columns: Java's Iceberg types (element, key and value ids from the
    column id and depth, ROW fields with their Paimon ids), and pyiceberg reads the rows."""
    cli(
        "create-table",
        "db.t",
        "--schema",
        "id BIGINT NOT NULL, arr ARRAY<ARRAY<INT>>, mp MAP<STRING, BIGINT>, rw ROW<x INT, y ARRAY<STRING>>",
        "-O",
        "metadata.iceberg.storage=table-location",
    )
    data = pa.table(
        {
            "id": pa.array([1, 2], pa.int64()),
            "arr": pa.array([[[1, 2], None], None], pa.list_(pa.list_(pa.int32()))),
            "mp": pa.array([[("k", 1)], []], pa.map_(pa.string(), pa.int64())),
            "rw": pa.array(
                [{"x": 1, "y": ["s"]}, None], pa.struct([("x", pa.int32()), ("y", pa.list_(pa.string()))])
            ),
        }
    )
    cli("ingest", "-t", "db.t", write_parquet(tmp_path / "n.parquet", data))
    meta = _latest_metadata(cli.wh)
    base = 2**31 // 4 - 1  # Java's SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE
    fields = {f["name"]: f for f in meta["schemas"][-1]["fields"]}

    def optional_list(element_id: int, element) -> dict:
        return {"type": "list", "element-id": element_id, "element-required": False, "element": element}

    assert fields["arr"]["type"] == optional_list(
        base + 1 * 1024 + 1, optional_list(base + 1 * 1024 + 2, "int")
    )
    assert fields["mp"]["type"] == {
        "type": "map",
        "key-id": base - 2 * 1024 - 1,
        "key": "string",
        "value-id": base + 2 * 1024 + 1,
        "value-required": False,
        "value": "long",
    }
    assert fields["rw"]["type"] == {
        "type": "struct",
        "fields": [
            {"id": 4, "name": "x", "required": False, "type": "int"},
            {"id": 5, "name": "y", "required": False, "type": optional_list(base + 5 * 1024 + 1, "string")},
        ],
    }
    assert meta["last-column-id"] == 3  # Java's highestFieldId: the top-level fields'
    got = sorted(_iceberg(cli.wh).scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    want = FileSystemCatalog(str(cli.wh)).get_table("db.t").read().sort_by("id").to_pylist()
    assert got == want


@pytest.mark.slow
def test_append_table_deletion_vectors_as_iceberg_v3(cli, tmp_path):
    """An append table's deletion vectors (``delete``) become position deletes of its files."""
    args = [x for o in DV_OPTIONS for x in ("-O", o)]
    cli("create-table", "db.t", "--schema", SCHEMA, *args)
    cli("ingest", "-t", "db.t", _input(tmp_path, "a.parquet", [1, 2, 3, 4], "a"))
    assert _deletes(_latest_metadata(cli.wh)) == []
    cli("delete", "-t", "db.t", "--where", "id IN (2, 3)")
    table = FileSystemCatalog(str(cli.wh)).get_table("db.t")
    from paimon_core.metadata.deletion_vectors import dv_entries

    want = sorted(
        (r[0], r[3], r[1], r[2], e.file_name, "puffin")
        for e in dv_entries(table, table.snapshots.latest())
        for r in e.dv_ranges
    )
    assert [w[1] for w in want] == [2]  # both rows of the one data file
    assert _deletes(_latest_metadata(cli.wh)) == want
