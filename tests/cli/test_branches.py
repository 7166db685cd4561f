"""paimon branch create|list|delete|rename|fast-forward, ``--branch`` on the table commands and
``DB.TABLE$branch_NAME`` as a table name; bad input is one line, exit 1, nothing changed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pyarrow as pa
import pytest

from tests.cli.conftest import write_parquet

T = "db.t"


def put(cli, name, rows, *extra):
    p = write_parquet(
        Path(f"in/{name}.parquet"),
        pa.table(
            {
                "id": pa.array([r[0] for r in rows], pa.int64()),
                "v": [r[1] for r in rows],
                "dt": [r[2] for r in rows],
            }
        ),
    )
    cli("ingest", p, "-t", T, *extra)


def rows(cli, *args):
    return sorted((r["id"], r["v"], r["dt"]) for r in cli.json("read", "-t", T, *args))


def tree(path: Path) -> dict[str, str]:
    out = {}
    for d, _dirs, names in os.walk(path):
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, path)] = hashlib.sha1(Path(p).read_bytes()).hexdigest()
    return out


def make(cli):
    cli(
        "create-table",
        T,
        "--schema",
        "id BIGINT NOT NULL, v STRING, dt STRING NOT NULL",
        "-k",
        "id,dt",
        "--partition",
        "dt",
        "--bucket",
        "1",
        "-O",
        "changelog-producer=input",
    )
    put(cli, "a", [(1, "a", "d1"), (2, "b", "d1")])
    cli("tag", "create", "nightly", "-t", T)


def one_line_error(result, text: str) -> None:
    assert result.exit_code == 1
    err = result.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err and "Traceback" not in err, err
    assert text in err, err


@pytest.mark.slow
def test_worked_example_test_on_a_branch_then_fast_forward(cli, wh):
    """The README's example: a fix tested on a branch, then published with fast-forward."""
    make(cli)
    cli("branch", "create", "-t", T, "fix", "--tag", "nightly")
    put(cli, "fix", [(2, "B", "d1"), (3, "c", "d2")], "--branch", "fix")
    assert rows(cli, "--branch", "fix") == [(1, "a", "d1"), (2, "B", "d1"), (3, "c", "d2")]
    assert rows(cli) == [(1, "a", "d1"), (2, "b", "d1")]  # main is untouched
    listed = cli.json("branch", "list", "-t", T)
    assert listed == [
        {
            "branch": "fix",
            "created_from": "tag nightly",
            "latest_snapshot": 2,
            "schema_id": 0,
            "tags": "nightly",
        }
    ]
    before = tree(wh)
    dry = cli.json("branch", "fast-forward", "-t", T, "fix", "--dry-run")[0]
    assert dry["dry_run"] is True and dry["snapshots_replaced"] == [1] and dry["latest_snapshot"] == 2
    assert tree(wh) == before
    out = cli("branch", "fast-forward", "-t", T, "fix").stdout
    assert "main's latest snapshot is 2" in out
    assert rows(cli) == [(1, "a", "d1"), (2, "B", "d1"), (3, "c", "d2")]
    cli("branch", "delete", "-t", T, "fix")
    assert cli.json("branch", "list", "-t", T) == []
    assert rows(cli) == [(1, "a", "d1"), (2, "B", "d1"), (3, "c", "d2")]


