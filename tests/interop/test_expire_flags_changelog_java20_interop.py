"""``paimon expire``'s flags set the snapshots' retention for one run; they never shorten the
changelog retention a table declares (Java's ``expire_snapshots`` procedure sets only the snapshot
retention too). Java Paimon 2.0 writes the table; Java's procedure config expires one copy, our CLI
the other; stream readers (ours and Java's) still see every change from the first commit."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.changelog import changelog_manager
from tests.interop.harness.canonical import assert_same_rows

pytestmark = [pytest.mark.interop]

NAME = "db.t"
OPTIONS = {
    "changelog-producer": "input",
    "bucket": "1",
    "snapshot.num-retained.min": "1",
    "snapshot.num-retained.max": "2",
    "changelog.num-retained.max": "20",
}
COMMITS = 6


def _changelogs(wh: str) -> list[int]:
    t = FileSystemCatalog(wh).get_table(NAME)
    cm = changelog_manager(t)
    first, last = cm.earliest_id(), cm.latest_id()
    return [] if first is None or last is None else list(range(first, last + 1))


def _snapshots(wh: str) -> list[int]:
    return FileSystemCatalog(wh).get_table(NAME).snapshots.list_ids()


def _paimon(wh: str, *args: str) -> str:
    r = CliRunner().invoke(app, ["-w", wh, *args])
    assert r.exit_code == 0, (args, r.stdout, r.stderr)
    return r.stdout


@pytest.fixture
def twins(java20, tmp_path):
    """Java 2.0 writes COMMITS commits (its writer keeps the last two snapshots and the older
    ones as changelogs); two copies of that warehouse, and every row written (one new key per
    commit)."""
    wh = str(tmp_path / "java")
    schema = [{"name": "id", "type": "INT NOT NULL"}, {"name": "v", "type": "STRING"}]
    rows = [{"id": i, "v": f"r{i}"} for i in range(COMMITS)]
    java20.run(
        [
            {
                "op": "create_table",
                "warehouse": wh,
                "table": NAME,
                "schema": schema,
                "primary_keys": ["id"],
                "options": OPTIONS,
            },
            *({"op": "write", "warehouse": wh, "table": NAME, "rows": [r]} for r in rows),
        ]
    )
    first, latest = _snapshots(wh)
    assert _changelogs(wh) == list(range(1, first)) and latest > COMMITS - 1
    ours = str(tmp_path / "ours")
    shutil.copytree(wh, ours)
    return wh, ours, rows


def test_expire_flags_keep_the_changelogs_the_table_declares(java20, twins):
    javas, ours, rows = twins
    # the procedure's config: retain_max/min for the snapshots only, the changelog options untouched
    java20.call("expire", warehouse=javas, table=NAME, retain_max=1, retain_min=1)
    _paimon(ours, "expire", "-t", NAME, "--retain-max", "1", "--retain-min", "1", "--older-than", "1ms")
    latest = _snapshots(javas)[-1]
    assert _snapshots(ours) == _snapshots(javas) == [latest]
    assert set(_changelogs(javas)) <= set(_changelogs(ours)), "we dropped a changelog Java keeps"
    # beyond Java: the snapshot expired now becomes a changelog too, so the stream has no gap
    assert _changelogs(ours) == list(range(1, latest))

    expected = [{"_row_kind": "+I", **r} for r in rows]
    diff = [
        json.loads(x)
        for x in _paimon(
            ours, "-o", "json", "diff", "-t", NAME, "--from", "0", "--mode", "changelog"
        ).splitlines()
        if x.strip()
    ]
    assert sorted(r["id"] for r in diff) == list(range(COMMITS))
    theirs = java20.call(
        "stream", warehouse=ours, table=NAME, options={"scan.mode": "from-snapshot", "scan.snapshot-id": "1"}
    )
    got = [{k: v for k, v in r.items() if k != "_plan"} for r in theirs["rows"]]
    assert_same_rows(expected, got, ignore_kind=False, label_a="written", label_b="Java streaming our table")


def test_explicit_changelog_flags_do_expire_changelogs(twins):
    _, ours, _ = twins
    _paimon(
        ours,
        "expire",
        "-t",
        NAME,
        "--retain-max",
        "1",
        "--retain-min",
        "1",
        "--older-than",
        "1ms",
        "--changelog-retain-max",
        "2",
        "--changelog-retain-min",
        "1",
        "--changelog-older-than",
        "1ms",
    )
    # counted from the latest snapshot, as Java does: only the changelog just below it stays
    latest = _snapshots(ours)[-1]
    assert _snapshots(ours) == [latest] and _changelogs(ours) == [latest - 1]
