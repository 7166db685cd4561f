"""Iceberg-compatible metadata against Java Paimon (issue #23 point 6): Java 0.9
(``metadata.iceberg-compatible``) and 1.4.2 (``metadata.iceberg.storage``) write a table, pyiceberg
reads Java's metadata at every snapshot, we commit on top and pyiceberg still reads right; the
metadata we write for the same commits has Java's schema, partition spec, snapshot summaries and
manifest entries (paths, uuids and times aside)."""

from __future__ import annotations

import json
import os
import time

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.metadata.schema import Schema

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "dt", "type": "STRING NOT NULL"},
]
BATCHES = [
    [{"id": 1, "v": "a", "dt": "x"}, {"id": 2, "v": None, "dt": "y"}],
    [{"id": 3, "v": "c", "dt": "x"}],
]


def _option(java) -> dict:
    if java.version == "0.9":
        return {"metadata.iceberg-compatible": "true"}
    return {"metadata.iceberg.storage": "table-location"}


def _metadata_dir(wh) -> str:
    return os.path.join(wh, "db.db", "t", "metadata")


def _iceberg(wh):
    from pyiceberg.table import StaticTable

    d = _metadata_dir(wh)
    with open(os.path.join(d, "version-hint.text")) as f:
        return StaticTable.from_metadata(os.path.join(d, f"v{f.read().strip()}.metadata.json"))


def _rows(arrow: pa.Table) -> list[tuple]:
    return sorted(tuple(r[c] for c in ("id", "v", "dt")) for r in arrow.to_pylist())


def _check_every_snapshot(wh) -> list[int]:
    ice = _iceberg(wh)
    table = FileSystemCatalog(str(wh)).get_table("db.t")
    ids = [s.snapshot_id for s in ice.metadata.snapshots]
    for sid in ids:
        assert _rows(ice.scan(snapshot_id=sid).to_arrow()) == _rows(table.read(snapshot_id=sid)), sid
    return ids


def _java_table(java, wh, batches=BATCHES, options=None, compact=False, pk=()) -> None:
    base = {"warehouse": str(wh), "table": "db.t"}
    java.run(
        [
            {
                "op": "create_table",
                **base,
                "schema": SCHEMA,
                "primary_keys": list(pk),
                "partition_keys": ["dt"],
                "options": {"bucket": "1" if pk else "-1", **_option(java), **(options or {})},
            }
        ]
        + [{"op": "write", **base, "rows": rows} for rows in batches]
        + ([{"op": "compact", **base, "full": True}] if compact else [])
    )


def _arrow(rows: list[dict]) -> pa.Table:
    return pa.table(
        {
            "id": pa.array([r["id"] for r in rows], pa.int32()),
            "v": pa.array([r["v"] for r in rows], pa.string()),
            "dt": [r["dt"] for r in rows],
        }
    )


def test_java_metadata_read_then_ours_on_top(java, tmp_path):
    wh = tmp_path / "wh"
    _java_table(java, wh)
    if java.version == "0.9":
        # Java 0.9's manifests and manifest lists carry no Iceberg field ids: pyiceberg cannot
        # read them. Our next commit replaces them (metadata afresh).
        with pytest.raises(TypeError):  # pyiceberg's Avro schema conversion without field ids
            _iceberg(wh).scan().to_arrow()
        java_ids = None
    else:
        java_ids = _check_every_snapshot(wh)
        assert java_ids == [1, 2], "pyiceberg reads Java's metadata"
    t = FileSystemCatalog(str(wh)).get_table("db.t")
    t.write_arrow(_arrow([{"id": 4, "v": "d", "dt": "y"}]))
    assert _check_every_snapshot(wh) == ([3] if java_ids is None else [1, 2, 3])
    assert _rows(_iceberg(wh).scan().to_arrow()) == [
        (1, "a", "x"),
        (2, None, "y"),
        (3, "c", "x"),
        (4, "d", "y"),
    ]
    t.write_arrow(_arrow([{"id": 5, "v": "e", "dt": "x"}]))
    assert _check_every_snapshot(wh)[-2:] == [3, 4]
    # Java's orphan cleanup leaves the Iceberg metadata folder alone, as ours does
    before = sorted(os.listdir(_metadata_dir(wh)))
    (cleaned,) = java.run(
        [
            {
                "op": "orphan_clean",
                "warehouse": str(wh),
                "table": "db.t",
                "older_than_ms": int(time.time() * 1000) + 60_000,
            }
        ]
    )
    assert not [p for p in cleaned["deleted"] if "metadata" in p], cleaned
    assert sorted(os.listdir(_metadata_dir(wh))) == before
    assert _check_every_snapshot(wh)[-2:] == [3, 4]


