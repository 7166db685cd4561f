"""Snapshot lifecycle commands: expire, tag create/list/delete, rollback, remove-orphans,
read --tag and diff with tags. Dry runs and errors must leave the table directory unchanged."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from .conftest import SCHEMA, events, run_paimon, write_parquet

T = "demo.events"


def table_dir(wh: Path) -> Path:
    return wh / "demo.db" / "events"


def listing(wh: Path) -> dict[str, tuple[int, int]]:
    """Every file under the table: relative path -> (size, mtime_ns)."""
    root = table_dir(wh)
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def ids(cli, *args) -> list[int]:
    return sorted(r["id"] for r in cli.json("read", "-t", T, *args))


def one(cli, *args, **kw) -> dict:
    rows = cli.json(*args, **kw)
    assert len(rows) == 1, rows
    return rows[0]


@pytest.fixture
def history(cli, events_table) -> Path:
    """demo.events: snapshots 1..4 append 10 rows each (ids 0..39), 5 is a full compaction
    (it deletes the files of 1..4), 6 appends ids 40..49."""
    for k in range(1, 4):
        cli("ingest", write_parquet(Path(f"in/h{k}.parquet"), events(10, 10 * k)), "-t", T)
    cli("compact", "-t", T, "--full")
    cli("ingest", write_parquet(Path("in/h5.parquet"), events(10, 40)), "-t", T)
    assert cli.snapshot_ids(T) == [1, 2, 3, 4, 5, 6]
    return cli.wh


def unchanged(cli, args, code, message=None):
    """Run a failing command; the table directory must not change."""
    before = listing(cli.wh)
    r = cli(*args, code=code)
    assert listing(cli.wh) == before
    if code == 1:
        assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    if message:  # usage errors are Typer's boxed panels: compare without the box and wrapping
        flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.stderr).split())
        assert message in flat, r.stderr
    return r


# ---------------------------------------------------------------- help
@pytest.mark.parametrize(
    "args",
    [
        ["expire"],
        ["tag"],
        ["tag", "create"],
        ["tag", "list"],
        ["tag", "delete"],
        ["rollback"],
        ["remove-orphans"],
        ["read"],
    ],
)
def test_help_has_examples(cli, args):
    out = cli(*args, "--help").stdout
    assert "Example" in out
    assert "paimon " + args[0] in out


# ---------------------------------------------------------------- expire
def test_expire_nothing_by_default(cli, history):
    before = listing(cli.wh)
    r = cli("expire", "-t", T)
    assert "nothing to expire in demo.events" in r.stdout
    assert "retain-min keeps the newest 10" in r.stdout
    assert listing(cli.wh) == before


def test_expire_nothing_too_young(cli, history):
    r = cli("expire", "-t", T, "--retain-min", "1")  # default snapshot.time-retained = 1h
    assert "nothing to expire" in r.stdout and "younger than 1h" in r.stdout
    r = cli("expire", "-t", T, "--retain-min", "1", "--older-than", "7d")
    assert "younger than 7d" in r.stdout
    r = cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "1", "--max-deletes", "0")
    assert "max-deletes is 0" in r.stdout
    rec = one(cli, "expire", "-t", T, "--retain-min", "1")
    assert rec["expired"] == [] and rec["file_count"] == 0 and "younger" in rec["reason"]
    assert cli.snapshot_ids(T) == [1, 2, 3, 4, 5, 6]


def test_expire_empty_table(cli):
    cli("create-table", T, "--schema", SCHEMA)
    r = cli("expire", "-t", T, "--older-than", "0s")
    assert "nothing to expire" in r.stdout and "no snapshots" in r.stdout


def test_expire_dry_run_deletes_nothing(cli, history):
    cli("tag", "create", "keep2", "-t", T, "--snapshot", "2")
    before = listing(cli.wh)
    r = cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "2", "--dry-run")
    assert listing(cli.wh) == before
    out = r.stdout
    assert "plan (dry run): expire snapshots 1..4 of demo.events" in out
    assert "snapshot 5 becomes the earliest" in out
    assert "what protects the rest" in out
    assert "retain-min" in out and "the newest 2 snapshot(s)" in out
    assert "time-retained" in out and "keep2->2" in out
    assert "dry run: would expire snapshots 1..4" in out and "nothing was deleted" in out
    for kind in ("data", "manifest", "snapshot", "total"):
        assert kind in out

    rec = one(cli, "expire", "-t", T, "--older-than", "0s", "--retain-min", "2", "--dry-run")
    assert listing(cli.wh) == before
    assert rec["dry_run"] is True and rec["expired"] == [1, 2, 3, 4] and rec["earliest"] == 5
    assert rec["file_count"] == len(rec["files"]) > 0
    assert rec["bytes"] == sum(f["bytes"] or 0 for f in rec["files"])
    assert sum(k["files"] for k in rec["by_kind"].values()) == rec["file_count"]
    assert all(Path(f["path"]).is_file() for f in rec["files"])
    assert "keep2->2" in rec["protection"]["tags"]
    assert rec["protection"]["stopped-by"] == "retain-min"
    # the tagged snapshot's data files stay: none of snapshot 2's files is in the plan
    snap2_files = {r["file"] for r in cli.json("files", "-t", T, "--snapshot", "2")}
    planned = {Path(f["path"]).name for f in rec["files"]}
    assert snap2_files and not snap2_files & planned
    assert {Path(f["path"]).name for f in rec["files"] if f["kind"] == "data"}  # 3 and 4's files go


def test_expire_deletes_the_planned_files(cli, history):
    plan = one(cli, "expire", "-t", T, "--older-than", "0s", "--retain-min", "2", "--dry-run")
    r = cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "2")
    out = r.stdout
    assert out.index("plan: expire snapshots 1..4") < out.index("expired snapshots 1..4 of demo.events")
    assert "earliest is now 5" in out
    assert cli.snapshot_ids(T) == [5, 6]
    assert all(not Path(f["path"]).exists() for f in plan["files"])
    kinds = {f["kind"] for f in plan["files"]}
    assert {"data", "snapshot", "manifest-list"} <= kinds
    assert ids(cli) == list(range(50))
    assert ids(cli, "--snapshot", "5") == list(range(40))
    # nothing left: orphan removal finds nothing the expiry forgot
    rec = one(cli, "remove-orphans", "-t", T, "--older-than", "0s", "--dry-run")
    assert rec["files"] == []
    # run again: nothing more to do
    assert "nothing to expire" in cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "2").stdout


def test_expire_json_lists_every_deleted_file(cli, history):
    before = set(listing(cli.wh))
    rec = one(cli, "expire", "-t", T, "--older-than", "0s", "--retain-min", "3")
    after = set(listing(cli.wh))
    root = table_dir(cli.wh)
    gone = {str(Path(f["path"]).relative_to(root)) for f in rec["files"]}
    assert before - after == gone
    assert rec["dry_run"] is False and rec["expired"] == [1, 2, 3] and rec["earliest"] == 4


def test_expire_max_deletes_and_retain_max(cli, history):
    rec = one(cli, "expire", "-t", T, "--older-than", "0s", "--retain-min", "1", "--max-deletes", "2")
    assert rec["expired"] == [1, 2]
    assert cli.snapshot_ids(T) == [3, 4, 5, 6]
    # retain-max expires beyond the newest N whatever their age (older-than stays 1h)
    rec = one(cli, "expire", "-t", T, "--retain-max", "2", "--retain-min", "1")
    assert rec["expired"] == [3, 4]
    assert cli.snapshot_ids(T) == [5, 6]
    assert ids(cli) == list(range(50))


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--older-than", "soon"], 2, "bad duration 'soon'"),
        (["--older-than", "7 weeks"], 2, "bad duration"),
        (["--retain-min", "0"], 2, None),
        (["--max-deletes", "-1"], 2, None),
        (
            ["--retain-min", "5", "--retain-max", "2"],
            1,
            "retain-max (2) must not be smaller than retain-min (5)",
        ),
    ],
)
def test_expire_bad_arguments(cli, history, args, code, message):
    unchanged(
        cli,
        ["expire", "-t", T, "--older-than", "0s", *args]
        if "--older-than" not in args
        else ["expire", "-t", T, *args],
        code,
        message,
    )
    assert cli.snapshot_ids(T) == [1, 2, 3, 4, 5, 6]


# ---------------------------------------------------------------- tags
def test_tag_create_list_delete(cli, history):
    r = cli("tag", "create", "v1", "-t", T, "--snapshot", "1")
    assert r.stdout.strip() == "created tag v1 on snapshot 1 of demo.events"
    rec = one(cli, "tag", "create", "head", "-t", T)
    assert rec["tag"] == "head" and rec["snapshot"] == 6 and rec["rows"] == 50
    tags = cli.json("tag", "list", "-t", T)
    assert [(t["tag"], t["snapshot"], t["rows"], t["expired"]) for t in tags] == [
        ("v1", 1, 10, False),
        ("head", 6, 50, False),
    ]
    text = cli("tag", "list", "-t", T).stdout
    assert "v1" in text and "head" in text and "expired" in text

    before = listing(cli.wh)
    r = cli("tag", "delete", "head", "-t", T, "--dry-run")
    assert "dry run: would delete tag head" in r.stdout
    assert listing(cli.wh) == before
    r = cli("tag", "delete", "head", "-t", T)
    assert "deleted tag head of demo.events and 0 file(s)" in r.stdout
    assert set(before) - set(listing(cli.wh)) == {"tag/tag-head"}
    assert [t["tag"] for t in cli.json("tag", "list", "-t", T)] == ["v1"]


def test_tag_list_empty(cli, history):
    assert cli.json("tag", "list", "-t", T) == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["tag", "create", "v1", "-t", T], "error: tag 'v1' already exists"),
        (["tag", "create", "v9", "-t", T, "--snapshot", "99"], "error: snapshot 99 does not exist"),
        (["tag", "create", "123", "-t", T], "error: bad tag name '123'"),
        (["tag", "create", "a/b", "-t", T], "error: bad tag name 'a/b'"),
        (["tag", "delete", "nope", "-t", T], "error: tag 'nope' does not exist"),
        (["tag", "delete", "nope", "-t", T, "--dry-run"], "error: tag 'nope' does not exist"),
        (["tag", "list", "-t", "demo.nope"], "error: table 'demo.nope' does not exist"),
    ],
)
def test_tag_errors(cli, history, args, message):
    cli("tag", "create", "v1", "-t", T, "--snapshot", "1")
    unchanged(cli, args, 1, message)


def test_tag_usage_errors(cli, history):
    unchanged(cli, ["tag", "create", "-t", T], 2)
    unchanged(cli, ["tag", "create", "x", "-t", T, "--snapshot", "0"], 2)
    unchanged(cli, ["tag", "frobnicate"], 2)


def test_tag_create_on_empty_table(cli):
    cli("create-table", T, "--schema", SCHEMA)
    r = cli("tag", "create", "v1", "-t", T, code=1)
    assert r.stderr.startswith("error: ") and "no snapshots" in r.stderr


def test_tag_delete_of_expired_snapshot_frees_its_files(cli, history):
    cli("tag", "create", "v2", "-t", T, "--snapshot", "2")
    cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "1")
    assert cli.snapshot_ids(T) == [6]
    assert [t["expired"] for t in cli.json("tag", "list", "-t", T)] == [True]
    before = listing(cli.wh)
    r = cli("tag", "delete", "v2", "-t", T, "--dry-run")
    assert listing(cli.wh) == before
    assert "file(s) only it keeps" in r.stdout and "nothing was deleted" in r.stdout
    plan = one(cli, "tag", "delete", "v2", "-t", T, "--dry-run")
    assert plan["snapshot"] == 2 and plan["file_count"] > 0
    assert "data" in plan["by_kind"]
    rec = one(cli, "tag", "delete", "v2", "-t", T)
    assert sorted(f["path"] for f in rec["files"]) == sorted(f["path"] for f in plan["files"])
    root = table_dir(cli.wh)
    gone = set(before) - set(listing(cli.wh))
    assert gone == {"tag/tag-v2"} | {str(Path(f["path"]).relative_to(root)) for f in plan["files"]}
    assert ids(cli) == list(range(50))
    assert one(cli, "remove-orphans", "-t", T, "--older-than", "0s", "--dry-run")["files"] == []


# ---------------------------------------------------------------- read --tag, diff with tags
def test_read_tag_after_its_snapshot_expired(cli, history):
    cli("tag", "create", "v2", "-t", T, "--snapshot", "2")
    at2 = ids(cli, "--snapshot", "2")
    assert at2 == list(range(20))
    assert ids(cli, "--tag", "v2") == at2
    cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "1")
    assert cli.snapshot_ids(T) == [6]
    cli("read", "-t", T, "--snapshot", "2", code=1)
    assert ids(cli, "--tag", "v2") == at2
    assert cli.json("read", "-t", T, "--tag", "v2", "--count") == [{"rows": 20}]
    assert ids(cli, "--tag", "v2", "--where", "id < 5") == [0, 1, 2, 3, 4]


def test_read_tag_errors(cli, history):
    r = cli("read", "-t", T, "--tag", "nope", code=1)
    assert r.stderr == "error: tag 'nope' does not exist\n"
    cli("tag", "create", "v1", "-t", T, "--snapshot", "1")
    cli("read", "-t", T, "--tag", "v1", "--snapshot", "1", code=2)
    cli("read", "-t", T, "--tag", "v1", "--as-of", "0", code=2)


def test_diff_from_and_to_tags(cli, history):
    cli("tag", "create", "v2", "-t", T, "--snapshot", "2")
    cli("tag", "create", "v4", "-t", T, "--snapshot", "4")
    by_id = cli.json("diff", "-t", T, "--from", "2", "--to", "4")
    by_tag = cli.json("diff", "-t", T, "--from", "v2", "--to", "v4")
    assert by_tag == by_id
    assert sorted(r["id"] for r in by_tag) == list(range(20, 40))
    assert {r["_row_kind"] for r in by_tag} == {"+I"}
    to_latest = cli.json("diff", "-t", T, "--from", "v4")
    assert sorted(r["id"] for r in to_latest) == list(range(40, 50))
    r = cli("diff", "-t", T, "--from", "nope", code=2)
    assert "not a snapshot id, a tag or a time" in r.stderr


def test_diff_from_tag_after_its_snapshot_expired(cli, history):
    cli("tag", "create", "v2", "-t", T, "--snapshot", "2")
    expected = cli.json("diff", "-t", T, "--from", "v2", "--mode", "diff")
    cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "1")
    assert cli.json("diff", "-t", T, "--from", "v2", "--mode", "diff") == expected


# ---------------------------------------------------------------- rollback
def test_rollback_to_snapshot(cli, history):
    cli("tag", "create", "v2", "-t", T, "--snapshot", "2")
    cli("tag", "create", "v5", "-t", T, "--snapshot", "5")
    before = listing(cli.wh)
    r = cli("rollback", "-t", T, "--to", "3", "--dry-run")
    assert listing(cli.wh) == before
    out = r.stdout
    assert "plan (dry run): roll demo.events back to snapshot 3" in out
    assert "snapshots removed: 4..6" in out and "tags deleted: v5" in out
    assert "dry run: rolling back to snapshot 3 would delete 3 snapshot(s) (4..6)" in out
    plan = one(cli, "rollback", "-t", T, "--to", "3", "--dry-run")
    assert listing(cli.wh) == before
    assert plan["snapshots_removed"] == [4, 5, 6] and plan["tags_deleted"] == ["v5"]
    assert plan["recreated_snapshot"] is False and plan["file_count"] == len(plan["files"]) > 0

    r = cli("rollback", "-t", T, "--to", "3")
    assert r.stdout.index("plan: roll demo.events back") < r.stdout.index(
        "rolled demo.events back to snapshot 3"
    )
    assert cli.snapshot_ids(T) == [1, 2, 3]
    assert ids(cli) == list(range(30))
    assert [t["tag"] for t in cli.json("tag", "list", "-t", T)] == ["v2"]
    assert all(not Path(f["path"]).exists() for f in plan["files"])
    assert one(cli, "remove-orphans", "-t", T, "--older-than", "0s", "--dry-run")["files"] == []
    # the next commit reuses id 4
    cli("ingest", write_parquet(Path("in/after.parquet"), events(5, 100)), "-t", T)
    assert cli.snapshot_ids(T) == [1, 2, 3, 4]
    assert ids(cli) == list(range(30)) + list(range(100, 105))


def test_rollback_to_tag_after_its_snapshot_expired(cli, history):
    cli("tag", "create", "v3", "-t", T, "--snapshot", "3")
    cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "2")
    assert cli.snapshot_ids(T) == [5, 6]
    before = listing(cli.wh)
    r = cli("rollback", "-t", T, "--tag", "v3", "--dry-run")
    assert listing(cli.wh) == before
    assert "snapshot 3 is rewritten from the tag" in r.stdout
    assert "roll demo.events back to tag v3 (snapshot 3)" in r.stdout
    rec = one(cli, "rollback", "-t", T, "--tag", "v3")
    assert rec["recreated_snapshot"] is True and rec["snapshots_removed"] == [5, 6] and rec["tag"] == "v3"
    assert cli.snapshot_ids(T) == [3]
    assert ids(cli) == list(range(30))
    assert ids(cli, "--tag", "v3") == list(range(30))
    assert one(cli, "remove-orphans", "-t", T, "--older-than", "0s", "--dry-run")["files"] == []


def test_rollback_to_latest_is_a_no_op(cli, history):
    before = listing(cli.wh)
    rec = one(cli, "rollback", "-t", T, "--to", "6")
    assert rec["snapshots_removed"] == [] and rec["file_count"] == 0
    assert listing(cli.wh).keys() == before.keys()


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--to", "2", "--tag", "v1"], 2, "give exactly one of --to ID, --tag NAME or --as-of TIME"),
        ([], 2, "give exactly one of --to ID, --tag NAME or --as-of TIME"),
        (["--to", "0"], 2, None),
        (["--to", "99"], 1, "error: snapshot 99 does not exist"),
        (["--tag", "nope"], 1, "error: tag 'nope' does not exist"),
        (["--tag", "nope", "--dry-run"], 1, "error: tag 'nope' does not exist"),
    ],
)
def test_rollback_errors(cli, history, args, code, message):
    cli("tag", "create", "v1", "-t", T, "--snapshot", "1")
    unchanged(cli, ["rollback", "-t", T, *args], code, message)
    assert cli.snapshot_ids(T) == [1, 2, 3, 4, 5, 6]


def test_rollback_to_expired_snapshot_fails(cli, history):
    cli("expire", "-t", T, "--older-than", "0s", "--retain-min", "2")
    unchanged(cli, ["rollback", "-t", T, "--to", "2"], 1, "error: snapshot 2 does not exist")


# ---------------------------------------------------------------- remove-orphans
def _orphans(wh: Path, age_s: float = 3 * 86400) -> list[Path]:
    """A stray data file in a bucket and a stray manifest, ``age_s`` old."""
    root = table_dir(wh)
    bucket = next(p for p in root.rglob("bucket-*") if p.is_dir())
    files = [bucket / "data-orphan-0.parquet", root / "manifest" / "manifest-orphan-0"]
    old = time.time() - age_s
    for f in files:
        f.write_bytes(b"x" * 100)
        os.utime(f, (old, old))
    return files


def test_remove_orphans(cli, history):
    old = _orphans(cli.wh)
    young = table_dir(cli.wh) / "manifest" / "manifest-young-0"
    young.write_bytes(b"y" * 10)
    before = listing(cli.wh)
    r = cli("remove-orphans", "-t", T, "--dry-run")
    assert listing(cli.wh) == before
    assert "plan (dry run): 2 orphan file(s) in demo.events older than 1d" in r.stdout
    assert "1 unreferenced but younger" in r.stdout
    assert "data-orphan-0.parquet" in r.stdout and "manifest-orphan-0" in r.stdout
    assert "dry run: would delete 2 orphan file(s)" in r.stdout and "200 B" in r.stdout
    rec = one(cli, "remove-orphans", "-t", T, "--dry-run")
    assert listing(cli.wh) == before
    assert sorted(f["path"] for f in rec["files"]) == sorted(str(p) for p in old)
    assert rec["bytes"] == 200 and rec["too_young"] == 1 and rec["referenced"] > 0
    assert {f["kind"] for f in rec["files"]} == {"data", "manifest"}

    r = cli("remove-orphans", "-t", T)
    assert "deleted 2 orphan file(s) from demo.events" in r.stdout
    assert not any(p.exists() for p in old) and young.exists()
    assert set(before) - set(listing(cli.wh)) == {str(p.relative_to(table_dir(cli.wh))) for p in old}
    assert ids(cli) == list(range(50))
    # younger files go once the cut-off allows it
    os.utime(young, (time.time() - 10, time.time() - 10))
    rec = one(cli, "remove-orphans", "-t", T, "--older-than", "5s")
    assert [f["path"] for f in rec["files"]] == [str(young)]
    assert "no orphan files" in cli("remove-orphans", "-t", T, "--older-than", "0s").stdout
    assert ids(cli) == list(range(50))
    assert cli.snapshot_ids(T) == [1, 2, 3, 4, 5, 6]


def test_remove_orphans_errors(cli, history):
    _orphans(cli.wh)
    unchanged(cli, ["remove-orphans", "-t", T, "--older-than", "yesterday"], 2, "bad duration 'yesterday'")
    unchanged(cli, ["remove-orphans", "-t", "demo.nope"], 1, "error: table 'demo.nope' does not exist")


# ---------------------------------------------------------------- the real entry point
def test_errors_are_one_line_in_a_subprocess(cli, history, tmp_path):
    r = run_paimon("-w", cli.wh, "tag", "delete", "nope", "-t", T, cwd=tmp_path)
    assert r.returncode == 1 and r.stderr == "error: tag 'nope' does not exist\n" and r.stdout == ""
    r = run_paimon("-w", cli.wh, "rollback", "-t", T, "--tag", "nope", "--dry-run", cwd=tmp_path)
    assert r.returncode == 1 and r.stderr == "error: tag 'nope' does not exist\n"


@pytest.mark.parametrize("command", [["expire", "--retain-min", "1"], ["remove-orphans"]])
@pytest.mark.parametrize("bare", ["7", "0", "1.5", " 30 "])
def test_destructive_durations_need_a_unit(cli, history, command, bare):
    """`--older-than 7` could mean 7 days or (as in Paimon's options) 7 milliseconds: refused."""
    before = listing(cli.wh)
    r = cli(command[0], "-t", T, *command[1:], "--older-than", bare, code=2)
    n = bare.strip()
    assert f"'{bare}' has no unit: write e.g. {n}d, {n}h, {n}m, {n}s or {n}ms" in " ".join(
        r.stderr.replace("│", " ").split()
    )
    assert listing(cli.wh) == before
