"""Production lifecycle commands: ``expire`` with a decoupled changelog (``--dry-run`` shows the
snapshots and the changelogs, writes nothing; the run leaves ``changelog/changelog-N`` that
``stream`` reads) and ``rollback --as-of``."""

from __future__ import annotations

from pathlib import Path

from .conftest import events, write_parquet
from .test_lifecycle import listing, table_dir, unchanged

T = "demo.events"
PK_SCHEMA = "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING"


def _ingest(cli, k: int) -> None:
    cli("ingest", write_parquet(Path(f"in/p{k}.parquet"), events(5, 10 * k)), "-t", T)


def test_expire_keeps_decoupled_changelogs_and_stream_reads_them(cli):
    opts = [
        "changelog-producer=input",
        "bucket=1",
        "write-only=true",  # no expiry after the ingests: the test runs it
        "snapshot.num-retained.max=2",
        "snapshot.num-retained.min=1",
        "changelog.num-retained.min=4",
        "changelog.num-retained.max=5",
    ]
    cli(
        "create-table", T, "--schema", PK_SCHEMA, "--primary-key", "id", *[x for o in opts for x in ("-O", o)]
    )
    for k in range(6):
        _ingest(cli, k)
    before = listing(cli.wh)
    # without a changelog flag the table's changelog retention holds (time: snapshot.time-retained,
    # 1 h; count: changelog.num-retained.max 5 of the 6 snapshots), whatever --older-than says
    assert cli.json("expire", "-t", T, "--older-than", "0s", "--dry-run")[0]["expired_changelogs"] == [1]
    dry = cli.json("expire", "-t", T, "--older-than", "0s", "--changelog-older-than", "0s", "--dry-run")[0]
    assert listing(cli.wh) == before
    # all older than 0s: snapshots down to the newest one (retain-min 1), changelogs of the newest
    # 4 snapshots (changelog.num-retained.min) stay
    assert dry["expired"] == [1, 2, 3, 4, 5] and dry["expired_changelogs"] == [1, 2]
    assert "changelog" in dry["protection"]
    text = cli("expire", "-t", T, "--older-than", "0s", "--changelog-older-than", "0s", "--dry-run").stdout
    assert "expire changelogs 1..2" in text or "expire changelogs 1-2" in text, text
    cli("expire", "-t", T, "--older-than", "0s", "--changelog-older-than", "0s")
    assert sorted(
        p.name for p in (table_dir(cli.wh) / "changelog").iterdir() if p.name.startswith("changelog-")
    ) == [
        "changelog-3",
        "changelog-4",
        "changelog-5",
    ]
    assert cli.snapshot_ids(T) == [6]
    rows = cli.json("stream", "-t", T, "--from", "3", "--until", "6")
    assert sorted(r["id"] for r in rows) == list(range(20, 25)) + list(range(30, 35)) + list(
        range(40, 45)
    ) + list(range(50, 55))


def test_rollback_as_of(cli, events_table):
    for k in range(1, 4):
        _ingest(cli, k)
    snaps = cli.json("snapshots", "-t", T)
    at = snaps[1]["time"]  # snapshot 2's commit time
    rec = cli.json("rollback", "-t", T, "--as-of", at, "--dry-run")[0]
    assert rec["snapshot"] == 2 and rec["snapshots_removed"] == [3, 4]
    cli("rollback", "-t", T, "--as-of", at)
    assert cli.snapshot_ids(T) == [1, 2]


def test_rollback_as_of_before_the_earliest_snapshot_says_so(cli, events_table):
    r = unchanged(cli, ["rollback", "-t", T, "--as-of", "2001-01-01"], 1)
    assert "no snapshot at or before" in r.stderr and "earliest is 1" in r.stderr


def test_rollback_needs_one_target(cli, events_table):
    unchanged(cli, ["rollback", "-t", T, "--to", "1", "--as-of", "2001-01-01"], 2)


def test_changelog_min_above_max_is_refused_at_create(cli):
    r = cli(
        "create-table", T, "--schema", PK_SCHEMA, "--primary-key", "id",
        "-O", "snapshot.num-retained.max=2", "-O", "snapshot.num-retained.min=1",
        "-O", "changelog.num-retained.min=3", code=1,
    )  # fmt: skip
    assert (
        r.stderr == "error: changelog.num-retained.min should not be larger than changelog.num-retained.max\n"
    )
    assert not (cli.wh / "demo.db" / "events").exists()
