"""A read that races an expire: after the read planned its files, another table object compacts
and expires (retention 0), deleting them. A read of the latest snapshot runs again on the new
latest and returns exactly the committed rows; a read that cannot run again (time travel, or the
CLI that may have printed rows) fails with one line saying the snapshot was expired meanwhile,
never with a message that calls the table damaged."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.maintain import expire_snapshots
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.snapshot import SnapshotExpired
from paimon_core.read.scan import TableScan
from tests.cli.conftest import Cli


def _table(wh):
    cat = FileSystemCatalog(str(wh))
    t = cat.create_table(
        "db.t", Schema(Schema.parse_columns("k INT NOT NULL, v STRING"), (), ("k",), {"bucket": "1"})
    )
    for i in range(3):
        t.write_arrow(pa.table({"k": pa.array([1, 2, 3], pa.int32()), "v": [f"r{i}"] * 3}))
    return cat, t


def _expire_after_planning(monkeypatch, cat, times: int = 1):
    """The next ``times`` plans are followed by a rival's full compaction and expire with no
    retention, so the planned files are gone before the read opens them."""
    orig = TableScan.plan
    left = [times]

    def plan(self):
        splits = orig(self)
        if left[0] > 0:
            left[0] -= 1
            rival = cat.get_table("db.t")
            rival.write_arrow(pa.table({"k": pa.array([4], pa.int32()), "v": [f"w{left[0]}"]}))
            assert compact(rival, full=True).snapshot is not None
            assert expire_snapshots(rival, retain_min=1, older_than_ms=0).expired
        return splits

    monkeypatch.setattr(TableScan, "plan", plan)


def test_a_latest_read_runs_again_on_the_new_latest(tmp_path, monkeypatch):
    cat, t = _table(tmp_path / "wh")
    _expire_after_planning(monkeypatch, cat)
    rows = sorted((r["k"], r["v"]) for r in t.read().to_pylist())
    assert rows == [(1, "r2"), (2, "r2"), (3, "r2"), (4, "w0")]


def test_a_time_travel_read_says_the_snapshot_expired(tmp_path, monkeypatch):
    cat, t = _table(tmp_path / "wh")
    _expire_after_planning(monkeypatch, cat)
    with pytest.raises(
        SnapshotExpired, match="snapshot 3 was expired by another process while it was being read"
    ):
        t.read(snapshot_id=3)


def test_the_cli_read_says_the_snapshot_expired(tmp_path, monkeypatch):
    cat, _ = _table(tmp_path / "wh")
    _expire_after_planning(monkeypatch, cat)
    res = Cli(tmp_path / "wh")("read", "-t", "db.t", code=1)
    assert "was expired by another process while it was being read" in res.stderr
    assert "run again" in res.stderr and "Traceback" not in res.stderr
    assert "missing (listed in a manifest)" not in res.stderr.split("(")[0]


def test_a_damaged_tag_read_is_not_blamed_on_an_expire(tmp_path):
    """A tag keeps its snapshot readable after the snapshot expired; a data file of it that is
    really missing is damage, reported as such, not as a race to run again."""
    import os

    from paimon_core.errors import CorruptMetadata
    from paimon_core.maintain.tags import create_tag

    cat, t = _table(tmp_path / "wh")
    create_tag(t, "first", 1)
    compact(t, full=True)
    expire_snapshots(t, retain_min=1, older_than_ms=0)
    assert not os.path.exists(os.path.join(t.path, "snapshot", "snapshot-1"))  # expired
    assert len(t.read(tag="first")) == 3
    (split,) = t.plan(t.resolve_snapshot(tag="first"))
    os.remove(t.io.join(t.bucket_path(split.partition, split.bucket), split.files[0].file_name))
    with pytest.raises(CorruptMetadata, match="is missing") as err:
        t.read(tag="first")
    assert not isinstance(err.value, SnapshotExpired)
    res = Cli(tmp_path / "wh")("read", "-t", "db.t", "--tag", "first", code=1)
    assert "is missing" in res.stderr and "expired by another process" not in res.stderr
