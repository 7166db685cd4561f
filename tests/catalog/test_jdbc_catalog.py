"""The JDBC catalog on real SQLite and PostgreSQL databases: the SQL tables Java Paimon 0.9's
JdbcCatalog uses (checked by reading the database directly), every CLI command through the
catalog, the errors, cleanup after a failed create, the commit lock and concurrent writers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog.factory import create_catalog
from paimon_core.errors import (
    CatalogUnavailable,
    DatabaseNotFound,
    InvalidInput,
    TableAlreadyExists,
    TableFilesMissing,
    TableNotFound,
    TableNotRegistered,
)
from paimon_core.metadata.schema import Schema
from tests.catalog.cli_flow import every_command

SCHEMA = Schema(
    columns=Schema.parse_columns("id BIGINT NOT NULL, v STRING, dt STRING"), partition_keys=("dt",)
)


def rows(ids, dt="2024-01-01"):
    return pa.table({"id": pa.array(ids, pa.int64()), "v": [f"v{i}" for i in ids], "dt": [dt] * len(ids)})


def columns(jdbc, table: str) -> list[tuple]:
    """(name, type, not null) of a SQL table, read from the database's own catalog."""
    if jdbc.kind == "sqlite":
        return [(r[1], r[2], bool(r[3])) for r in jdbc.rows(f"PRAGMA table_info({table})")]
    return [
        (r[0], f"{r[1]}({r[2]})" if r[2] else r[1], r[3] == "NO")
        for r in jdbc.rows(
            "SELECT column_name, data_type, character_maximum_length, is_nullable FROM information_schema.columns "
            f"WHERE table_name = '{table}' ORDER BY ordinal_position"
        )
    ]


def primary_key(jdbc, table: str) -> list[str]:
    if jdbc.kind == "sqlite":
        return [r[1] for r in sorted(jdbc.rows(f"PRAGMA table_info({table})"), key=lambda r: r[5]) if r[5]]
    return [
        r[0]
        for r in jdbc.rows(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
            f"WHERE i.indrelid = '{table}'::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)"
        )
    ]


def test_sql_tables_are_java_paimons(jdbc, tmp_path):
    cat = create_catalog("jdbc", str(tmp_path / "wh"), {**jdbc.options, "lock.enabled": "true"})
    cat.create_table("shop.orders", SCHEMA)
    if jdbc.kind == "sqlite":
        str255, str1000, ts, big = "VARCHAR(255)", "VARCHAR(1000)", "TIMESTAMP", "BIGINT"
    else:
        str255, str1000, ts, big = (
            "character varying(255)",
            "character varying(1000)",
            "timestamp without time zone",
            "bigint",
        )
    assert columns(jdbc, "paimon_tables") == [
        ("catalog_key", str255, True),
        ("database_name", str255, True),
        ("table_name", str255, True),
    ]
    assert primary_key(jdbc, "paimon_tables") == ["catalog_key", "database_name", "table_name"]
    props = columns(jdbc, "paimon_database_properties")
    assert [c[:2] for c in props] == [
        ("catalog_key", str255),
        ("database_name", str255),
        ("property_key", str255),
        ("property_value", str1000),
    ]
    assert primary_key(jdbc, "paimon_database_properties") == ["catalog_key", "database_name", "property_key"]
    assert columns(jdbc, "paimon_distributed_locks") == [
        ("lock_id", str255, True),
        ("acquired_at", ts, True),
        ("expire_time_seconds", big, True),
    ]
    assert primary_key(jdbc, "paimon_distributed_locks") == ["lock_id"]
    assert jdbc.rows("SELECT catalog_key, database_name, table_name FROM paimon_tables") == [
        ("jdbc", "shop", "orders")
    ]
    assert dict(
        (r[0], r[1])
        for r in jdbc.rows(
            "SELECT property_key, property_value FROM paimon_database_properties WHERE database_name = 'shop'"
        )
    ) == {"exists": "true", "location": str(tmp_path / "wh" / "shop.db")}
    assert jdbc.rows("SELECT count(*) FROM paimon_distributed_locks") == [(0,)]  # released after create


