"""``paimon rest-server``'s ``partitions/list-by-filter`` and ``auth`` (authTableQuery) endpoints
over raw HTTP on the session's server, every answer validated against the pinned spec by
``SpecClient``. Both were unrouted (404 ``UNKNOWN``) before Java 2.0's ``RESTCatalog`` was run
through every catalog operation (``tests/interop/test_rest_java_catalog_ops_java20_interop.py``)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Cli
from tests.rest_support import PREFIX, SpecClient

V1 = f"/v1/{PREFIX}"


def _table(server, db: str, tmp_path: Path) -> str:
    """``db.t`` (a INT, p STRING, partitioned by p) with partitions p=x and p=y; its REST path."""
    cli = Cli(Path(server.warehouse))
    cli("create-table", f"{db}.t", "--schema", "a INT, p STRING", "--partition", "p")
    f = tmp_path / "in.csv"
    f.write_text("a,p\n1,x\n2,y\n3,y\n")
    cli("ingest", "-t", f"{db}.t", str(f))
    return f"{V1}/databases/{db}/tables/t"


def test_list_partitions_by_filter_pages_a_superset(rest_server, tmp_path):
    c = SpecClient(rest_server)
    base = _table(rest_server, "pfilter", tmp_path) + "/partitions/list-by-filter"
    flt = '{"leaf": "anything the server need not evaluate"}'
    r = c.call("POST", base, {"filter": flt})
    assert r.status == 200
    assert [(p["spec"], p["recordCount"]) for p in r.body["partitions"]] == [({"p": "x"}, 1), ({"p": "y"}, 2)]
    r = c.call("POST", base, {"filter": flt, "maxResults": 1})
    assert ([p["spec"] for p in r.body["partitions"]], r.body["nextPageToken"]) == ([{"p": "x"}], "p=x")
    r = c.call("POST", base, {"filter": flt, "maxResults": 1, "pageToken": "p=x"})
    assert ([p["spec"] for p in r.body["partitions"]], r.body["nextPageToken"]) == ([{"p": "y"}], None)
    r = c.call("POST", base, {"filter": flt, "maxResults": 0, "partitionNamePattern": "p=y%"})
    assert [p["spec"] for p in r.body["partitions"]] == [{"p": "y"}]
    for bad in (
        {},
        {"filter": ""},
        {"filter": 1},
        {"filter": flt, "maxResults": -1},
        {"filter": flt, "pageToken": 3},
    ):
        assert c.call("POST", base, bad).status == 400, bad
    r = c.call("POST", f"{V1}/databases/pfilter/tables/nope/partitions/list-by-filter", {"filter": flt})
    assert (r.status, r.body["resourceType"]) == (404, "TABLE")


def test_auth_table_query_grants_the_whole_table(rest_server, tmp_path):
    c = SpecClient(rest_server)
    base = _table(rest_server, "qauth", tmp_path) + "/auth"
    for body in ({}, {"select": None}, {"select": ["a"]}, {"select": ["a", "p"]}):
        r = c.call("POST", base, body)
        assert (r.status, r.body) == (200, {"filter": [], "columnMasking": {}}), body
    assert c.call("POST", base, {"select": ["nope"]}).status == 400
    assert c.call("POST", base, {"select": "a"}).status == 400
    r = c.call("POST", f"{V1}/databases/qauth/tables/nope/auth", {})
    assert (r.status, r.body["resourceType"]) == (404, "TABLE")


def test_a_blank_partition_value_is_listed_by_the_default_name_as_java_lists_it(rest_server, tmp_path):
    """Java's partition computer names NULL and a blank string alike (the default partition
    name: both live in that directory); the listing's specs say so, not ' '."""
    import pyarrow as pa

    from paimon_core import FileSystemCatalog, Schema

    catalog = FileSystemCatalog(str(rest_server.warehouse))
    catalog.create_database("pblank")
    t = catalog.create_table(
        "pblank.t", Schema(Schema.parse_columns("a INT, p STRING"), partition_keys=("p",))
    )
    t.write_arrow(pa.table({"a": pa.array([1, 2, 3], pa.int32()), "p": ["x", " ", None]}))
    r = SpecClient(rest_server).call("GET", f"{V1}/databases/pblank/tables/t/partitions")
    assert r.status == 200
    got = sorted((p["spec"]["p"], p["recordCount"]) for p in r.body["partitions"])
    assert got == [("__DEFAULT_PARTITION__", 1), ("__DEFAULT_PARTITION__", 1), ("x", 1)]
