"""A damaged latest ``snapshot-N`` (truncated, or garbage): `snapshots` and `doctor` name the
file and the command that repairs it, a read of the latest names the file, and `rollback --to
N-1` works past it (deleting the damaged file, LATEST pointing at N-1); writes then go on."""

from __future__ import annotations

import pytest

from .conftest import events, write_parquet

T = "db.t"


@pytest.fixture(params=["truncated", "garbage", "not-an-object", "empty"])
def damaged(request, cli, wh, tmp_path):
    """A table with snapshots 1..3 whose snapshot-3 is damaged; returns snapshot-3's path."""
    cli("create-table", T, "--schema", "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING")
    for i in range(3):
        cli("ingest", write_parquet(tmp_path / f"{i}.parquet", events(2, 10 * i)), "-t", T)
    path = wh / "db.db" / "t" / "snapshot" / "snapshot-3"
    good = path.read_bytes()
    path.write_bytes(
        {
            "truncated": good[: len(good) // 2],
            "garbage": b"\x00\xff garbage \x13",
            "not-an-object": b"[1, 2, 3]",
            "empty": b"",
        }[request.param]
    )
    return path


def test_listing_and_doctor_name_the_file_and_the_repair(cli, damaged):
    r = cli("snapshots", "-t", T, code=1)
    assert [line.split()[0] for line in r.stdout.splitlines()[2:]] == ["1", "2"]  # the readable ones
    assert str(damaged) in r.stderr
    assert f"paimon rollback -t {T} --to 2" in r.stderr
    assert r.stderr.count("\n") == 1
    for args in (["doctor", "-t", T], ["read", "-t", T]):
        r = cli(*args, code=1)
        assert str(damaged) in r.stderr and "is damaged" in r.stderr, args
        assert "paimon rollback --to 2" in r.stderr, args
        assert "Traceback" not in r.stderr


def test_rollback_works_past_a_damaged_latest(cli, wh, tmp_path, damaged):
    r = cli("rollback", "-t", T, "--to", "2", "--dry-run")
    assert "damaged snapshot file(s) 3" in r.stdout
    assert damaged.exists()
    cli("rollback", "-t", T, "--to", "2")
    assert not damaged.exists()
    assert (damaged.parent / "LATEST").read_text().strip() == "2"
    assert cli.snapshot_ids(T) == [1, 2]
    assert sorted(r["id"] for r in cli.json("read", "-t", T)) == [0, 1, 10, 11]
    cli("ingest", write_parquet(tmp_path / "again.parquet", events(1, 50)), "-t", T)
    assert cli.snapshot_ids(T) == [1, 2, 3]
    assert sorted(r["id"] for r in cli.json("read", "-t", T)) == [0, 1, 10, 11, 50]
    cli("doctor", "-t", T)
