"""Every shell example of the README runs, block by block, as a user runs it (tests/cli/readme_story.py):
each block on a scratch folder prepared with the tables and files it names, each command checked
for exit 0 and, where the block says what comes out, for that. A new block fails
`test_every_block_has_a_run` until it gets one here (or in the lane that can run it:
`OTHER_HOMES`), so an example can never drift from the CLI.

Texts replaced before a command runs, each for a reason: the REST server's port (8181 may be
taken) and `/data/warehouse`, and the JDBC catalog's `/tmp/paimon.db` (a fixed path shared
with every other run on the machine), by the scratch folder's."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import pty
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.cli import readme_blocks
from tests.cli.readme_story import Story
from tests.cli.test_ingest_cdc import SCHEMA as CDC_SCHEMA
from tests.cli.test_ingest_cdc import STREAMS
from tests.infra import free_port
from tests.rest_support import self_signed_certificate

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = {b.key: b for b in readme_blocks.blocks()}
EVENTS = "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING"

# blocks run by a lane's own test, beside the engine they need
OTHER_HOMES = {
    "Spark: heavy work on a local or remote cluster": "tests/spark/test_spark_readme.py",
    "Reading our tables from other engines": "tests/lanes/test_clickhouse.py::test_the_readme_example",
    "HDFS": "tests/hdfs/test_hdfs_tables.py::test_the_readme_example",
}


def _ms(text: str) -> str:
    return str(int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.timezone.utc).timestamp() * 1000))


def _events(ids, day="2024-01-01", value=0.5) -> dict:
    ids = list(ids)
    return {
        "id": pa.array(ids, pa.int64()),
        "name": [f"n{i}" for i in ids],
        "value": [value] * len(ids),
        "dt": [day] * len(ids),
    }


def _jsonl(events) -> str:
    return "".join(json.dumps(e) + "\n" for e in events if e is not None) + (
        "null\n" if None in events else ""
    )


# --- the blocks ------------------------------------------------------------------------------


def quick_start(s: Story):
    """The demo runs as written; the test command is the one `.ci/run` runs, after the install
    the first line names."""
    s.run(s.block.commands[0])  # `paimon demo`, after the install
    assert (s.cwd / "warehouse").is_dir()
    ci = (ROOT / ".ci" / "run").read_text()
    install, tests = s.block.commands[0].text, s.block.commands[1].text
    assert "pip install -e '.[dev]'" in install and re.search(r"pip install (-q )?-e '\.\[dev\]'", ci)
    assert tests in ci, f".ci/run does not run the README's test command {tests!r}"


def using_it(s: Story):
    """The orders story at a clock of 2024-01-02 09:00 UTC, so that its --as-of follows the
    first snapshot; the data-evolution table it updates is made first."""
    s.env["PAIMON_CLOCK_MS"] = _ms("2024-01-02T09:00:00")

    def orders(day: str, ids: range) -> dict:
        return {
            "id": pa.array(list(ids), pa.int64()),
            "customer": [f"c{i}" for i in ids],
            "amount": pa.array([decimal.Decimal(i * 7) for i in ids], pa.decimal128(10, 2)),
            "ts": pa.array([dt.datetime(2024, 1, 1, 12) for _ in ids], pa.timestamp("us")),
            "dt": [day] * len(ids),
        }

    s.parquet("orders-2024-01-01.parquet", orders("2024-01-01", range(0, 20)))
    s.parquet("orders-2024-01-02.parquet", orders("2024-01-02", range(20, 40)))
    s.parquet("fix.parquet", orders("2024-01-02", range(40, 45)))
    s.create(
        "shop.docs",
        "id INT, title STRING",
        "-O",
        "row-tracking.enabled=true",
        "-O",
        "data-evolution.enabled=true",
    )
    s.paimon("ingest", s.file("docs.csv", "id,title\n1,old\n2,old\n"), "-t", "shop.docs")
    s.file("fixes.csv", "_ROW_ID,title\n0,new\n")
    s.env["PAIMON_WAREHOUSE"] = "./warehouse"
    for cmd in s.block.commands:
        if cmd.argv is not None:
            s.run(cmd)
    rows = [json.loads(x) for x in (s.cwd / "rows.jsonl").read_text().splitlines() if x.strip()]
    assert len(rows) == 25  # 20 of 2024-01-01, the 5 of the fix replacing 2024-01-02's 20
    docs = s.paimon("-o", "json", "read", "-t", "shop.docs").stdout
    assert sorted(json.loads(x)["title"] for x in docs.splitlines()) == ["new", "old"]


def using_it_2(s: Story):
    """CDC input into an aggregation table: bob's -U retracts the sum, his +U adds to it."""
    s.parquet(
        "changes.parquet",
        {
            "id": pa.array([1, 2, 2, 2], pa.int64()),
            "name": ["ann", "bob", "bob", "bob"],
            "points": pa.array([10, 5, 5, 7], pa.int64()),
            "op": ["+I", "+I", "-U", "+U"],
        },
    )
    for cmd in s.block.commands:
        s.run(cmd)
    rows = [json.loads(x) for x in s.paimon("-o", "json", "read", "-t", "shop.customers").stdout.splitlines()]
    assert sorted((r["id"], r["points"]) for r in rows) == [(1, 10), (2, 7)]


