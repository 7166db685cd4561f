"""One CLI session through a catalog configured in paimon.toml: every command on a table."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from paimon_cli.app import app


def _config(tmp_path, kind: str, options: dict):
    lines = ['warehouse = "wh"', "[catalog]", f'type = "{kind}"']
    lines += [f"{json.dumps(k)} = {json.dumps(v)}" for k, v in options.items()]
    (tmp_path / "paimon.toml").write_text("\n".join(lines) + "\n")


def every_command(tmp_path, monkeypatch, kind: str, options: dict) -> None:
    """create, ingest, read, tag, compact, diff, alter, rollback, expire, rename, drop, list,
    create-database with properties and drop-database (--cascade) through the catalog configured
    in paimon.toml; a table only on storage is refused."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    _config(tmp_path, kind, options)
    runner = CliRunner()

    def run(*args, code=0):
        res = runner.invoke(app, list(args))
        assert res.exit_code == code, f"{args}: {res.stdout}{res.stderr}"
        return res.stdout

    def js(*args):
        return [json.loads(x) for x in run("-o", "json", *args).splitlines() if x.strip()]

    info = js("catalog", "info")[0]
    assert info["catalog"] == kind and info["lock.enabled"] is True
    run(
        "create-table",
        "shop.pk",
        "--schema",
        "id BIGINT NOT NULL, v STRING, n BIGINT",
        "-k",
        "id",
        "--bucket",
        "2",
    )
    for i in range(3):
        pq.write_table(
            pa.table(
                {
                    "id": pa.array([1, 2, i + 10], pa.int64()),
                    "v": [f"a{i}", f"b{i}", "c"],
                    "n": pa.array([i, i, i], pa.int64()),
                }
            ),
            tmp_path / f"in{i}.parquet",
        )
        run("ingest", "-t", "shop.pk", str(tmp_path / f"in{i}.parquet"))
    assert sorted(r["id"] for r in js("read", "-t", "shop.pk")) == [1, 2, 10, 11, 12]
    run("tag", "create", "t2", "-t", "shop.pk", "--snapshot", "2")
    assert [r["tag"] for r in js("tag", "list", "-t", "shop.pk")] == ["t2"]
    run("compact", "-t", "shop.pk", "--level-max")
    assert len(js("diff", "-t", "shop.pk", "--from", "1", "--to", "3", "--mode", "diff")) > 0
    run("alter-table", "shop.pk", "add-column", "extra", "STRING")
    assert "extra" in js("read", "-t", "shop.pk")[0]
    run("rollback", "-t", "shop.pk", "--tag", "t2")
    assert sorted(r["id"] for r in js("read", "-t", "shop.pk")) == [1, 2, 10, 11]
    run("expire", "-t", "shop.pk", "--older-than", "0s", "--retain-min", "1", "--retain-max", "1")
    assert [r["id"] for r in js("snapshots", "-t", "shop.pk")] == [2]
    # branches of a catalog's table: created, written and read by either spelling
    run("branch", "create", "-t", "shop.pk", "b", "--tag", "t2")
    pq.write_table(
        pa.table({"id": pa.array([99], pa.int64()), "v": ["br"], "n": pa.array([9], pa.int64())}),
        tmp_path / "br.parquet",
    )
    run("ingest", "-t", "shop.pk", "--branch", "b", str(tmp_path / "br.parquet"))
    assert 99 in [r["id"] for r in js("read", "-t", "shop.pk$branch_b")]
    assert 99 not in [r["id"] for r in js("read", "-t", "shop.pk")]
    assert [r["id"] for r in js("snapshots", "-t", "shop.pk", "-b", "b")] == [2, 3]
    assert [r["branch"] for r in js("branch", "list", "-t", "shop.pk")] == ["b"]
    run("rename-table", "shop.pk", "shop.pk2")
    assert 99 in [r["id"] for r in js("read", "-t", "shop.pk2", "-b", "b")]
    run("branch", "delete", "-t", "shop.pk2", "b")
    assert js("branch", "list", "-t", "shop.pk2") == []
    assert js("tables", "shop") == [{"database": "shop", "table": "pk2"}]
    assert "shop" in [r["database"] for r in js("databases")]
    run("drop-table", "shop.pk2")
    assert js("tables", "shop") == []
    # databases with properties; a database with tables is dropped only with --cascade
    rec = js("create-database", "crm", "-P", "owner=data-team", "--comment", "customers")[0]
    assert (
        rec["created"] and {"owner": "data-team", "comment": "customers"}.items() <= rec["properties"].items()
    )
    run("create-table", "crm.c", "--schema", "id INT")
    res = runner.invoke(app, ["drop-database", "crm"])
    assert res.exit_code == 1 and res.stderr == (
        "error: database 'crm' is not empty (1 table(s): c); drop it with --cascade to drop them too\n"
    )
    assert js("tables", "crm") == [{"database": "crm", "table": "c"}]
    assert js("drop-database", "crm", "--cascade")[0]["tables_dropped"] == ["c"]
    assert "crm" not in [r["database"] for r in js("databases")]
    # a table only on storage is reported, not silently used
    out = runner.invoke(app, ["--catalog", "filesystem", "create-table", "shop.fs", "--schema", "id INT"])
    assert out.exit_code == 0
    res = runner.invoke(app, ["read", "-t", "shop.fs"])
    assert res.exit_code == 1 and f"not registered in the {kind} catalog" in res.stderr
