"""Java Paimon's ``RESTCatalog`` (2.0.0 and 1.4.2, built by ``CatalogFactory.createCatalog`` with
``metastore=rest``, ``uri``, ``token``, ``warehouse``) through every operation of its ``Catalog`` API
against one ``paimon rest-server`` on 127.0.0.1 over a JDBC (SQLite) catalog, which stores views
and functions. Each release runs one batch (``catalog_calls`` scripts, writes and reads) in one
JVM, and each answer is checked; the server's access log shows which endpoint each call reached.

Java's ``CachingCatalog``, which ``createCatalog`` wraps around ``RESTCatalog`` by default, does not
forward five methods in either release (consumers and the function listings): those calls go to
the ``RESTCatalog`` inside (``"root": true``), and the test pins what the wrapper answers.
Where the releases differ, the test says so by version: 1.4.2's API has no
``listPartitionsByFilterPaged`` (2.0) and its ``createPartitions`` is a no-op that sends nothing;
2.0.0's ``renameBranch`` throws ``UnsupportedOperationException`` without a request (the endpoint was
removed from Java's client, apache/paimon#8023); and 2.0.0's ``createPartitions`` on a table whose
partitions the metastore does not manage gets the server's 501, which Java raises as
``NotImplementedException`` (it catches 501 only for ``markDonePartitions``). ``replaceTable``
(``POST .../replace``, outside the spec) is 2.0.0's only: 1.4.2's ``Catalog`` has no such method.
"""

from __future__ import annotations

import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.metadata.schema import Schema
from tests.interop.harness.canonical import assert_same_rows
from tests.rest_support import RestServer

pytestmark = [pytest.mark.interop, pytest.mark.slow]

ROWS = [{"id": i, "name": f"n{i}", "dt": "d1" if i % 2 else "d2"} for i in range(1, 5)]
MORE = [{"id": 9, "name": "nine", "dt": "d1"}]
PK_FIELDS = [
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "name", "type": "STRING"},
    {"name": "dt", "type": "STRING NOT NULL"},
]
VIEW = {
    "fields": [{"name": "a", "type": "INT"}, {"name": "b", "type": "STRING"}],
    "query": "SELECT 1 AS a, 'x' AS b",
    "dialects": {"spark": "SELECT 1 AS a, 'x' AS b"},
    "comment": "a view",
    "options": {"k": "v"},
}
FUNCTION = {
    "input": [{"name": "x", "type": "INT"}],
    "returns": [{"name": "r", "type": "INT"}],
    "deterministic": True,
    "definitions": {"spark": {"type": "sql", "definition": "x + 1"}},
    "comment": "adds one",
    "options": {"k": "v"},
}


# replaceTable's new schema (2.0): a column more, the same partition key
REPLACED = [{"name": n, "type": t} for n, t in (("id", "BIGINT"), ("email", "STRING"), ("dt", "STRING"))]
RETAINED = {"snapshot.num-retained.max": "50"}

# Java puts a view's audit fields among its options (defaults when the optional fields are absent,
# as this server sends none: owner None, createdAt "0", createdBy "null")
AUDIT = {"owner", "createdAt", "createdBy", "updatedAt", "updatedBy"}


def _own(options: dict) -> dict:
    return {k: v for k, v in options.items() if k not in AUDIT}


@pytest.fixture(scope="module")
def jdbc_rest(tmp_path_factory):
    """``paimon rest-server`` over a JDBC catalog in a SQLite file (views and functions stored)."""
    root = tmp_path_factory.mktemp("rest-java-ops")
    env = {"PAIMON_CATALOG": "jdbc", "PAIMON_CATALOG_URI": f"sqlite:///{root / 'catalog.db'}"}
    server = RestServer(root / "warehouse", env=env)
    yield server
    server.stop()


@pytest.fixture(params=["2.0.0", "1.4.2"], ids=["java20", "java14"])
def java_rest(request):
    return request.getfixturevalue("java20" if request.param == "2.0.0" else "java14")


