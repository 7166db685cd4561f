"""What ``paimon remove-orphans`` never touches: files outside Java Paimon's orphan-cleanup scope
(an Iceberg ``metadata/`` folder, a done partition's ``_SUCCESS``, unknown files and folders, a
decoupled changelog's ``changelog/changelog-N``), and the files a branch or a decoupled changelog
still uses although no snapshot of the table does. Every file is made three days old first, so
only the scope and the references protect them, not the one-day cut-off."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema

T = "demo.cl"
OLD = time.time() - 3 * 86400


def _table(wh: Path, writes: int):
    """demo.cl: partitioned by dt, primary key (id, dt), input changelog; ``writes`` commits."""
    cat = FileSystemCatalog(str(wh))
    schema = Schema(
        Schema.parse_columns("id BIGINT NOT NULL, v STRING, dt STRING"),
        ("dt",),
        ("id", "dt"),
        {"bucket": "1", "changelog-producer": "input"},
    )
    t = cat.create_table(T, schema)
    for i in range(writes):
        t.write_arrow(
            pa.table({"id": pa.array([i, 10 + i], pa.int64()), "v": [f"v{i}"] * 2, "dt": ["d1", "d2"]})
        )
    return Path(t.path)


def _age(root: Path) -> None:
    for d, dirs, names in os.walk(root):
        for n in names + dirs:
            os.utime(os.path.join(d, n), (OLD, OLD))


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def _plant(root: Path, rel: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"not an orphan")
    os.utime(p, (OLD, OLD))


def _remove(cli) -> dict:
    rows = cli.json("remove-orphans", "-t", T)
    assert len(rows) == 1
    return rows[0]


@pytest.mark.parametrize(
    "rel",
    [
        "metadata/v1.metadata.json",  # Iceberg compatibility metadata
        "metadata/snap-1-1-0f0e.avro",
        "metadata/version-hint.text",
        "dt=d1/_SUCCESS",  # a done partition's marker
        "unknown/data-x.parquet",  # unknown folder, however its files are named
        "notes.txt",  # unknown file in the table directory
        "bucket-0/data-y.parquet",  # a bucket directory above the partition depth
        "dt=d1/bucket-0/nested/data-z.parquet",  # a folder inside a bucket directory
        "tag/notes.txt",
        "schema/notes.txt",
    ],
)
def test_out_of_scope_files_are_never_deleted(cli, rel):
    root = _table(cli.wh, 2)
    _plant(root, rel)
    _plant(root, "manifest/manifest-stray-0")  # in scope: this one goes
    _age(root)
    before = _files(root)
    rec = _remove(cli)
    assert [f["path"] for f in rec["files"]] == [str(root / "manifest/manifest-stray-0")]
    assert _files(root) == before - {"manifest/manifest-stray-0"}
    assert (root / rel).exists()


def test_a_decoupled_changelogs_files_are_kept(cli):
    """changelog-1 (snapshot 1 expired with a longer changelog retention) is the only user of
    snapshot 1's changelog manifest list, manifests and changelog files."""
    root = _table(cli.wh, 3)
    (root / "changelog").mkdir()
    shutil.move(root / "snapshot/snapshot-1", root / "changelog/changelog-1")
    (root / "snapshot/EARLIEST").write_text("2")
    _plant(root, "changelog/junk.txt")  # a leftover in changelog/: Java deletes it too
    _age(root)
    before = _files(root)
    rec = _remove(cli)
    assert [f["path"] for f in rec["files"]] == [str(root / "changelog/junk.txt")]
    assert _files(root) == before - {"changelog/junk.txt"}
    assert any(n.startswith("changelog-") for n in os.listdir(root / "dt=d1/bucket-0"))
    assert len(cli.json("read", "-t", T)) == 6


def test_a_branchs_files_are_kept(cli):
    """Snapshot 3 moved to branch b: its data and manifests are used by that branch only; a
    branch tag and stray files in the branch's snapshot directory are read and cleaned too."""
    root = _table(cli.wh, 3)
    b = root / "branch/branch-b"
    (b / "snapshot").mkdir(parents=True)
    (b / "tag").mkdir()
    shutil.copytree(root / "schema", b / "schema")
    shutil.copy(root / "snapshot/snapshot-2", b / "tag/tag-bt")
    shutil.move(root / "snapshot/snapshot-3", b / "snapshot/snapshot-3")
    (root / "snapshot/LATEST").write_text("2")
    _plant(root, "branch/branch-b/snapshot/junk.txt")  # a leftover: goes
    _age(root)
    only_branch = {
        p for p in _files(root) if "/bucket-" in p and p.rsplit("/", 1)[-1] not in _names_of_main(cli)
    }
    assert only_branch, "snapshot 3 added no data file of its own"
    before = _files(root)
    rec = _remove(cli)
    assert [f["path"] for f in rec["files"]] == [str(root / "branch/branch-b/snapshot/junk.txt")]
    assert _files(root) == before - {"branch/branch-b/snapshot/junk.txt"}


def test_a_branch_without_schema_stops_everything(cli):
    root = _table(cli.wh, 1)
    (root / "branch/branch-x/snapshot").mkdir(parents=True)
    _plant(root, "manifest/manifest-stray-0")
    r = cli("remove-orphans", "-t", T, code=1)
    assert r.stderr.startswith("error: branch 'x' has no schema") and r.stderr.count("\n") == 1
    assert (root / "manifest/manifest-stray-0").exists()


def _names_of_main(cli) -> set[str]:
    from paimon_core.maintain import referenced_files

    t = FileSystemCatalog(str(cli.wh)).get_table(T)
    return {p.rsplit("/", 1)[-1] for p in referenced_files(t).all_paths()}