def _avro(path: str) -> list[dict]:
    import fastavro

    with open(path, "rb") as f:
        return list(fastavro.reader(f))


def _manifest_view(meta: dict, parents: bool = True) -> list:
    """Per snapshot: parent, operation, and per manifest (by sequence number) its counts,
    partition summaries and entries (status, sequence numbers, partition, rows, stats): what
    Java writes, without paths, file sizes, uuids and times. Read by field name, since Java 0.9's
    Avro files carry no field ids."""
    out = []
    for s in meta["snapshots"]:
        manifests = []
        for m in sorted(_avro(s["manifest-list"]), key=lambda m: m["sequence_number"]):
            entries = sorted(
                (
                    e["status"],
                    e["snapshot_id"],
                    e["sequence_number"],
                    e["file_sequence_number"],
                    sorted(e["data_file"]["partition"].items()),
                    e["data_file"]["record_count"],
                    sorted((kv["key"], kv["value"]) for kv in e["data_file"]["null_value_counts"] or []),
                    sorted((kv["key"], kv["value"]) for kv in e["data_file"]["lower_bounds"] or []),
                    sorted((kv["key"], kv["value"]) for kv in e["data_file"]["upper_bounds"] or []),
                )
                for e in _avro(m["manifest_path"])
            )
            counts = {
                k: v for k, v in m.items() if k not in ("manifest_path", "manifest_length", "partitions")
            }
            manifests.append((counts, m["partitions"], entries))
        out.append(
            (s["snapshot-id"], s.get("parent-snapshot-id") if parents else None, s["summary"], manifests)
        )
    return out


def _schemas(meta: dict) -> list:
    """The schemas without Java 0.9's ``"doc": null``."""
    return [
        {**s, "fields": [{k: v for k, v in f.items() if not (k == "doc" and v is None)} for f in s["fields"]]}
        for s in meta["schemas"]
    ]


MORE = [[{"id": 10 + i, "v": f"m{i}", "dt": "xy"[i % 2]}] for i in range(4)]
# every bucket gets two files: a lone level-0 file Java's full compaction upgrades, ours rewrites
UPDATES = [{"id": 1, "v": "u", "dt": "x"}, {"id": 2, "v": "w", "dt": "y"}]
MERGING = {"metadata.iceberg.compaction.min.file-num": "2", "metadata.iceberg.compaction.max.file-num": "3"}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(("two appends", BATCHES, {}, False), id="appends"),
        pytest.param(("merged manifests", BATCHES + MORE, MERGING, False), id="merging"),
        pytest.param(("full compaction", BATCHES + MORE[:2], {}, True), id="compaction"),
        pytest.param(("primary key", BATCHES + [UPDATES], {}, True), id="pk"),
    ],
)
def test_our_metadata_matches_javas_for_the_same_commits(java, tmp_path, case):
    name, batches, options, compact = case
    pk = ("id", "dt") if name == "primary key" else ()
    java_wh, our_wh = tmp_path / "java", tmp_path / "ours"
    _java_table(java, java_wh, batches, options, compact, pk)
    cat = FileSystemCatalog(str(our_wh))
    cat.create_database("db")
    columns = Schema.parse_columns(", ".join(f"{c['name']} {c['type']}" for c in SCHEMA))
    bucket = "1" if pk else "-1"
    t = cat.create_table("db.t", Schema(columns, ("dt",), pk, {"bucket": bucket, **_option(java), **options}))
    for rows in batches:
        t.write_arrow(_arrow(rows))
    if compact:
        full_compact(t)
    n = len(batches) + int(compact)
    ours, theirs = (
        json.loads(open(os.path.join(_metadata_dir(w), f"v{n}.metadata.json")).read())
        for w in (our_wh, java_wh)
    )
    keys = (
        "format-version",
        "last-column-id",
        "current-schema-id",
        "partition-specs",
        "default-spec-id",
        "last-partition-id",
        "sort-orders",
        "default-sort-order-id",
        "current-snapshot-id",
        "last-sequence-number",
    ) + (("refs",) if java.version != "0.9" else ())  # fmt: skip  (0.9 writes no refs)
    for key in keys:
        assert ours.get(key) == theirs.get(key), key
    assert _schemas(ours) == _schemas(theirs)
    parents = java.version != "0.9"  # 0.9 wrote no parent-snapshot-id; 1.x and we do
    assert _manifest_view(ours, parents) == _manifest_view(theirs, parents)
    assert sorted(os.listdir(_metadata_dir(our_wh)))[-2:] == [f"v{n}.metadata.json", "version-hint.text"]
    if java.version != "0.9":  # pyiceberg reads no Java 0.9 metadata (see above)
        assert _rows(_iceberg(our_wh).scan().to_arrow()) == _rows(_iceberg(java_wh).scan().to_arrow())
    assert len(os.listdir(_metadata_dir(our_wh))) == len(os.listdir(_metadata_dir(java_wh)))