def _script(db: str, other: str, via: dict, token_via: dict) -> list[dict]:
    """The batch: catalog calls on databases and tables, writes and reads (one with data tokens),
    then snapshots, versions, consumers, partitions, views and functions."""

    def calls(*cs: dict, through: dict = via) -> dict:
        return {"op": "catalog_calls", **through, "calls": list(cs)}

    def c(call: str, **kw) -> dict:
        return {"call": call, **kw}

    pk, log = f"{db}.pk", f"{db}.log"
    setup = calls(
        c("createDatabase", database=db, properties={"k1": "v1"}),
        c("createDatabase", database=other),
        c("createDatabase", database=db),
        c("getDatabase", database=db),
        c("listDatabasesPaged", pattern=f"{db}%", max=1),
        c("listDatabasesPaged", pattern=f"{db}%", max=1, token=db),
        c("alterDatabase", database=db, set={"k2": "v2"}, remove=["k1"]),
        c("getDatabase", database=db),
        c("createTable", table=pk, fields=PK_FIELDS, partition_keys=["dt"], primary_keys=["id", "dt"],
          options={"bucket": "1"}),
        c("createTable", table=log, fields=PK_FIELDS[:2]),
        c("createTable", table=f"{db}.ren", fields=[{"name": "id", "type": "INT"}]),
        c("createTable", table=f"{other}.t", fields=[{"name": "id", "type": "INT"}]),
        c("createTable", table=pk, fields=PK_FIELDS),
        c("getTable", table=pk),
        c("getTableById", id_of=pk),
        c("listTablesPaged", database=db, max=2),
        c("listTablesPaged", database=db, max=2, token="pk"),
        c("listTablesPaged", database=db, pattern="l%"),
        c("listTableDetailsPaged", database=db),
        c("listTablesPagedGlobally", database_pattern=f"{db}%"),
        c("renameTable", **{"from": f"{db}.ren", "to": f"{db}.renamed"}),
        c("getTable", table=f"{db}.ren"),
        c("alterTable", table=log, changes=[{"action": "setOption", "key": "snapshot.num-retained.max", "value": "50"}]),
        c("getTable", table=log),
        c("rollbackSchema", table=log, schema_id=0),
        c("invalidateTable", table=log),  # Java's CachingCatalog keeps the table across rollbackSchema
        c("getTable", table=log),
        c("registerTable", table=f"{db}.reg", path="REG"),
        c("getTable", table=f"{db}.reg"),
        c("dropTable", table=f"{db}.renamed"),
        c("listTablesPaged", database=db),
    )  # fmt: skip
    versions = calls(
        c("loadSnapshot", table=pk),
        c("loadSnapshotVersion", table=pk, version="1"),
        c("listSnapshotsPaged", table=pk, max=1),
        c("listSnapshotsPaged", table=pk, max=1, token="1"),
        c("createTag", table=pk, tag="t1", snapshot=1),
        c("createTag", table=pk, tag="t2", retained="1d"),
        c("createTag", table=pk, tag="t1", snapshot=2),
        c("getTag", table=pk, tag="t2"),
        c("listTagsPaged", table=pk),
        c("listTagsPaged", table=pk, prefix="t2"),
        c("deleteTag", table=pk, tag="t2"),
        c("listTagsPaged", table=pk),
        c("createBranch", table=pk, branch="b1", from_tag="t1"),
        c("createBranch", table=pk, branch="b2"),
        c("renameBranch", table=pk, branch="b2", to="b3"),
        c("listBranches", table=pk),
        c("rollbackTo", table=pk, snapshot=1, from_snapshot=2),
        c("loadSnapshot", table=pk),
        c("rollbackTo", table=pk, tag="t1"),
        c("fastForward", table=pk, branch="b1"),
        c("dropBranch", table=pk, branch="b1"),
        c("listBranches", table=pk),
        c("resetConsumer", table=pk, consumer="c1", next_snapshot=1, root=True),
        c("listConsumersPaged", table=pk, root=True),
        c("resetConsumer", table=pk, consumer="c1", root=True),
        c("listConsumersPaged", table=pk, root=True),
        c("listConsumersPaged", table=pk),
        c("authTableQuery", table=pk, select=["id"]),
    )  # fmt: skip
    parts = calls(
        c("listPartitionsPaged", table=pk),
        c("listPartitionsPaged", table=pk, max=1),
        c("listPartitionsPaged", table=pk, pattern="dt=d2"),
        c("listPartitionsByNames", table=pk, specs=[{"dt": "d1"}, {"dt": "d7"}]),
        c("listPartitionsByFilterPaged", table=pk, field="dt", value="d1"),
        c("createPartitions", table=pk, specs=[{"dt": "d9"}]),
        c("markDonePartitions", table=pk, specs=[{"dt": "d1"}]),
        c("listPartitionsByNames", table=pk, specs=[{"dt": "d1"}]),
        c("dropPartitions", table=pk, specs=[{"dt": "d2"}]),
        c("listPartitionsPaged", table=pk),
    )  # fmt: skip
    objects = calls(
        c("createView", view=f"{db}.v1", **VIEW),
        c("createView", view=f"{db}.v2", **VIEW),
        c("createView", view=f"{other}.v3", **VIEW),
        c("createView", view=f"{db}.v1", **VIEW),
        c("getView", view=f"{db}.v1"),
        c("listViewsPaged", database=db, max=1),
        c("listViewDetailsPaged", database=db),
        c("listViewsPagedGlobally", database_pattern=f"{db}%"),
        c("alterView", view=f"{db}.v1", changes=[
            {"action": "setOption", "key": "k2", "value": "v2"},
            {"action": "updateComment", "comment": "changed"},
            {"action": "addDialect", "dialect": "flink", "query": "SELECT 2 AS a, 'y' AS b"},
        ]),
        c("getView", view=f"{db}.v1"),
        c("renameView", **{"from": f"{db}.v2", "to": f"{db}.v2r"}),
        c("getView", view=f"{db}.v2"),
        c("dropView", view=f"{db}.v2r"),
        c("listViewsPaged", database=db),
        c("createFunction", function=f"{db}.f1", **FUNCTION),
        c("createFunction", function=f"{db}.f2", **FUNCTION),
        c("createFunction", function=f"{other}.f3", **FUNCTION),
        c("createFunction", function=f"{db}.f1", **FUNCTION),
        c("getFunction", function=f"{db}.f1"),
        c("listFunctionsPaged", database=db, max=1, root=True),
        c("listFunctionDetailsPaged", database=db, root=True),
        c("listFunctionsPagedGlobally", database_pattern=f"{db}%", root=True),
        c("alterFunction", function=f"{db}.f1", changes=[
            {"action": "setOption", "key": "k2", "value": "v2"},
            {"action": "updateComment", "comment": "changed"},
            {"action": "addDefinition", "name": "flink",
             "definition": {"type": "lambda", "definition": "(x) -> x + 1", "language": "java"}},
        ]),
        c("getFunction", function=f"{db}.f1"),
        c("dropFunction", function=f"{db}.f2"),
        c("getFunction", function=f"{db}.f2"),
        c("listFunctionsPaged", database=db, root=True),
        c("dropDatabase", database=other, cascade=True),
        c("getDatabase", database=other),
        c("listViewsPagedGlobally", database_pattern=f"{db}%"),
        c("listFunctionsPagedGlobally", database_pattern=f"{db}%", root=True),
        c("listFunctionsPagedGlobally", database_pattern=f"{db}%"),
    )  # fmt: skip
    write = [
        {"op": "write", **via, "table": pk, "rows": ROWS},
        {"op": "write", **via, "table": pk, "rows": MORE},
        {"op": "read", **via, "table": pk},
        {"op": "write", **token_via, "table": log, "rows": [{"id": 1, "name": "tok"}]},
        {"op": "read", **token_via, "table": log},
    ]
    rep = f"{db}.rep"
    replace = [
        calls(c("createTable", table=rep, fields=PK_FIELDS, partition_keys=["dt"])),
        {"op": "write", **via, "table": rep, "rows": ROWS},
        calls(
            c("replaceTable", table=rep, fields=REPLACED, partition_keys=["dt"], options=RETAINED),
            c("getTable", table=rep),
            c("loadSnapshot", table=rep),
            c("replaceTable", table=rep, fields=REPLACED),  # the partition keys would change
            c("replaceTable", table=f"{db}.nope", fields=REPLACED),
            c("replaceTable", table=f"{db}.nope", fields=REPLACED, ignore_if_not_exists=True),
        ),
        {"op": "read", **via, "table": rep},
    ]
    return [setup, *write, versions, parts, objects, *replace]


