"""``paimon view`` and ``paimon function`` on the filesystem catalog: refused by name without a
store (one line naming the option), kept in the JDBC database ``catalog-objects.jdbc-uri`` names
with one; a view's columns derived from its query by DuckDB, or given with --schema."""

from __future__ import annotations

import json
import sqlite3

from tests.cli.conftest import Cli

# the stored JSON of --lambda py=python:lambda x: x + 1 and --file flink=java:com.example.Plus:file:///udf/plus.jar
PY_LAMBDA = {"type": "lambda", "definition": "lambda x: x + 1", "language": "python"}
FLINK_JAR = {
    "type": "file",
    "fileResources": [{"resourceType": "JAR", "uri": "file:///udf/plus.jar"}],
    "language": "java",
    "className": "com.example.Plus",
}


def _usage(r) -> str:
    """A usage error's words, out of the box they are drawn in."""
    return " ".join(r.stderr.replace("│", " ").split())


def _store(tmp_path) -> list[str]:
    return ["--catalog-option", f"catalog-objects.jdbc-uri=sqlite:///{tmp_path / 'objects.db'}"]


def test_without_a_store_views_are_refused_by_name(cli: Cli):
    cli("create-database", "demo")
    assert cli.json("view", "list") == []
    r = cli("view", "create", "demo.v", "--query", "SELECT 1 AS x", "--schema", "x INT", code=1)
    assert r.stderr.strip() == (
        "error: the filesystem catalog stores no views: view 'demo.v' cannot be created; keep them in a JDBC "
        "database with --catalog-option catalog-objects.jdbc-uri=sqlite:///PATH/objects.db (or [catalog] in "
        "paimon.toml)"
    )
    r = cli("function", "create", "demo.f", "--sql", "spark=1", code=1)
    assert "stores no functions" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("view", "show", "demo.v", code=1)
    assert r.stderr.strip() == "error: view 'demo.v' does not exist (the filesystem catalog stores no views)"
    r = cli("view", "alter", "demo.v", "--comment", "c", code=1)
    assert r.stderr.startswith(
        "error: the filesystem catalog stores no views: view 'demo.v' cannot be altered;"
    )
    r = cli("function", "alter", "demo.f", "--drop-definition", "spark", code=1)
    assert r.stderr.startswith(
        "error: the filesystem catalog stores no functions: function 'demo.f' cannot be"
    )
    assert len(r.stderr.strip().splitlines()) == 1


def test_views_in_a_jdbc_store(cli: Cli, tmp_path):
    store = _store(tmp_path)
    cli("create-table", "demo.events", "--schema", "id BIGINT NOT NULL, name STRING, amount DECIMAL(10, 2)")
    out = cli(*store, "view", "create", "demo.big", "--query", "SELECT id, amount * 2 AS twice FROM demo.events",
              "--comment", "doubled", "--option", "owner=me", "--dialect", "spark=SELECT id, amount * 2 AS twice FROM demo.events").stdout  # fmt: skip
    assert out.strip() == "created view demo.big (2 columns)"
    shown = cli.json(*store, "view", "show", "demo.big")[0]
    assert [(f["name"], f["type"]) for f in shown["fields"]] == [
        ("id", "BIGINT"),
        ("twice", "DECIMAL(18, 2)"),
    ]
    assert (shown["comment"], shown["options"], sorted(shown["dialects"])) == (
        "doubled",
        {"owner": "me"},
        ["spark"],
    )
    text = cli(*store, "view", "show", "demo.big").stdout
    assert "query: SELECT id, amount * 2 AS twice FROM demo.events" in text
    # the row is Java 2.0's paimon_views row
    conn = sqlite3.connect(tmp_path / "objects.db")
    ((key, db, name, schema),) = conn.execute("SELECT * FROM paimon_views").fetchall()
    conn.close()
    assert (key, db, name, json.loads(schema)["query"]) == ("jdbc", "demo", "big", shown["query"])
    # a query whose columns DuckDB cannot find
    r = cli(*store, "view", "create", "demo.bad", "--query", "SELECT nope FROM demo.events", code=1)
    assert "cannot derive the view's columns" in r.stderr and '--schema "name TYPE, ...' in r.stderr
    cli(*store, "view", "create", "demo.given", "--query", "SELECT x FROM elsewhere", "--schema", "x INT")
    assert cli.json(*store, "view", "list", "demo") == [
        {"database": "demo", "view": "big"},
        {"database": "demo", "view": "given"},
    ]
    r = cli(*store, "view", "create", "demo.events", "--query", "SELECT 1", "--schema", "x INT", code=1)
    assert r.stderr.strip() == "error: table 'demo.events' already exists (a view cannot take its name)"
    r = cli(*store, "create-table", "demo.big", "--schema", "x INT", code=1)
    assert r.stderr.strip() == "error: view 'demo.big' already exists"
    cli(*store, "view", "create", "demo.given", "--query", "SELECT 1", "--schema", "x INT", "--if-not-exists")
    cli(*store, "view", "rename", "demo.given", "demo.renamed")
    assert "dropped view demo.renamed" in cli(*store, "view", "drop", "demo.renamed").stdout
    assert (
        "does not exist; nothing dropped" in cli(*store, "view", "drop", "demo.renamed", "--if-exists").stdout
    )
    r = cli(*store, "drop-database", "demo", "--cascade", code=None)
    assert r.exit_code in (0, 1)  # drop-database may ask for --force on a terminal-less run
    r = cli(*store, "view", "show", "demo.big", code=1)
    assert "does not exist" in r.stderr


