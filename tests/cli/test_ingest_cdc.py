"""Change events from capture tools (`ingest --format debezium-json|canal-json|maxwell-json|ogg-json`)
from files, stdin and --watch: inserts, snapshot reads, updates with before images, deletes,
DDL and transaction records skipped, each stream's table equal to a model; a restarted stdin
producer that sends a batch again does not duplicate it; a malformed event names file and line
and commits nothing of its batch. The events follow each tool's published JSON layout."""

from __future__ import annotations

import base64
import json

import pytest

from paimon_cli.app import app

SCHEMA = "id INT NOT NULL, name STRING, price DECIMAL(10, 2), d DATE, ts TIMESTAMP(3)"


def _debezium(op, before=None, after=None, envelope=False):
    payload = {"before": before, "after": after, "op": op, "ts_ms": 1700000000000, "source": {"db": "shop"}}
    if not envelope:
        return payload
    fields = [
        {"field": "id", "type": "int32", "optional": False},
        {"field": "name", "type": "string", "optional": True},
        {
            "field": "price",
            "type": "bytes",
            "name": "org.apache.kafka.connect.data.Decimal",
            "parameters": {"scale": "2", "connect.decimal.precision": "10"},
        },
        {"field": "d", "type": "int32", "name": "io.debezium.time.Date"},
        {"field": "ts", "type": "int64", "name": "io.debezium.time.Timestamp"},
    ]
    schema = {
        "type": "struct",
        "fields": [{"field": "before", "fields": fields}, {"field": "after", "fields": fields}],
    }
    return {"schema": schema, "payload": payload}


def _dbz_row(id, name, cents, days, millis):
    return {
        "id": id,
        "name": name,
        "price": base64.b64encode(cents.to_bytes(4, "big", signed=True)).decode(),
        "d": days,
        "ts": millis,
    }


def _row(id, name, price, d="2024-01-02", ts="2024-01-01T00:00:00.123"):
    return {"id": id, "name": name, "price": price, "d": d, "ts": ts}


A1, A2, B1 = _row(1, "a", "1.50"), _row(1, "a2", "1.75"), _row(2, "b", "-2.00", None, None)
C1 = _row(3, "c", "3.00")

STREAMS = {
    "debezium-json": [
        _debezium("r", after=B1),
        _debezium("c", after=A1),
        _debezium("u", before=A1, after=A2),
        {"source": {"db": "shop"}, "ddl": "ALTER TABLE t ADD COLUMN x INT"},  # schema change: skipped
        _debezium("c", after=C1),
        _debezium("d", before=B1),
        None,  # tombstone
    ],
    "canal-json": [
        {
            "data": [B1, A1],
            "old": None,
            "type": "INSERT",
            "pkNames": ["id"],
            "isDdl": False,
            "database": "shop",
        },
        {
            "data": [A2],
            "old": [{"name": "a", "price": "1.50"}],
            "type": "UPDATE",
            "pkNames": ["id"],
            "isDdl": False,
        },
        {"data": None, "type": "ALTER", "isDdl": True, "sql": "ALTER TABLE t ADD x INT"},
        {"data": [C1], "type": "INSERT", "pkNames": ["id"], "isDdl": False},
        {"data": [B1], "type": "DELETE", "pkNames": ["id"], "isDdl": False},
    ],
    "maxwell-json": [
        {"database": "shop", "table": "t", "type": "bootstrap-start", "data": {}},
        {
            "database": "shop",
            "table": "t",
            "type": "bootstrap-insert",
            "data": B1,
            "primary_key_columns": ["id"],
        },
        {"database": "shop", "table": "t", "type": "bootstrap-complete", "data": {}},
        {
            "database": "shop",
            "table": "t",
            "type": "insert",
            "data": A1,
            "primary_key_columns": ["id"],
            "xid": 1,
        },
        {"type": "update", "data": A2, "old": {"name": "a", "price": "1.50"}, "primary_key_columns": ["id"]},
        {"type": "table-alter", "database": "shop", "table": "t", "old": {}, "def": {}},
        {"type": "insert", "data": C1, "primary_key_columns": ["id"], "commit": True},
        {"type": "delete", "data": B1, "primary_key_columns": ["id"]},
    ],
    "ogg-json": [
        {"table": "SHOP.T", "op_type": "I", "after": B1, "primary_keys": ["id"], "pos": "1"},
        {"table": "SHOP.T", "op_type": "I", "after": A1, "primary_keys": ["id"], "pos": "2"},
        {"table": "SHOP.T", "op_type": "U", "before": A1, "after": A2, "primary_keys": ["id"], "pos": "3"},
        {"table": "SHOP.T", "op_type": "I", "after": C1, "primary_keys": ["id"], "pos": "4"},
        {"table": "SHOP.T", "op_type": "D", "before": B1, "primary_keys": ["id"], "pos": "5"},
    ],
}
EXPECTED = [
    {**A2, "ts": "2024-01-01T00:00:00.123000"},
    {**C1, "ts": "2024-01-01T00:00:00.123000"},
]


