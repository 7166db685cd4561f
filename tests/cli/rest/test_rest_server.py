"""``paimon rest-server`` over raw HTTP: auth, the catalog operations, and the spec's errors.

Every answer is validated against the pinned OpenAPI spec by ``SpecClient``. Each test uses its
own database names on the session's server (``rest_server`` fixture)."""

from __future__ import annotations

import http.client
import json
from pathlib import Path

from tests.cli.conftest import Cli
from tests.rest_support import PREFIX, SpecClient

V1 = f"/v1/{PREFIX}"
FIELDS = [{"id": 0, "name": "a", "type": "INT NOT NULL"}, {"id": 1, "name": "b", "type": "STRING"}]


def _create_table(c: SpecClient, db: str, name: str, **schema) -> None:
    body = {
        "identifier": {"database": db, "object": name},
        "schema": {"fields": FIELDS, "partitionKeys": [], "primaryKeys": [], "options": {}, **schema},
    }
    r = c.call("POST", f"{V1}/databases/{db}/tables", body)
    assert r.status == 200, r.body


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_config_names_the_prefix(rest_server):
    r = SpecClient(rest_server).call("GET", "/v1/config", query="warehouse=anything")
    assert r.status == 200
    assert r.body["defaults"]["prefix"] == PREFIX


def test_missing_or_wrong_token_is_401_and_changes_nothing(rest_server):
    good = SpecClient(rest_server)
    assert good.call("POST", f"{V1}/databases", {"name": "auth_db"}).status == 200
    _create_table(good, "auth_db", "t")
    before = _tree(rest_server.warehouse)
    for client in (SpecClient(rest_server, token=None), SpecClient(rest_server, token="wrong")):
        for method, path, body in [
            ("GET", "/v1/config", None),
            ("GET", f"{V1}/databases", None),
            ("POST", f"{V1}/databases", {"name": "auth_db2"}),
            ("DELETE", f"{V1}/databases/auth_db", None),
            ("DELETE", f"{V1}/databases/auth_db/tables/t", None),
            (
                "POST",
                f"{V1}/tables/rename",
                {
                    "source": {"database": "auth_db", "object": "t"},
                    "destination": {"database": "auth_db", "object": "u"},
                },
            ),
            ("POST", f"{V1}/databases/auth_db/tables/t/commit", {"snapshot": {"id": 1}}),
        ]:
            r = client.call(method, path, body)
            assert r.status == 401, (method, path, r.body)
            assert r.body["code"] == 401 and r.body["message"]
    assert _tree(rest_server.warehouse) == before
    assert good.call("GET", f"{V1}/databases/auth_db/tables").body["tables"] == ["t"]


def test_databases_and_tables_round_trip(rest_server):
    c = SpecClient(rest_server)
    assert c.call("POST", f"{V1}/databases", {"name": "rt_db", "options": {}}).status == 200
    r = c.call("POST", f"{V1}/databases", {"name": "rt_db"})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (409, "DATABASE", "rt_db")
    assert "rt_db" in c.call("GET", f"{V1}/databases").body["databases"]
    assert c.call("GET", f"{V1}/databases/rt_db").body["name"] == "rt_db"
    _create_table(c, "rt_db", "t", partitionKeys=["b"], options={"file.format": "parquet"}, comment="hi")
    r = c.call(
        "POST",
        f"{V1}/databases/rt_db/tables",
        {"identifier": {"database": "rt_db", "object": "t"}, "schema": {"fields": FIELDS}},
    )
    assert (r.status, r.body["resourceType"]) == (409, "TABLE")
    got = c.call("GET", f"{V1}/databases/rt_db/tables/t").body
    assert got["schema"]["fields"] == FIELDS
    assert got["schema"]["partitionKeys"] == ["b"] and got["schema"]["comment"] == "hi"
    assert got["path"] == str(rest_server.warehouse / "rt_db.db" / "t")
    assert got["schemaId"] == 0 and got["id"].startswith("rt_db.t.")

    changes = [
        {"action": "setOption", "key": "snapshot.num-retained.max", "value": "20"},
        {"action": "addColumn", "fieldNames": ["c"], "dataType": "BIGINT", "comment": "new"},
        {"action": "renameColumn", "fieldNames": ["c"], "newName": "d"},
        # Java's keepNullability: `a` stays NOT NULL though the new type does not say so
        {"action": "updateColumnType", "fieldNames": ["a"], "newDataType": "BIGINT", "keepNullability": True},
    ]
    assert c.call("POST", f"{V1}/databases/rt_db/tables/t", {"changes": changes}).status == 200
    got = c.call("GET", f"{V1}/databases/rt_db/tables/t").body
    assert got["schemaId"] == 1 and got["schema"]["options"]["snapshot.num-retained.max"] == "20"
    assert [f["name"] for f in got["schema"]["fields"]] == ["a", "b", "d"]
    assert got["schema"]["fields"][0]["type"] == "BIGINT NOT NULL"

    move = {
        "source": {"database": "rt_db", "object": "t"},
        "destination": {"database": "rt_db", "object": "u"},
    }
    assert c.call("POST", f"{V1}/tables/rename", move).status == 200
    assert c.call("GET", f"{V1}/databases/rt_db/tables").body["tables"] == ["u"]
    assert c.call("GET", f"{V1}/databases/rt_db/tables/u/token").status == 200
    assert c.call("DELETE", f"{V1}/databases/rt_db/tables/u").status == 200
    assert c.call("GET", f"{V1}/databases/rt_db/tables").body["tables"] == []
    assert c.call("DELETE", f"{V1}/databases/rt_db").status == 200
    assert not (rest_server.warehouse / "rt_db.db").exists()