def test_hadoop_catalog_path_as_java(java, tmp_path):
    """``hadoop-catalog``: Java 1.4.2 and we write under ``<warehouse>/iceberg/<db>/<table>/metadata``
    (0.9 does not know the option and writes nothing)."""
    java_wh, our_wh = tmp_path / "java", tmp_path / "ours"
    opt = {"metadata.iceberg.storage": "hadoop-catalog"}
    base = {"warehouse": str(java_wh), "table": "db.t"}
    java.run(
        [
            {
                "op": "create_table",
                **base,
                "schema": SCHEMA,
                "primary_keys": [],
                "partition_keys": [],
                "options": opt,
            },
            {"op": "write", **base, "rows": BATCHES[0]},
        ]
    )
    cat = FileSystemCatalog(str(our_wh))
    cat.create_database("db")
    columns = Schema.parse_columns(", ".join(f"{c['name']} {c['type']}" for c in SCHEMA))
    cat.create_table("db.t", Schema(columns, (), (), dict(opt))).write_arrow(_arrow(BATCHES[0]))
    ours = sorted(os.listdir(our_wh / "iceberg" / "db" / "t" / "metadata"))
    assert ours[-2:] == ["v1.metadata.json", "version-hint.text"]
    if java.version == "0.9":
        assert not (java_wh / "iceberg").exists()
        return
    theirs = sorted(os.listdir(java_wh / "iceberg" / "db" / "t" / "metadata"))
    assert len(ours) == len(theirs) and theirs[-2:] == ours[-2:]


DV = {
    "metadata.iceberg.format-version": "3",
    "deletion-vectors.enabled": "true",
    "deletion-vectors.bitmap64": "true",
}


def _dv_view(meta: dict) -> list:
    """Per snapshot: per manifest its content and counts, and per entry what Java writes of a
    data file or a deletion vector (without paths, file names and sizes, which differ)."""
    out = []
    for s in meta["snapshots"]:
        manifests = []
        for m in _avro(s["manifest-list"]):
            entries = []
            for e in _avro(m["manifest_path"]):
                d = e["data_file"]
                entries.append(
                    (
                        e["status"],
                        e["snapshot_id"],
                        e["sequence_number"],
                        d["content"],
                        d["file_format"],
                        sorted(d["partition"].items()),
                        d["record_count"],
                        d["file_size_in_bytes"] if d["content"] else None,
                        d["content_size_in_bytes"],
                        d["content_offset"] is not None,
                        d["referenced_data_file"] is not None,
                        d["null_value_counts"] is None,
                    )
                )
            counts = {
                k: v for k, v in m.items() if k not in ("manifest_path", "manifest_length", "partitions")
            }
            manifests.append((m["content"], sorted(counts.items()), sorted(entries)))
        out.append((s["snapshot-id"], s["summary"], sorted(manifests)))
    return out


