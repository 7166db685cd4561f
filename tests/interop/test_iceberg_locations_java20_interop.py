"""Iceberg metadata of a warehouse named as a ``file:`` URI records its paths as Java 2.0 records
them: ``file:/...`` (Hadoop's form) for the table location, manifest lists, manifests and data
files. Iceberg readers that need a scheme (Trino) read them; a plain-path warehouse keeps plain
paths, as Java does. Our next commit builds on metadata Java wrote in that form."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import fastavro
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop.harness import arrow_from_rows

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}]
OPTIONS = {"bucket": "-1", "metadata.iceberg.storage": "table-location"}
ROWS = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]


def _latest(table: Path) -> dict:
    versions = glob.glob(str(table / "metadata" / "v*.metadata.json"))
    return json.loads(Path(max(versions, key=lambda p: int(Path(p).name[1:].split(".")[0]))).read_text())


def _paths(table: Path) -> dict[str, list[str]]:
    """Every path the latest metadata records, by kind, with the table folder replaced by T."""
    meta = _latest(table)
    root = str(table)

    def rel(p: str) -> str:
        assert root in p, (p, root)
        return p[: p.index(root)] + "T"  # the form: "file:T" or "T"

    lists = [s["manifest-list"] for s in meta["snapshots"]]
    manifests, data = [], []
    for ml in lists:
        with open(ml.removeprefix("file:"), "rb") as f:
            manifests += [r["manifest_path"] for r in fastavro.reader(f)]
    for m in manifests:
        with open(m.removeprefix("file:"), "rb") as f:
            data += [r["data_file"]["file_path"] for r in fastavro.reader(f)]
    return {
        "location": [rel(meta["location"])],
        "manifest-list": sorted({rel(p) for p in lists}),
        "manifest": sorted({rel(p) for p in manifests}),
        "data": sorted({rel(p) for p in data}),
    }


def _ours(warehouse: str) -> None:
    cat = FileSystemCatalog(warehouse)
    cat.create_database("db")
    columns = Schema.parse_columns(", ".join(f"{c['name']} {c['type']}" for c in SCHEMA))
    t = cat.create_table("db.t", Schema(columns, (), (), dict(OPTIONS)))
    for row in ROWS:
        t.write_arrow(arrow_from_rows([row], t.schema.arrow_schema()))


@pytest.mark.parametrize("uri", [True, False], ids=["file-uri", "plain-path"])
def test_iceberg_paths_take_javas_form(java20, tmp_path, uri):
    def name(folder: Path) -> str:
        return f"file://{folder}" if uri else str(folder)

    java_wh, our_wh = tmp_path / "java", tmp_path / "ours"
    reqs = [
        {
            "op": "create_table",
            "warehouse": name(java_wh),
            "table": "db.t",
            "schema": SCHEMA,
            "options": OPTIONS,
        }
    ]
    reqs += [{"op": "write", "warehouse": name(java_wh), "table": "db.t", "rows": [r]} for r in ROWS]
    java20.run(reqs)
    _ours(name(our_wh))
    theirs, ours = _paths(java_wh / "db.db" / "t"), _paths(our_wh / "db.db" / "t")
    form = ["file:T"] if uri else ["T"]
    assert theirs == {kind: form for kind in theirs}, "Java 2.0 writes one form for every path"
    assert ours == theirs


def test_our_commit_builds_on_javas_file_uri_metadata(java20, tmp_path):
    wh = f"file://{tmp_path / 'wh'}"
    reqs = [{"op": "create_table", "warehouse": wh, "table": "db.t", "schema": SCHEMA, "options": OPTIONS}]
    reqs.append({"op": "write", "warehouse": wh, "table": "db.t", "rows": ROWS[:1]})
    java20.run(reqs)
    t = FileSystemCatalog(wh).get_table("db.t")
    t.write_arrow(arrow_from_rows(ROWS[1:], t.schema.arrow_schema()))
    meta = _latest(tmp_path / "wh" / "db.db" / "t")
    assert [s["snapshot-id"] for s in meta["snapshots"]] == [1, 2], "the metadata was written afresh"
    assert meta["location"] == f"file:{tmp_path / 'wh' / 'db.db' / 't'}"