def test_unknown_objects_are_404_with_their_resource(rest_server):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "nf_db"})
    cases = [
        ("GET", f"{V1}/databases/nf_nope", "DATABASE", "nf_nope"),
        ("GET", f"{V1}/databases/nf_nope/tables", "DATABASE", "nf_nope"),
        ("GET", f"{V1}/databases/nf_db/tables/nope", "TABLE", "nope"),
        ("DELETE", f"{V1}/databases/nf_db/tables/nope", "TABLE", "nope"),
        ("GET", f"{V1}/databases/nf_db/tables/nope/snapshot", "TABLE", "nope"),
        ("GET", f"{V1}/databases/nf_db/tables/nope/token", "TABLE", "nope"),
    ]
    for method, path, kind, name in cases:
        r = c.call(method, path)
        assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, kind, name), (path, r.body)
    _create_table(c, "nf_db", "empty")
    r = c.call("GET", f"{V1}/databases/nf_db/tables/empty/snapshot")
    assert (r.status, r.body["resourceType"]) == (404, "SNAPSHOT")


def test_malformed_bodies_are_400_and_change_nothing(rest_server):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "bad_db"})
    _create_table(c, "bad_db", "t")
    before = _tree(rest_server.warehouse)
    cases = [
        ("POST", f"{V1}/databases", None, b"{not json"),
        ("POST", f"{V1}/databases", [1, 2], None),
        ("POST", f"{V1}/databases", {"options": {}}, None),
        (
            "POST",
            f"{V1}/databases/bad_db/tables",
            {"identifier": {"database": "bad_db", "object": "x"}},
            None,
        ),
        (
            "POST",
            f"{V1}/databases/bad_db/tables",
            {
                "identifier": {"database": "bad_db", "object": "x"},
                "schema": {"fields": [{"id": 0, "name": "a", "type": "NOT_A_TYPE"}]},
            },
            None,
        ),
        (  # a custom table path: Java's catalogs refuse it (validateCustomTablePath)
            "POST",
            f"{V1}/databases/bad_db/tables",
            {
                "identifier": {"database": "bad_db", "object": "elsewhere"},
                "schema": {"fields": FIELDS, "options": {"path": "/tmp/elsewhere"}},
            },
            None,
        ),
        ("POST", f"{V1}/databases/bad_db/tables/t", {"changes": "all"}, None),
        ("POST", f"{V1}/databases/bad_db/tables/t", {"changes": [{"action": "dropPrimaryKey"}]}, None),
        ("POST", f"{V1}/databases/bad_db/tables/t/commit", {"snapshot": "x"}, None),
        ("POST", f"{V1}/databases/bad_db/tables/t/commit", {"snapshot": {"id": "one"}}, None),
        ("POST", f"{V1}/tables/rename", {"source": {"database": "bad_db"}}, None),
    ]
    for method, path, body, raw in cases:
        r = c.call(method, path, body, raw_body=raw)
        assert r.status == 400, (path, body, r.body)
        assert r.body["message"]
    assert _tree(rest_server.warehouse) == before


