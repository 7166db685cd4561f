"""pypaimon 2.1.0's REST catalog client against ``paimon rest-server``: it lists, creates, writes,
reads, renames and drops tables through our server; our CLI and Java Paimon (0.9 and 1.4.2) read
what it wrote straight from the backing warehouse; 8 concurrent pypaimon writers committing
through the server lose and duplicate nothing."""

from __future__ import annotations

import threading

import pytest

from tests.cli.conftest import Cli
from tests.interop.harness._common import InteropError
from tests.interop.harness.canonical import assert_same_rows

SCHEMA = [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "name", "type": "STRING"},
    {"name": "dt", "type": "STRING"},
]
FIRST = [{"id": i, "name": f"n{i}", "dt": "2026-01-01" if i % 2 else "2026-01-02"} for i in range(1, 6)]
SECOND = [{"id": 6, "name": None, "dt": "2026-01-01"}, {"id": 2, "name": "two again", "dt": "2026-01-02"}]


@pytest.fixture(scope="session")  # once per run: the server is shared, and tests of java09/java14
def written(rest_server, pypaimon):  # may be ordered apart (a module fixture would be set up twice)
    """A partitioned primary-key table and an append table, created and written by pypaimon through
    the server (two commits each)."""
    rest = rest_server.rest_options()
    reqs = []
    for table, keys in (("rest_i.pk", ["id", "dt"]), ("rest_i.log", [])):
        reqs.append(
            {
                "op": "create_table",
                "rest": rest,
                "table": table,
                "schema": SCHEMA,
                "partition_keys": ["dt"],
                "primary_keys": keys,
                "options": {"bucket": "2"} if keys else {},
            }
        )
        reqs += [{"op": "write", "rest": rest, "table": table, "rows": rows} for rows in (FIRST, SECOND)]
    res = pypaimon.run(reqs)
    assert [r.get("snapshot") for r in res if "written" in r] == [1, 2, 1, 2]
    pk = {(r["id"], r["dt"]): r for r in FIRST + SECOND}
    return {"rest_i.pk": list(pk.values()), "rest_i.log": FIRST + SECOND}


def _plain(rows):
    return [{k: v for k, v in r.items() if k != "_row_kind"} for r in rows]


def test_pypaimon_lists_and_reads_back_through_the_server(written, rest_server, pypaimon):
    rest = rest_server.rest_options()
    res = pypaimon.run(
        [
            {"op": "list_databases", "rest": rest},
            {"op": "list_tables", "rest": rest, "database": "rest_i"},
            *({"op": "read", "rest": rest, "table": t} for t in sorted(written)),
        ]
    )
    assert "rest_i" in res[0]["databases"]
    assert res[1]["tables"] == ["log", "pk"]
    for r, table in zip(res[2:], sorted(written), strict=True):
        assert_same_rows(r["rows"], written[table])


def test_paimon_read_reads_what_pypaimon_wrote(written, rest_server):
    cli = Cli(rest_server.warehouse)
    for table, rows in written.items():
        assert_same_rows(_plain(cli.json("read", "-t", table)), rows)
    assert cli.snapshot_ids("rest_i.pk") == [1, 2]


def test_java_reads_what_pypaimon_wrote(written, rest_server, java):
    res = java.run(
        [{"op": "read", "warehouse": str(rest_server.warehouse), "table": t} for t in sorted(written)]
    )
    for r, table in zip(res, sorted(written), strict=True):
        assert_same_rows(r["rows"], written[table])


def test_pypaimon_renames_and_drops_through_the_server(rest_server, pypaimon):
    rest = rest_server.rest_options()
    wh = rest_server.warehouse
    pypaimon.run(
        [
            {"op": "create_table", "rest": rest, "table": "rest_ren.a", "schema": SCHEMA},
            {"op": "write", "rest": rest, "table": "rest_ren.a", "rows": FIRST},
            {"op": "rename_table", "rest": rest, "table": "rest_ren.a", "new_table": "rest_ren.b"},
        ]
    )
    assert not (wh / "rest_ren.db" / "a").exists()
    assert_same_rows(_plain(Cli(wh).json("read", "-t", "rest_ren.b")), FIRST)
    res = pypaimon.run(
        [
            {"op": "drop_table", "rest": rest, "table": "rest_ren.b"},
            {"op": "read", "rest": rest, "table": "rest_ren.b"},
        ],
        check=False,
    )
    assert "error" not in res[0] and "TableNotExist" in res[1]["error"]
    assert not (wh / "rest_ren.db" / "b").exists()