def _write(path, events) -> None:
    with open(path, "w") as fh:
        fh.writelines(json.dumps(e) + "\n" for e in events)


def _stdin(cli, text: str, *args: str, code: int = 0):
    r = cli.runner.invoke(app, ["-w", str(cli.wh), "ingest", "-", *args], input=text)
    assert r.exit_code == code, r.stderr
    return r


@pytest.mark.parametrize("fmt", list(STREAMS))
def test_a_file_of_events_applies_in_order(cli, fmt):
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    _write("events.jsonl", STREAMS[fmt])
    cli("ingest", "-t", "s.t", "events.jsonl", "--format", fmt)
    assert cli.json("read", "-t", "s.t") == EXPECTED
    kinds = [
        r["_row_kind"] for r in cli.json("diff", "-t", "s.t", "--from", "0", "--to", "1", "--mode", "delta")
    ]
    assert sorted(kinds) == ["+I", "+U", "-D"]  # each key's last change in the batch: C1, A2, B1


@pytest.mark.parametrize("fmt", list(STREAMS))
def test_stdin_events_commit_per_batch(cli, fmt):
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    text = "".join(json.dumps(e) + "\n" for e in STREAMS[fmt])
    _stdin(cli, text, "-t", "s.t", "--format", fmt, "--commit-rows", "2")
    assert cli.json("read", "-t", "s.t") == EXPECTED


def test_debezium_envelope_types_decode_its_encodings(cli):
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    a = _dbz_row(1, "a", 150, 19724, 1704067200123)  # 2024-01-02, 2024-01-01T00:00:00.123
    b = _dbz_row(1, "a2", -175, 19724, 1704067200123)
    _write("e.jsonl", [_debezium("c", after=a, envelope=True), _debezium("u", a, b, envelope=True)])
    cli("ingest", "-t", "s.t", "e.jsonl", "--format", "debezium-json")
    assert cli.json("read", "-t", "s.t") == [
        {"id": 1, "name": "a2", "price": "-1.75", "d": "2024-01-02", "ts": "2024-01-01T00:00:00.123000"}
    ]


def test_a_restart_with_the_same_commit_user_skips_what_was_committed(cli):
    """Exactly once across restarts: a producer (a Kafka consumer) restarted from an older offset
    sends committed events again; `ingest -` with the same --commit-user skips them through the
    last line the earlier run committed (its SHA-1 is in the snapshot), on any merge engine."""
    cli(
        "create-table",
        "s.t",
        "--schema",
        "id INT NOT NULL, n INT",
        "-k",
        "id",
        "-O",
        "merge-engine=aggregation",
    )
    cli("alter-table", "-t", "s.t", "set-option", "fields.n.aggregate-function=sum")
    events = [json.dumps(_debezium("c", after={"id": 1, "n": 10**i})) + "\n" for i in range(5)]
    args = ("-t", "s.t", "--format", "debezium-json", "--commit-rows", "1", "--commit-user", "feed-1")
    _stdin(cli, "".join(events[:3]), *args)
    assert cli.json("read", "-t", "s.t") == [{"id": 1, "n": 111}]
    _stdin(cli, "".join(events[1:]), *args)  # replayed from event 2: 2 and 3 were committed
    assert cli.json("read", "-t", "s.t") == [{"id": 1, "n": 11111}]
    _stdin(cli, events[4], *args)  # nothing new at all: the last line was committed already
    _stdin(cli, json.dumps(_debezium("c", after={"id": 2, "n": 7})) + "\n", *args)  # resumed after it
    assert cli.json("read", "-t", "s.t") == [{"id": 1, "n": 11111}, {"id": 2, "n": 7}]
    _stdin(cli, "".join(events[:1]), "-t", "s.t", "--format", "debezium-json", "--commit-user", "other")
    assert cli.json("read", "-t", "s.t")[0] == {"id": 1, "n": 11112}  # another user: all new


@pytest.mark.parametrize("fmt", list(STREAMS))
def test_a_replay_after_a_restart_leaves_the_same_table(cli, fmt):
    """A producer restarted after a crash sends again events that were committed (at-least-once
    delivery): on a primary-key table whose merge keeps the last change (deduplicate) the replayed
    tail leaves exactly the rows of one delivery, as Paimon's CDC ingestion relies on."""
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    events = [json.dumps(e) + "\n" for e in STREAMS[fmt]]
    _stdin(cli, "".join(events[:3]), "-t", "s.t", "--format", fmt, "--commit-rows", "1")
    _stdin(cli, "".join(events[1:]), "-t", "s.t", "--format", fmt, "--commit-rows", "1")  # from event 2 again
    assert cli.json("read", "-t", "s.t") == EXPECTED