def compaction(s: Story):
    """Sort compactions of an append table of two partitions, two files each."""
    s.create(
        "shop.logs",
        "user_id BIGINT, ts TIMESTAMP(6), amount DOUBLE, lat DOUBLE, lon DOUBLE, dt STRING",
        "-p",
        "dt",
    )
    for day in ("2024-05-01", "2024-05-02"):
        for k in range(2):
            n = range(k * 50, k * 50 + 50)
            s.write(
                "shop.logs",
                {
                    "user_id": pa.array([(i * 37) % 11 for i in n], pa.int64()),
                    "ts": pa.array(
                        [dt.datetime(2024, 5, 1) + dt.timedelta(minutes=i) for i in n], pa.timestamp("us")
                    ),
                    "amount": [float((i * 13) % 7) for i in n],
                    "lat": [i / 10 for i in n],
                    "lon": [-i / 10 for i in n],
                    "dt": [day] * len(n),
                },
            )
    before = s.paimon("read", "-t", "shop.logs", "--count").stdout
    for cmd in s.block.commands:
        s.run(cmd)
    assert s.paimon("read", "-t", "shop.logs", "--count").stdout == before
    assert s.snapshots("shop.logs") == 4 + 3


def compaction_2(s: Story):
    """Diffs: shop.customers with an input changelog and 10 snapshots; shop.orders with a
    snapshot before 2024-05-01 and one after."""
    s.create("shop.customers", "id BIGINT NOT NULL, name STRING, points BIGINT", "-k", "id", "--bucket", "2",
             "-O", "changelog-producer=input")  # fmt: skip
    for i in range(10):
        s.write(
            "shop.customers",
            {"id": pa.array([i % 4], pa.int64()), "name": [f"c{i}"], "points": pa.array([i], pa.int64())},
        )
    s.create("shop.orders", "id BIGINT NOT NULL, amount DOUBLE", "-k", "id", "--bucket", "1")
    with _clock("2024-04-30T00:00:00"):
        s.write("shop.orders", {"id": pa.array([1, 2], pa.int64()), "amount": [1.0, 2.0]})
    with _clock("2024-05-02T00:00:00"):
        s.write("shop.orders", {"id": pa.array([2, 3], pa.int64()), "amount": [2.5, 3.0]})
    for cmd in s.block.commands:
        s.run(cmd)
    changes = pq.read_table(s.cwd / "changes.parquet").to_pylist()
    assert sorted((c["_row_kind"], c["id"]) for c in changes) == [("+I", 3), ("+U", 2), ("-U", 2)]


def rescale(s: Story):
    s.create(
        "shop.orders",
        "id BIGINT NOT NULL, amount DOUBLE, dt STRING",
        "-k",
        "id,dt",
        "-p",
        "dt",
        "--bucket",
        "4",
    )
    for day in ("2024-01-01", "2024-01-02"):
        s.write(
            "shop.orders", {"id": pa.array(range(40), pa.int64()), "amount": [1.0] * 40, "dt": [day] * 40}
        )
    for cmd in s.block.commands:
        s.run(cmd)
    assert s.paimon("read", "-t", "shop.orders", "--count").stdout.strip() == "80"
    files = [json.loads(x) for x in s.paimon("-o", "json", "files", "-t", "shop.orders").stdout.splitlines()]
    top = {
        p: max(f["bucket"] for f in files if f["partition"] == p) for p in ("dt=2024-01-01", "dt=2024-01-02")
    }
    assert top["dt=2024-01-01"] < 4 <= top["dt=2024-01-02"] < 8, top  # 4 buckets, and 8


