"""``--catalog rest``: the CLI through ``paimon rest-server`` (the session's server), with
commits decided by the server's commit endpoint."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.errors import TableNotFound
from paimon_core.metadata.schema import Schema
from tests.cli.conftest import Cli
from tests.rest_support import TOKEN, SpecClient


def _flags(server, token: str = TOKEN) -> list[str]:
    return [
        "--catalog",
        "rest",
        "--catalog-option",
        f"uri={server.uri}",
        "--catalog-option",
        f"token={token}",
    ]


def test_the_cli_creates_ingests_reads_renames_and_drops_through_the_server(rest_server, tmp_path):
    cli = Cli(tmp_path / "unused")
    f = _flags(rest_server)
    (tmp_path / "in.csv").write_text("id,v\n1,a\n2,b\n")
    cli(*f, "create-table", "cl_db.t", "--schema", "id INT, v STRING", warehouse=False)
    cli(*f, "ingest", "-t", "cl_db.t", str(tmp_path / "in.csv"), warehouse=False)
    cli(*f, "ingest", "-t", "cl_db.t", str(tmp_path / "in.csv"), warehouse=False)
    rows = cli.json(*f, "read", "-t", "cl_db.t", warehouse=False)
    assert sorted((r["id"], r["v"]) for r in rows) == [(1, "a"), (1, "a"), (2, "b"), (2, "b")]
    assert [r["id"] for r in cli.json(*f, "snapshots", "-t", "cl_db.t", warehouse=False)] == [1, 2]
    assert (rest_server.warehouse / "cl_db.db" / "t" / "snapshot" / "snapshot-2").exists()
    cli(*f, "rename-table", "cl_db.t", "cl_db.u", warehouse=False)
    assert [r["table"] for r in cli.json(*f, "tables", "cl_db", warehouse=False)] == ["u"]
    cli(*f, "drop-table", "cl_db.u", warehouse=False)
    assert cli.json(*f, "tables", "cl_db", warehouse=False) == []


def test_a_wrong_token_is_one_line_and_exit_1(rest_server, tmp_path):
    r = Cli(tmp_path)(*_flags(rest_server, "wrong"), "databases", warehouse=False, code=1)
    assert "401" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_the_server_decides_commits(rest_server):
    """A table dropped and created again under the same name (same path) while a writer holds
    the old one: the server refuses the writer's commit (404), so the new table gets no snapshot.
    A client committing on storage itself would have put snapshot-1 into the new table."""
    catalog = create_catalog("rest", "unused", {"uri": rest_server.uri, "token": TOKEN})
    schema = Schema(Schema.parse_columns("id INT"))
    old = catalog.create_table("cl_dec.t", schema)
    catalog.drop_table("cl_dec.t")
    import time

    time.sleep(0.01)  # the new table's id (its schema-0 time) differs from the old one's
    catalog.create_table("cl_dec.t", schema)
    with pytest.raises(TableNotFound):
        old.write_arrow(pa.table({"id": pa.array([1], pa.int32())}))
    assert catalog.get_table("cl_dec.t").snapshots.list_ids() == []


def _requests_since(server, before: int) -> list[str]:
    return server.requests()[before:]


@pytest.mark.slow
def test_tags_branches_partitions_and_alter_through_the_server(rest_server, tmp_path):
    """Branch commits and schema changes are sent to the server (its request log shows them);
    tags, branch reads and partitions work through ``--catalog rest``."""
    cli = Cli(tmp_path / "unused")
    f = _flags(rest_server)
    (tmp_path / "a.csv").write_text("id,p\n1,x\n2,y\n")
    (tmp_path / "b.csv").write_text("id,p\n3,x\n")
    cli(*f, "create-table", "cl_br.t", "--schema", "id INT, p STRING", "--partition", "p", warehouse=False)
    cli(*f, "ingest", "-t", "cl_br.t", str(tmp_path / "a.csv"), warehouse=False)
    before = len(rest_server.requests())
    cli(*f, "tag", "create", "first", "-t", "cl_br.t", warehouse=False)
    assert [t["tag"] for t in cli.json(*f, "tag", "list", "-t", "cl_br.t", warehouse=False)] == ["first"]
    cli(*f, "branch", "create", "-t", "cl_br.t", "dev", "--tag", "first", warehouse=False)
    sent = _requests_since(rest_server, before)
    base = "/v1/paimon/databases/cl_br/tables/t"
    for line in (f"POST {base}/tags 200", f"POST {base}/branches 200"):
        assert line in sent, sent

    before = len(rest_server.requests())
    cli(*f, "ingest", "-t", "cl_br.t", "--branch", "dev", str(tmp_path / "b.csv"), warehouse=False)
    sent = _requests_since(rest_server, before)
    assert "POST /v1/paimon/databases/cl_br/tables/t%24branch_dev/commit 200" in sent, sent
    dev = cli.json(*f, "read", "-t", "cl_br.t", "--branch", "dev", warehouse=False)
    assert sorted(r["id"] for r in dev) == [1, 2, 3]
    cli(*f, "ingest", "-t", "cl_br.t", str(tmp_path / "b.csv"), warehouse=False)
    tagged = cli.json(*f, "read", "-t", "cl_br.t", "--tag", "first", warehouse=False)
    assert sorted(r["id"] for r in tagged) == [1, 2]
    parts = cli.json(*f, "partition", "list", "-t", "cl_br.t", warehouse=False)
    assert [(p["partition"], p["rows"]) for p in parts] == [("p=x", 2), ("p=y", 1)]

    before = len(rest_server.requests())
    cli(*f, "branch", "create", "-t", "cl_br.t", "tmp", warehouse=False)
    cli(*f, "branch", "rename", "-t", "cl_br.t", "tmp", "tmp2", warehouse=False)
    cli(*f, "branch", "delete", "-t", "cl_br.t", "tmp2", warehouse=False)
    cli(*f, "tag", "create", "second", "-t", "cl_br.t", "--time-retained", "1h", warehouse=False)
    cli(*f, "tag", "delete", "second", "-t", "cl_br.t", warehouse=False)
    r = cli(*f, "branch", "create", "-t", "cl_br.t", "s1", "--snapshot", "1", warehouse=False, code=1)
    assert "tag the snapshot" in r.stderr and "Traceback" not in r.stderr
    sent = _requests_since(rest_server, before)
    for line in (
        f"POST {base}/branches/tmp/rename 200",
        f"DELETE {base}/branches/tmp2 200",
        f"POST {base}/tags 200",
        f"DELETE {base}/tags/second 200",
    ):
        assert line in sent, sent
    assert [b["branch"] for b in cli.json(*f, "branch", "list", "-t", "cl_br.t", warehouse=False)] == ["dev"]

    before = len(rest_server.requests())
    cli(*f, "alter-table", "add-column", "-t", "cl_br.t", "c", "BIGINT", warehouse=False)
    sent = _requests_since(rest_server, before)
    assert "POST /v1/paimon/databases/cl_br/tables/t 200" in sent, sent
    got = SpecClient(rest_server).call("GET", "/v1/paimon/databases/cl_br/tables/t").body
    assert [x["name"] for x in got["schema"]["fields"]] == ["id", "p", "c"] and got["schemaId"] == 1
    r = cli(*f, "alter-table", "drop-column", "-t", "cl_br.t", "nope", warehouse=False, code=1)
    assert "nope" in r.stderr and "Traceback" not in r.stderr
    assert SpecClient(rest_server).call("GET", "/v1/paimon/databases/cl_br/tables/t").body["schemaId"] == 1

    before = len(rest_server.requests())
    cli(*f, "branch", "fast-forward", "-t", "cl_br.t", "dev", warehouse=False)
    assert f"POST {base}/branches/dev/forward 200" in _requests_since(rest_server, before)
    assert sorted(r["id"] for r in cli.json(*f, "read", "-t", "cl_br.t", warehouse=False)) == [1, 2, 3]


def test_the_client_follows_page_tokens(rest_server):
    catalog = create_catalog("rest", "unused", {"uri": rest_server.uri, "token": TOKEN})
    for db in ("pc_1", "pc_2", "pc_3"):
        catalog.create_database(db)
    before = len(rest_server.requests())
    names = catalog.list_all("databases", "databases", max_results=1)
    assert {"pc_1", "pc_2", "pc_3"} <= set(names) and len(names) == len(set(names))
    pages = [r for r in _requests_since(rest_server, before) if "/databases?" in r]
    assert len(pages) == len(names) and "pageToken=pc_1" in " ".join(pages)
    assert sorted(names) == catalog.list_databases()


def test_the_done_partition_action_marks_through_the_server(rest_server, tmp_path):
    cli = Cli(tmp_path / "unused")
    f = _flags(rest_server)
    (tmp_path / "a.csv").write_text("id,p\n1,x\n2,y\n")
    cli(*f, "create-table", "cl_md.t", "--schema", "id INT, p STRING", "--partition", "p",
        "-O", "partition.mark-done-action=done-partition", warehouse=False)  # fmt: skip
    cli(*f, "ingest", "-t", "cl_md.t", str(tmp_path / "a.csv"), warehouse=False)
    before = len(rest_server.requests())
    cli(*f, "partition", "mark-done", "-t", "cl_md.t", "-p", "p=x", warehouse=False)
    assert "POST /v1/paimon/databases/cl_md/tables/t/partitions/mark 200" in _requests_since(
        rest_server, before
    )
    assert (rest_server.warehouse / "cl_md.db" / "t" / "p=x" / "_SUCCESS").exists()
    assert not (rest_server.warehouse / "cl_md.db" / "t" / "p=y" / "_SUCCESS").exists()


def test_rollback_is_done_by_the_server(rest_server, tmp_path):
    """``paimon rollback`` through ``--catalog rest`` sends the server's rollback endpoint (as
    Java's client does with a catalog that manages versions): to a snapshot and to a tag; a
    snapshot or tag that does not exist is a 404 that changes nothing, and a ``fromSnapshot``
    that is not the latest a 409."""
    cli = Cli(tmp_path / "unused")
    f = _flags(rest_server)
    cli(*f, "create-table", "cl_rb.t", "--schema", "id INT", warehouse=False)
    for i in range(4):
        (tmp_path / f"{i}.csv").write_text(f"id\n{i}\n")
        cli(*f, "ingest", "-t", "cl_rb.t", str(tmp_path / f"{i}.csv"), warehouse=False)
    cli(*f, "tag", "create", "two", "-t", "cl_rb.t", "--snapshot", "2", warehouse=False)
    before = len(rest_server.requests())
    cli(*f, "rollback", "-t", "cl_rb.t", "--to", "3", warehouse=False)
    assert "POST /v1/paimon/databases/cl_rb/tables/t/rollback 200" in _requests_since(rest_server, before)
    assert sorted(r["id"] for r in cli.json(*f, "read", "-t", "cl_rb.t", warehouse=False)) == [0, 1, 2]
    cli(*f, "rollback", "-t", "cl_rb.t", "--tag", "two", warehouse=False)
    assert sorted(r["id"] for r in cli.json(*f, "read", "-t", "cl_rb.t", warehouse=False)) == [0, 1]
    client = SpecClient(rest_server)
    path = "/v1/paimon/databases/cl_rb/tables/t/rollback"
    for body, status, kind in (
        ({"instant": {"type": "snapshot", "snapshotId": 9}}, 404, "SNAPSHOT"),
        ({"instant": {"type": "tag", "tagName": "nope"}}, 404, "TAG"),
        ({"instant": {"type": "snapshot", "snapshotId": 1}, "fromSnapshot": 1}, 409, "SNAPSHOT"),
        ({"instant": {"type": "time"}}, 400, None),
    ):
        got = client.call("POST", path, body)
        assert got.status == status and (kind is None or got.body["resourceType"] == kind), got.body
    assert Cli(rest_server.warehouse).snapshot_ids("cl_rb.t") == [1, 2]
