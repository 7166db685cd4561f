"""Java Paimon's own REST catalog client (``RESTCatalog``, metastore ``rest``, bearer token)
against ``paimon rest-server``, in 1.4.2 and 2.0.0: it creates a database and tables, writes,
commits, reads, alters, lists and drops through our server, and our CLI reads what it wrote from
the backing warehouse (and it reads what we wrote). Java's client is the one most REST users run.
"""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli
from tests.interop.harness.canonical import assert_same_rows

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "name", "type": "STRING"},
    {"name": "dt", "type": "STRING NOT NULL"},
]
FIRST = [{"id": i, "name": f"n{i}", "dt": "d1" if i % 2 else "d2"} for i in range(1, 6)]
SECOND = [{"id": 2, "name": "two again", "dt": "d2"}, {"id": 7, "name": None, "dt": "d1"}]


def _plain(rows):
    return [{k: v for k, v in r.items() if k != "_row_kind"} for r in rows]


@pytest.fixture(params=["1.4.2", "2.0.0"], ids=["java14", "java20"])
def java_rest(request, rest_server):
    """(Java driver of that release, request fields that open our server through RESTCatalog)."""
    driver = request.getfixturevalue("java14" if request.param == "1.4.2" else "java20")
    catalog = {
        "metastore": "rest",
        "uri": rest_server.uri,
        "token.provider": "bear",
        "token": rest_server.token,
    }
    return driver, {"warehouse": "paimon", "catalog": catalog}


def test_java_rest_client_writes_reads_alters_and_drops_through_our_server(java_rest, rest_server, tmp_path):
    java, via = java_rest
    db = f"jrest{java.version.replace('.', '')}"
    pk, log = f"{db}.pk", f"{db}.log"

    def req(op: str, **kw) -> dict:
        return {"op": op, **via, **kw}

    res = java.run(
        [
            req("catalog", action="create_database", database=db),
            req(
                "create_table",
                table=pk,
                schema=SCHEMA,
                partition_keys=["dt"],
                primary_keys=["id", "dt"],
                options={"bucket": "2"},
            ),
            req("create_table", table=log, schema=SCHEMA),
            req("write", table=pk, rows=FIRST),
            req("write", table=pk, rows=SECOND),
            req("write", table=log, rows=FIRST),
            req("catalog", action="list_tables", database=db),
            req("read", table=pk),
            req("snapshots", table=pk),
        ]
    )
    assert sorted(res[6]["tables"]) == ["log", "pk"]
    merged = list({(r["id"], r["dt"]): r for r in FIRST + SECOND}.values())
    assert_same_rows(res[7]["rows"], merged)
    assert [s["id"] for s in res[8]["snapshots"]] == [1, 2]

    cli = Cli(rest_server.warehouse)  # the backing warehouse: what Java committed through the server
    assert_same_rows(_plain(cli.json("read", "-t", pk)), merged)
    assert_same_rows(_plain(cli.json("read", "-t", log)), FIRST)
    ours = tmp_path / "ours.csv"
    ours.write_text("id,name,dt\n9,ours,d3\n")
    cli("ingest", str(ours), "-t", log)

    res = java.run(
        [
            req("read", table=log),
            req("alter", table=log, changes=[{"add_column": {"name": "note", "type": "STRING"}}]),
            req("write", table=log, rows=[{"id": 10, "name": "after", "dt": "d4", "note": "n"}]),
            req("read", table=log),
            req("catalog", action="drop_table", table=pk),
            req("catalog", action="table_exists", table=pk),
        ]
    )
    assert_same_rows(res[0]["rows"], FIRST + [{"id": 9, "name": "ours", "dt": "d3"}])
    with_note = [dict(r, note=None) for r in FIRST] + [
        {"id": 9, "name": "ours", "dt": "d3", "note": None},
        {"id": 10, "name": "after", "dt": "d4", "note": "n"},
    ]
    assert_same_rows(res[3]["rows"], with_note)
    assert res[5]["exists"] is False
    assert not (rest_server.warehouse / f"{db}.db" / "pk").exists()
    assert_same_rows(_plain(cli.json("read", "-t", log)), with_note)


def test_java_rest_client_rolls_back_through_our_server(java_rest, rest_server):
    """Java's ``FileStoreTable.rollbackTo`` on a table of its ``RESTCatalog`` goes to our server's
    rollback endpoint (to a snapshot, then to a tag); the backing warehouse shows the result."""
    java, via = java_rest
    db = f"jrb{java.version.replace('.', '')}"
    t = f"{db}.t"

    def req(op: str, **kw) -> dict:
        return {"op": op, **via, **kw}

    rows = [[{"id": i, "name": f"n{i}", "dt": "d"}] for i in range(4)]
    java.run(
        [
            req("catalog", action="create_database", database=db),
            req("create_table", table=t, schema=SCHEMA),
            *(req("write", table=t, rows=r) for r in rows),
            req("create_tag", table=t, tag="two", tag_snapshot=2),
        ]
    )
    before = len(rest_server.requests())
    res = java.run([req("rollback", table=t, to_snapshot=3), req("read", table=t)])
    assert "POST /v1/paimon/databases/" + db + "/tables/t/rollback 200" in rest_server.requests()[before:]
    assert sorted(r["id"] for r in res[1]["rows"]) == [0, 1, 2]
    java.run([req("rollback", table=t, to_tag="two")])
    cli = Cli(rest_server.warehouse)
    assert cli.snapshot_ids(t) == [1, 2]
    assert sorted(r["id"] for r in cli.json("read", "-t", t)) == [0, 1]