def test_java_rest_catalog_runs_every_catalog_operation(java_rest, jdbc_rest):
    java = java_rest
    v = java.version
    db = "jops" + v.replace(".", "")
    other = f"{db}_b"
    catalog = {"metastore": "rest", "uri": jdbc_rest.uri, "token.provider": "bear", "token": jdbc_rest.token}
    via = {"warehouse": "paimon", "catalog": catalog}
    token_via = {"warehouse": "paimon", "catalog": {**catalog, "data-token.enabled": "true"}}
    # a table folder no catalog lists yet, at its own place in the warehouse, for registerTable
    reg = jdbc_rest.warehouse / f"{db}.db" / "reg"
    create_catalog("filesystem", str(jdbc_rest.warehouse)).create_table(
        f"{db}.reg", Schema(Schema.parse_columns("id INT"))
    )
    script = _script(db, other, via, token_via)
    for call in script[0]["calls"]:
        if call.get("path") == "REG":
            call["path"] = str(reg)
    before = len(jdbc_rest.requests())
    setup, w1, w2, read, tw, tread, versions, parts, objects, _, _, rep, rep_read = java.run(script)
    served = jdbc_rest.requests()[before:]
    assert not [r for r in served if r.endswith((" 500", " 501", " 502", " 503"))
                and "/partitions " not in r and "/replace " not in r], served  # fmt: skip

    s = setup["results"]
    assert "error" not in s[0] and "error" not in s[1]
    assert s[2]["error"] == "DatabaseAlreadyExistException"
    assert s[3]["options"]["k1"] == "v1"
    assert (s[4]["items"], s[4]["next"]) == ([db], db)
    assert (s[5]["items"], s[5]["next"]) == ([other], None)
    assert "error" not in s[6], s[6]
    assert s[7]["options"].get("k2") == "v2" and "k1" not in s[7]["options"]
    assert s[12]["error"] == "TableAlreadyExistException"
    assert [f["name"] for f in s[13]["fields"]] == ["id", "name", "dt"]
    assert (s[13]["partition_keys"], s[13]["primary_keys"]) == (["dt"], ["id", "dt"])
    assert s[14]["full_name"] == f"{db}.pk" and s[14]["uuid"] == s[13]["uuid"]
    assert (s[15]["items"], s[15]["next"]) == (["log", "pk"], "pk")
    assert (s[16]["items"], s[16]["next"]) == (["ren"], None)
    assert s[17]["items"] == ["log"]
    assert s[18]["items"] == ["log", "pk", "ren"]
    assert s[19]["items"] == [f"{db}.log", f"{db}.pk", f"{db}.ren", f"{other}.t"]
    assert "error" not in s[20], s[20]
    assert s[21]["error"] == "TableNotExistException"
    assert s[23]["options"]["snapshot.num-retained.max"] == "50"
    assert "error" not in s[24], s[24]
    assert "snapshot.num-retained.max" not in s[26]["options"]
    assert "error" not in s[27], s[27]
    assert [f["name"] for f in s[28]["fields"]] == ["id"]
    assert "error" not in s[29], s[29]
    assert s[30]["items"] == ["log", "pk", "reg"]

    merged = list({(r["id"], r["dt"]): r for r in ROWS + MORE}.values())
    assert_same_rows(read["rows"], merged)
    assert_same_rows(tread["rows"], [{"id": 1, "name": "tok"}])
    assert any(r.startswith(f"GET /v1/paimon/databases/{db}/tables/log/token 200") for r in served)

    x = versions["results"]
    assert (x[0]["id"], x[0]["record_count"]) == (2, len(merged))
    assert x[1]["id"] == 1
    assert (x[2]["items"], x[2]["next"]) == (["1"], "1")
    assert (x[3]["items"], x[3]["next"]) == (["2"], None)
    assert x[6]["error"] == "TagAlreadyExistException"
    assert (x[7]["tag"], x[7]["snapshot"], x[7]["retained"]) == (
        "t2",
        2,
        "PT24H",
    )  # a Duration as Java prints it
    assert x[8]["items"] == ["t1", "t2"] and x[9]["items"] == ["t2"] and x[11]["items"] == ["t1"]
    if v == "2.0.0":  # Java 2.0 removed the renameBranch request (apache/paimon#8023)
        assert x[14]["error"] == "UnsupportedOperationException"
        assert x[15]["items"] == ["b1", "b2"]
    else:
        assert "error" not in x[14], x[14]
        assert x[15]["items"] == ["b1", "b3"]
    assert x[17]["id"] == 1
    assert "error" not in x[18] and "error" not in x[19] and "error" not in x[20], x[18:21]
    assert "b1" not in x[21]["items"], x[21]
    assert x[23].get("items") == ["c1=1"] and x[25].get("items") == [], x[22:26]
    # Java's CachingCatalog, which createCatalog wraps around RESTCatalog, does not forward it
    assert x[26]["error"] == "UnsupportedOperationException"
    assert (x[27]["filter"], x[27]["column_masking"]) == ([], {})

    p = parts["results"]
    first = {"d1": sum(r["dt"] == "d1" for r in ROWS), "d2": sum(r["dt"] == "d2" for r in ROWS)}
    assert {q["spec"]["dt"]: q["recordCount"] for q in p[0]["items"]} == first
    assert ([q["spec"] for q in p[1]["items"]], p[1]["next"]) == ([{"dt": "d1"}], "dt=d1")
    assert [q["spec"] for q in p[2]["items"]] == [{"dt": "d2"}]
    assert [q["spec"] for q in p[3]["items"]] == [{"dt": "d1"}]
    if v == "2.0.0":  # the server may answer a superset (the spec says so): both partitions here
        assert sorted(q["spec"]["dt"] for q in p[4]["items"]) == ["d1", "d2"]
        assert p[5]["error"] == "NotImplementedException"
        assert any("/tables/pk/partitions 501" in r for r in served)
    else:  # Java 1.4.2: no listPartitionsByFilterPaged; createPartitions sends nothing
        assert p[4]["error"] == "NoSuchMethodException"
        assert "error" not in p[5]
        assert not any(r.startswith(f"POST /v1/paimon/databases/{db}/tables/pk/partitions ") for r in served)
    assert "error" not in p[6] and p[7]["items"][0]["done"] is True
    assert "error" not in p[8], p[8]
    assert [q["spec"] for q in p[9]["items"]] == [{"dt": "d1"}]

    o = objects["results"]
    assert all("error" not in o[i] for i in (0, 1, 2)), o[:3]
    assert o[3]["error"] == "ViewAlreadyExistException"
    got = o[4]
    assert (got["name"], got["query"], got["dialects"], got["comment"], _own(got["options"])) == (
        "v1",
        VIEW["query"],
        VIEW["dialects"],
        "a view",
        {"k": "v"},
    )
    assert [f["name"] for f in got["fields"]] == ["a", "b"]
    assert (o[5]["items"], o[5]["next"]) == (["v1"], "v1")
    assert o[6]["items"] == ["v1", "v2"]
    assert o[7]["items"] == [f"{db}.v1", f"{db}.v2", f"{other}.v3"]
    assert "error" not in o[8], o[8]
    assert (o[9]["comment"], _own(o[9]["options"])) == ("changed", {"k": "v", "k2": "v2"})
    assert o[9]["dialects"]["flink"] == "SELECT 2 AS a, 'y' AS b"
    assert "error" not in o[10] and o[11]["error"] == "ViewNotExistException"
    assert o[13]["items"] == ["v1"]
    assert all("error" not in o[i] for i in (14, 15, 16)), o[14:17]
    assert o[17]["error"] == "FunctionAlreadyExistException"
    f = o[18]
    assert (f["name"], f["deterministic"], f["comment"], _own(f["options"])) == (
        "f1",
        True,
        "adds one",
        {"k": "v"},
    )
    assert f["definitions"] == {"spark": {"type": "sql", "definition": "x + 1"}}
    assert ([a["name"] for a in f["input"]], [a["name"] for a in f["returns"]]) == (["x"], ["r"])
    assert (o[19]["items"], o[19]["next"]) == (["f1"], "f1")
    assert o[20]["items"] == ["f1", "f2"]
    assert o[21]["items"] == [f"{db}.f1", f"{db}.f2", f"{other}.f3"]
    assert "error" not in o[22], o[22]
    assert (o[23]["comment"], _own(o[23]["options"])) == ("changed", {"k": "v", "k2": "v2"})
    assert o[23]["definitions"]["flink"]["type"] == "lambda"
    assert "error" not in o[24] and o[25]["error"] == "FunctionNotExistException"
    assert o[26]["items"] == ["f1"]
    assert "error" not in o[27] and o[28]["error"] == "DatabaseNotExistException"
    assert o[29]["items"] == [f"{db}.v1"]  # the dropped database's view and function went with it
    assert o[30]["items"] == [f"{db}.f1"]
    assert o[31]["error"] == "UnsupportedOperationException"  # CachingCatalog does not forward it
    _check_replace(v, rep["results"], rep_read["rows"], served, jdbc_rest, db)