def streaming(s: Story):
    """Streams stopped with Ctrl-C once they delivered; shop.customers has 50 snapshots for
    the --from 42 --until 50 example; the watched folder and the producer bring events."""
    s.create("shop.customers", "id BIGINT NOT NULL, name STRING, points BIGINT", "-k", "id", "--bucket", "2")
    for i in range(50):
        s.write(
            "shop.customers",
            {"id": pa.array([i], pa.int64()), "name": [f"c{i}"], "points": pa.array([i], pa.int64())},
        )
    s.create("demo.events", EVENTS, "-p", "dt")
    s.write("demo.events", _events(range(10)))
    pokes = iter(range(100, 1000))

    def commit() -> None:
        i = next(pokes)
        s.write(
            "shop.customers",
            {"id": pa.array([i], pa.int64()), "name": [f"c{i}"], "points": pa.array([i], pa.int64())},
        )

    out = s.until_stopped(s.command(("stream", "shop.customers")), lambda o: len(o.splitlines()) >= 50)
    assert json.loads(out.splitlines()[0])["_row_kind"] == "+I"
    s.until_stopped(
        s.command("paimon stream shop.customers --mode latest"), lambda o: o.strip() != "", poke=commit
    )
    out = s.run(s.command("paimon stream shop.customers --from 42")).stdout
    seen = {json.loads(x)["_snapshot"] for x in out.splitlines()}
    assert min(seen) == 42 and max(seen) == 50, seen  # COMPACT snapshots in between carry no rows
    s.until_stopped(
        s.command("paimon stream demo.events --out"), lambda o: any((s.cwd / "changes").glob("*.parquet"))
    )
    assert "audit" in s.run(s.command("paimon consumer list")).stdout
    s.parquet("landing/e1.parquet", _events(range(10, 15)))
    before = s.snapshots("demo.events")
    s.until_stopped(s.command("paimon ingest --watch"), lambda o: s.snapshots("demo.events") > before)
    producer = s.command("producer |")
    s.run(
        producer, input=_jsonl([{"id": i, "name": "p", "value": 1.0, "dt": "2024-01-03"} for i in range(3)])
    )
    assert s.paimon("read", "-t", "demo.events", "--count").stdout.strip() == "18"


def cdc(s: Story):
    """Each format's events (tests/cli/test_ingest_cdc.py) into shop.orders, keyed by id."""
    s.create("shop.orders", CDC_SCHEMA, "-k", "id", "--bucket", "1")
    s.file("canal-dump.jsonl", _jsonl(STREAMS["canal-json"]))
    s.file("maxwell/0001.jsonl", _jsonl(STREAMS["maxwell-json"]))
    ogg = [dict(e) for e in STREAMS["ogg-json"]]
    ogg[-2] = {**ogg[-2], "after": {**ogg[-2]["after"], "channel": "web"}}  # a new column
    s.file("ogg-trail.jsonl", _jsonl(ogg))
    s.run(s.command("kafka-console-consumer"), input=_jsonl(STREAMS["debezium-json"]))
    s.run(s.command("paimon ingest canal-dump.jsonl -t shop.orders"))
    before = s.snapshots("shop.orders")
    s.until_stopped(
        s.command("paimon ingest --watch maxwell/"), lambda o: s.snapshots("shop.orders") > before
    )
    s.run(s.command("paimon ingest ogg-trail.jsonl"))
    s.run(s.command("paimon ingest canal-dump.jsonl -t shop.new"))
    rows = [json.loads(x) for x in s.paimon("-o", "json", "read", "-t", "shop.orders").stdout.splitlines()]
    assert sorted((r["id"], r["name"], r.get("channel")) for r in rows) == [(1, "a2", None), (3, "c", "web")]
    assert s.paimon("read", "-t", "shop.new", "--count").stdout.strip() == "2"


def deletes(s: Story):
    s.create("shop.orders", "id BIGINT NOT NULL, amount DOUBLE, dt STRING", "-p", "dt")
    s.write(
        "shop.orders",
        {"id": pa.array(range(8), pa.int64()), "amount": [-1.0, 2.0] * 4, "dt": ["2024-01-02"] * 8},
    )
    for cmd in s.block.commands:
        s.run(cmd)
    ids = s.paimon("-o", "csv", "read", "-t", "shop.orders", "--select", "id").stdout.split()[1:]
    assert sorted(map(int, ids)) == [0, 1, 2, 4, 6, 7]


