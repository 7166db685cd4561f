"""Tables pypaimon 2.1.0 writes with Paimon 1.x metadata, read by us exactly as pypaimon reads them:

* ``data-file.external-paths``: data files outside the table directory, manifest entries with
  ``_EXTERNAL_PATH`` in Hadoop's ``file:/...`` form; expire and remove-orphans keep them;
* ``data-file.thin-mode``: primary-key files without ``_KEY_`` columns (pypaimon 2.1.0 still
  writes the key columns, so the test drops them from its files as Java 1.x writes them); we
  and pypaimon read them, and pypaimon reads our compaction of them unchanged;
* ``row-tracking.enabled``: files with ``_FIRST_ROW_ID`` and snapshots with ``nextRowId`` read
  as plain rows; writing is refused by name (CLI exit 1, one line);
* ``bucket-function.type = mod``: read and compacted; writing refused by name.
"""

from __future__ import annotations

import os
import shutil

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.maintain.orphans import remove_orphans
from paimon_core.metadata.live_files import live_entries
from tests.core.metadata.test_newer_metadata import rewrite_entries
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

SCHEMA = [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "a", "type": "BIGINT"},
    {"name": "v", "type": "STRING"},
]
TYPES = {"id": "BIGINT", "a": "BIGINT", "v": "STRING"}


def _rows(ids, gen):
    return [{"id": i, "a": i * 10 + gen, "v": f"v{i}-{gen}"} for i in ids]


def _model(*commits):
    state = {}
    for rows in commits:
        for r in rows:
            state[r["id"]] = r
    return list(state.values())


C1, C2 = _rows(range(8), 0), _rows(range(4, 12), 1)
TABLES = {  # name -> (primary keys, options)
    "ext": (
        ["id"],
        {
            "bucket": "2",
            "data-file.external-paths": "EXT",
            "data-file.external-paths.strategy": "round-robin",
        },
    ),
    "thin": (["id"], {"bucket": "2", "data-file.thin-mode": "true"}),
    "rt": ([], {"row-tracking.enabled": "true"}),
    "mod": (["id"], {"bucket": "3", "bucket-function.type": "mod"}),
}


@pytest.fixture(scope="module")
def written(tmp_path_factory, pypaimon) -> str:
    root = tmp_path_factory.mktemp("newer")
    wh, ext = str(root / "wh"), root / "ext"
    ext.mkdir()
    reqs = []
    for name, (pk, opts) in TABLES.items():
        opts = {k: (f"file://{ext}" if v == "EXT" else v) for k, v in opts.items()}
        reqs.append(
            {
                "op": "create_table",
                "warehouse": wh,
                "table": f"db.{name}",
                "schema": SCHEMA,
                "primary_keys": pk,
                "options": opts,
            }
        )
        for rows in (C1, C2):
            reqs.append({"op": "write", "warehouse": wh, "table": f"db.{name}", "rows": rows})
        reqs.append({"op": "read", "warehouse": wh, "table": f"db.{name}"})
    res = pypaimon.run(reqs)
    reads = [r for r in res if "rows" in r]
    for (name, (pk, _)), r in zip(TABLES.items(), reads, strict=True):
        expected = _model(C1, C2) if pk else C1 + C2
        assert_same_rows(r["rows"], expected, label_a=f"pypaimon {name}")
    return wh


def _ours(wh, name):
    return rows_from_arrow(FileSystemCatalog(wh).get_table(f"db.{name}").read(), TYPES)


def test_external_paths_are_read_and_kept(written, tmp_path):
    wh = str(tmp_path / "wh")
    shutil.copytree(written, wh)
    t = FileSystemCatalog(wh).get_table("db.ext")
    entries = live_entries(t.manifests, t.snapshots.latest())
    assert entries and all(
        e.file.external_path and e.file.external_path.startswith("file:/") for e in entries
    )
    assert_same_rows(_ours(wh, "ext"), _model(C1, C2), label_a="ours")
    remove_orphans(t, older_than_ms=0)
    for e in entries:
        assert os.path.exists(e.file.external_path[len("file:") :])
    assert_same_rows(_ours(wh, "ext"), _model(C1, C2), label_a="ours after remove-orphans")


def test_thin_mode_files_read_and_compacted(written, pypaimon, tmp_path):
    import pyarrow.parquet as pq

    wh = str(tmp_path / "wh")
    shutil.copytree(written, wh)
    t = FileSystemCatalog(wh).get_table("db.thin")
    sizes = {}
    for e in live_entries(t.manifests, t.snapshots.latest()):
        path = os.path.join(t.bucket_path((), e.bucket), e.file.file_name)
        data = pq.read_table(path)
        assert "_KEY_id" in data.column_names
        pq.write_table(data.drop_columns(["_KEY_id"]), path, compression="zstd")
        sizes[e.file.file_name] = os.path.getsize(path)
    rewrite_entries(t, lambda e: e._replace(file=e.file._replace(file_size=sizes[e.file.file_name])))
    theirs = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.thin"}])[0]["rows"]
    assert_same_rows(theirs, _model(C1, C2), label_a="pypaimon on thin files")
    t = FileSystemCatalog(wh).get_table("db.thin")
    assert_same_rows(_ours(wh, "thin"), _model(C1, C2), label_a="ours")
    full_compact(t)
    assert_same_rows(_ours(wh, "thin"), _model(C1, C2), label_a="ours after compaction")
    theirs = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.thin"}])[0]["rows"]
    assert_same_rows(theirs, _model(C1, C2), label_a="pypaimon after our compaction")


def test_row_tracking_table_takes_our_writes(written, tmp_path):
    """The row-tracking table pypaimon wrote: read, and (since #23) written with the next row ids."""
    wh = str(tmp_path / "wh")
    shutil.copytree(written, wh)
    assert_same_rows(_ours(wh, "rt"), C1 + C2, label_a="ours rt")
    src = tmp_path / "in.csv"
    src.write_text("id,a,v\n100,1,x\n")
    result = CliRunner().invoke(app, ["-w", wh, "ingest", str(src), "-t", "db.rt"])
    assert result.exit_code == 0, result.stderr
    t = FileSystemCatalog(wh).get_table("db.rt")
    assert t.snapshots.latest().next_row_id == len(C1) + len(C2) + 1
    assert len(_ours(wh, "rt")) == len(C1) + len(C2) + 1


@pytest.mark.parametrize("name,feature", [("mod", "bucket-function.type = mod")])
def test_read_but_writes_refused(written, tmp_path, name, feature):
    wh = str(tmp_path / "wh")
    shutil.copytree(written, wh)
    t = FileSystemCatalog(wh).get_table(f"db.{name}")
    expected = C1 + C2 if name == "rt" else _model(C1, C2)
    assert_same_rows(_ours(wh, name), expected, label_a=f"ours {name}")
    if name == "rt":
        assert t.snapshots.latest().next_row_id == len(C1) + len(C2)
    src = tmp_path / "in.csv"
    src.write_text("id,a,v\n100,1,x\n")
    before = t.snapshots.latest_id()
    # compaction stays inside each bucket, so only row tracking (whose row ids it would lose) refuses it
    for args in (["ingest", str(src)], ["compact", "--level-max"])[: 2 if name == "rt" else 1]:
        result = CliRunner().invoke(app, ["-w", wh, *args, "-t", f"db.{name}"])
        assert result.exit_code == 1, (args, result.stdout, result.stderr)
        err = result.stderr.strip()
        assert feature in err and len(err.splitlines()) == 1, err
    assert FileSystemCatalog(wh).get_table(f"db.{name}").snapshots.latest_id() == before
