"""Decoupled changelog lifecycle against Java Paimon 0.9 on twin tables: the same table is copied,
Java's ``ExpireSnapshotsImpl`` + ``ExpireChangelogImpl`` expire one copy and ours the other, with
the same retention and clock (time retention 0). After each expiry both copies hold the same files
(snapshots, ``changelog/changelog-N``, manifests, data and changelog files); Java streams our
expired snapshots from our ``changelog-N`` files and we stream Java's, both equal to a model of the
writes. Rounds alternate who wrote the commits and whose expired copy the next round starts from."""

from __future__ import annotations

import os
import shutil

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.maintain.expire import ChangelogFlags, expire_snapshots
from paimon_core.metadata.changelog import changelog_manager
from paimon_core.metadata.schema import Schema
from paimon_core.read.stream import StreamRead
from tests.interop.harness.canonical import assert_same_rows

pytestmark = [pytest.mark.interop, pytest.mark.slow]

NAME = "db.t"
RETAIN = {
    "snapshot.num-retained.min": "1",
    "snapshot.num-retained.max": "2",
    "changelog.num-retained.min": "5",
    "changelog.num-retained.max": "6",
}
HINTS = {"EARLIEST", "LATEST"}


def _files(wh: str) -> set[str]:
    """Every file of the table but the hints, relative to the table directory."""
    root = os.path.join(wh, "db.db", "t")
    return {
        os.path.relpath(os.path.join(d, n), root)
        for d, _, names in os.walk(root)
        for n in names
        if n not in HINTS and not n.startswith(".")
    }


class Model:
    """Rows each APPEND snapshot wrote (distinct new keys: stream rows are exactly these, +I)."""

    def __init__(self):
        self.by_snapshot: dict[int, list[dict]] = {}

    def record(self, wh: str, before: int, rows: list[dict]) -> None:
        t = FileSystemCatalog(wh).get_table(NAME)
        appends = [
            i
            for i in range(before + 1, t.snapshots.latest_id() + 1)
            if t.snapshots.snapshot(i).commit_kind == "APPEND"
        ]
        assert len(appends) == 1, appends
        self.by_snapshot[appends[0]] = [{"_row_kind": "+I", **r} for r in rows]

    def since(self, start: int) -> list[dict]:
        return [r for i, rows in sorted(self.by_snapshot.items()) if i >= start for r in rows]


def _ours_write(wh: str, model: Model, ids: list[int]) -> None:
    t = FileSystemCatalog(wh).get_table(NAME)
    before = t.snapshots.latest_id() or 0
    rows = [{"id": i, "v": f"o{i}"} for i in ids]
    t.write_arrow(pa.table({"id": pa.array(ids, pa.int32()), "v": [r["v"] for r in rows]}))
    model.record(wh, before, rows)


def _java_write(java, wh: str, model: Model, ids: list[int]) -> None:
    before = FileSystemCatalog(wh).get_table(NAME).snapshots.latest_id() or 0
    rows = [{"id": i, "v": f"j{i}"} for i in ids]
    java.call("write", warehouse=wh, table=NAME, rows=rows)
    model.record(wh, before, rows)


def _our_stream(wh: str, start: int) -> list[dict]:
    t = FileSystemCatalog(wh).get_table(NAME)
    r = StreamRead(t, mode="from-snapshot", start=start)
    r.start_batch()
    out = []
    while (b := r.poll()) is not None:
        out += [{k: v for k, v in row.items()} for row in b.rows.to_pylist()]
    return out


def _round(java, base: str, tmp, k: int, model: Model) -> tuple[str, str]:
    a, b = str(tmp / f"java{k}"), str(tmp / f"ours{k}")
    shutil.copytree(base, a)
    shutil.copytree(base, b)
    res = java.call(
        "expire",
        warehouse=a,
        table=NAME,
        retain_max=2,
        retain_min=1,
        changelog_retain_max=6,
        changelog_retain_min=5,
        changelog=True,
    )
    # Java's ExpireConfig above: changelog time retention unset, so the snapshots' (0); ours takes
    # the table's own unless told (an expire's flags never shorten a declared changelog retention)
    ours = expire_snapshots(
        FileSystemCatalog(b).get_table(NAME),
        older_than_ms=0,
        max_deletes=2**31 - 1,
        changelog_flags=ChangelogFlags(older_than_ms=0),
    )
    assert res["expired"] == len(ours.expired)
    assert _files(a) == _files(b), {
        "java only": sorted(_files(a) - _files(b)),
        "ours only": sorted(_files(b) - _files(a)),
    }
    kept = sorted(f for f in _files(b) if f.startswith("changelog/"))
    assert len(kept) >= 2 and res.get("expired_changelogs", 0) == len(ours.expired_changelogs)
    start = changelog_manager(FileSystemCatalog(b).get_table(NAME)).earliest_id()
    assert start is not None and start < FileSystemCatalog(b).get_table(NAME).snapshots.earliest_id()
    expected = model.since(start)
    theirs = java.call(
        "stream",
        warehouse=b,
        table=NAME,
        options={"scan.mode": "from-snapshot", "scan.snapshot-id": str(start)},
    )
    got = [{k: v for k, v in r.items() if k != "_plan"} for r in theirs["rows"]]
    assert_same_rows(expected, got, ignore_kind=False, label_a="model", label_b="java on our changelogs")
    assert_same_rows(
        expected, _our_stream(a, start), ignore_kind=False, label_a="model", label_b="ours on java's"
    )
    return a, b