def test_catalog_operations_and_catalog_key(jdbc, tmp_path):
    wh = str(tmp_path / "wh")
    cat = create_catalog("jdbc", wh, jdbc.options)
    other = create_catalog("jdbc", wh, {**jdbc.options, "catalog-key": "other"})
    t = cat.create_table("db1.t", SCHEMA)
    t.write_arrow(rows([1, 2, 3]))
    cat.create_database("empty")
    assert cat.list_databases() == ["db1", "empty"]
    assert cat.list_tables("db1") == ["t"]
    assert other.list_databases() == [] and not other.table_exists("db1.t")
    with pytest.raises(TableAlreadyExists):
        cat.create_table("db1.t", SCHEMA)
    assert cat.create_table("db1.t", SCHEMA, ignore_if_exists=True).read().num_rows == 3
    cat.rename_table("db1.t", "db1.u")
    assert cat.list_tables("db1") == ["u"]
    assert sorted(cat.get_table("db1.u").read().column("id").to_pylist()) == [1, 2, 3]
    assert not (tmp_path / "wh" / "db1.db" / "t").exists()
    with pytest.raises(TableNotFound):
        cat.get_table("db1.t")
    cat.drop_table("db1.u")
    assert cat.list_tables("db1") == [] and not (tmp_path / "wh" / "db1.db" / "u").exists()
    cat.drop_database("db1")
    cat.drop_database("empty")
    assert cat.list_databases() == []
    assert jdbc.rows("SELECT count(*) FROM paimon_database_properties") == [(0,)]
    with pytest.raises(DatabaseNotFound):
        cat.list_tables("db1")


def test_unregistered_and_missing_tables(jdbc, tmp_path):
    wh = tmp_path / "wh"
    create_catalog("filesystem", str(wh)).create_table("db.fs_only", SCHEMA)
    cat = create_catalog("jdbc", str(wh), jdbc.options)
    with pytest.raises(TableNotRegistered, match=r"'db.fs_only' is not registered in the jdbc catalog"):
        cat.get_table("db.fs_only")
    with pytest.raises(Exception, match="files already exist"):
        cat.create_table("db.fs_only", SCHEMA)
    assert (wh / "db.db" / "fs_only" / "schema" / "schema-0").exists()  # left alone
    assert not cat.table_exists("db.fs_only") and cat.list_databases() == []
    cat.create_table("db.gone", SCHEMA)
    import shutil

    shutil.rmtree(wh / "db.db" / "gone")
    with pytest.raises(
        TableFilesMissing, match=r"'db.gone' is registered in the jdbc catalog but has no files"
    ):
        cat.get_table("db.gone")


def test_failed_registration_leaves_nothing(jdbc, tmp_path):
    """The metastore refuses the table row (a trigger in the catalog database): no files stay on
    storage, and the database registered on the way is unregistered again."""
    wh = tmp_path / "wh"
    cat = create_catalog("jdbc", str(wh), jdbc.options)
    if jdbc.kind == "sqlite":
        jdbc.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON paimon_tables BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    else:
        jdbc.execute(
            "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ "
            "LANGUAGE plpgsql"
        )
        jdbc.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON paimon_tables FOR EACH ROW EXECUTE FUNCTION refuse()"
        )
    with pytest.raises(CatalogUnavailable, match="refused"):
        cat.create_table("newdb.t", SCHEMA)
    assert not (wh / "newdb.db" / "t").exists()
    assert cat.list_databases() == []
    assert jdbc.rows("SELECT count(*) FROM paimon_database_properties") == [(0,)]


def test_connection_errors_are_one_line(pg_server, tmp_path):
    runner = CliRunner()
    cases = [
        (pg_server.uri("postgres", password="wrong"), 'password authentication failed for user "paimon"'),
        (pg_server.uri("no_such_db"), 'database "no_such_db" does not exist'),
        (
            "postgresql://paimon:x@127.0.0.1:1/db",
            "cannot reach the jdbc catalog postgresql://paimon:***@127.0.0.1:1/db",
        ),
        (f"sqlite://{tmp_path}/missing/dir/c.db", "folder"),
    ]
    for uri, expected in cases:
        res = runner.invoke(
            app, ["-w", str(tmp_path / "wh"), "--catalog", "jdbc", "--catalog-option", f"uri={uri}", "tables"]
        )
        assert res.exit_code == 1, res.stdout
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], res.stderr
        assert "wrong" not in res.stderr  # the password is never shown