@pytest.mark.slow
def test_branch_option_on_table_commands(cli, wh):
    make(cli)
    cli("branch", "create", "-t", T, "b", "--tag", "nightly")
    put(cli, "b1", [(5, "x", "d1")], "--branch", "b")
    put(cli, "b2", [(6, "y", "d2")], "-b", "b")
    name = f"{T}$branch_b"
    assert rows(cli, "-b", "b") == sorted((r["id"], r["v"], r["dt"]) for r in cli.json("read", "-t", name))
    # time travel inside the branch: its snapshot 2 and its copy of the tag
    assert rows(cli, "-b", "b", "--snapshot", "2") == [(1, "a", "d1"), (2, "b", "d1"), (5, "x", "d1")]
    assert rows(cli, "-b", "b", "--tag", "nightly") == [(1, "a", "d1"), (2, "b", "d1")]
    assert [r["id"] for r in cli.json("snapshots", "-t", T, "-b", "b")] == [1, 2, 3]
    assert [r["id"] for r in cli.json("snapshots", "-t", name)] == [1, 2, 3]
    assert [r["id"] for r in cli.json("snapshots", "-t", T)] == [1]
    diff = cli.json("diff", "-t", T, "-b", "b", "--from", "2", "--to", "3")
    assert [(r["_row_kind"], r["id"]) for r in diff] == [("+I", 6)]
    cli("delete", "-t", T, "-b", "b", "--where", "id = 5")
    assert rows(cli, "-b", "b") == [(1, "a", "d1"), (2, "b", "d1"), (6, "y", "d2")]
    cli("alter-table", "-t", T, "-b", "b", "add-column", "extra", "INT")
    assert [f["name"] for f in cli.json("schema", "-t", T, "-b", "b")[0]["fields"]] == [
        "id",
        "v",
        "dt",
        "extra",
    ]
    assert [f["name"] for f in cli.json("schema", "-t", T)[0]["fields"]] == ["id", "v", "dt"]
    cli("compact", "-t", T, "-b", "b", "--full")
    assert {r["level"] for r in cli.json("files", "-t", T, "-b", "b")} == {5}
    cli("tag", "create", "bt", "-t", T, "-b", "b")
    assert [r["tag"] for r in cli.json("tag", "list", "-t", T, "-b", "b")] == ["nightly", "bt"]
    assert [r["tag"] for r in cli.json("tag", "list", "-t", T)] == ["nightly"]
    got = cli.json("stream", T, "-b", "b", "--consumer-id", "c", "--from", "3", "--until", "3")
    assert [r["id"] for r in got] == [6]
    assert (wh / "db.db/t/branch/branch-b/consumer/consumer-c").exists()
    assert [r["consumer"] for r in cli.json("consumer", "list", "-t", T, "-b", "b")] == ["c"]
    assert cli.json("consumer", "list", "-t", T) == []
    cli("rollback", "-t", T, "-b", "b", "--to", "3")
    assert [r["id"] for r in cli.json("snapshots", "-t", T, "-b", "b")] == [1, 2, 3]
    cli("expire", "-t", T, "-b", "b", "--retain-max", "1", "--retain-min", "1", "--older-than", "0s")
    assert [r["id"] for r in cli.json("snapshots", "-t", T, "-b", "b")] == [3]
    assert rows(cli) == [(1, "a", "d1"), (2, "b", "d1")]  # main read fine all along
    doctor = cli.json("doctor", T, "-b", "b")
    assert doctor and doctor[0]["table"] == name
    cli("remove-orphans", "-t", T, "--older-than", "0s")
    assert rows(cli, "-b", "b") == [(1, "a", "d1"), (2, "b", "d1"), (5, "x", "d1"), (6, "y", "d2")]
    assert rows(cli, "--tag", "nightly") == [(1, "a", "d1"), (2, "b", "d1")]


def test_create_from_snapshot_empty_and_rename(cli):
    make(cli)
    put(cli, "m2", [(7, "m", "d1")])
    cli("branch", "create", "-t", T, "s1", "--snapshot", "1")
    cli("branch", "create", "-t", T, "e")
    listed = {r["branch"]: r for r in cli.json("branch", "list", "-t", T)}
    assert listed["s1"]["created_from"] == "snapshot 1" and listed["e"]["created_from"] == "empty"
    assert rows(cli, "-b", "e") == []
    cli("branch", "rename", "-t", T, "s1", "s2")
    assert [r["branch"] for r in cli.json("branch", "list", "-t", T)] == ["e", "s2"]
    assert rows(cli, "-b", "s2") == [(1, "a", "d1"), (2, "b", "d1")]


@pytest.mark.slow
def test_bad_input_is_one_line_and_changes_nothing(cli, wh):
    make(cli)
    cli("branch", "create", "-t", T, "b", "--tag", "nightly")
    before = tree(wh)
    one_line_error(
        cli("read", "-t", T, "-b", "nope", code=None), "branch 'nope' of table db.t does not exist"
    )
    one_line_error(
        cli("read", "-t", f"{T}$branch_nope", code=None), "branch 'nope' of table db.t does not exist"
    )
    one_line_error(
        cli("branch", "delete", "-t", T, "nope", code=None), "branch 'nope' of table db.t does not exist"
    )
    one_line_error(cli("branch", "fast-forward", "-t", T, "nope", code=None), "does not exist")
    for bad in ("a/b", "..", "x/../y"):
        one_line_error(cli("branch", "create", "-t", T, bad, code=None), f"bad branch name '{bad}'")
        one_line_error(cli("read", "-t", T, "-b", bad, code=None), "bad branch name")
    one_line_error(cli("branch", "create", "-t", T, "b", code=None), "branch 'b' already exists")
    one_line_error(
        cli("branch", "create", "-t", T, "c", "--tag", "nope", code=None), "tag 'nope' does not exist"
    )
    one_line_error(cli("branch", "create", "-t", T, "main", code=None), "bad branch name 'main'")
    one_line_error(cli("ingest", "in/a.parquet", "-t", T, "-b", "nope", code=None), "does not exist")
    assert tree(wh) == before