@pytest.mark.parametrize(
    "fmt, event, message",
    [
        ("debezium-json", {"after": {"id": 1}}, "not a debezium-json event: no 'op'"),
        ("debezium-json", {"op": "u", "after": {"id": 1}}, "'op' 'u' without 'before'"),
        ("debezium-json", {"op": "t"}, "a truncate ('op': 't') is not a row change"),
        ("debezium-json", {"op": "x", "after": {"id": 1}}, "unknown 'op' 'x'"),
        # Canal marks a TRUNCATE isDdl: it must not be skipped with the DDL
        (
            "canal-json",
            {"type": "TRUNCATE", "isDdl": True, "sql": "TRUNCATE t"},
            "a TRUNCATE is not a row change",
        ),
        ("canal-json", {"type": "INSERT", "data": {"id": 1}}, "'data' is not a list of rows"),
        (
            "canal-json",
            {"type": "UPDATE", "data": [{"id": 1}], "old": [{}, {}]},
            "'old' does not match 'data'",
        ),
        (
            "canal-json",
            {"type": "INSERT", "data": [{"id": 1}], "pkNames": ["name"]},
            "its primary key (name) differs from earlier events' (id)",
        ),
        ("maxwell-json", {"type": "insert"}, "'data' is missing"),
        ("maxwell-json", {"type": "upsert", "data": {"id": 1}}, "unknown 'type' 'upsert'"),
        ("ogg-json", {"op_type": "U", "after": {"id": 1}}, "'before' is missing"),
        ("ogg-json", [1], "not a ogg-json event (a JSON object)"),
        ("ogg-json", "{", "not valid JSON"),
        ("canal-json", {"type": "INSERT", "data": [{"id": "x"}]}, "column 'id' has 'x', not a valid INT"),
    ],
)
def test_a_bad_event_names_file_and_line_and_commits_nothing(cli, fmt, event, message):
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    good = STREAMS[fmt][1] if fmt != "maxwell-json" else STREAMS[fmt][3]
    with open("bad.jsonl", "w") as fh:
        fh.write(json.dumps(good) + "\n")
        fh.write((event if isinstance(event, str) else json.dumps(event)) + "\n")
    r = cli("ingest", "-t", "s.t", "bad.jsonl", "--format", fmt, code=1)
    assert r.stderr.startswith("error: bad.jsonl") and message in r.stderr, r.stderr
    assert "line 2" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    assert cli.snapshot_ids("s.t") == []


def test_change_formats_refuse_what_does_not_fit(cli, tmp_path):
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    _write("e.jsonl", STREAMS["ogg-json"])
    r = cli("ingest", "-t", "s.t", "e.jsonl", "--format", "ogg-json", "--row-kind-column", "op", code=1)
    assert "a row kind column does not go with ogg-json" in r.stderr
    (tmp_path / "e.csv").write_text("id\n1\n")
    r = cli("ingest", "-t", "s.t", "e.csv", "--format", "ogg-json", code=1)
    assert "e.csv: ogg-json events are JSON lines" in r.stderr
    r = cli("ingest", "-t", "s.t", "e.jsonl", "--format", "avro-cdc", code=1)
    assert "unknown input format 'avro-cdc'" in r.stderr


def test_watched_files_of_events(cli, wh, tmp_path):
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.ops.streaming import watch_dir

    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    (tmp_path / "landing").mkdir()
    _write(tmp_path / "landing" / "001.jsonl", STREAMS["ogg-json"][:3])
    _write(tmp_path / "landing" / "002.jsonl", STREAMS["ogg-json"][3:])
    done: list = []
    table = FileSystemCatalog(str(wh)).get_table("s.t")
    watch_dir(
        table,
        str(tmp_path / "landing"),
        "*.jsonl",
        poll_s=0.05,
        settle_s=0,
        stop=lambda: len(done) == 2,
        on_commit=lambda result, group: done.append(group),
        input_format="ogg-json",
    )
    assert done == [["001.jsonl"], ["002.jsonl"]]
    assert cli.json("read", "-t", "s.t") == EXPECTED


def test_events_of_another_primary_key_are_refused(cli):
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id,name")
    _write("e.jsonl", STREAMS["maxwell-json"])
    r = cli("ingest", "-t", "s.t", "e.jsonl", "--format", "maxwell-json", code=1)
    assert r.stderr == "error: e.jsonl: the events' primary key (id) is not the table's (id, name)\n"


