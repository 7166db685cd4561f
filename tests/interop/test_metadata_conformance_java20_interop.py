"""Metadata conformance with Java Paimon 2.0.0: the same operations written by Java 2.0 and by us
give metadata files of the same shape, so that strict readers (ClickHouse's native Paimon reader
refused our manifests when their top-level Avro schema was a union) read ours as they read Java's.

Per file kind: Avro manifests and manifest lists have Java's writer schema (a top-level record of
Java's name, the same fields in the same order with the same types and nested record names) and
codec; every Avro metadata file we write has a top-level record; snapshot and schema JSON have
Java's keys. Where we differ on purpose, the difference is named below and pinned, so a new one
fails here and not in a user's reader.
"""

from __future__ import annotations

import json
from pathlib import Path

import fastavro
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from tests.interop.option_twins import KV, Case, create_ours, java_create, kv, our_write

pytestmark = [pytest.mark.interop, pytest.mark.slow]

RECORD = "org.apache.paimon.avro.generated.record"
# fields we write after Java 2.0's last one: Paimon master added them (data evolution's
# per-column sequences; the manifest list's bucket count and sidecar files). All nullable with a
# null default, so any Avro reader resolving by name (Java, pypaimon, ClickHouse) skips them.
EXTRA_FIELDS = {
    "manifest": {"_FILE": ["_WRITE_COLS_SEQUENCES"]},
    "manifest-list": {"": ["_TOTAL_BUCKETS", "_EXTRA_FILES"]},
}
# snapshot keys that differ: Java 2.0 writes `nextRowId` on every snapshot (row tracking's counter,
# 0 without it); we write it only on row-tracking tables, as Java 1.4.2 does (Java 0.9 refuses
# snapshot JSON with keys it does not know). We write `changelogRecordCount` (0 without changelog
# files), as Java 0.9 and 1.4.2 do; 2.0 leaves it out when there is none.
SNAPSHOT_ONLY_JAVA = {"nextRowId"}
SNAPSHOT_ONLY_OURS = {"changelogRecordCount"}

CASES = {
    "pk": Case(
        KV,
        ("k",),
        {"bucket": "2", "deletion-vectors.enabled": "true"},
        [
            [kv(1, "a", 1), kv(2, "b", 2), kv(3, "c", 3)],
            [kv(2, "b2", 2), kv(3, "c", 3, kind="-D"), kv(4, "d", 4)],
        ],
    ),
    "append": Case(
        KV + [("p", "STRING")],
        (),
        {"bucket": "-1"},
        [[dict(kv(1, "a", 1), p="x"), dict(kv(2, "b", 2), p="y")], [dict(kv(3, "c", 3), p="x")]],
        partitions=("p",),
    ),
}


def _avro_files(table: Path, prefix: str) -> list[Path]:
    return sorted(p for p in (table / "manifest").glob(prefix + "*") if p.is_file())


def _manifests(table: Path) -> list[Path]:
    return [p for p in _avro_files(table, "manifest-") if not p.name.startswith("manifest-list-")]


def _schema(path: Path) -> tuple[object, str]:
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        return r.writer_schema, r.metadata.get("avro.codec", "null")


def _fields(schema: dict, path: str) -> list[dict]:
    """The fields of the record at `path` ("" the top level, "_FILE" a nested record field)."""
    if not path:
        return schema["fields"]
    field = next(f for f in schema["fields"] if f["name"] == path)
    return field["type"]["fields"]


def _assert_same_avro(kind: str, java: Path, ours: Path) -> None:
    (js, jcodec), (os_, ocodec) = _schema(java), _schema(ours)
    assert isinstance(os_, dict) and os_.get("type") == "record", f"{kind}: top level {os_!r:.120}"
    assert os_["name"] == js["name"] == RECORD, (kind, os_["name"], js["name"])
    assert ocodec == jcodec, f"{kind}: codec {ocodec} vs Java's {jcodec}"
    extras = EXTRA_FIELDS.get(kind, {})
    ours_trimmed = json.loads(json.dumps(os_))
    for path, names in extras.items():
        fields = _fields(ours_trimmed, path)
        assert [f["name"] for f in fields[-len(names) :]] == names, (kind, path)
        for f in fields[-len(names) :]:
            assert f["type"][0] == "null" and f.get("default", "x") is None, (kind, f)
        del fields[-len(names) :]
    assert json.dumps(ours_trimmed, sort_keys=True) == json.dumps(js, sort_keys=True), (
        f"{kind}: our writer schema differs from Java 2.0's\n ours: {json.dumps(ours_trimmed)}\n"
        f" java: {json.dumps(js)}"
    )