@pytest.mark.slow
def test_fast_forward_of_a_schema_main_cannot_take_is_refused(cli, wh):
    """An empty branch and main each add a column as schema 1 (different ones); the branch then
    keeps only its latest snapshot: main would keep snapshots 1-2 of its schema 1 while the
    branch's schema 1 replaced it."""
    make(cli)
    cli("branch", "create", "-t", T, "e")
    cli("alter-table", "-t", T, "-b", "e", "add-column", "y", "INT")
    cli("alter-table", "-t", T, "add-column", "x", "STRING")
    for i in range(3):
        p = write_parquet(
            Path(f"in/e{i}.parquet"),
            pa.table(
                {"id": pa.array([i], pa.int64()), "v": ["e"], "dt": ["d1"], "y": pa.array([i], pa.int32())}
            ),
        )
        cli("ingest", p, "-t", T, "-b", "e")
        p = write_parquet(
            Path(f"in/m{i}.parquet"),
            pa.table({"id": pa.array([i], pa.int64()), "v": ["m"], "dt": ["d1"], "x": ["x"]}),
        )
        cli("ingest", p, "-t", T)
    cli("expire", "-t", T, "-b", "e", "--retain-max", "1", "--retain-min", "1", "--older-than", "0s")
    before = tree(wh)
    one_line_error(
        cli("branch", "fast-forward", "-t", T, "e", code=None),
        "cannot fast-forward to branch 'e': main keeps snapshot 2 of schema 1",
    )
    assert tree(wh) == before


def test_branch_delete_dry_run_and_json(cli, wh):
    make(cli)
    cli("branch", "create", "-t", T, "b", "--tag", "nightly")
    put(cli, "b1", [(5, "x", "d1")], "-b", "b")
    before = tree(wh)
    dry = cli.json("branch", "delete", "-t", T, "b", "--dry-run")[0]
    assert dry["dry_run"] is True and dry["by_kind"]["data"]["files"] == 1
    assert dry["by_kind"]["changelog"]["files"] == 1
    assert tree(wh) == before
    done = cli.json("branch", "delete", "-t", T, "b")[0]
    assert done["file_count"] == dry["file_count"]
    assert not (wh / "db.db/t/branch/branch-b").exists()
    assert {f["kind"] for f in done["files"]} == {"data", "changelog", "manifest"}
    for f in done["files"]:
        assert not Path(f["path"]).exists()
    assert rows(cli) == [(1, "a", "d1"), (2, "b", "d1")]
    assert json.dumps(done)  # one record


@pytest.mark.slow
def test_partition_and_tag_commands_on_a_branch(cli, wh):
    make(cli)
    cli("branch", "create", "-t", T, "b", "--tag", "nightly")
    put(cli, "b1", [(5, "x", "d2")], "-b", "b")
    parts = cli.json("partition", "list", "-t", T, "-b", "b")
    assert sorted(str(p.get("partition")) for p in parts) == ["dt=d1", "dt=d2"]
    assert [str(p.get("partition")) for p in cli.json("partition", "list", "-t", T)] == ["dt=d1"]
    cli("partition", "drop", "-t", T, "-b", "b", "--partition", "dt=d1")
    assert rows(cli, "-b", "b") == [(5, "x", "d2")]
    assert rows(cli) == [(1, "a", "d1"), (2, "b", "d1")]
    cli("tag", "rename", "nightly", "n2", "-t", T, "-b", "b")
    assert [r["tag"] for r in cli.json("tag", "list", "-t", T, "-b", "b")] == ["n2"]
    assert [r["tag"] for r in cli.json("tag", "list", "-t", T)] == ["nightly"]