def iceberg(s: Story):
    """pyiceberg reads the metadata of the third commit of db.t, as the example says."""
    s.create("db.t", "id BIGINT, v STRING", "-O", "metadata.iceberg.storage=table-location")
    for k in range(3):
        s.write("db.t", {"id": pa.array([k], pa.int64()), "v": [f"v{k}"]})
    (cmd,) = s.block.commands
    argv = shlex.split(cmd.text)
    assert argv[0] == "python"
    r = subprocess.run([sys.executable, *argv[1:]], cwd=s.cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "v2" in r.stdout and "id" in r.stdout, r.stdout


def sql(s: Story):
    """demo.events with three snapshots before 2024-05-01 12:00, a branch `trial`, a staging
    table and a report script; the REPL line runs on a terminal (a pty)."""
    s.create("demo.events", EVENTS, "-p", "dt")
    s.create("demo.staging", EVENTS, "-p", "dt")
    with _clock("2024-05-01T08:00:00"):
        for k in range(3):
            s.write(
                "demo.events", _events(range(k * 4, k * 4 + 4), day=f"2024-01-0{k % 2 + 1}", value=k / 20)
            )
    s.write("demo.staging", _events(range(100, 103), day="2024-01-03"))
    s.paimon("branch", "create", "-t", "demo.events", "trial", "--snapshot", "1")
    s.file("report.sql", "SELECT count(*) AS n FROM demo.events;\nSELECT max(id) AS top FROM demo.events;\n")
    for cmd in s.block.commands:
        if cmd.piped_from and cmd.piped_from.startswith("echo "):
            r = s.run(cmd, input=shlex.split(cmd.piped_from)[1])
            assert "11" in r.stdout
        elif cmd.argv == ("sql",):
            assert "42" in _on_a_terminal(s, cmd, "SELECT 41 + 1 AS answer;\n")
        else:
            s.run(cmd)
    assert (s.cwd / "sample.csv").read_text().startswith("id,name,value,dt")


def lifecycle(s: Story):
    """demo.events of 8 snapshots, made 30 days ago, so `--older-than 7d --retain-min 5`
    expires 1 to 3 and the tag on 3 keeps its rows."""
    s.create("demo.events", EVENTS, "-p", "dt")
    with _clock((dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=30)).replace(tzinfo=None).isoformat()):
        for k in range(8):
            s.write("demo.events", _events(range(k * 2, k * 2 + 2)))
    for cmd in s.block.commands:
        r = s.run(cmd)
        if cmd.argv[:2] == ("read", "-t"):
            assert len(r.stdout.splitlines()) == 2 + 6  # header, rule, the 6 rows of snapshot 3
    assert s.table("demo.events").snapshots.earliest_id() == 4


def production(s: Story):
    s.create("demo.events", EVENTS, "-p", "dt", "-O", "partition.mark-done-action=success-file",
             "-O", "partition.expiration-time=30d", "-O", "partition.timestamp-formatter=yyyy-MM-dd")  # fmt: skip
    with _clock("2024-05-01T08:00:00"):
        for k in range(9):
            s.write("demo.events", _events(range(k, k + 1), day=f"2024-01-0{k % 3 + 1}"))
    for cmd in s.block.commands:
        s.run(cmd)
    tags = s.paimon("-o", "json", "tag", "list", "-t", "demo.events").stdout
    assert [json.loads(x)["tag"] for x in tags.splitlines()] == ["eod-2024-05-01"]


def table_health(s: Story):
    """The doctor of a two-bucket primary-key table after three commits: the screen names the
    table and its buckets, the JSON has the keys the jq line picks."""
    s.create("demo.orders", "id BIGINT NOT NULL, amount DOUBLE", "-k", "id", "--bucket", "2")
    for k in range(3):
        s.write("demo.orders", {"id": pa.array([k, k + 10], pa.int64()), "amount": [1.0, 2.0]})
    screen, as_json = s.block.commands
    out = s.run(screen).stdout
    assert "demo.orders" in out and "bucket 0" in out and "bucket 1" in out, out
    assert as_json.argv is not None and as_json.argv[:2] == ("-o", "json")
    (report,) = [json.loads(x) for x in s.run(as_json).stdout.splitlines()]
    assert {"level0_rows", "postpone_rows", "held_bytes", "orphan_bytes"} <= set(report), sorted(report)


