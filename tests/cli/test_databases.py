"""create-database / drop-database on the filesystem catalog (the JDBC and Hive catalogs, with
properties: tests/catalog/cli_flow.py). Refusals are one line, exit 1, and change nothing."""

from __future__ import annotations


def test_create_and_drop_database(cli):
    assert cli.json("create-database", "shop")[0] == {"database": "shop", "created": True, "properties": {}}
    assert (cli.wh / "shop.db").is_dir()
    assert cli.json("create-database", "shop", "--if-not-exists")[0]["created"] is False
    r = cli("create-database", "shop", code=1)
    assert r.stderr == "error: database 'shop' already exists (--if-not-exists keeps it)\n"
    cli("create-table", "shop.a", "--schema", "id INT")
    cli("create-table", "shop.b", "--schema", "id INT")
    r = cli("drop-database", "shop", code=1)
    assert r.stderr == (
        "error: database 'shop' is not empty (2 table(s): a, b); drop it with --cascade to drop them too\n"
    )
    assert [t["table"] for t in cli.json("tables", "shop")] == ["a", "b"]
    assert cli.json("drop-database", "shop", "--cascade")[0]["tables_dropped"] == ["a", "b"]
    assert not (cli.wh / "shop.db").exists()


def test_filesystem_catalog_refuses_properties(cli):
    r = cli("create-database", "shop", "-P", "owner=me", code=1)
    assert r.stderr.startswith("error: the filesystem catalog cannot store database properties (owner)")
    assert r.stderr.count("\n") == 1
    assert not (cli.wh / "shop.db").exists()


def test_drop_missing_database(cli):
    cli("create-database", "other")
    r = cli("drop-database", "nope", code=1)
    assert r.stderr == "error: database 'nope' does not exist\n"
    assert cli.json("drop-database", "nope", "--if-exists")[0]["dropped"] is False