def test_lock_blocks_commits_and_expired_locks_are_cleared(jdbc, tmp_path):
    opts = {
        **jdbc.options,
        "lock.enabled": "true",
        "lock-acquire-timeout": "1 s",
        "lock-check-max-sleep": "100 ms",
    }
    cat = create_catalog("jdbc", str(tmp_path / "wh"), opts)
    t = cat.create_table("db.t", SCHEMA)
    # another holder (as Java's JdbcCatalogLock writes it) with a long expiry
    jdbc.execute(
        "INSERT INTO paimon_distributed_locks (lock_id, expire_time_seconds) VALUES ('jdbc.db.t', 3600)"
    )
    with pytest.raises(CatalogUnavailable, match="could not take the jdbc catalog lock jdbc.db.t"):
        t.write_arrow(rows([1]))
    assert t.snapshots.latest() is None
    assert not list((tmp_path / "wh" / "db.db" / "t" / "manifest").iterdir())  # lists cleaned up
    # the holder releases while we wait: the commit goes through
    jdbc.execute("UPDATE paimon_distributed_locks SET expire_time_seconds = 3600")
    releaser = threading.Timer(0.3, lambda: jdbc.execute("DELETE FROM paimon_distributed_locks"))
    releaser.start()
    t2 = create_catalog("jdbc", str(tmp_path / "wh"), {**opts, "lock-acquire-timeout": "20 s"}).get_table(
        "db.t"
    )
    t2.write_arrow(rows([2]))
    releaser.join()
    assert t2.snapshots.latest().id == 1
    # a lock row older than its expiry is a dead holder's: cleared, then taken
    jdbc.execute(
        "INSERT INTO paimon_distributed_locks (lock_id, acquired_at, expire_time_seconds) "
        "VALUES ('jdbc.db.t', '2000-01-01 00:00:00', 10)"
    )
    t2.write_arrow(rows([3]))
    assert t2.snapshots.latest().id == 2
    assert jdbc.rows("SELECT count(*) FROM paimon_distributed_locks") == [(0,)]


def test_every_command_through_the_catalog(jdbc, tmp_path, monkeypatch):
    every_command(tmp_path, monkeypatch, "jdbc", {**jdbc.options, "lock.enabled": "true"})
    assert jdbc.rows("SELECT count(*) FROM paimon_tables") == [(0,)]


WRITER = """
import sys
import pyarrow as pa
from paimon_core.catalog.factory import create_catalog
import json
opts = json.loads(sys.argv[2])
t = create_catalog("jdbc", sys.argv[1], opts).get_table("db.t")
w = int(sys.argv[3])
for k in range(3):
    ids = [w * 1000 + k * 10 + j for j in range(10)]
    t.write_arrow(pa.table({"id": pa.array(ids, pa.int64()), "v": ["x"] * 10, "dt": ["2024-01-01"] * 10}))
"""


@pytest.mark.slow
def test_four_writers_lose_nothing(jdbc, tmp_path):
    wh = str(tmp_path / "wh")
    opts = {**jdbc.options, "lock.enabled": "true", "lock-check-max-sleep": "200 ms"}
    cat = create_catalog("jdbc", wh, opts)
    cat.create_table(
        "db.t",
        Schema(
            columns=SCHEMA.columns, partition_keys=("dt",), primary_keys=("dt", "id"), options={"bucket": "2"}
        ),
    )
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, wh, json.dumps(opts), str(w)]) for w in range(4)]
    deadline = time.monotonic() + 300
    for p in procs:
        assert p.wait(max(1, deadline - time.monotonic())) == 0
    t = cat.get_table("db.t")
    got = sorted(t.read().column("id").to_pylist())
    assert got == sorted(w * 1000 + k * 10 + j for w in range(4) for k in range(3) for j in range(10))
    assert len([s for s in t.snapshots.snapshots() if s.commit_kind == "APPEND"]) == 12


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("lock.enabled", "maybe", "option 'lock.enabled' has a bad value 'maybe' (expected true or false)"),
        ("lock-acquire-timeout", "soon", "option 'lock-acquire-timeout' has a bad value 'soon'"),
        ("lock-key-max-length", "0", "option 'lock-key-max-length' is 0, out of range"),
    ],
)
def test_catalog_options_are_typed_and_bad_values_named(tmp_path, option, value, message):
    """Catalog options parse as table options do (``options/catalog_options.py``): the value's
    type and range, named in one line, before anything is created."""
    uri = f"sqlite:///{tmp_path / 'c.db'}"
    with pytest.raises(InvalidInput, match=re.escape(message)):
        create_catalog("jdbc", str(tmp_path / "wh"), {"uri": uri, option: value})
    assert not (tmp_path / "c.db").exists()
    cat = create_catalog("jdbc", str(tmp_path / "wh"), {"uri": uri, "lock-acquire-timeout": "3 s"})
    assert cat.lock_acquire_timeout_ms == 3000 and cat.lock_check_max_sleep_ms == 8000