def _check_replace(v: str, r: list[dict], rows: list[dict], served: list[str], server: RestServer, db: str):
    """replaceTable (Java 2.0 only: 1.4.2's Catalog has no such method): the table keeps its
    history, so we read its rows from before the replace by time travel."""
    if v != "2.0.0":
        assert {x["error"] for x in (r[0], r[3], r[4], r[5])} == {"NoSuchMethodException"}, r
        assert not any("/replace " in x for x in served)
        return
    assert "error" not in r[0], r[0]
    assert [f["name"] for f in r[1]["fields"]] == ["id", "email", "dt"]
    assert RETAINED.items() <= r[1]["options"].items()
    truncated = (r[2]["id"], r[2]["schema_id"], r[2]["commit_kind"], r[2]["record_count"])
    assert truncated == (2, 0, "OVERWRITE", 0)
    assert r[3]["error"] == "UnsupportedOperationException" and "partition keys" in r[3]["message"], r[3]
    assert r[4]["error"] == "TableNotExistException" and "error" not in r[5], r[4:6]
    assert any(x.startswith(f"POST /v1/paimon/databases/{db}/tables/rep/replace 501") for x in served)
    assert rows == []
    catalog = {"uri": server.uri, "token.provider": "bear", "token": server.token}
    ours = create_catalog("rest", "unused", catalog).get_table(f"{db}.rep")
    latest = ours.snapshots.latest()
    assert ours.schema.id == 1 and latest is not None and latest.id == 2
    assert_same_rows(ours.to_arrow(snapshot_id=1).to_pylist(), ROWS)