def test_functions_in_a_jdbc_store(cli: Cli, tmp_path):
    store = _store(tmp_path)
    cli("create-database", "demo")
    cli(*store, "function", "create", "demo.my.plus", "--params", "x INT", "--returns", "r INT",
        "--deterministic", "--sql", "spark=x + 1", "--lambda", "py=python:lambda x: x + 1",
        "--file", "flink=java:com.example.Plus:file:///udf/plus.jar", "--comment", "adds one")  # fmt: skip
    shown = cli.json(*store, "function", "show", "demo.my.plus")[0]
    assert shown["definitions"] == {
        "spark": {"type": "sql", "definition": "x + 1"},
        "py": PY_LAMBDA,
        "flink": FLINK_JAR,
    }
    assert (shown["name"], shown["deterministic"], shown["comment"]) == ("my.plus", True, "adds one")
    text = cli(*store, "function", "show", "demo.my.plus").stdout
    assert "params: x INT" in text and "returns: r INT" in text
    assert cli.json(*store, "function", "list") == [{"database": "demo", "function": "my.plus"}]
    r = cli(*store, "function", "create", "demo.9", "--sql", "spark=1", code=1)
    assert "bad function name '9'" in r.stderr
    r = cli(*store, "function", "create", "demo.g", code=2)
    assert "at least one definition" in r.stderr
    r = cli(*store, "function", "create", "demo.my.plus", "--sql", "spark=1", code=1)
    assert r.stderr.strip() == "error: function 'demo.my.plus' already exists"
    cli(*store, "function", "drop", "demo.my.plus")
    assert cli.json(*store, "function", "list", "demo") == []


def test_view_alter(cli: Cli, tmp_path):
    store = _store(tmp_path)
    cli("create-database", "demo")
    cli(*store, "view", "create", "demo.v", "--query", "SELECT 1 AS x", "--schema", "x INT", "--comment", "old",
        "--option", "a=1", "--option", "b=2", "--dialect", "spark=SELECT 1 AS x", "--dialect", "hive=SELECT 1")  # fmt: skip

    def shown() -> dict:
        return cli.json(*store, "view", "show", "demo.v")[0]

    out = cli(*store, "view", "alter", "demo.v", "--set-option", "a=10", "--set-option", "c=3",
              "--remove-option", "b", "--comment", "new", "--add-dialect", "flink=SELECT 2 AS x",
              "--update-dialect", "spark=SELECT 3 AS x", "--drop-dialect", "hive").stdout  # fmt: skip
    assert out.strip() == (
        "altered view demo.v: set option a=10; set option c=3; removed option b; set the comment; "
        "added dialect flink; updated dialect spark; dropped dialect hive"
    )
    v = shown()
    assert (v["options"], v["comment"], v["dialects"], v["query"]) == (
        {"a": "10", "c": "3"},
        "new",
        {"spark": "SELECT 3 AS x", "flink": "SELECT 2 AS x"},
        "SELECT 1 AS x",
    )
    (record,) = cli.json(*store, "view", "alter", "demo.v", "--comment", "")
    assert record == {"view": "demo.v", "changes": [{"action": "updateComment", "comment": None}]}
    assert "comment" not in shown()
    before = shown()
    # all or nothing: a bad dialect refuses the options and comment given with it
    for bad, error in (
        (["--add-dialect", "spark=SELECT 9"], "view 'demo.v' already has dialect 'spark'"),
        (["--update-dialect", "hive=SELECT 9"], "view 'demo.v' has no dialect 'hive'"),
        (["--drop-dialect", "hive"], "view 'demo.v' has no dialect 'hive'"),
    ):
        r = cli(*store, "view", "alter", "demo.v", "--set-option", "z=1", "--comment", "x", *bad, code=1)
        assert r.stderr == f"error: {error}\n"
    assert shown() == before
    r = cli(*store, "view", "alter", "demo.nope", "--comment", "x", code=1)
    assert r.stderr == "error: view 'demo.nope' does not exist\n"
    r = cli(*store, "view", "alter", "nodb.v", "--comment", "x", code=1)
    assert r.stderr == "error: database 'nodb' does not exist\n"
    r = cli(*store, "view", "alter", "demo.v", code=2)
    assert (
        "give at least one change: --set-option, --remove-option, --comment, --add-dialect, "
        "--update-dialect or --drop-dialect" in _usage(r)
    )
    r = cli(*store, "view", "alter", "demo.v", "--set-option", "a=1", "--remove-option", "a", code=2)
    assert "'--set-option' / '--remove-option': option 'a' named by both; one change per option" in _usage(r)
    r = cli(*store, "view", "alter", "demo.v", "--add-dialect", "x=1", "--drop-dialect", "x", code=2)
    assert "dialect 'x' named by both" in _usage(r)
    r = cli(*store, "view", "alter", "demo.v", "--add-dialect", "nosql", code=1)
    assert r.stderr == "error: bad --add-dialect 'nosql': use KEY=VALUE\n"
    assert shown() == before