def test_eight_concurrent_writers_through_the_server_lose_nothing(rest_server, pypaimon):
    rest = rest_server.rest_options()
    pypaimon.run([{"op": "create_table", "rest": rest, "table": "rest_cc.t", "schema": SCHEMA}])
    batches = [[{"id": w * 100 + i, "name": f"w{w}", "dt": "d"} for i in range(5)] for w in range(8)]
    results: dict[int, object] = {}

    def writer(w: int) -> None:
        try:
            results[w] = pypaimon.run(
                [{"op": "write", "rest": rest, "table": "rest_cc.t", "rows": batches[w]}]
            )
        except Exception as e:  # noqa: BLE001 - reported below with the writer's number
            results[w] = e

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failed = {w: r for w, r in results.items() if isinstance(r, Exception)}
    assert not failed, failed
    expected = [row for b in batches for row in b]
    cli = Cli(rest_server.warehouse)
    assert_same_rows(_plain(cli.json("read", "-t", "rest_cc.t")), expected)
    assert cli.snapshot_ids("rest_cc.t") == list(range(1, 9))
    assert_same_rows(pypaimon.call("read", rest=rest, table="rest_cc.t")["rows"], expected)


def test_pypaimon_tags_branches_and_partitions_through_the_server(rest_server, pypaimon):
    """pypaimon's REST client creates, reads, lists (paged) and deletes tags, creates, lists,
    fast-forwards and drops branches, and lists partitions with their figures, all through the
    server; our CLI sees the same tags and branches on the backing warehouse."""
    rest = rest_server.rest_options()

    def call(method, *args, **kwargs):
        return {"op": "catalog", "rest": rest, "method": method, "args": list(args), "kwargs": kwargs}

    t = "rest_v.log"  # its own table: the others are read by tests that may run after this one
    res = pypaimon.run(
        [
            {
                "op": "create_table",
                "rest": rest,
                "table": t,
                "schema": SCHEMA,
                "partition_keys": ["dt"],
                "primary_keys": [],
                "options": {},
            },
            *({"op": "write", "rest": rest, "table": t, "rows": rows} for rows in (FIRST, SECOND)),
            call("create_tag", t, "t1", snapshot_id=1),
            call("create_tag", t, "t2", time_retained="1d"),
            call("get_tag", t, "t1"),
            call("list_tags_paged", t, max_results=1),
            call("list_tags_paged", t, max_results=1, page_token="t1"),
            call("create_branch", t, "b1", "t1"),
            call("list_branches", t),
            call("list_partitions_paged", t),
        ]
    )
    res = res[3:]
    assert res[2]["result"]["tag_name"] == "t1"
    assert res[3]["result"] == {"elements": ["t1"], "next_page_token": "t1"}
    assert res[4]["result"] == {"elements": ["t2"], "next_page_token": None}
    assert res[6]["result"] == ["b1"]
    parts = {p["spec"]["dt"]: p for p in res[7]["result"]["elements"]}
    assert sorted(parts) == ["2026-01-01", "2026-01-02"]
    assert sum(p["record_count"] for p in parts.values()) == len(FIRST + SECOND)
    with pytest.raises(InteropError, match="TagAlreadyExistException"):  # the server's 409 TAG
        pypaimon.run([call("create_tag", t, "t1")])

    cli = Cli(rest_server.warehouse)
    assert sorted(x["tag"] for x in cli.json("tag", "list", "-t", t)) == ["t1", "t2"]
    assert [b["branch"] for b in cli.json("branch", "list", "-t", t)] == ["b1"]
    b1 = cli.json("read", "-t", t, "--branch", "b1")
    assert_same_rows(_plain(b1), FIRST)

    pypaimon.run([call("fast_forward", t, "b1"), call("drop_branch", t, "b1")])
    assert_same_rows(_plain(cli.json("read", "-t", t)), FIRST)
    assert cli.json("branch", "list", "-t", t) == []
    # fast-forward dropped main's tags newer than the branch's start (t2), as Java's does
    assert [x["tag"] for x in cli.json("tag", "list", "-t", t)] == ["t1"]
    pypaimon.run([call("delete_tag", t, "t1")])
    assert cli.json("tag", "list", "-t", t) == []