def changelog_retention(s: Story):
    """60 commits after the create-table line (the table keeps 10 snapshots and 200 changelogs;
    compactions add snapshots between them), so changelog-42 exists for the stream, which is
    stopped once it printed the last commit's row."""
    create, *rest = s.block.commands
    s.run(create)
    for i in range(60):
        s.write(
            "shop.orders",
            {"id": pa.array([i], pa.int64()), "amount": pa.array([decimal.Decimal(i)], pa.decimal128(10, 2))},
        )
    for cmd in rest:
        if cmd.argv[0] == "stream":
            assert (s.cwd / "warehouse/shop.db/orders/changelog/changelog-42").exists()
            out = s.until_stopped(cmd, lambda o: '"id": 59' in o)
            ids = [json.loads(x)["id"] for x in out.splitlines()]
            assert ids == list(range(ids[0], 60)) and ids[0] > 20, ids  # from changelog-42 on
        else:
            s.run(cmd)


def branches(s: Story):
    s.create("demo.events", EVENTS, "-p", "dt")
    s.write("demo.events", _events(range(4)))
    s.paimon("branch", "create", "-t", "demo.events", "old")
    s.parquet("corrected.parquet", _events(range(100, 102)))
    for cmd in s.block.commands:
        r = s.run(cmd)
        if cmd.argv[:4] == ("read", "-t", "demo.events", "--branch"):
            assert len(r.stdout.splitlines()) == 2 + 6
    assert s.paimon("read", "-t", "demo.events", "--count").stdout.strip() == "6"  # main became the fix
    names = s.paimon("-o", "json", "branch", "list", "-t", "demo.events").stdout
    assert [json.loads(x)["branch"] for x in names.splitlines()] == ["new"]


def schema_evolution(s: Story):
    s.create(
        "demo.events",
        "id BIGINT NOT NULL, name STRING, value DECIMAL(10, 2), debug STRING, dt STRING",
        "-p",
        "dt",
    )
    s.paimon(
        "ingest", s.file("e.csv", "id,name,value,debug,dt\n1,a,1.50,x,2024-01-01\n"), "-t", "demo.events"
    )
    s.parquet("new-columns.parquet", {"id": pa.array([2], pa.int64()), "name": ["b"], "amount": [2.25],
                                      "dt": ["2024-01-01"], "device": ["phone"]})  # fmt: skip
    for cmd in s.block.commands:
        s.run(cmd)
    schema = s.paimon("-o", "json", "schema", "-t", "demo.events").stdout
    assert "device" in schema and "country" in schema and "debug" not in schema


def file_formats(s: Story):
    create, alter = s.block.commands
    s.run(create)
    s.paimon("ingest", s.file("a.csv", "id,payload\n1,x\n"), "-t", "shop.events")
    s.run(alter)
    s.paimon("ingest", s.file("b.csv", "id,payload\n2,y\n"), "-t", "shop.events")
    names = sorted(p.suffix for p in (s.cwd / "warehouse/shop.db/events").rglob("data-*"))
    assert names == [".avro", ".orc"]


def catalogs(s: Story):
    s.subst["/tmp/paimon.db"] = str(s.cwd / "paimon.db")
    s.create("shop.orders", "id BIGINT", "--bucket", "-1")
    for cmd in s.block.commands:
        s.run(cmd)
    assert "orders_2023" in s.paimon("tables", "shop").stdout


def views_and_functions(s: Story):
    s.subst["/tmp/paimon-objects.db"] = str(s.cwd / "objects.db")
    s.create("shop.orders", "id BIGINT, amount DOUBLE")
    out = [s.run(cmd).stdout for cmd in s.block.commands]
    assert "altered view shop.big_orders: set option owner=sales; added dialect spark" in out[1]
    assert "query: SELECT id, amount FROM shop.orders WHERE amount > 100" in out[2]
    assert "dialect spark: SELECT id, amount FROM shop.orders WHERE amount > 100" in out[2]
    assert "owner" in out[2] and "sales" in out[2]
    assert "altered function shop.plus_one: set the comment; added definition flink" in out[5]
    assert "plus_one" in out[6]
    assert (s.cwd / "objects.db").exists()


