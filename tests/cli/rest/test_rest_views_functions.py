"""``paimon rest-server``'s view and function endpoints over raw HTTP, on a JDBC (SQLite) catalog
that keeps them and on the session's filesystem catalog that does not (501 for writes, as Java's
FileSystemCatalog refuses them); every answer validated against the pinned spec by
``SpecClient``. Then our REST client (``--catalog rest``) through the CLI's view and function
commands, and the backing catalog reading what the server stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.rest_support import PREFIX, RestServer, SpecClient

V1 = f"/v1/{PREFIX}"
FIELDS = [{"id": 0, "name": "a", "type": "INT"}, {"id": 1, "name": "b", "type": "STRING"}]
SCHEMA = {
    "fields": FIELDS,
    "query": "SELECT 1 AS a, 'x' AS b",
    "dialects": {"spark": "SELECT 1"},
    "options": {},
}
FUNCTION = {
    "name": "plus.one",
    "inputParams": [{"id": 0, "name": "x", "type": "INT"}],
    "returnParams": [{"id": 0, "name": "r", "type": "INT"}],
    "deterministic": True,
    "definitions": {
        "spark": {"type": "sql", "definition": "x + 1"},
        "flink": {
            "type": "file",
            "fileResources": [{"resourceType": "JAR", "uri": "file:///u.jar"}],
            "language": "java",
            "className": "a.B",
            "functionName": "eval",
        },
    },
    "comment": "adds one",
    "options": {"k": "v"},
}


@pytest.fixture(scope="module")
def jdbc_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("rest-views")
    env = {"PAIMON_CATALOG": "jdbc", "PAIMON_CATALOG_URI": f"sqlite:///{root / 'catalog.db'}"}
    SpecClient.load_spec()
    server = RestServer(root / "warehouse", env=env)
    server.catalog_db = root / "catalog.db"
    yield server
    server.stop()


def _ident(db: str, name: str) -> dict:
    return {"database": db, "object": name}


def test_views_through_every_endpoint(jdbc_server):
    c = SpecClient(jdbc_server)
    assert c.call("POST", f"{V1}/databases", {"name": "vdb"}).status == 200
    c.call("POST", f"{V1}/databases", {"name": "vdb2"})
    body = {"identifier": _ident("vdb", "v"), "schema": SCHEMA}
    assert c.call("POST", f"{V1}/databases/vdb/views", body).status == 200
    r = c.call("POST", f"{V1}/databases/vdb/views", body)
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (409, "VIEW", "v")
    r = c.call("POST", f"{V1}/databases/nodb/views", {**body, "identifier": _ident("nodb", "v")})
    assert (r.status, r.body["resourceType"]) == (404, "DATABASE")
    r = c.call(
        "POST", f"{V1}/databases/vdb/views", {"identifier": _ident("vdb", "bad"), "schema": {"query": 1}}
    )
    assert r.status == 400
    got = c.call("GET", f"{V1}/databases/vdb/views/v").body
    assert (got["id"], got["name"], got["schema"]) == ("vdb.v", "v", SCHEMA)
    for name in ("w1", "w2"):
        c.call("POST", f"{V1}/databases/vdb/views", {"identifier": _ident("vdb", name), "schema": SCHEMA})
    r = c.call("GET", f"{V1}/databases/vdb/views", query="maxResults=2")
    assert r.body == {"views": ["v", "w1"], "nextPageToken": "w1"}
    r = c.call("GET", f"{V1}/databases/vdb/views", query="viewNamePattern=w%25")
    assert r.body["views"] == ["w1", "w2"]
    r = c.call("GET", f"{V1}/databases/vdb/view-details", query="maxResults=1&pageToken=v")
    assert [d["name"] for d in r.body["viewDetails"]] == ["w1"] and r.body["nextPageToken"] == "w1"
    r = c.call("GET", f"{V1}/views", query="databaseNamePattern=vdb%25&viewNamePattern=w%25")
    assert r.body == {"views": [_ident("vdb", "w1"), _ident("vdb", "w2")], "nextPageToken": None}
    changes = [
        {"action": "setOption", "key": "o", "value": "1"},
        {"action": "updateComment", "comment": "new"},
        {"action": "addDialect", "dialect": "flink", "query": "SELECT 2"},
        {"action": "dropDialect", "dialect": "spark"},
    ]
    assert c.call("POST", f"{V1}/databases/vdb/views/v", {"changes": changes}).status == 200
    schema = c.call("GET", f"{V1}/databases/vdb/views/v").body["schema"]
    assert (schema["options"], schema["comment"], schema["dialects"]) == (
        {"o": "1"},
        "new",
        {"flink": "SELECT 2"},
    )
    r = c.call(
        "POST", f"{V1}/databases/vdb/views/v", {"changes": [{"action": "dropDialect", "dialect": "x"}]}
    )
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "DIALECT", "x")
    r = c.call("POST", f"{V1}/databases/vdb/views/v", {"changes": [changes[2]]})
    assert (r.status, r.body["resourceType"]) == (409, "DIALECT")
    rename = {"source": _ident("vdb", "v"), "destination": _ident("vdb2", "moved")}
    assert c.call("POST", f"{V1}/views/rename", rename).status == 200
    assert c.call("GET", f"{V1}/databases/vdb2/views/moved").status == 200
    r = c.call("POST", f"{V1}/views/rename", rename)
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "VIEW", "v")
    # a table's name is no view's, and the other way round
    c.call(
        "POST",
        f"{V1}/databases/vdb/tables",
        {
            "identifier": _ident("vdb", "t"),
            "schema": {"fields": FIELDS, "partitionKeys": [], "primaryKeys": [], "options": {}},
        },
    )
    r = c.call("POST", f"{V1}/databases/vdb/views", {"identifier": _ident("vdb", "t"), "schema": SCHEMA})
    assert (r.status, r.body["resourceType"]) == (409, "VIEW")
    r = c.call(
        "POST",
        f"{V1}/databases/vdb/tables",
        {
            "identifier": _ident("vdb", "w1"),
            "schema": {"fields": FIELDS, "partitionKeys": [], "primaryKeys": [], "options": {}},
        },
    )
    assert r.status == 409
    assert c.call("DELETE", f"{V1}/databases/vdb/views/w1").status == 200
    r = c.call("DELETE", f"{V1}/databases/vdb/views/w1")
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "VIEW", "w1")


def test_functions_through_every_endpoint(jdbc_server):
    c = SpecClient(jdbc_server)
    c.call("POST", f"{V1}/databases", {"name": "fdb"})
    assert c.call("POST", f"{V1}/databases/fdb/functions", FUNCTION).status == 200
    r = c.call("POST", f"{V1}/databases/fdb/functions", FUNCTION)
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (409, "FUNCTION", "plus.one")
    r = c.call("POST", f"{V1}/databases/fdb/functions", {**FUNCTION, "name": "9"})
    assert r.status == 400
    got = c.call("GET", f"{V1}/databases/fdb/functions/plus.one").body
    assert got == {"uuid": "fdb.plus.one", **FUNCTION}
    c.call("POST", f"{V1}/databases/fdb/functions", {**FUNCTION, "name": "other"})
    assert c.call("GET", f"{V1}/databases/fdb/functions").body == {
        "functions": ["other", "plus.one"],
        "nextPageToken": None,
    }
    r = c.call("GET", f"{V1}/databases/fdb/function-details", query="functionNamePattern=plus%25")
    assert [d["name"] for d in r.body["functionDetails"]] == ["plus.one"]
    r = c.call("GET", f"{V1}/functions", query="databaseNamePattern=fdb&maxResults=1")
    assert r.body == {"functions": [_ident("fdb", "other")], "nextPageToken": "fdb.other"}
    changes = [
        {
            "action": "addDefinition",
            "name": "py",
            "definition": {"type": "lambda", "definition": "x", "language": "python"},
        },
        {"action": "dropDefinition", "name": "flink"},
        {"action": "removeOption", "key": "k"},
    ]
    assert c.call("POST", f"{V1}/databases/fdb/functions/plus.one", {"changes": changes}).status == 200
    got = c.call("GET", f"{V1}/databases/fdb/functions/plus.one").body
    assert sorted(got["definitions"]) == ["py", "spark"] and got["options"] == {}
    r = c.call("POST", f"{V1}/databases/fdb/functions/plus.one", {"changes": [changes[1]]})
    assert (r.status, r.body["resourceType"], r.body["resourceName"]) == (404, "DEFINITION", "flink")
    assert c.call("DELETE", f"{V1}/databases/fdb/functions/plus.one").status == 200
    r = c.call("GET", f"{V1}/databases/fdb/functions/plus.one")
    assert (r.status, r.body["resourceType"]) == (404, "FUNCTION")


def test_a_catalog_without_a_store_lists_none_and_refuses_writes(rest_server, tmp_path: Path):
    c = SpecClient(rest_server)
    c.call("POST", f"{V1}/databases", {"name": "nostore"})
    assert c.call("GET", f"{V1}/databases/nostore/views").body == {"views": [], "nextPageToken": None}
    assert c.call("GET", f"{V1}/databases/nostore/functions").body == {"functions": [], "nextPageToken": None}
    assert c.call("GET", f"{V1}/databases/nostore/view-details").body == {
        "viewDetails": [],
        "nextPageToken": None,
    }
    r = c.call("GET", f"{V1}/databases/nostore/views/v")
    assert (r.status, r.body["resourceType"]) == (404, "VIEW")
    r = c.call("GET", f"{V1}/databases/nostore/functions/f")
    assert (r.status, r.body["resourceType"]) == (404, "FUNCTION")
    view = {"identifier": _ident("nostore", "v"), "schema": SCHEMA}
    for method, path, body, kind in (
        ("POST", "databases/nostore/views", view, "VIEW"),
        ("POST", "databases/nostore/views/v", {"changes": []}, "VIEW"),
        ("DELETE", "databases/nostore/views/v", None, "VIEW"),
        ("POST", "views/rename", {"source": view["identifier"], "destination": view["identifier"]}, "VIEW"),
        ("POST", "databases/nostore/functions", FUNCTION, "FUNCTION"),
        ("DELETE", "databases/nostore/functions/f", None, "FUNCTION"),
    ):
        r = c.call(method, f"{V1}/{path}", body)
        assert (r.status, r.body["resourceType"]) == (501, kind), (path, r.body)
        assert "catalog-objects.jdbc-uri" in r.body["message"]
    # and our REST client says so in one line
    cli = Cli(tmp_path / "client")
    for what in ("view", "function"):
        r = cli(
            *rest_server.cli_flags(), what, "alter", "nostore.x", "--comment", "c", warehouse=False, code=1
        )
        assert r.stderr.startswith(
            f"error: the filesystem catalog stores no {what}s: {what} 'nostore.x' cannot"
        )
        assert "catalog-objects.jdbc-uri" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_our_rest_client_runs_the_view_and_function_commands(jdbc_server, tmp_path: Path):
    cli = Cli(tmp_path / "client")
    flags = [*jdbc_server.cli_flags()]
    cli(*flags, "create-database", "cdb", warehouse=False)
    cli(*flags, "create-table", "cdb.t", "--schema", "id BIGINT, name STRING", warehouse=False)
    out = cli(
        *flags, "view", "create", "cdb.v", "--query", "SELECT id FROM cdb.t", "--schema", "id BIGINT",
        "--comment", "c", "--dialect", "spark=SELECT id FROM cdb.t", warehouse=False,
    ).stdout  # fmt: skip
    assert out.strip() == "created view cdb.v (1 column)"
    assert cli.json(*flags, "view", "list", "cdb", warehouse=False) == [{"database": "cdb", "view": "v"}]
    shown = cli.json(*flags, "view", "show", "cdb.v", warehouse=False)[0]
    assert (shown["query"], shown["dialects"], shown["comment"]) == (
        "SELECT id FROM cdb.t",
        {"spark": "SELECT id FROM cdb.t"},
        "c",
    )
    r = cli(
        *flags, "view", "create", "cdb.t", "--query", "SELECT 1", "--schema", "x INT", warehouse=False, code=1
    )
    assert "table 'cdb.t' already exists" in r.stderr
    cli(*flags, "view", "rename", "cdb.v", "cdb.w", warehouse=False)
    out = cli(*flags, "view", "alter", "cdb.w", "--set-option", "o=1", "--comment", "c2",
              "--add-dialect", "flink=SELECT 2", "--drop-dialect", "spark", warehouse=False).stdout  # fmt: skip
    words = "set option o=1; set the comment; added dialect flink; dropped dialect spark"
    assert out.strip() == f"altered view cdb.w: {words}"
    r = cli(*flags, "view", "alter", "cdb.w", "--comment", "x", "--update-dialect", "spark=SELECT 3",
            warehouse=False, code=1)  # fmt: skip
    assert r.stderr == "error: view 'cdb.w' has no dialect 'spark'\n"
    r = cli(*flags, "view", "alter", "cdb.nope", "--comment", "x", warehouse=False, code=1)
    assert r.stderr == "error: view 'cdb.nope' does not exist\n"
    cli(
        *flags,
        "function",
        "create",
        "cdb.f",
        "--params",
        "x INT",
        "--returns",
        "r INT",
        "--sql",
        "spark=x + 1",
        warehouse=False,
    )
    shown = cli.json(*flags, "function", "show", "cdb.f", warehouse=False)[0]
    assert shown["definitions"] == {"spark": {"type": "sql", "definition": "x + 1"}}
    (record,) = cli.json(*flags, "function", "alter", "cdb.f", "--add-lambda", "py=python:lambda x: x",
                         "--update-sql", "spark=x + 2", "--set-option", "k=v", warehouse=False)  # fmt: skip
    assert [c["action"] for c in record["changes"]] == ["setOption", "addDefinition", "updateDefinition"]
    r = cli(*flags, "function", "alter", "cdb.f", "--comment", "x", "--add-sql", "spark=1",
            warehouse=False, code=1)  # fmt: skip
    assert r.stderr == "error: function 'cdb.f' already has definition 'spark'\n"
    # the server's backing catalog holds them: a JDBC catalog on its database reads them
    from paimon_core.catalog.factory import create_catalog

    backing = create_catalog(
        "jdbc", str(jdbc_server.warehouse), {"uri": f"sqlite:///{jdbc_server.catalog_db}"}
    )
    view = backing.get_view("cdb.w")
    assert (view.comment, view.options, view.dialects) == ("c2", {"o": "1"}, {"flink": "SELECT 2"})
    function = backing.get_function("cdb.f")
    assert (function.comment, function.options) == (None, {"k": "v"})
    assert {n: d.definition for n, d in function.definitions.items()} == {
        "spark": "x + 2",
        "py": "lambda x: x",
    }
    backing.close()
    assert "dropped view cdb.w" in cli(*flags, "view", "drop", "cdb.w", warehouse=False).stdout
    r = cli(*flags, "view", "drop", "cdb.w", warehouse=False, code=1)
    assert r.stderr.strip() == "error: view 'cdb.w' does not exist"
    cli(*flags, "function", "drop", "cdb.f", warehouse=False)
    assert cli.json(*flags, "function", "list", "cdb", warehouse=False) == []