def test_function_alter(cli: Cli, tmp_path):
    store = _store(tmp_path)
    cli("create-database", "demo")
    cli(*store, "function", "create", "demo.my.f", "--params", "x INT", "--sql", "spark=x + 1",
        "--sql", "old=x", "--option", "a=1", "--comment", "c")  # fmt: skip

    def shown() -> dict:
        return cli.json(*store, "function", "show", "demo.my.f")[0]

    out = cli(*store, "function", "alter", "demo.my.f", "--set-option", "b=2", "--remove-option", "a",
              "--comment", "adds", "--add-lambda", "py=python:lambda x: x + 1",
              "--add-file", "flink=java:com.example.Plus:file:///udf/plus.jar", "--update-sql", "spark=x + 2",
              "--drop-definition", "old").stdout  # fmt: skip
    assert out.strip() == (
        "altered function demo.my.f: set option b=2; removed option a; set the comment; added definition py; "
        "added definition flink; updated definition spark; dropped definition old"
    )
    f = shown()
    assert (f["options"], f["comment"], f["inputParams"][0]["name"]) == ({"b": "2"}, "adds", "x")
    assert f["definitions"] == {
        "spark": {"type": "sql", "definition": "x + 2"},
        "py": PY_LAMBDA,
        "flink": FLINK_JAR,
    }
    (record,) = cli.json(*store, "function", "alter", "demo.my.f", "--update-lambda", "spark=python:x",
                         "--update-file", "py=java:a.B:file:///b.jar")  # fmt: skip
    assert record == {
        "function": "demo.my.f",
        "changes": [
            {
                "action": "updateDefinition",
                "name": "spark",
                "definition": {"type": "lambda", "definition": "x", "language": "python"},
            },
            {
                "action": "updateDefinition",
                "name": "py",
                "definition": {
                    "type": "file",
                    "fileResources": [{"resourceType": "JAR", "uri": "file:///b.jar"}],
                    "language": "java",
                    "className": "a.B",
                },
            },
        ],
    }
    cli(*store, "function", "alter", "demo.my.f", "--add-sql", "duck=x + 1", "--comment", "")
    f = shown()
    assert "comment" not in f and f["definitions"]["duck"] == {"type": "sql", "definition": "x + 1"}
    before = shown()
    for bad, error in (
        (["--add-sql", "spark=1"], "function 'demo.my.f' already has definition 'spark'"),
        (["--update-sql", "old=1"], "function 'demo.my.f' has no definition 'old'"),
        (["--drop-definition", "old"], "function 'demo.my.f' has no definition 'old'"),
    ):
        r = cli(
            *store, "function", "alter", "demo.my.f", "--set-option", "z=1", "--comment", "x", *bad, code=1
        )
        assert r.stderr == f"error: {error}\n"
    assert shown() == before
    r = cli(*store, "function", "alter", "demo.nope", "--comment", "x", code=1)
    assert r.stderr == "error: function 'demo.nope' does not exist\n"
    r = cli(*store, "function", "alter", "nodb.f", "--comment", "x", code=1)
    assert r.stderr == "error: database 'nodb' does not exist\n"
    r = cli(*store, "function", "alter", "demo.my.f", code=2)
    assert "give at least one change" in _usage(r) and "--drop-definition" in _usage(r)
    r = cli(*store, "function", "alter", "demo.my.f", "--add-sql", "x=1", "--add-lambda", "x=py:1", code=2)
    assert "'--add-sql' / '--add-lambda': definition 'x' named by both" in _usage(r)
    r = cli(*store, "function", "alter", "demo.my.f", "--update-lambda", "x=nolanguage", code=1)
    assert r.stderr == "error: bad --update-lambda 'x=nolanguage': use NAME=LANGUAGE:BODY\n"
    r = cli(*store, "function", "alter", "demo.my.f", "--add-file", "x=java:a.B", code=1)
    assert r.stderr == "error: bad --add-file 'x=java:a.B': use NAME=LANGUAGE:CLASS:URI[,URI...]\n"
    assert shown() == before
