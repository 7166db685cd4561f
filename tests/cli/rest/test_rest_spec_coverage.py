"""Every operation of the Paimon REST catalog spec is served and covered by a test.

``OPERATIONS`` pins, as facts, the spec's operations (method, path template, operationId) as read
from apache/paimon ``docs/static/rest-catalog-open-api.yaml`` at commit ``SPEC_COMMIT`` (SHA-256
``SPEC_SHA256``, the file ``tests/interop/harness/rest_spec.py`` downloads), each with the tests that
cover it (``file::test``). The spec file itself is not in this repository, and this machine's CI
may not reach it: the pinned list is checked against it only when the interop cache holds it.

``OUTSIDE_SPEC`` lists, the same way, the endpoints Java's ``RESTCatalog`` calls that the spec lacks
(``replace``, Java 2.0's ``replaceTable``).

Invariants checked: every operation names at least one covering test and each named test exists;
our app routes every operation's path and method (a request reaches an operation instead of the
404 "no such endpoint"); and, with the spec at hand, the pinned list equals the spec's operations.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from paimon_cli.rest.app import create_app
from paimon_cli.rest.service import CatalogService
from paimon_core.catalog.factory import create_catalog
from tests.interop.harness import rest_spec
from tests.rest_support import SpecClient

ROOT = Path(__file__).resolve().parents[3]
SPEC_COMMIT = "5dacde516bf6e29b583aff8b32bab321bfc6e64f"
SPEC_SHA256 = "f389216f390b30ec9cf48a8fc8f3a84485d4a92ff19483bd860e5514a52b4082"

_R = "tests/cli/rest/"
SERVER = _R + "test_rest_server.py::"
VERSIONS = _R + "test_rest_versions.py::"
OPS = _R + "test_rest_catalog_ops.py::"
OBJECTS = _R + "test_rest_views_functions.py::"
FILTER_AUTH = _R + "test_rest_partition_filter_auth.py::"
# Java 2.0.0's and 1.4.2's RESTCatalog through every Catalog operation against our server
JAVA = "tests/interop/test_rest_java_catalog_ops_java20_interop.py::test_java_rest_catalog_runs_every_catalog_operation"
ROUND_TRIP = SERVER + "test_databases_and_tables_round_trip"
PAGED = VERSIONS + "test_databases_and_tables_are_paged_and_filtered"
BRANCHES = VERSIONS + "test_branches_create_commit_forward_rename_and_drop"
TAGS = VERSIONS + "test_tags_create_get_list_page_and_delete"
SNAPSHOTS = VERSIONS + "test_snapshots_by_version_and_paged"
PARTITIONS = VERSIONS + "test_partitions_list_mark_done_and_drop"
LISTINGS = OPS + "test_table_details_global_listing_and_table_type"
BY_NAMES = OPS + "test_list_partitions_by_names_and_create_partitions"
CONSUMERS = OPS + "test_consumers_list_reset_and_delete"
VIEWS = OBJECTS + "test_views_through_every_endpoint"
FUNCTIONS = OBJECTS + "test_functions_through_every_endpoint"

DB = "/v1/{prefix}/databases/{database}"
TABLE = DB + "/tables/{table}"
# (method, path template, operationId, covering tests), in the spec's order
OPERATIONS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("GET", "/v1/config", "getConfig", (SERVER + "test_config_names_the_prefix", JAVA)),
    ("GET", "/v1/{prefix}/databases", "listDatabases", (ROUND_TRIP, PAGED, JAVA)),
    ("POST", "/v1/{prefix}/databases", "createDatabase", (ROUND_TRIP, JAVA)),
    ("GET", DB, "getDatabase", (ROUND_TRIP, JAVA)),
    ("DELETE", DB, "dropDatabase", (ROUND_TRIP, JAVA)),
    ("POST", DB, "alterDatabase", (OPS + "test_alter_database_on_jdbc_stores_the_properties", JAVA)),
    ("POST", DB + "/register", "RegisterTable", (OPS + "test_register_table_on_jdbc_takes_the_folder_at_its_place", JAVA)),
    ("GET", DB + "/tables", "listTables", (ROUND_TRIP, PAGED, JAVA)),
    ("POST", DB + "/tables", "createTable", (ROUND_TRIP, JAVA)),
    ("GET", DB + "/table-details", "listTableDetails", (LISTINGS, JAVA)),
    ("GET", "/v1/{prefix}/tables", "ListTablesGlobally", (LISTINGS, JAVA)),
    ("GET", "/v1/{prefix}/tables/id/{tableId}", "getTableById", (OPS + "test_get_table_by_id", JAVA)),
    ("GET", TABLE, "getTable", (ROUND_TRIP, JAVA)),
    ("POST", TABLE, "alterTable", (ROUND_TRIP, JAVA)),
    ("DELETE", TABLE, "dropTable", (ROUND_TRIP, JAVA)),
    ("POST", "/v1/{prefix}/tables/rename", "renameTable", (ROUND_TRIP, JAVA)),
    ("POST", TABLE + "/commit", "commitTable", (SERVER + "test_a_commit_on_a_stale_base_is_refused_and_writes_nothing", JAVA)),
    ("POST", TABLE + "/rollback", "rollbackTable", (_R + "test_rest_client.py::test_rollback_is_done_by_the_server", JAVA)),
    ("POST", TABLE + "/rollback-schema", "rollbackSchema", (OPS + "test_rollback_schema", JAVA)),
    ("GET", TABLE + "/token", "getTableToken", (ROUND_TRIP, JAVA)),
    ("POST", TABLE + "/auth", "authTableQuery", (FILTER_AUTH + "test_auth_table_query_grants_the_whole_table", JAVA)),
    ("GET", TABLE + "/snapshot", "getTableSnapshot", (SERVER + "test_a_commit_on_a_stale_base_is_refused_and_writes_nothing", JAVA)),
    ("GET", TABLE + "/snapshots/{version}", "getVersionSnapshot", (SNAPSHOTS, JAVA)),
    ("GET", TABLE + "/snapshots", "listSnapshots", (SNAPSHOTS, JAVA)),
    ("GET", TABLE + "/partitions", "listPartitions", (PARTITIONS, JAVA)),
    ("POST", TABLE + "/partitions", "createPartitions", (BY_NAMES, JAVA)),  # Java 2.0 only
    # Java's RESTCatalog asks this only for partitions the catalog manages (format tables): it
    # truncates ours through a commit, so only the raw test reaches it
    ("POST", TABLE + "/partitions/drop", "dropPartitions", (PARTITIONS,)),
    ("POST", TABLE + "/partitions/mark", "markDonePartitions", (PARTITIONS, JAVA)),
    ("POST", TABLE + "/partitions/list-by-names", "listPartitionsByNames", (BY_NAMES, JAVA)),
    ("POST", TABLE + "/partitions/list-by-filter", "listPartitionsByFilter", (FILTER_AUTH + "test_list_partitions_by_filter_pages_a_superset", JAVA)),  # Java 2.0 only
    ("GET", TABLE + "/branches", "listBranches", (BRANCHES, JAVA)),
    ("POST", TABLE + "/branches", "createBranch", (BRANCHES, JAVA)),
    ("DELETE", TABLE + "/branches/{branch}", "dropBranch", (BRANCHES, JAVA)),
    ("POST", TABLE + "/branches/{branch}/rename", "renameBranch", (BRANCHES, JAVA)),  # Java 1.4.2 only
    ("POST", TABLE + "/branches/{branch}/forward", "forwardBranch", (BRANCHES, JAVA)),
    ("GET", TABLE + "/tags", "listTags", (TAGS, JAVA)),
    ("POST", TABLE + "/tags", "createTag", (TAGS, JAVA)),
    ("GET", TABLE + "/tags/{tag}", "getTag", (TAGS, JAVA)),
    ("DELETE", TABLE + "/tags/{tag}", "deleteTag", (TAGS, JAVA)),
    ("GET", TABLE + "/consumers", "listConsumers", (CONSUMERS, JAVA)),
    ("POST", TABLE + "/consumers/reset", "resetConsumer", (CONSUMERS, JAVA)),
    ("GET", DB + "/views", "listViews", (VIEWS, JAVA)),
    ("POST", DB + "/views", "createView", (VIEWS, JAVA)),
    ("GET", DB + "/view-details", "listViewDetails", (VIEWS, JAVA)),
    ("GET", "/v1/{prefix}/views", "listViewsGlobally", (VIEWS, JAVA)),
    ("GET", DB + "/views/{view}", "getView", (VIEWS, JAVA)),
    ("POST", DB + "/views/{view}", "alterView", (VIEWS, JAVA)),
    ("DELETE", DB + "/views/{view}", "dropView", (VIEWS, JAVA)),
    ("POST", "/v1/{prefix}/views/rename", "renameView", (VIEWS, JAVA)),
    ("GET", DB + "/functions", "listFunctions", (FUNCTIONS, JAVA)),
    ("POST", DB + "/functions", "createFunction", (FUNCTIONS, JAVA)),
    ("GET", DB + "/function-details", "listFunctionDetails", (FUNCTIONS, JAVA)),
    ("GET", "/v1/{prefix}/functions", "listFunctionsGlobally", (FUNCTIONS, JAVA)),
    ("GET", DB + "/functions/{function}", "getFunction", (FUNCTIONS, JAVA)),
    ("POST", DB + "/functions/{function}", "alterFunction", (FUNCTIONS, JAVA)),
    ("DELETE", DB + "/functions/{function}", "dropFunction", (FUNCTIONS, JAVA)),
)  # fmt: skip
# endpoints Java's RESTCatalog calls that the spec lacks (same shape; each routed and covered too)
OUTSIDE_SPEC: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    # Java 2.0's replaceTable (apache/paimon#7860); 1.4.2 has none
    ("POST", TABLE + "/replace", "replaceTable", (OPS + "test_replace_table", JAVA)),
)
SAMPLE = {"prefix": "paimon", "database": "db", "table": "t", "tableId": "db.t.1", "version": "1",
          "branch": "b", "tag": "g", "view": "v", "function": "f"}  # fmt: skip


def test_the_pin_names_the_spec_file_the_interop_cache_checks():
    assert (rest_spec.COMMIT, rest_spec.SHA256) == (SPEC_COMMIT, SPEC_SHA256)
    assert len(OPERATIONS) == 56
    assert len({(m, p) for m, p, _, _ in OPERATIONS}) == len({o for _, _, o, _ in OPERATIONS}) == 56


def _defined_tests(file: str) -> set[str]:
    text = (ROOT / file).read_text()
    return set(re.findall(r"^(?:async )?def (test_\w+)\(", text, re.MULTILINE))


def test_every_operation_names_covering_tests_that_exist():
    missing = [o for _, _, o, tests in OPERATIONS + OUTSIDE_SPEC if not tests]
    assert not missing, f"operations no test covers: {missing}"
    unknown = sorted(
        {
            t
            for _, _, _, tests in OPERATIONS + OUTSIDE_SPEC
            for t in tests
            if t.split("::")[1] not in _defined_tests(t.split("::")[0])
        }
    )
    assert not unknown, f"covering tests that do not exist: {unknown}"


def _call(app, method: str, path: str) -> tuple[int, dict]:
    """One request through the ASGI app (no server): (status, JSON body or {})."""
    sent: list[dict] = []
    body = b"{}" if method == "POST" else b""

    async def receive() -> dict:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"content-type", b"application/json")], "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80), "root_path": ""}  # fmt: skip
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    raw = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(raw) if raw else {}


def test_our_app_routes_every_operation(tmp_path):
    app = create_app(CatalogService(create_catalog("filesystem", str(tmp_path / "wh")), "paimon"))
    unrouted = []
    for method, template, op, _ in OPERATIONS + OUTSIDE_SPEC:
        status, body = _call(app, method, template.format(**SAMPLE))
        if status == 404 and str(body.get("message", "")).startswith("no such endpoint"):
            unrouted.append(f"{op}: {method} {template}")
    assert not unrouted, unrouted
    status, body = _call(app, "GET", "/v1/paimon/databases/db/no-such-thing")  # the check can fail
    assert (status, body["message"].startswith("no such endpoint")) == (404, True)


@pytest.fixture(scope="module")
def spec_loaded() -> None:
    """Loads the spec from the interop cache under the real HOME (before a test's own HOME)."""
    SpecClient.load_spec()


def test_the_pinned_operations_are_the_specs(spec_loaded):
    if not SpecClient._spec:
        pytest.skip(f"the spec file is not in the interop cache: {SpecClient.unavailable}")
    spec = {
        (method.upper(), path, op["operationId"])
        for path, item in SpecClient._spec["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "operationId" in op
    }
    assert {(m, p, o) for m, p, o, _ in OPERATIONS} == spec
