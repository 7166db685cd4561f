"""``paimon rest-server``'s tags, branches, snapshots, partitions and paging over raw HTTP
(views: test_rest_views_functions.py); every answer validated against the pinned spec by ``SpecClient``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.rest_support import PREFIX, SpecClient

V1 = f"/v1/{PREFIX}"


def _table(server, db: str, tmp_path: Path, partitioned: bool = False) -> Cli:
    """``db.t`` (a INT, p STRING) with two snapshots: rows (1, x) then (2, y)."""
    cli = Cli(server.warehouse)
    extra = ["--partition", "p"] if partitioned else []
    cli("create-table", f"{db}.t", "--schema", "a INT, p STRING", *extra)
    for i, (a, p) in enumerate([(1, "x"), (2, "y")]):
        f = tmp_path / f"in{i}.csv"
        f.write_text(f"a,p\n{a},{p}\n")
        cli("ingest", "-t", f"{db}.t", str(f))
    return cli


@pytest.mark.slow
def test_tags_create_get_list_page_and_delete(rest_server, tmp_path):
    cli = _table(rest_server, "tg_db", tmp_path)
    c = SpecClient(rest_server)
    base = f"{V1}/databases/tg_db/tables/t"
    for name, snap in (("b1", 1), ("a2", 2), ("c0", None)):
        body = {"tagName": name, **({"snapshotId": snap} if snap else {})}
        assert c.call("POST", f"{base}/tags", body).status == 200
    r = c.call("POST", f"{base}/tags", {"tagName": "ttl", "snapshotId": 1, "timeRetained": "1d"})
    assert r.status == 200
    assert [t["tag"] for t in cli.json("tag", "list", "-t", "tg_db.t")] == ["b1", "ttl", "a2", "c0"]
    got = c.call("GET", f"{base}/tags/b1").body
    assert got["tagName"] == "b1" and got["snapshot"]["id"] == 1 and got["tagTimeRetained"] is None
    got = c.call("GET", f"{base}/tags/ttl").body
    assert got["tagTimeRetained"] == "PT24H" and got["tagCreateTime"] > 0
    r = c.call("POST", f"{base}/tags", {"tagName": "b1"})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (409, "TAG", "b1")
    assert c.call("POST", f"{base}/tags", {"tagName": "b1", "ignoreIfExists": True}).status == 200
    r = c.call("POST", f"{base}/tags", {"tagName": "z", "snapshotId": 9})
    assert (r.status, r.body["resourceType"]) == (404, "SNAPSHOT")
    assert c.call("POST", f"{base}/tags", {"snapshotId": 1}).status == 400

    pages, token = [], None
    while True:
        r = c.call("GET", f"{base}/tags", query="maxResults=2" + (f"&pageToken={token}" if token else ""))
        pages.append(r.body["tags"])
        token = r.body["nextPageToken"]
        if token is None:
            break
    assert pages == [["a2", "b1"], ["c0", "ttl"]]
    assert c.call("GET", f"{base}/tags", query="tagNamePrefix=c").body["tags"] == ["c0"]
    assert c.call("GET", f"{base}/tags", query="maxResults=0").status == 400

    assert c.call("DELETE", f"{base}/tags/a2").status == 200
    r = c.call("DELETE", f"{base}/tags/a2")
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "TAG", "a2")
    r = c.call("GET", f"{base}/tags/nope")
    assert (r.status, r.body["resourceType"]) == (404, "TAG")
    assert c.call("GET", f"{base}/tags").body == {"tags": ["b1", "c0", "ttl"], "nextPageToken": None}


def test_branches_create_commit_forward_rename_and_drop(rest_server, tmp_path):
    cli = _table(rest_server, "br_db", tmp_path)
    c = SpecClient(rest_server)
    base = f"{V1}/databases/br_db/tables/t"
    assert c.call("POST", f"{base}/tags", {"tagName": "first", "snapshotId": 1}).status == 200
    assert c.call("POST", f"{base}/branches", {"branch": "dev", "fromTag": "first"}).status == 200
    assert c.call("POST", f"{base}/branches", {"branch": "empty"}).status == 200
    assert c.call("GET", f"{base}/branches").body == {"branches": ["dev", "empty"]}
    r = c.call("POST", f"{base}/branches", {"branch": "dev"})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (409, "BRANCH", "dev")
    r = c.call("POST", f"{base}/branches", {"branch": "x", "fromTag": "nope"})
    assert (r.status, r.body["resourceType"]) == (404, "TAG")
    for bad in ("../up", "a/b"):
        assert c.call("POST", f"{base}/branches", {"branch": bad}).status == 400

    # the branch's snapshot, by id and latest, at its own address t$branch_dev
    dev = f"{V1}/databases/br_db/tables/t%24branch_dev"
    assert c.call("GET", f"{dev}/snapshot").body["snapshot"]["snapshot"]["id"] == 1
    assert c.call("GET", f"{dev}/snapshots/1").body["snapshot"]["id"] == 1
    r = c.call("GET", f"{dev}/snapshots/2")
    assert (r.status, r.body["resourceType"]) == (404, "SNAPSHOT")
    # a commit to the branch goes to the branch (the CLI commits through the filesystem here)
    f = tmp_path / "b.csv"
    f.write_text("a,p\n7,z\n")
    cli("ingest", "-t", "br_db.t", "--branch", "dev", str(f))
    assert c.call("GET", f"{dev}/snapshot").body["snapshot"]["snapshot"]["id"] == 2
    main_before = c.call("GET", f"{base}/snapshot").body["snapshot"]["snapshot"]["uuid"]

    assert c.call("POST", f"{base}/branches/dev/forward", {}).status == 200
    rows = sorted(r["a"] for r in cli.json("read", "-t", "br_db.t"))
    assert rows == [1, 7]
    assert c.call("GET", f"{base}/snapshot").body["snapshot"]["snapshot"]["uuid"] != main_before
    r = c.call("POST", f"{base}/branches/nope/forward", {})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "BRANCH", "nope")

    assert c.call("POST", f"{base}/branches/empty/rename", {"toBranch": "later"}).status == 200
    assert c.call("DELETE", f"{base}/branches/later").status == 200
    r = c.call("DELETE", f"{base}/branches/later")
    assert (r.status, r.body["resourceType"]) == (404, "BRANCH")
    assert c.call("GET", f"{base}/branches").body == {"branches": ["dev"]}


def test_snapshots_by_version_and_paged(rest_server, tmp_path):
    _table(rest_server, "sn_db", tmp_path)
    c = SpecClient(rest_server)
    base = f"{V1}/databases/sn_db/tables/t"
    c.call("POST", f"{base}/tags", {"tagName": "one", "snapshotId": 1})
    for version, sid in (("1", 1), ("2", 2), ("LATEST", 2), ("EARLIEST", 1), ("one", 1)):
        assert c.call("GET", f"{base}/snapshots/{version}").body["snapshot"]["id"] == sid, version
    for version in ("3", "nope"):
        assert c.call("GET", f"{base}/snapshots/{version}").status == 404
    r = c.call("GET", f"{base}/snapshots", query="maxResults=1")
    assert [s["id"] for s in r.body["snapshots"]] == [1] and r.body["nextPageToken"] == "1"
    r = c.call("GET", f"{base}/snapshots", query="maxResults=1&pageToken=1")
    assert [s["id"] for s in r.body["snapshots"]] == [2] and r.body["nextPageToken"] is None
    assert c.call("GET", f"{base}/snapshots", query="pageToken=x").status == 400


def test_partitions_list_mark_done_and_drop(rest_server, tmp_path):
    cli = _table(rest_server, "pt_db", tmp_path, partitioned=True)
    c = SpecClient(rest_server)
    base = f"{V1}/databases/pt_db/tables/t"
    parts = c.call("GET", f"{base}/partitions").body
    assert [p["spec"] for p in parts["partitions"]] == [{"p": "x"}, {"p": "y"}]
    first = parts["partitions"][0]
    assert first["recordCount"] == 1 and first["fileCount"] == 1 and first["fileSizeInBytes"] > 0
    assert first["lastFileCreationTime"] > 0 and first["done"] is False
    assert c.call("GET", f"{base}/partitions", query="partitionNamePattern=p%3Dy").body["partitions"][0][
        "spec"
    ] == {"p": "y"}
    r = c.call("GET", f"{base}/partitions", query="maxResults=1")
    assert len(r.body["partitions"]) == 1 and r.body["nextPageToken"] == "p=x"

    assert c.call("POST", f"{base}/partitions/mark", {"specs": [{"p": "x"}]}).status == 200
    assert (rest_server.warehouse / "pt_db.db" / "t" / "p=x" / "_SUCCESS").exists()
    assert [p["done"] for p in c.call("GET", f"{base}/partitions").body["partitions"]] == [True, False]
    r = c.call("POST", f"{base}/partitions/mark", {"specs": [{"p": "nope"}]})
    assert (r.status, r.body["resourceType"]) == (404, "PARTITION")
    assert c.call("POST", f"{base}/partitions/mark", {"specs": [{"zz": "x"}]}).status == 400

    r = c.call("POST", f"{base}/partitions/drop", {"partitionSpecs": [{"p": "x"}, {"p": "nope"}]})
    assert r.body == {"dropped": [{"p": "x"}], "missing": [{"p": "nope"}]}
    assert [p["spec"] for p in c.call("GET", f"{base}/partitions").body["partitions"]] == [{"p": "y"}]
    assert [r["a"] for r in cli.json("read", "-t", "pt_db.t")] == [2]
    r = c.call(
        "POST", f"{base}/partitions/drop", {"partitionSpecs": [{"p": "nope"}], "ignoreIfNotExists": False}
    )
    assert (r.status, r.body["resourceType"]) == (404, "PARTITION")
    assert cli.snapshot_ids("pt_db.t") == [1, 2, 3]


def test_a_date_partition_is_dropped_by_the_spec_its_listing_gives(rest_server, tmp_path):
    """A DATE partition is listed as Java names it (legacy: the day number); that spec, or the
    ISO date, names it again for mark and drop."""
    cli = Cli(rest_server.warehouse)
    cli("create-table", "ptd_db.t", "--schema", "a INT, d DATE", "--partition", "d")
    f = tmp_path / "d.csv"
    f.write_text("a,d\n1,2024-01-02\n2,2024-01-03\n")
    cli("ingest", "-t", "ptd_db.t", str(f))
    c = SpecClient(rest_server)
    base = f"{V1}/databases/ptd_db/tables/t"
    specs = [p["spec"] for p in c.call("GET", f"{base}/partitions").body["partitions"]]
    assert specs == [{"d": "19724"}, {"d": "19725"}]
    assert c.call("POST", f"{base}/partitions/mark", {"specs": [specs[0]]}).status == 200
    r = c.call("POST", f"{base}/partitions/drop", {"partitionSpecs": [specs[0], {"d": "2024-01-03"}]})
    assert r.body == {"dropped": [specs[0], {"d": "2024-01-03"}], "missing": []}
    assert c.call("GET", f"{base}/partitions").body["partitions"] == []


def test_databases_and_tables_are_paged_and_filtered(rest_server):
    c = SpecClient(rest_server)
    for db in ("pg_a", "pg_b", "pg_c"):
        c.call("POST", f"{V1}/databases", {"name": db})
    fields = [{"id": 0, "name": "a", "type": "INT"}]
    for t in ("t1", "t2", "u1"):
        body = {"identifier": {"database": "pg_a", "object": t}, "schema": {"fields": fields}}
        assert c.call("POST", f"{V1}/databases/pg_a/tables", body).status == 200
    r = c.call("GET", f"{V1}/databases/pg_a/tables", query="maxResults=2")
    assert r.body == {"tables": ["t1", "t2"], "nextPageToken": "t2"}
    r = c.call("GET", f"{V1}/databases/pg_a/tables", query="maxResults=2&pageToken=t2")
    assert r.body == {"tables": ["u1"], "nextPageToken": None}
    assert c.call("GET", f"{V1}/databases/pg_a/tables", query="tableNamePattern=t%25").body["tables"] == [
        "t1",
        "t2",
    ]
    names = c.call("GET", f"{V1}/databases", query="databaseNamePattern=pg_%25").body["databases"]
    assert names == ["pg_a", "pg_b", "pg_c"]
    r = c.call("GET", f"{V1}/databases", query="databaseNamePattern=pg_%25&maxResults=2&pageToken=pg_a")
    assert r.body == {"databases": ["pg_b", "pg_c"], "nextPageToken": None}
    assert c.call("GET", f"{V1}/databases", query="maxResults=-1").status == 400