def test_names_with_slash_or_dot_dot_are_400(rest_server):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "nm_db"})
    for name in ("../escape", "a/b", "..", "x\\y"):
        r = c.call("POST", f"{V1}/databases", {"name": name})
        assert r.status == 400, (name, r.body)
        r = c.call(
            "POST",
            f"{V1}/databases/nm_db/tables",
            {"identifier": {"database": "nm_db", "object": name}, "schema": {"fields": FIELDS}},
        )
        assert r.status == 400, (name, r.body)
    for encoded in ("a%2Fb", "..", "%2E%2E", "..%2F..%2Fetc"):
        for path in (f"{V1}/databases/{encoded}", f"{V1}/databases/nm_db/tables/{encoded}"):
            conn = http.client.HTTPConnection("127.0.0.1", rest_server.port, timeout=30)
            conn.request("GET", path, headers={"Authorization": f"Bearer {rest_server.token}"})
            resp = conn.getresponse()
            body = json.loads(resp.read())
            conn.close()
            assert (resp.status, body["code"]) == (400, 400), (path, body)
    assert sorted(p.name for p in rest_server.warehouse.parent.iterdir() if p.name.startswith("escape")) == []
    assert c.call("GET", f"{V1}/databases/nm_db/tables").body["tables"] == []


def test_a_commit_on_a_stale_base_is_refused_and_writes_nothing(rest_server, tmp_path):
    cli = Cli(rest_server.warehouse)
    cli("create-table", "stale_db.t", "--schema", "a INT")
    (tmp_path / "in.csv").write_text("a\n1\n")
    cli("ingest", "-t", "stale_db.t", str(tmp_path / "in.csv"))
    c = SpecClient(rest_server)
    snap = c.call("GET", f"{V1}/databases/stale_db/tables/t/snapshot").body["snapshot"]
    assert snap["recordCount"] == 1 and snap["fileCount"] == 1 and snap["fileSizeInBytes"] > 0
    latest = snap["snapshot"]
    table_id = c.call("GET", f"{V1}/databases/stale_db/tables/t").body["id"]
    forged = {**latest, "id": latest["id"] + 1, "uuid": "00000000-0000-0000-0000-000000000000"}
    before = _tree(rest_server.warehouse)
    # a named base that is not the latest; no base (Java 1.4.2's client: its snapshots have no
    # uuid), with an id that is not the next one
    for base, snapshot in (("not-the-latest", forged), (None, {**forged, "id": latest["id"]})):
        r = c.call(
            "POST",
            f"{V1}/databases/stale_db/tables/t/commit",
            {"tableId": table_id, "baseSnapshotUuid": base, "snapshot": snapshot, "statistics": []},
        )
        assert r.body == {"success": False}
    r = c.call(
        "POST",
        f"{V1}/databases/stale_db/tables/t/commit",
        {"tableId": "stale_db.t.1", "baseSnapshotUuid": latest["uuid"], "snapshot": forged},
    )
    assert (r.status, r.body["resourceType"]) == (404, "TABLE")
    assert _tree(rest_server.warehouse) == before
    assert cli.snapshot_ids("stale_db.t") == [latest["id"]]


def test_huge_names_and_bodies_are_4xx_never_500(rest_server):
    """Names are folders (at most 250 UTF-8 bytes); bodies at most 16 MiB (413); never a 500."""
    from paimon_cli.rest.app import MAX_BODY_BYTES

    c = SpecClient(rest_server)
    before = _tree(rest_server.warehouse)
    r = c.call("POST", f"{V1}/databases", {"name": "d" * (5 << 20)})
    assert r.status == 400 and "at most 250 bytes" in r.body["message"], r.body
    r = c.call("POST", f"{V1}/databases", {"name": "é" * 126})  # 252 bytes
    assert r.status == 400, r.body
    # a body declared too large is refused before it is read (the client sends only the headers)
    conn = http.client.HTTPConnection("127.0.0.1", rest_server.port, timeout=30)
    conn.putrequest("POST", f"{V1}/databases")
    conn.putheader("Authorization", f"Bearer {rest_server.token}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(MAX_BODY_BYTES + 1))
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 413 and json.loads(resp.read())["code"] == 413
    conn.close()
    for path in (f"{V1}/databases/{'x' * 300}", f"{V1}/databases/{'x' * 300}/tables/{'y' * 300}"):
        r = c.call("GET", path)
        assert 400 <= r.status < 500, (path[:40], r.status, r.body)
    assert _tree(rest_server.warehouse) == before
