"""``paimon rest-server``'s database, registration, listing, consumer, partition-creation and
schema-rollback endpoints over raw HTTP, on a filesystem catalog (the session's server) and a
JDBC (SQLite) one; every answer validated against the pinned spec by ``SpecClient``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.rest_support import PREFIX, RestServer, SpecClient

V1 = f"/v1/{PREFIX}"
FIELDS = [{"id": 0, "name": "a", "type": "INT"}, {"id": 1, "name": "p", "type": "STRING"}]


@pytest.fixture(scope="module")
def jdbc_server(tmp_path_factory):
    """``paimon rest-server`` over a JDBC catalog (SQLite) on a warehouse of its own."""
    root = tmp_path_factory.mktemp("rest-jdbc")
    env = {"PAIMON_CATALOG": "jdbc", "PAIMON_CATALOG_URI": f"sqlite:///{root / 'catalog.db'}"}
    SpecClient.load_spec()
    server = RestServer(root / "warehouse", env=env)
    yield server
    server.stop()


def _create_table(c: SpecClient, db: str, name: str, **schema) -> None:
    body = {
        "identifier": {"database": db, "object": name},
        "schema": {"fields": FIELDS, "partitionKeys": [], "primaryKeys": [], "options": {}, **schema},
    }
    r = c.call("POST", f"{V1}/databases/{db}/tables", body)
    assert r.status == 200, r.body


def _table_with_snapshots(server: RestServer, db: str, tmp_path: Path) -> Cli:
    """``db.t`` (a INT, p STRING, partitioned by p) with two snapshots: (1, x) then (2, y)."""
    cli = Cli(Path(server.warehouse))
    cli("create-table", f"{db}.t", "--schema", "a INT, p STRING", "--partition", "p")
    for i, (a, p) in enumerate([(1, "x"), (2, "y")]):
        f = tmp_path / f"in{i}.csv"
        f.write_text(f"a,p\n{a},{p}\n")
        cli("ingest", "-t", f"{db}.t", str(f))
    return cli


def _pages(c: SpecClient, path: str, key: str, size: int, query: str = "") -> list[list]:
    pages, token = [], None
    while True:
        q = "&".join(x for x in (query, f"maxResults={size}", f"pageToken={token}" if token else "") if x)
        body = c.call("GET", path, query=q).body
        pages.append(body[key])
        token = body["nextPageToken"]
        if token is None:
            return pages


# ---------------------------------------------------------------- alterDatabase
def test_alter_database_on_filesystem_is_501_unless_empty(rest_server):
    c = SpecClient(rest_server)
    assert c.call("POST", f"{V1}/databases", {"name": "ad_fs"}).status == 200
    r = c.call("POST", f"{V1}/databases/ad_fs", {"removals": [], "updates": {"owner": "me"}})
    assert (r.status, r.body["code"]) == (501, 501) and "stores no database properties" in r.body["message"]
    r = c.call("POST", f"{V1}/databases/ad_fs", {"removals": [], "updates": {}})
    assert (r.status, r.body) == (200, {"removed": [], "updated": [], "missing": []})
    r = c.call("POST", f"{V1}/databases/ad_nope", {"removals": ["x"], "updates": {}})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "DATABASE", "ad_nope")
    for bad in ({"removals": "x"}, {"updates": {"k": 1}}, {"updates": ["k"]}, [1]):
        assert c.call("POST", f"{V1}/databases/ad_fs", bad).status == 400, bad


def test_alter_database_on_jdbc_stores_the_properties(jdbc_server):
    c = SpecClient(jdbc_server)
    assert c.call("POST", f"{V1}/databases", {"name": "ad_j", "options": {"a": "1", "b": "2"}}).status == 200
    body = {"removals": ["a", "zz"], "updates": {"b": "3", "c": "4"}}
    r = c.call("POST", f"{V1}/databases/ad_j", body)
    assert (r.status, r.body) == (200, {"removed": ["a"], "updated": ["b", "c"], "missing": ["zz"]})
    options = c.call("GET", f"{V1}/databases/ad_j").body["options"]
    assert {k: v for k, v in options.items() if k != "location"} == {"b": "3", "c": "4"}
    for bad in (
        {"updates": {"location": "/elsewhere"}},  # the tables would not move
        {"removals": ["exists"]},  # JDBC's own marker
        {"removals": ["b"], "updates": {"b": "5"}},
    ):
        r = c.call("POST", f"{V1}/databases/ad_j", bad)
        assert r.status == 400, (bad, r.body)
    assert c.call("GET", f"{V1}/databases/ad_j").body["options"] == options


# ---------------------------------------------------------------- registerTable
def test_register_table_on_jdbc_takes_the_folder_at_its_place(jdbc_server, tmp_path):
    c = SpecClient(jdbc_server)
    assert c.call("POST", f"{V1}/databases", {"name": "rg_j"}).status == 200
    Cli(jdbc_server.warehouse)("create-table", "rg_j.t", "--schema", "a INT")  # files only: filesystem
    assert c.call("GET", f"{V1}/databases/rg_j/tables").body["tables"] == []
    place = jdbc_server.warehouse / "rg_j.db" / "t"
    ident = {"database": "rg_j", "object": "t"}
    r = c.call("POST", f"{V1}/databases/rg_j/register", {"identifier": ident, "path": str(place) + "/"})
    assert r.status == 200, r.body
    assert c.call("GET", f"{V1}/databases/rg_j/tables").body["tables"] == ["t"]
    assert c.call("GET", f"{V1}/databases/rg_j/tables/t").body["schema"]["fields"][0]["name"] == "a"
    r = c.call("POST", f"{V1}/databases/rg_j/register", {"identifier": ident, "path": str(place)})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (409, "TABLE", "t")
    other = {"database": "rg_j", "object": "u"}
    r = c.call("POST", f"{V1}/databases/rg_j/register", {"identifier": other, "path": str(place)})
    assert r.status == 400 and "keeps no table locations" in r.body["message"], r.body
    empty = jdbc_server.warehouse / "rg_j.db" / "u"
    r = c.call("POST", f"{V1}/databases/rg_j/register", {"identifier": other, "path": str(empty)})
    assert r.status == 400 and "no schema files" in r.body["message"], r.body
    nope = {"database": "rg_nope", "object": "t"}
    r = c.call("POST", f"{V1}/databases/rg_nope/register", {"identifier": nope, "path": str(place)})
    assert (r.status, r.body["resourceType"]) == (404, "DATABASE")
    for bad in (
        {"identifier": ident},
        {"path": str(place)},
        {"identifier": {**ident, "database": "x"}, "path": "/p"},
    ):
        assert c.call("POST", f"{V1}/databases/rg_j/register", bad).status == 400, bad
    assert c.call("GET", f"{V1}/databases/rg_j/tables").body["tables"] == ["t"]


def test_register_table_on_filesystem_registers_nothing(rest_server, tmp_path):
    c = SpecClient(rest_server)
    assert c.call("POST", f"{V1}/databases", {"name": "rg_fs"}).status == 200
    _create_table(c, "rg_fs", "t")
    place = rest_server.warehouse / "rg_fs.db" / "t"
    ident = {"database": "rg_fs", "object": "t"}
    r = c.call("POST", f"{V1}/databases/rg_fs/register", {"identifier": ident, "path": f"file:{place}"})
    assert (r.status, r.body["resourceType"]) == (409, "TABLE")  # a table at its place is listed already
    r = c.call("POST", f"{V1}/databases/rg_fs/register", {"identifier": ident, "path": str(tmp_path)})
    assert r.status == 400 and "keeps no table locations" in r.body["message"]
    new = {"database": "rg_fs", "object": "n"}
    r = c.call("POST", f"{V1}/databases/rg_fs/register", {"identifier": new, "path": str(place.parent / "n")})
    assert r.status == 400 and "no schema files" in r.body["message"]
    assert c.call("GET", f"{V1}/databases/rg_fs/tables").body["tables"] == ["t"]


# ---------------------------------------------------------------- listings
def test_table_details_global_listing_and_table_type(rest_server):
    c = SpecClient(rest_server)
    for db in ("ls_a", "ls_b"):
        c.call("POST", f"{V1}/databases", {"name": db})
    for db, name in (("ls_a", "t1"), ("ls_a", "t2"), ("ls_a", "x"), ("ls_b", "t1")):
        _create_table(c, db, name, comment=f"{db}.{name}")
    details = _pages(c, f"{V1}/databases/ls_a/table-details", "tableDetails", 2)
    assert [[d["name"] for d in p] for p in details] == [["t1", "t2"], ["x"]]
    one = details[0][0]
    assert one == c.call("GET", f"{V1}/databases/ls_a/tables/t1").body
    got = c.call("GET", f"{V1}/databases/ls_a/table-details", query="tableNamePattern=t%").body
    assert [d["name"] for d in got["tableDetails"]] == ["t1", "t2"] and got["nextPageToken"] is None
    for kind, names in (("table", ["t1", "t2", "x"]), ("format-table", []), ("object-table", [])):
        r = c.call("GET", f"{V1}/databases/ls_a/tables", query=f"tableType={kind}")
        assert r.body["tables"] == names, kind
        r = c.call("GET", f"{V1}/databases/ls_a/table-details", query=f"tableType={kind}")
        assert [d["name"] for d in r.body["tableDetails"]] == names, kind
    r = c.call("GET", f"{V1}/databases/ls_nope/table-details")
    assert (r.status, r.body["resourceType"]) == (404, "DATABASE")
    assert c.call("GET", f"{V1}/databases/ls_a/table-details", query="maxResults=-1").status == 400

    pages = _pages(c, f"{V1}/tables", "tables", 3, "databaseNamePattern=ls_%")
    assert pages == [
        [
            {"database": "ls_a", "object": "t1"},
            {"database": "ls_a", "object": "t2"},
            {"database": "ls_a", "object": "x"},
        ],
        [{"database": "ls_b", "object": "t1"}],
    ]
    r = c.call("GET", f"{V1}/tables", query="databaseNamePattern=ls_%&tableNamePattern=t1")
    assert r.body == {
        "tables": [{"database": "ls_a", "object": "t1"}, {"database": "ls_b", "object": "t1"}],
        "nextPageToken": None,
    }
    assert c.call("GET", f"{V1}/tables", query="maxResults=x").status == 400


def test_get_table_by_id(rest_server):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "id_db"})
    _create_table(c, "id_db", "t")
    got = c.call("GET", f"{V1}/databases/id_db/tables/t").body
    assert c.call("GET", f"{V1}/tables/id/{got['id']}").body == got
    for bad in ("id_db.t.1", "nope", "a.b.c.d", "id_db.nope.5", "..%2F.1"):
        r = c.call("GET", f"{V1}/tables/id/{bad}")
        assert (r.status, r.body["resourceType"]) == (404, "TABLE"), (bad, r.body)


# ---------------------------------------------------------------- consumers
def test_consumers_list_reset_and_delete(rest_server, tmp_path):
    _table_with_snapshots(rest_server, "cs_db", tmp_path)
    c = SpecClient(rest_server)
    base = f"{V1}/databases/cs_db/tables/t/consumers"
    assert c.call("GET", base).body == {"consumers": [], "nextPageToken": None}
    for cid, nxt in (("b", 2), ("a", 1), ("c", 3)):
        assert c.call("POST", f"{base}/reset", {"consumerId": cid, "nextSnapshotId": nxt}).status == 200
    assert _pages(c, base, "consumers", 2) == [
        [{"consumerId": "a", "nextSnapshot": 1}, {"consumerId": "b", "nextSnapshot": 2}],
        [{"consumerId": "c", "nextSnapshot": 3}],
    ]
    assert c.call("POST", f"{base}/reset", {"consumerId": "a", "nextSnapshotId": None}).status == 200
    assert c.call("POST", f"{base}/reset", {"consumerId": "gone"}).status == 200  # deleted quietly
    assert [x["consumerId"] for x in c.call("GET", base).body["consumers"]] == ["b", "c"]
    for bad in (
        {"consumerId": "b", "nextSnapshotId": 9},  # past the next commit
        {"consumerId": "a/b", "nextSnapshotId": 1},
        {"consumerId": "", "nextSnapshotId": 1},
        {"nextSnapshotId": 1},
        {"consumerId": "b", "nextSnapshotId": "1"},
    ):
        r = c.call("POST", f"{base}/reset", bad)
        assert r.status == 400, (bad, r.body)
    r = c.call("GET", f"{V1}/databases/cs_db/tables/nope/consumers")
    assert (r.status, r.body["resourceType"]) == (404, "TABLE")
    assert c.call("GET", base).body["consumers"][0] == {"consumerId": "b", "nextSnapshot": 2}


def test_consumer_commands_through_a_rest_catalog(rest_server, tmp_path):
    _table_with_snapshots(rest_server, "cc_db", tmp_path)
    cli = Cli(rest_server.warehouse)
    flags = rest_server.cli_flags()
    cli(*flags, "consumer", "reset", "job", "--next", "2", "-t", "cc_db.t", warehouse=False)
    rows = cli.json(*flags, "consumer", "list", "-t", "cc_db.t", warehouse=False)
    assert [(r["consumer"], r["next_snapshot"]) for r in rows] == [("job", 2)]
    cli(*flags, "consumer", "delete", "job", "-t", "cc_db.t", warehouse=False)
    cli(*flags, "consumer", "delete", "job", "-t", "cc_db.t", warehouse=False, code=1)
    sent = rest_server.requests()
    assert any(r.startswith("POST /v1/paimon/databases/cc_db/tables/t/consumers/reset 200") for r in sent)
    assert any(r.startswith("GET /v1/paimon/databases/cc_db/tables/t/consumers") for r in sent)


# ---------------------------------------------------------------- partitions
def test_list_partitions_by_names_and_create_partitions(rest_server, tmp_path):
    _table_with_snapshots(rest_server, "pn_db", tmp_path)
    c = SpecClient(rest_server)
    base = f"{V1}/databases/pn_db/tables/t/partitions"
    listing = c.call("GET", base).body["partitions"]
    r = c.call("POST", f"{base}/list-by-names", {"specs": [{"p": "y"}, {"p": "zz"}]})
    assert r.status == 200 and r.body == {
        "partitions": [p for p in listing if p["spec"] == {"p": "y"}],
        "nextPageToken": None,
    }
    r = c.call("POST", f"{base}/list-by-names", {"specs": [{"p": "x"}, {"p": "y"}]}, query="maxResults=1")
    assert [p["spec"] for p in r.body["partitions"]] == [{"p": "x"}] and r.body["nextPageToken"] == "p=x"
    for bad in ({"specs": [{"nope": "x"}]}, {"specs": "p=x"}, {"specs": [{"p": 1}]}):
        assert c.call("POST", f"{base}/list-by-names", bad).status == 400, bad

    # a filesystem table's partitions exist through their data: as Java's server for a table not
    # partitioned in the metastore, 501
    r = c.call("POST", base, {"partitionSpecs": [{"p": "z"}], "ignoreIfExists": True})
    assert (r.status, r.body["code"]) == (501, 501) and "does not manage partitions" in r.body["message"]
    assert c.call("POST", base, {"partitionSpecs": "p=z"}).status == 400
    assert c.call("POST", base, {"partitionSpecs": [{"p": "z"}], "ignoreIfExists": "no"}).status == 400
    r = c.call("POST", f"{V1}/databases/pn_db/tables/nope/partitions", {"partitionSpecs": [{"p": "z"}]})
    assert (r.status, r.body["resourceType"]) == (404, "TABLE")
    assert c.call("GET", base).body["partitions"] == listing


# ---------------------------------------------------------------- rollback-schema
def test_rollback_schema(rest_server, tmp_path):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "rs_db"})
    _create_table(c, "rs_db", "t")
    tbl = f"{V1}/databases/rs_db/tables/t"
    add = {"changes": [{"action": "addColumn", "fieldNames": ["c"], "dataType": "BIGINT"}]}
    assert c.call("POST", tbl, add).status == 200
    assert c.call("GET", tbl).body["schemaId"] == 1
    r = c.call("POST", f"{tbl}/rollback-schema", {"schemaId": 7})
    assert r.status == 400 and "no schema 7" in r.body["message"]
    assert c.call("POST", f"{tbl}/rollback-schema", {"schemaId": 0}).status == 200
    got = c.call("GET", tbl).body
    assert got["schemaId"] == 0 and [f["name"] for f in got["schema"]["fields"]] == ["a", "p"]

    assert c.call("POST", tbl, add).status == 200  # schema 1 again, now used by a snapshot
    f = tmp_path / "in.csv"
    f.write_text("a,p,c\n1,x,5\n")
    Cli(rest_server.warehouse)("ingest", "-t", "rs_db.t", str(f))
    r = c.call("POST", f"{tbl}/rollback-schema", {"schemaId": 0})
    assert r.status == 400 and "schema 1 is still used" in r.body["message"], r.body
    assert c.call("GET", tbl).body["schemaId"] == 1
    assert c.call("POST", f"{tbl}/rollback-schema", {"schemaId": "0"}).status == 400
    r = c.call("POST", f"{V1}/databases/rs_db/tables/nope/rollback-schema", {"schemaId": 0})
    assert (r.status, r.body["resourceType"]) == (404, "TABLE")


# ---------------------------------------------------------------- replace (Java 2.0, not in the spec)
def test_replace_table(rest_server, tmp_path):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "rp_db"})
    cli = _table_with_snapshots(rest_server, "rp_db", tmp_path)
    tbl = f"{V1}/databases/rp_db/tables/t"
    table_id = c.call("GET", tbl).body["id"]
    fields = [{"id": 0, "name": "a", "type": "BIGINT"}, {"id": 1, "name": "e", "type": "STRING"}]
    fields.append({"id": 2, "name": "p", "type": "STRING"})
    schema = {"fields": fields, "partitionKeys": ["p"], "primaryKeys": [], "options": {"k": "v"}}
    r = c.call("POST", f"{tbl}/replace", {"schema": schema}, outside_spec=True)
    assert (r.status, r.body) == (200, None), r.body
    got = c.call("GET", tbl).body
    assert (got["id"], got["schemaId"]) == (table_id, 1)  # the same table, schema latest+1
    assert [f["name"] for f in got["schema"]["fields"]] == ["a", "e", "p"] and got["schema"]["options"][
        "k"
    ] == "v"
    snap = c.call("GET", f"{tbl}/snapshot").body["snapshot"]
    assert (snap["snapshot"]["id"], snap["snapshot"]["commitKind"], snap["recordCount"]) == (
        3,
        "OVERWRITE",
        0,
    )
    assert cli.json("read", "-t", "rp_db.t") == []
    assert sorted(r["a"] for r in cli.json("read", "-t", "rp_db.t", "--snapshot", "2")) == [1, 2]

    moved = {**schema, "partitionKeys": []}
    r = c.call("POST", f"{tbl}/replace", {"schema": moved}, outside_spec=True)
    assert r.status == 501 and "cannot change the partition keys" in r.body["message"], r.body
    r = c.call("POST", f"{V1}/databases/rp_db/tables/nope/replace", {"schema": schema}, outside_spec=True)
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "TABLE", "nope")
    r = c.call("POST", f"{V1}/databases/rp_nodb/tables/t/replace", {"schema": schema}, outside_spec=True)
    assert (r.status, r.body["resourceType"]) == (404, "DATABASE")
    for bad in ({}, {"schema": []}, {"schema": {"fields": []}}, {"schema": {**schema, "primaryKeys": ["x"]}}):
        assert c.call("POST", f"{tbl}/replace", bad, outside_spec=True).status == 400, bad
    assert c.call("GET", tbl).body["schemaId"] == 1  # nothing refused was written