def rest_catalog(s: Story):
    """The server (until Ctrl-C) over the scratch warehouse, and blocks 2 and 3 against it."""
    port = str(free_port())
    s.subst.update({"8181": port, "/data/warehouse": str(s.cwd / "warehouse")})
    s.create("shop.orders", "id BIGINT")
    (serve,) = s.block.commands
    (tables,) = BLOCKS["REST catalog #3"].commands
    seen = []

    def listed(_: str) -> bool:
        try:
            socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
        except OSError:
            return False
        seen.append(s.run(tables).stdout)
        return True

    s.env["PAIMON_REST_TOKEN"] = "secret"
    s.until_stopped(serve, listed)
    assert "orders" in seen[0]


def rest_for_a_team(s: Story):
    """The team server (until Ctrl-C): HTTPS with a certificate made here, 4 workers, a token, the
    access log; its /healthz answers over TLS. Bound to 127.0.0.1 where the README says 0.0.0.0
    (the tests start servers on loopback only)."""
    import ssl
    import urllib.request

    port = str(free_port())
    cert, key = self_signed_certificate(s.cwd)
    s.subst.update(
        {
            "8181": port,
            "/data/warehouse": str(s.cwd / "warehouse"),
            "0.0.0.0": "127.0.0.1",
            "$PAIMON_REST_TOKEN": "secret",
            "/etc/paimon/cert.pem": str(cert),
            "/etc/paimon/key.pem": str(key),
        }
    )
    s.create("shop.orders", "id BIGINT")
    (serve,) = s.block.commands
    trusted = ssl.create_default_context(cafile=str(cert))

    def healthy(_: str) -> bool:
        try:
            with urllib.request.urlopen(f"https://127.0.0.1:{port}/healthz", timeout=2, context=trusted) as r:
                return r.status == 200
        except OSError:
            return False

    s.until_stopped(serve, healthy)


def rest_lane_commands(s: Story):
    """The REST lane's pytest lines name a marker and an option the suite has."""
    for cmd in s.block.commands:
        words = shlex.split(cmd.text, comments=True)
        assert words[:4] == [".venv/bin/python", "-m", "pytest", "tests/cli"]
        assert "rest_lane" in " ".join(s.config.getini("markers"))
        if "--rest-lane=full" in words:
            assert s.config.getoption("rest_lane") in ("subset", "full", None)


def lane_commands(s: Story):
    """The lanes' lines: a prepare module with a main, a `lanes` marker whose -k words name
    lane test files, and the test files they name."""
    import importlib

    markers = " ".join(s.config.getini("markers"))
    for cmd in s.block.commands:
        words = shlex.split(cmd.text, comments=True)
        if words[2] == "tests.lanes.prepare":
            assert callable(importlib.import_module("tests.lanes.prepare").main)
        elif "-m" in words[3:]:
            assert "lanes" in markers
            k = words[words.index("-k") + 1]
            assert list((ROOT / "tests/lanes").glob(f"test_*{k}*.py")), k
        else:
            assert (ROOT / words[-1]).is_file(), words[-1]


def benchmarks(s: Story):
    """Each benchmark line names a script that exists and the options it takes."""
    for cmd in s.block.commands:
        words = shlex.split(cmd.text, comments=True)
        script = ROOT / words[1]
        assert script.is_file(), words[1]
        for option in (w for w in words[2:] if w.startswith("--")):
            assert option in script.read_text(), f"{words[1]} has no {option}"


RUNS = {
    "Quick start": quick_start,
    "Using it": using_it,
    "Using it #2": using_it_2,
    "Compaction and changelogs": compaction,
    "Compaction and changelogs #2": compaction_2,
    "Rescale buckets": rescale,
    "Streaming": streaming,
    "CDC ingestion": cdc,
    "Deletion vectors and `paimon delete`": deletes,
    "Iceberg-compatible metadata": iceberg,
    "SQL": sql,
    "Snapshot lifecycle": lifecycle,
    "Production tables": production,
    "Table health": table_health,
    "Changelog retention": changelog_retention,
    "Branches": branches,
    "Schema evolution": schema_evolution,
    "File formats": file_formats,
    "Catalogs": catalogs,
    "Views and functions": views_and_functions,
    "REST catalog": rest_catalog,
    "REST catalog #2": rest_for_a_team,
    "REST catalog #3": None,  # run inside "REST catalog", while its server is up
    "REST catalog #4": rest_lane_commands,
    "Engines the tests prove": lane_commands,
    "Benchmarks": benchmarks,
}