def test_java14_deletion_vectors_as_iceberg_v3(java14, tmp_path):
    """A deletion-vector table with Iceberg v3 metadata. Java 1.4.2 writes the table (its
    writer's compaction leaves deletion vectors); our metadata for Java's very commits, written
    afresh from them, equals Java's at every snapshot: format version 3, data files above level 0,
    one position delete per vector naming the Paimon index file at the vector's offset, and
    the delete manifests kept or rebuilt as Java does. (Our writer compacts differently, so the
    same rows written by us give other Paimon files: tests/cli/test_iceberg_metadata.py checks
    our writes' entries against our index files.) pyiceberg 0.12 cannot read these deletes: it
    takes a deletion vector only from a whole Puffin file, which Paimon's index file is not."""
    import shutil

    from paimon_core.iceberg.sync import sync_iceberg

    # the last write, to a new partition, leaves the vectors as they were: their manifests kept
    batches = BATCHES + [UPDATES, [{"id": 20, "v": "n", "dt": "z"}]]
    java_wh, our_wh = tmp_path / "java", tmp_path / "ours"
    _java_table(java14, java_wh, batches, DV, pk=("id", "dt"))
    shutil.copytree(java_wh, our_wh)
    shutil.rmtree(_metadata_dir(our_wh))
    sync_iceberg(FileSystemCatalog(str(our_wh)).get_table("db.t"))
    metas = {}
    for name, w in (("ours", our_wh), ("java", java_wh)):
        d = _metadata_dir(w)
        with open(os.path.join(d, "version-hint.text")) as f:
            metas[name] = json.loads(open(os.path.join(d, f"v{f.read().strip()}.metadata.json")).read())
    ours, theirs = metas["ours"], metas["java"]
    for key in (
        "format-version",
        "last-column-id",
        "current-schema-id",
        "partition-specs",
        "last-partition-id",
    ):
        assert ours.get(key) == theirs.get(key), key
    assert ours["format-version"] == 3
    assert _schemas(ours) == _schemas(theirs)
    assert _dv_view(ours) == _dv_view(theirs)
    view = _dv_view(ours)
    assert any(m[0] == 1 for m in view[-3][2]), "Java's compaction made deletion vectors"
    assert [m for m in view[-1][2] if m[0] == 1] == [m for m in view[-3][2] if m[0] == 1]
    (java_rows,) = java14.run([{"op": "read", "warehouse": str(java_wh), "table": "db.t"}])
    assert sorted((r["id"], r["v"], r["dt"]) for r in java_rows["rows"]) == _rows(
        FileSystemCatalog(str(our_wh)).get_table("db.t").read()
    )


def test_java14_branch_commits_and_iceberg_metadata(java14, tmp_path):
    """Java 1.4.2 writes the Iceberg metadata of a branch's commits into the table's one
    metadata folder, on top of the main branch's (Iceberg readers then see the branch's rows
    as the table's). We write none for a branch's commits: the metadata stays the main
    branch's, which pyiceberg reads."""
    from paimon_core.maintain.branches import create_branch
    from paimon_core.maintain.tags import create_tag

    java_wh, our_wh = tmp_path / "java", tmp_path / "ours"
    base = {"warehouse": str(java_wh), "table": "db.t"}
    _java_table(java14, java_wh, BATCHES[:1])
    java14.run(
        [
            {"op": "create_tag", **base, "tag": "t1", "tag_snapshot": 1},
            {"op": "create_branch", **base, "name": "b1", "from_tag": "t1"},
            {"op": "write", **base, "branch": "b1", "rows": BATCHES[1]},
        ]
    )
    java_meta = json.loads(open(os.path.join(_metadata_dir(java_wh), "v2.metadata.json")).read())
    assert [s["snapshot-id"] for s in java_meta["snapshots"]] == [1, 2]  # the branch's snapshot 2
    assert _rows(_iceberg(java_wh).scan().to_arrow()) == _rows(_arrow(BATCHES[0] + BATCHES[1]))

    cat = FileSystemCatalog(str(our_wh))
    cat.create_database("db")
    columns = Schema.parse_columns(", ".join(f"{c['name']} {c['type']}" for c in SCHEMA))
    t = cat.create_table("db.t", Schema(columns, ("dt",), (), {"bucket": "-1", **_option(java14)}))
    t.write_arrow(_arrow(BATCHES[0]))
    create_tag(t, "t1", 1)
    create_branch(t, "b1", tag="t1")
    cat.get_table("db.t", branch="b1").write_arrow(_arrow(BATCHES[1]))
    assert sorted(f for f in os.listdir(_metadata_dir(our_wh)) if f.endswith(".json")) == ["v1.metadata.json"]
    assert _rows(_iceberg(our_wh).scan().to_arrow()) == _rows(_arrow(BATCHES[0]))
