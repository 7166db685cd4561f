"""``paimon partition list|drop|mark-done|expire``, the tag commands of production tables, and
the housekeeping after commits as a user sees it (a failing step: a warning, exit 0)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from paimon_cli.app import app

from .conftest import events, write_parquet
from .test_lifecycle import listing, unchanged

T = "demo.events"
SCHEMA = "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING"


def clock(*args) -> dict:
    return {"PAIMON_CLOCK_MS": str(int(datetime(*args).timestamp() * 1000))}


@pytest.fixture
def parted(cli):
    """demo.events partitioned by dt: 2024-01-01 (ids 0,2,4,6,8) and 2024-01-02 (1,3,5,7,9)."""
    cli("create-table", T, "--schema", SCHEMA, "--partition", "dt")
    cli("ingest", write_parquet(Path("in/a.parquet"), events(10)), "-t", T)
    return cli


def test_list_shows_javas_partition_figures(parted):
    rows = parted.json("partition", "list", "-t", T)
    assert [r["partition"] for r in rows] == ["dt=2024-01-01", "dt=2024-01-02"]
    assert list(rows[0]) == ["partition", "rows", "bytes", "files", "last_file_created"]
    assert [r["rows"] for r in rows] == [5, 5] and [r["files"] for r in rows] == [1, 1]
    assert all(r["bytes"] > 0 and r["last_file_created"].endswith("Z") for r in rows)
    assert all(r["last_file_created"][:4] >= "2025" for r in rows)  # a time, not epoch millis


def test_drop_commits_an_overwrite_without_the_partition(parted):
    r = parted("partition", "drop", "-t", T, "--partition", "dt=2024-01-01")
    assert "dropped 1 partition(s)" in r.stdout
    assert [x["kind"] for x in parted.json("snapshots", "-t", T)][-1] == "OVERWRITE"
    assert sorted(x["id"] for x in parted.json("read", "-t", T)) == [1, 3, 5, 7, 9]


def test_drop_dry_run_and_a_missing_partition_change_nothing(parted):
    before = listing(parted.wh)
    r = parted("partition", "drop", "-t", T, "-p", "dt=2024-01-01", "--dry-run")
    assert "would drop 1 partition(s)" in r.stdout and listing(parted.wh) == before
    r = unchanged(parted, ["partition", "drop", "-t", T, "-p", "dt=2030-01-01"], 1)
    assert "no partition dt=2030-01-01" in r.stderr
    unchanged(parted, ["partition", "drop", "-t", T, "-p", "nokey=1"], 1)


def test_mark_done_writes_javas_success_file(parted):
    parted("partition", "mark-done", "-t", T, "-p", "dt=2024-01-02", env=clock(2024, 5, 1))
    first = json.loads((parted.wh / "demo.db/events/dt=2024-01-02/_SUCCESS").read_text())
    parted("partition", "mark-done", "-t", T, "-p", "dt=2024-01-02", env=clock(2024, 5, 2))
    again = json.loads((parted.wh / "demo.db/events/dt=2024-01-02/_SUCCESS").read_text())
    assert again["creationTime"] == first["creationTime"] < again["modificationTime"]


def test_mark_done_refuses_actions_this_catalog_cannot_run(parted):
    parted("alter-table", T, "set-option", "partition.mark-done-action=success-file,done-partition")
    r = unchanged(parted, ["partition", "mark-done", "-t", T, "-p", "dt=2024-01-02"], 1)
    assert "done-partition" in r.stderr


def test_expire_names_an_unparsable_partition_and_drops_nothing(parted):
    args = ["partition", "expire", "-t", T, "--expiration-time", "1d", "--timestamp-formatter", "yyyyMMdd"]
    r = unchanged(parted, args, 1)
    assert "partition dt=2024-01-01" in r.stderr and "nothing was expired" in r.stderr


def test_expire_with_flags_and_dry_run(parted):
    env = clock(2024, 1, 3)
    before = listing(parted.wh)
    r = parted("partition", "expire", "-t", T, "--expiration-time", "1d", "--dry-run", env=env)
    assert "would drop 1 expired partition(s)" in r.stdout and listing(parted.wh) == before
    parted("partition", "expire", "-t", T, "--expiration-time", "1d", env=env)
    assert [r["partition"] for r in parted.json("partition", "list", "-t", T)] == ["dt=2024-01-02"]
    unchanged(parted, ["partition", "expire", "-t", T], 1, None)  # no expiration time anywhere


@pytest.mark.slow
def test_expiry_after_ingest_and_a_failing_step_exits_zero(cli):
    cli(
        "create-table", T, "--schema", SCHEMA, "--partition", "dt",
        "--option", "partition.expiration-time=1d", "--option", "partition.expiration-check-interval=0",
        "--option", "tag.automatic-creation=process-time", "--option", "tag.creation-delay=2d",
    )  # fmt: skip
    r = cli("ingest", write_parquet(Path("in/a.parquet"), events(10)), "-t", T, env=clock(2024, 1, 3))
    assert "warning: demo.events: automatic tag creation after the commit failed" in r.stderr
    assert [x["kind"] for x in cli.json("snapshots", "-t", T)] == ["APPEND", "OVERWRITE"]
    assert sorted(x["id"] for x in cli.json("read", "-t", T)) == [1, 3, 5, 7, 9]


def test_date_partitions_show_as_dates(cli):
    cli("create-table", "demo.d", "--schema", "id BIGINT, dt DATE", "--partition", "dt")
    import datetime as dt

    import pyarrow as pa

    data = pa.table({"id": pa.array([1], pa.int64()), "dt": pa.array([dt.date(2024, 3, 1)], pa.date32())})
    cli("ingest", write_parquet(Path("in/d.parquet"), data), "-t", "demo.d")
    assert [r["partition"] for r in cli.json("partition", "list", "-t", "demo.d")] == ["dt=2024-03-01"]


@pytest.mark.slow
def test_tag_commands(parted):
    parted("ingest", write_parquet(Path("in/b.parquet"), events(2, 100)), "-t", T)
    parted("tag", "create", "a", "-t", T, "--snapshot", "1", "--time-retained", "1h", env=clock(2024, 1, 1))
    unchanged(parted, ["tag", "create", "a", "-t", T], 1)
    parted("tag", "create", "a", "-t", T, "--replace", "--time-retained", "1h", env=clock(2024, 1, 1))
    parted("tag", "rename", "a", "b", "-t", T)
    parted("tag", "create", "c", "-t", T, "--as-of", parted.json("snapshots", "-t", T)[0]["time"])
    tags = {t["tag"]: t["snapshot"] for t in parted.json("tag", "list", "-t", T)}
    assert tags == {"b": 2, "c": 1}
    before = listing(parted.wh)
    r = parted("tag", "expire", "-t", T, "--dry-run", env=clock(2024, 1, 1, 2))
    assert "would delete 1 expired tag(s)" in r.stdout and listing(parted.wh) == before
    parted("tag", "expire", "-t", T, env=clock(2024, 1, 1, 0, 30))
    assert {t["tag"] for t in parted.json("tag", "list", "-t", T)} == {"b", "c"}
    parted("tag", "expire", "-t", T, env=clock(2024, 1, 1, 2))
    assert {t["tag"] for t in parted.json("tag", "list", "-t", T)} == {"c"}
    unchanged(parted, ["tag", "rename", "nope", "x", "-t", T], 1)


@pytest.mark.slow
def test_streaming_ingest_and_compact_run_the_housekeeping(cli):
    cli(
        "create-table", T, "--schema", SCHEMA, "--partition", "dt",
        "--option", "partition.expiration-time=1d", "--option", "partition.expiration-check-interval=0",
        "--option", "write-only=true",
    )  # fmt: skip
    rows = '{"id": 1, "dt": "2024-01-01"}\n{"id": 2, "dt": "2024-01-05"}\n'
    r = cli.runner.invoke(
        app,
        ["-w", str(cli.wh), "ingest", "-", "-t", T],
        input=rows,
        env=clock(2024, 1, 6),
    )
    assert r.exit_code == 0, r.stderr
    assert len(cli.json("partition", "list", "-t", T)) == 2  # write-only: nothing expired
    cli("alter-table", T, "remove-option", "write-only")
    cli.runner.invoke(
        app,
        ["-w", str(cli.wh), "ingest", "-", "-t", T],
        input='{"id": 3, "dt": "2024-01-06"}\n',
        env=clock(2024, 1, 6),
    )
    # the cutoff is 2024-01-05 00:00: a partition at the cutoff is not older than it (as Java)
    kept = ["dt=2024-01-05", "dt=2024-01-06"]
    assert [p["partition"] for p in cli.json("partition", "list", "-t", T)] == kept
    cli("ingest", write_parquet(Path("in/old.parquet"), events(1, 50, days=("2024-01-02",))), "-t", T,
        env=clock(2024, 1, 1))  # fmt: skip
    assert len(cli.json("partition", "list", "-t", T)) == 3  # the clock of that ingest kept it
    cli("compact", "-t", T, "--full", env=clock(2024, 1, 6))
    assert [p["partition"] for p in cli.json("partition", "list", "-t", T)] == kept