def test_create_takes_the_table_from_the_events(cli):
    mysql = {
        "id": "int(11)",
        "name": "varchar(20)",
        "price": "decimal(10,2)",
        "d": "date",
        "ts": "datetime(3)",
    }
    events = [dict(e, mysqlType=mysql) for e in STREAMS["canal-json"]]
    _write("c.jsonl", events)
    r = cli("ingest", "-t", "s.c", "c.jsonl", "--format", "canal-json", "--create")
    assert (
        "note: created s.c from the events of c.jsonl: `id` INT NOT NULL, `name` STRING, `price` DECIMAL(10, 2), "
        in r.stderr
    )
    assert cli.json("read", "-t", "s.c") == EXPECTED
    a = _dbz_row(1, "a", 150, 19724, 1704067200123)
    _write("d.jsonl", [_debezium("c", after=a, envelope=True)])
    r = cli("ingest", "-t", "s.d", "d.jsonl", "--format", "debezium-json", "--create", code=1)
    assert r.stderr == "error: d.jsonl: the events name no primary key: give --primary-key with --create\n"
    cli("ingest", "-t", "s.d", "d.jsonl", "--format", "debezium-json", "--create", "-k", "id")
    schema = {f["name"]: f["type"] for f in cli.json("schema", "-t", "s.d")[0]["fields"]}
    assert schema == {
        "id": "INT NOT NULL",
        "name": "STRING",
        "price": "DECIMAL(10, 2)",
        "d": "DATE",
        "ts": "TIMESTAMP(3)",
    }
    assert cli.json("read", "-t", "s.d") == [EXPECTED[0] | {"name": "a", "price": "1.50"}]


@pytest.mark.parametrize(
    "ignore, kind",
    [(None, "-D"), (None, "-U"), ("first-row.ignore-delete", "-D"), ("ignore-delete", "-U")],
    ids=["-D refused", "-U refused", "first-row.ignore-delete", "ignore-delete"],
)
def test_first_row_tables_refuse_retractions_unless_ignore_delete(cli, tmp_path, ignore, kind):
    """Java's first-row merge refuses -U/-D input unless first-row.ignore-delete (or its alias
    ignore-delete): never a silent drop with exit 0. Refused: nothing committed, one line."""
    opts = ["-O", "merge-engine=first-row"] + (["-O", f"{ignore}=true"] if ignore else [])
    cli(
        "create-table",
        "shop.first",
        "--schema",
        "id INT NOT NULL, v STRING",
        "-k",
        "id",
        "-O",
        "bucket=1",
        *opts,
    )
    first = tmp_path / "first.jsonl"
    first.write_text('{"id": 1, "v": "a", "op": "+I"}\n')
    cli("ingest", str(first), "-t", "shop.first", "--row-kind-column", "op")
    before = cli.snapshot_ids("shop.first")
    cdc = tmp_path / "cdc.jsonl"
    cdc.write_text(f'{{"id": 1, "v": "a", "op": "{kind}"}}\n{{"id": 2, "v": "b", "op": "+I"}}\n')
    args = ("ingest", str(cdc), "-t", "shop.first", "--row-kind-column", "op")
    if ignore:
        cli(*args)
        assert sorted(r["id"] for r in cli.json("read", "-t", "shop.first")) == [1, 2]
        return
    r = cli(*args, code=1)
    assert r.stderr.strip().splitlines() == [
        "error: a first-row table takes no -U/-D rows (the first insert of a key stays): "
        "set first-row.ignore-delete=true to drop them"
    ]
    assert cli.snapshot_ids("shop.first") == before
    assert cli.json("read", "-t", "shop.first") == [{"id": 1, "v": "a"}]


@pytest.mark.parametrize("stdin", [False, True])
def test_events_that_are_all_ddl_write_nothing_and_say_so(cli, stdin):
    """A Canal batch of DDL events only: no row changes, nothing committed, exit 0."""
    cli("create-table", "s.t", "--schema", SCHEMA, "-k", "id")
    ddl = {"type": "ALTER", "isDdl": True, "sql": "ALTER TABLE t ADD c INT", "data": None, "pkNames": None}
    text = json.dumps(ddl) + "\n" + json.dumps({**ddl, "type": "CREATE"}) + "\n"
    if stdin:
        _stdin(cli, text, "-t", "s.t", "--format", "canal-json")
    else:
        with open("ddl.jsonl", "w") as fh:
            fh.write(text)
        r = cli("ingest", "-t", "s.t", "ddl.jsonl", "--format", "canal-json")
        assert "nothing to commit for s.t (no rows)" in r.stdout + r.stderr
        assert "written as NULL" not in r.stdout + r.stderr
    assert cli.snapshot_ids("s.t") == []