class _clock:
    """PAIMON_CLOCK_MS set to ``when`` (UTC) for the commits inside the block."""

    def __init__(self, when: str):
        self.ms = _ms(when)

    def __enter__(self):
        self.old = os.environ.get("PAIMON_CLOCK_MS")
        os.environ["PAIMON_CLOCK_MS"] = self.ms

    def __exit__(self, *exc):
        if self.old is None:
            os.environ.pop("PAIMON_CLOCK_MS", None)
        else:
            os.environ["PAIMON_CLOCK_MS"] = self.old


def _on_a_terminal(s: Story, cmd, typed: str) -> str:
    """Run ``cmd`` with a pty as its terminal, type ``typed`` at its prompt, then Ctrl-D at the
    next one; its screen."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "paimon_cli", *s.argv(cmd)],
        cwd=s.cwd, env=s.process_env(), stdin=follower, stdout=follower, stderr=follower,
    )  # fmt: skip
    os.close(follower)
    screen = b""
    try:
        for keys in (typed.encode(), b"\x04"):
            prompts = screen.count(b"paimon> ")
            deadline = time.monotonic() + 60
            while screen.count(b"paimon> ") == prompts:
                assert time.monotonic() < deadline, screen.decode(errors="replace")
                screen += os.read(leader, 4096)
            os.write(leader, keys)
        assert proc.wait(timeout=30) == 0, screen.decode(errors="replace")
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            screen += chunk
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    return screen.decode(errors="replace")


def test_every_block_has_a_run():
    keys = set(BLOCKS)
    assert len(keys) >= 20
    missing = sorted(keys - set(RUNS) - set(OTHER_HOMES))
    assert not missing, f"README blocks no test runs (add them to RUNS): {missing}"
    stale = sorted((set(RUNS) | set(OTHER_HOMES)) - keys)
    assert not stale, f"runs of README blocks that are gone: {stale}"


def test_every_paimon_command_is_in_a_block():
    """The blocks hold every `paimon` command the --help check (test_readme_examples) parses."""
    text = (ROOT / "README.md").read_text()
    assert sum(1 for b in BLOCKS.values() for c in b.commands if c.argv is not None) == len(
        readme_blocks.paimon_commands(text)
    )
    assert len(re.findall(r"^```bash$", text, re.M)) == len(BLOCKS)


def test_no_command_hides_in_an_output_block():
    """A `$ paimon` line in a ```text (or other) block would go unrun: commands live in ```bash
    blocks, output in blocks of its own."""
    hidden, fence = [], None
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            fence = line[3:] if fence is None else None  # an opening fence names its language
        elif fence is not None and fence != "bash" and re.match(r"^\s*\$\s", line):
            hidden.append(line)
    assert not hidden, f"commands in a non-bash README block: {hidden}"


def test_the_docs_folder_has_no_shell_example_that_nothing_runs():
    """docs/ explains the format and the architecture without shell examples; a `paimon` command
    written there would go untested, so it belongs in the README (whose blocks all run)."""
    for doc in sorted((ROOT / "docs").glob("*.md")):
        text = doc.read_text()
        assert readme_blocks.paimon_commands(text) == [], (
            f"{doc.name}: move its paimon commands to the README"
        )
        assert not re.findall(r"^```(bash|sh|shell|console)$", text, re.M), f"{doc.name} has a shell block"


SLOW = {"Streaming"}  # five commands that run until stopped, one rolling its file after 10 s


@pytest.mark.parametrize(
    "key", [pytest.param(k, marks=[pytest.mark.slow] if k in SLOW else []) for k, run in RUNS.items() if run]
)
def test_readme_block_runs(key, tmp_path, monkeypatch, pytestconfig):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PAIMON_CLOCK_MS", raising=False)
    story = Story(tmp_path, BLOCKS[key])
    story.config = pytestconfig  # the lines that run pytest check its markers and options
    run = RUNS[key]
    assert run is not None
    run(story)
    unrun = [
        f"README.md:{c.line}: {c.text}"
        for c in story.block.commands
        if c.argv is not None and c.line not in story.ran
    ]
    assert not unrun, f"the run of {key!r} left out commands of its block: {unrun}"
