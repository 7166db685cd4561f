"""#41: tables on a real HDFS (MiniDFSCluster on 127.0.0.1, ``cluster.py``) through the CLI, as a
user runs it: the whole life of a primary-key table, Java Paimon 2.0 reading ours and we reading
its, writers at once losing nothing, a NameNode restart in the middle of a write, and a bad
address as one line. ``hdfs://`` goes through hdfs-native, ``webhdfs://`` through fsspec's
WebHDFS client."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from tests.lanes.cli import cli_env
from tests.lanes.model import write_jsonl

pytestmark = [pytest.mark.lanes, pytest.mark.slow]

PK = "id BIGINT NOT NULL, v STRING, dt STRING NOT NULL"


def paimon(wh: str, *args, code: int = 0):
    r = CliRunner().invoke(app, ["-w", wh, *map(str, args)])
    assert r.exit_code == code, (
        f"paimon {' '.join(map(str, args))} -> {r.exit_code}\n{r.stderr}\n{r.exception!r}"
    )
    return r


def rows(wh: str, *args) -> list[dict]:
    out = paimon(wh, "-o", "json", *args).stdout
    return [json.loads(x) for x in out.splitlines() if x.strip()]


def keyed(found: list[dict]) -> dict:
    return {(r["id"], r["dt"]): r["v"] for r in found}


def _events(ids, v: str, dt: str = "d1") -> list[dict]:
    return [{"id": i, "v": f"{v}{i}", "dt": dt} for i in ids]


def test_a_primary_key_table_lives_its_whole_life_on_hdfs(hdfs_wh, hdfs_cluster, tmp_path):
    paimon(hdfs_wh, "create-table", "db.t", "--schema", PK, "-k", "id,dt", "-p", "dt", "--bucket", "2")
    first = _events(range(100), "a") + _events(range(50), "a", "d2")
    paimon(hdfs_wh, "ingest", "db.t", write_jsonl(tmp_path / "1.jsonl", first))
    model = {(r["id"], r["dt"]): r["v"] for r in first}
    at_1 = dict(model)
    upserts = _events(range(0, 100, 3), "b")
    paimon(hdfs_wh, "ingest", "db.t", write_jsonl(tmp_path / "2.jsonl", upserts))
    model.update({(r["id"], r["dt"]): r["v"] for r in upserts})
    assert keyed(rows(hdfs_wh, "read", "db.t")) == model
    assert keyed(rows(hdfs_wh, "read", "db.t", "--snapshot", "1")) == at_1  # time travel

    paimon(hdfs_wh, "compact", "db.t", "--level-max")
    assert keyed(rows(hdfs_wh, "read", "db.t")) == model
    assert [s["kind"] for s in rows(hdfs_wh, "snapshots", "db.t")][-1] == "COMPACT"

    paimon(hdfs_wh, "tag", "db.t", "create", "v1")
    paimon(hdfs_wh, "branch", "db.t", "create", "fix", "--tag", "v1")
    paimon(
        hdfs_wh, "ingest", "db.t", write_jsonl(tmp_path / "3.jsonl", _events([7], "fix")), "--branch", "fix"
    )
    assert keyed(rows(hdfs_wh, "read", "db.t", "--branch", "fix"))[(7, "d1")] == "fix7"
    assert keyed(rows(hdfs_wh, "read", "db.t")) == model  # main unchanged

    paimon(hdfs_wh, "expire", "db.t", "--retain-max", "1", "--retain-min", "1", "--older-than", "1ms")
    assert [s["id"] for s in rows(hdfs_wh, "snapshots", "db.t")] == [3]
    assert keyed(rows(hdfs_wh, "read", "db.t", "--tag", "v1")) == model  # the tag keeps its files

    # a file no snapshot names, old enough: remove-orphans deletes it and nothing else
    fs = _fs(hdfs_wh)
    orphan = _on_hdfs(hdfs_wh, "/db.db/t/dt=d1/bucket-0/data-orphan-0.parquet")
    fs.pipe_file(orphan, b"not a data file")
    time.sleep(0.01)
    paimon(hdfs_wh, "remove-orphans", "db.t", "--older-than", "1ms")
    assert not fs.exists(orphan)
    assert keyed(rows(hdfs_wh, "read", "db.t")) == model


def _on_hdfs(wh: str, rel: str) -> str:
    """The path on the cluster of ``rel`` under warehouse ``wh`` (``hdfs://host:port/wh-x``)."""
    return "/" + wh.split("://", 1)[1].split("/", 1)[1] + rel


def _fs(wh: str):
    from paimon_core.storage.file_io import FileIO

    return FileIO(wh).fs


def test_java_reads_what_we_write_on_hdfs_and_we_read_what_it_writes(hdfs_wh, java20_hdfs, tmp_path):
    paimon(hdfs_wh, "create-table", "db.ours", "--schema", PK, "-k", "id,dt", "-p", "dt", "--bucket", "2")
    ours = _events(range(40), "o") + _events(range(10), "o", "d2")
    paimon(hdfs_wh, "ingest", "db.ours", write_jsonl(tmp_path / "o.jsonl", ours))
    paimon(hdfs_wh, "ingest", "db.ours", write_jsonl(tmp_path / "u.jsonl", _events(range(5), "u")))
    paimon(hdfs_wh, "create-table", "db.app", "--schema", "id BIGINT, v STRING")
    paimon(
        hdfs_wh,
        "ingest",
        "db.app",
        write_jsonl(tmp_path / "a.jsonl", [{"id": i, "v": str(i)} for i in range(30)]),
    )
    (theirs_pk, theirs_app) = java20_hdfs.run(
        [
            {"op": "read", "warehouse": hdfs_wh, "table": "db.ours"},
            {"op": "read", "warehouse": hdfs_wh, "table": "db.app"},
        ]
    )
    assert keyed(theirs_pk["rows"]) == keyed(rows(hdfs_wh, "read", "db.ours"))
    assert len(theirs_pk["rows"]) == 50
    assert sorted((r["id"], r["v"]) for r in theirs_app["rows"]) == [(i, str(i)) for i in range(30)]

    java_rows = [{"id": i, "v": f"j{i}", "dt": "d1"} for i in range(25)]
    java20_hdfs.run(
        [
            {
                "op": "create_table",
                "warehouse": hdfs_wh,
                "table": "db.java",
                "schema": [
                    {"name": "id", "type": "BIGINT NOT NULL"},
                    {"name": "v", "type": "STRING"},
                    {"name": "dt", "type": "STRING NOT NULL"},
                ],
                "primary_keys": ["id", "dt"],
                "partition_keys": ["dt"],
                "options": {"bucket": "2"},
            },
            {"op": "write", "warehouse": hdfs_wh, "table": "db.java", "rows": java_rows},
        ]
    )
    assert keyed(rows(hdfs_wh, "read", "db.java")) == keyed(java_rows)
    paimon(hdfs_wh, "ingest", "db.java", write_jsonl(tmp_path / "j.jsonl", _events(range(20, 30), "w")))
    theirs = java20_hdfs.call("read", warehouse=hdfs_wh, table="db.java")["rows"]
    assert keyed(theirs) == keyed(java_rows) | keyed(_events(range(20, 30), "w"))


def test_writers_at_once_lose_nothing_on_hdfs(hdfs_wh, tmp_path):
    """Four processes commit three batches each into one append table and one primary-key
    table at once: every row of every commit is there, each commit is one snapshot."""
    paimon(hdfs_wh, "create-table", "db.app", "--schema", "w INT, i INT")
    paimon(
        hdfs_wh,
        "create-table",
        "db.pk",
        "--schema",
        "id BIGINT NOT NULL, v STRING",
        "-k",
        "id",
        "--bucket",
        "2",
    )
    procs = []
    for w in range(4):
        script = "; ".join(
            f"paimon ingest {tmp_path}/app-{w}-{k}.jsonl -t db.app && paimon ingest {tmp_path}/pk-{w}-{k}.jsonl -t db.pk"
            for k in range(3)
        )
        for k in range(3):
            write_jsonl(tmp_path / f"app-{w}-{k}.jsonl", [{"w": w, "i": k * 100 + i} for i in range(50)])
            write_jsonl(
                tmp_path / f"pk-{w}-{k}.jsonl",
                [{"id": w * 1000 + k * 100 + i, "v": f"{w}"} for i in range(50)],
            )
        procs.append(
            subprocess.Popen(
                ["bash", "-c", script.replace("paimon ", f"{sys.executable} -m paimon_cli -w {hdfs_wh} ")],
                env=cli_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    app_rows = rows(hdfs_wh, "read", "db.app")
    assert sorted((r["w"], r["i"]) for r in app_rows) == sorted(
        (w, k * 100 + i) for w in range(4) for k in range(3) for i in range(50)
    )
    assert sorted(r["id"] for r in rows(hdfs_wh, "read", "db.pk")) == sorted(
        w * 1000 + k * 100 + i for w in range(4) for k in range(3) for i in range(50)
    )
    appends = [s for s in rows(hdfs_wh, "snapshots", "db.app") if s["kind"] == "APPEND"]
    assert len(appends) == 12


def test_a_namenode_restart_in_the_middle_of_a_write_leaves_old_or_new(hdfs_wh, hdfs_cluster, tmp_path):
    paimon(hdfs_wh, "create-table", "db.t", "--schema", "id BIGINT, v STRING")
    paimon(hdfs_wh, "ingest", "db.t", write_jsonl(tmp_path / "0.jsonl", [{"id": 0, "v": "old"}]))
    (tmp_path / "in").mkdir()
    files = [
        write_jsonl(tmp_path / f"in/{k}.jsonl", [{"id": k * 1000 + i, "v": "new"} for i in range(2000)])
        for k in range(30)
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "paimon_cli", "-w", hdfs_wh, "ingest", "db.t", *map(str, files)],
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    fs = _fs(hdfs_wh)
    table_dir = _on_hdfs(hdfs_wh, "/db.db/t/bucket-0")
    deadline = time.monotonic() + 120
    while len(fs.ls(table_dir, detail=False)) < 2 and proc.poll() is None:  # the write has begun
        assert time.monotonic() < deadline
        time.sleep(0.05)
    hdfs_cluster.restart_namenode()
    _, err = proc.communicate(timeout=300)
    found = sorted(r["id"] for r in rows(hdfs_wh, "read", "db.t"))
    if proc.returncode == 0:
        assert found == [0] + sorted(k * 1000 + i for k in range(30) for i in range(2000))
    else:
        assert found == [0], "a failed write left part of itself"
        assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err, err


def test_a_bad_or_unreachable_namenode_is_one_line(tmp_path):
    """No traceback and no wait of minutes: a closed port is refused after hdfs-native's few
    retries (storage/hdfs.py: RETRY_DEFAULTS), a port that is no number at once."""
    for wh, says in (
        ("hdfs://127.0.0.1:1/wh", "cannot reach the HDFS NameNode at 127.0.0.1:1: "),
        ("hdfs://127.0.0.1:notaport/wh", "bad HDFS address '127.0.0.1:notaport': the port must be a number"),
    ):
        cmd = [sys.executable, "-m", "paimon_cli", "-w", wh, "tables"]  # a str: Path would eat a /
        proc = subprocess.run(cmd, env=cli_env(), capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1, (wh, proc.stderr)
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"error: {says}"), (wh, proc.stderr)


def test_webhdfs_reads_and_writes_the_same_tables(hdfs_cluster, tmp_path):
    name = f"wh-{uuid.uuid4().hex[:12]}"
    web, native = f"{hdfs_cluster.webhdfs_url}/{name}", f"{hdfs_cluster.url}/{name}"
    paimon(web, "create-table", "db.t", "--schema", PK, "-k", "id,dt", "--bucket", "1")
    paimon(web, "ingest", "db.t", write_jsonl(tmp_path / "w.jsonl", _events(range(10), "w")))
    paimon(web, "ingest", "db.t", write_jsonl(tmp_path / "u.jsonl", _events(range(5), "u")))
    want = keyed(_events(range(10), "w")) | keyed(_events(range(5), "u"))
    assert keyed(rows(web, "read", "db.t")) == want
    assert keyed(rows(native, "read", "db.t")) == want  # the same table through hdfs://


def test_the_readme_example(hdfs_cluster, tmp_path, monkeypatch):
    """The README's HDFS block as written (tests/cli/readme_story.py), its NameNode addresses
    and warehouse folder those of this session's cluster."""
    from tests.cli.readme_blocks import blocks
    from tests.cli.readme_story import Story

    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in blocks() if b.key == "HDFS"]
    s = Story(tmp_path, block)
    folder = f"/wh-{uuid.uuid4().hex[:12]}"
    s.subst = {  # the README's example NameNode is this session's, its folder this test's
        "namenode:8020/warehouse": f"127.0.0.1:{hdfs_cluster.rpc_port}{folder}",
        "namenode:9870/warehouse": f"127.0.0.1:{hdfs_cluster.http_port}{folder}",
    }
    write_jsonl(tmp_path / "events.jsonl", [{"id": i, "v": f"v{i}"} for i in range(5)])
    create, ingest, read, web = block.commands
    for cmd in (create, ingest):
        s.run(cmd)
    want = [{"id": i, "v": f"v{i}"} for i in range(5)]
    for cmd in (read, web):
        out = s.paimon("-o", "json", *s.argv(cmd)).stdout
        assert sorted((json.loads(x) for x in out.splitlines()), key=lambda r: r["id"]) == want, cmd.text


def test_the_catalogs_and_the_rest_server_on_an_hdfs_warehouse(hdfs_wh, tmp_path):
    """A JDBC catalog (SQLite here) registers tables whose files live on HDFS, and
    `paimon rest-server` serves an HDFS warehouse to a REST client."""
    from tests.rest_support import RestServer

    jdbc = ["--catalog", "jdbc", "--catalog-option", f"uri=sqlite:///{tmp_path}/catalog.db"]
    paimon(hdfs_wh, *jdbc, "create-table", "db.j", "--schema", PK, "-k", "id,dt", "--bucket", "1")
    paimon(hdfs_wh, *jdbc, "ingest", "db.j", write_jsonl(tmp_path / "j.jsonl", _events(range(6), "j")))
    assert keyed(rows(hdfs_wh, *jdbc, "read", "db.j")) == keyed(_events(range(6), "j"))
    assert _fs(hdfs_wh).exists(_on_hdfs(hdfs_wh, "/db.db/j/schema/schema-0"))

    server = RestServer(hdfs_wh, log_dir=tmp_path)
    try:
        rest = server.cli_flags()
        r = CliRunner().invoke(
            app, [*rest, "create-table", "db.r", "--schema", PK, "-k", "id,dt", "--bucket", "1"]
        )
        assert r.exit_code == 0, r.stderr
        src = write_jsonl(tmp_path / "r.jsonl", _events(range(4), "r"))
        r = CliRunner().invoke(app, [*rest, "ingest", "db.r", str(src)])
        assert r.exit_code == 0, r.stderr
        r = CliRunner().invoke(app, [*rest, "-o", "json", "read", "db.r"])
        assert r.exit_code == 0, r.stderr
        assert keyed([json.loads(x) for x in r.stdout.splitlines()]) == keyed(_events(range(4), "r"))
    finally:
        server.stop()
    assert keyed(rows(hdfs_wh, "read", "db.r")) == keyed(_events(range(4), "r"))  # the files on HDFS


def test_the_spark_engine_writes_through_hdfs(hdfs_wh, tmp_path):
    """`--engine spark` (local[2]): Spark's tasks write the data files to HDFS, the core commits."""
    paimon(hdfs_wh, "create-table", "db.s", "--schema", PK, "-k", "id,dt", "--bucket", "2")
    src = write_jsonl(tmp_path / "s.jsonl", _events(range(200), "s"))
    cmd = [
        sys.executable,
        "-m",
        "paimon_cli",
        "-w",
        hdfs_wh,
        "--engine",
        "spark",
        "--spark-master",
        "local[2]",
    ]
    proc = subprocess.run(
        [*cmd, "ingest", "db.s", str(src)], env=cli_env(), capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    assert keyed(rows(hdfs_wh, "read", "db.s")) == keyed(_events(range(200), "s"))


def test_a_hive_metastore_catalog_on_an_hdfs_warehouse(hive_ms, hdfs_wh, tmp_path):
    """The Hive catalog registers a table whose files live on HDFS (the metastore records the
    hdfs:// location); another process reads it through the same metastore."""
    hive = ["--catalog", "hive", "--catalog-option", f"uri={hive_ms.uri}"]
    db = f"h{uuid.uuid4().hex[:8]}"  # the metastore outlives this test's warehouse
    paimon(hdfs_wh, *hive, "create-table", f"{db}.t", "--schema", PK, "-k", "id,dt", "--bucket", "1")
    paimon(hdfs_wh, *hive, "ingest", f"{db}.t", write_jsonl(tmp_path / "h.jsonl", _events(range(7), "h")))
    assert keyed(rows(hdfs_wh, *hive, "read", f"{db}.t")) == keyed(_events(range(7), "h"))
    assert _fs(hdfs_wh).exists(_on_hdfs(hdfs_wh, f"/{db}.db/t/schema/schema-0"))


def test_hadoop_conf_dir_names_the_default_namenode_and_nameservices(hdfs_cluster, tmp_path):
    """``hdfs:///path`` takes ``fs.defaultFS`` from ``$HADOOP_CONF_DIR/core-site.xml``, and
    ``hdfs://ns1/path`` an HA nameservice from its ``hdfs-site.xml`` (one NameNode here), as Java
    clients read them; both reach the same tables as the NameNode's address."""
    conf = tmp_path / "hadoop-conf"
    conf.mkdir()

    def site(props: dict) -> str:
        body = "".join(f"<property><name>{k}</name><value>{v}</value></property>" for k, v in props.items())
        return f'<?xml version="1.0"?><configuration>{body}</configuration>'

    nn = f"127.0.0.1:{hdfs_cluster.rpc_port}"
    (conf / "core-site.xml").write_text(site({"fs.defaultFS": f"hdfs://{nn}"}))
    (conf / "hdfs-site.xml").write_text(
        site(
            {
                "dfs.nameservices": "ns1",
                "dfs.ha.namenodes.ns1": "nn1",
                "dfs.namenode.rpc-address.ns1.nn1": nn,
                "dfs.client.failover.proxy.provider.ns1": (
                    "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider"
                ),
            }
        )
    )
    folder = f"/wh-{uuid.uuid4().hex[:12]}"
    paimon(f"hdfs://{nn}{folder}", "create-table", "db.t", "--schema", PK, "-k", "id,dt", "--bucket", "1")
    paimon(
        f"hdfs://{nn}{folder}", "ingest", "db.t", write_jsonl(tmp_path / "c.jsonl", _events(range(3), "c"))
    )
    env = {**cli_env(), "HADOOP_CONF_DIR": str(conf)}
    for wh in (f"hdfs://{folder}", f"hdfs://ns1{folder}"):  # hdfs:///wh-..., hdfs://ns1/wh-...
        cmd = [sys.executable, "-m", "paimon_cli", "-w", wh, "-o", "json", "read", "db.t"]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (wh, proc.stderr)
        assert keyed([json.loads(x) for x in proc.stdout.splitlines()]) == keyed(_events(range(3), "c")), wh


_FORK_AFTER_HDFS = """
import os, sys
from typer.testing import CliRunner
from paimon_cli.app import app
r = CliRunner().invoke(app, ["-w", sys.argv[1], "-o", "json", "read", "db.f"])
assert r.exit_code == 0 and r.stdout.strip() == '{"id": 1}', (r.stdout, r.stderr)
pid = os.fork()
if pid == 0:
    os._exit(0)
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def test_a_forked_child_of_a_process_that_used_hdfs_ends(hdfs_wh, tmp_path):
    """A fork after HDFS work (multiprocessing's default start method on Linux) in a process of
    its own: the child ends (storage/hdfs.py keeps its hdfs-native clients out of fsspec's
    instance cache, which a child clears at the fork, dropping clients whose runtime threads it
    does not have)."""
    paimon(hdfs_wh, "create-table", "db.f", "--schema", "id BIGINT")
    paimon(hdfs_wh, "ingest", "db.f", write_jsonl(tmp_path / "f.jsonl", [{"id": 1}]))
    cmd = [sys.executable, "-c", _FORK_AFTER_HDFS, hdfs_wh]
    proc = subprocess.run(cmd, env=cli_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