@pytest.mark.parametrize("producer", ["input", "none"])
def test_twin_expiry_with_decoupled_changelogs(java, tmp_path, producer):
    base = str(tmp_path / "base")
    opts = {"bucket": "1", "changelog-producer": producer, "write-only": "true", **RETAIN}
    FileSystemCatalog(base).create_table(
        NAME, Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), (), ("id",), opts)
    )
    model = Model()
    for i in range(5):
        _ours_write(base, model, [2 * i, 2 * i + 1])
    full_compact(FileSystemCatalog(base).get_table(NAME))
    _ours_write(base, model, [100])
    java_copy, our_copy = _round(java, base, tmp_path, 1, model)
    # Java's expired copy goes on: Java writes, then both expire again
    for i in range(3):
        _java_write(java, java_copy, model, [200 + i])
    java_copy, our_copy = _round(java, java_copy, tmp_path, 2, model)
    # our expired copy goes on: we write (and compact), then both expire again
    for i in range(3):
        _ours_write(our_copy, model, [300 + i])
    full_compact(FileSystemCatalog(our_copy).get_table(NAME))
    _ours_write(our_copy, model, [400])
    _round(java, our_copy, tmp_path, 3, model)


def test_twin_rollback_to_a_tag_before_the_earliest_snapshot(java, tmp_path):
    """Rollback to a tag whose snapshot expired (its changelog stays): the newer snapshots and
    changelogs go, with their files, as Java's RollbackHelper does them (and the data files only
    they used, which Java leaves for orphan cleanup)."""
    from paimon_core.maintain import create_tag, rollback
    from paimon_core.maintain.used_names import used_names

    base = str(tmp_path / "base")
    opts = {"bucket": "1", "changelog-producer": "input", "write-only": "true", **RETAIN}
    FileSystemCatalog(base).create_table(
        NAME, Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), (), ("id",), opts)
    )
    model = Model()
    for i in range(8):
        _ours_write(base, model, [i])
    create_tag(FileSystemCatalog(base).get_table(NAME), "t5", 5)
    expire_snapshots(
        FileSystemCatalog(base).get_table(NAME),
        older_than_ms=0,
        max_deletes=2**31 - 1,
        changelog_flags=ChangelogFlags(older_than_ms=0),
    )
    t = FileSystemCatalog(base).get_table(NAME)
    assert changelog_manager(t).list_ids()[0] <= 5 < t.snapshots.earliest_id()
    a, b = str(tmp_path / "java"), str(tmp_path / "ours")
    shutil.copytree(base, a)
    shutil.copytree(base, b)
    java.call("rollback", warehouse=a, table=NAME, to_tag="t5")
    rollback(FileSystemCatalog(b).get_table(NAME), to_tag="t5")
    # Java leaves the data files the expired snapshots 6, 7 added (its rollback of a changelog
    # deletes only its changelog files): unused, remove-orphans' business. We delete them.
    java_only = _files(a) - _files(b)
    assert _files(b) <= _files(a)
    used = used_names(FileSystemCatalog(a).get_table(NAME))
    # Java 1.4.2's rollback also leaves the rolled-back changelogs' files and manifests to orphan cleanup
    left = (
        ("bucket-0/data-",)
        if java.version == "0.9"
        else ("bucket-0/data-", "bucket-0/changelog-", "manifest/")
    )
    odd = sorted(f for f in java_only if not f.startswith(left) or os.path.basename(f) in used)
    assert java_only and not odd, odd
    tb = FileSystemCatalog(b).get_table(NAME)
    assert tb.snapshots.list_ids() == [5] and changelog_manager(tb).list_ids() == [4, 5]
    rows = java.call("read", warehouse=b, table=NAME)["rows"]
    assert sorted(r["id"] for r in rows) == [0, 1, 2, 3, 4]