def _keys(path: Path) -> set[str]:
    return set(json.loads(path.read_text()))


@pytest.fixture(scope="module")
def twins(java20, tmp_path_factory):
    """{case: (Java 2.0's table folder, ours)} after two writes, a full compaction and one more
    write (on the deletion-vector table, an update of compacted keys: a deletion vector)."""
    jwh, owh = tmp_path_factory.mktemp("java20-wh"), tmp_path_factory.mktemp("ours-wh")
    reqs = []
    for name, case in CASES.items():
        reqs.append(java_create(str(jwh), f"db.{name}", case))
        for rows in case.commits:
            reqs.append({"op": "write", "warehouse": str(jwh), "table": f"db.{name}", "rows": rows})
        reqs.append({"op": "compact", "warehouse": str(jwh), "table": f"db.{name}", "full": True})
        reqs.append({"op": "write", "warehouse": str(jwh), "table": f"db.{name}", "rows": case.commits[0]})
    java20.run(reqs)
    cat = FileSystemCatalog(str(owh))
    for name, case in CASES.items():
        t = create_ours(str(owh), f"db.{name}", case)
        for rows in case.commits:
            our_write(t, case.columns, rows)
        full_compact(cat.get_table(f"db.{name}"))
        our_write(cat.get_table(f"db.{name}"), case.columns, case.commits[0])
    return {n: (jwh / "db.db" / n, owh / "db.db" / n) for n in CASES}


@pytest.mark.parametrize("case", sorted(CASES))
def test_manifests_and_lists_have_javas_writer_schema(twins, case):
    java, ours = twins[case]
    _assert_same_avro("manifest", _manifests(java)[0], _manifests(ours)[0])
    _assert_same_avro(
        "manifest-list", _avro_files(java, "manifest-list-")[0], _avro_files(ours, "manifest-list-")[0]
    )


def test_index_manifest_is_a_layout_of_javas(twins):
    """Java 2.0 writes its 2.0 layout; we write the 1.3 layout to a new table (Java 0.9 reads it;
    index_manifest.py): the same record, whose fields are the first ones of Java's, alike."""
    java, ours = twins["pk"]
    (js, jcodec), (os_, ocodec) = (_schema(_avro_files(t, "index-manifest-")[0]) for t in (java, ours))
    assert isinstance(os_, dict) and os_["name"] == js["name"] == RECORD and ocodec == jcodec
    n = len(os_["fields"])
    assert 0 < n <= len(js["fields"])
    assert json.dumps(os_["fields"], sort_keys=True) == json.dumps(js["fields"][:n], sort_keys=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_avro_metadata_file_we_write_is_a_top_level_record(twins, case):
    _, ours = twins[case]
    files = _avro_files(ours, "")
    assert any(p.name.startswith("index-manifest-") for p in files) or case != "pk", (
        "the deletion-vector table wrote no index manifest: the check would not cover one"
    )
    for path in files:
        schema, _ = _schema(path)
        assert isinstance(schema, dict) and schema["type"] == "record" and schema["name"] == RECORD, path.name


@pytest.mark.parametrize("case", sorted(CASES))
def test_snapshot_and_schema_json_have_javas_keys(twins, case):
    java, ours = twins[case]
    for js, os_ in zip(
        sorted((java / "snapshot").glob("snapshot-*")),
        sorted((ours / "snapshot").glob("snapshot-*")),
        strict=False,
    ):
        jk, ok = _keys(js), _keys(os_)
        assert jk - ok == SNAPSHOT_ONLY_JAVA, (js.name, sorted(jk - ok))
        assert ok - jk == SNAPSHOT_ONLY_OURS, (os_.name, sorted(ok - jk))
    assert _keys(java / "schema" / "schema-0") == _keys(ours / "schema" / "schema-0")
    assert (java / "snapshot" / "LATEST").exists() and (ours / "snapshot" / "LATEST").exists()
