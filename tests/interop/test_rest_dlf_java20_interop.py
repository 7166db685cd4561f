"""Java Paimon 2.0.0's ``RESTCatalog`` with ``token.provider = dlf`` against ``paimon rest-server
--auth dlf``, with either of its signing methods (``dlf.signing-algorithm`` ``default`` and
``openapi``): it creates a database and a table, writes and reads through our server, our CLI
reads what it wrote; with a wrong secret its first request is refused."""

from __future__ import annotations

import pytest

from tests.cli.conftest import Cli
from tests.interop.harness.canonical import assert_same_rows
from tests.rest_support import dlf_flags, dlf_options, start_dlf_server

pytestmark = [pytest.mark.interop, pytest.mark.slow]

SCHEMA = [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "v", "type": "STRING"}]
ROWS = [{"id": 1, "v": "a"}, {"id": 2, "v": None}]


@pytest.fixture(scope="module")
def dlf_server(tmp_path_factory):
    server = start_dlf_server(tmp_path_factory.mktemp("rest-dlf-java") / "wh")
    yield server
    server.stop()


@pytest.mark.parametrize("algorithm", ["default", "openapi"])
def test_java_rest_client_signs_with_dlf(java20, dlf_server, tmp_path, algorithm):
    catalog = {"metastore": "rest", "uri": dlf_server.uri, **dlf_options(algorithm=algorithm)}
    via = {"warehouse": "paimon", "catalog": catalog}
    db = f"jdlf_{algorithm}"
    res = java20.run(
        [
            {"op": "catalog", **via, "action": "create_database", "database": db},
            {"op": "create_table", **via, "table": f"{db}.t", "schema": SCHEMA, "primary_keys": ["id"]},
            {"op": "write", **via, "table": f"{db}.t", "rows": ROWS},
            {"op": "read", **via, "table": f"{db}.t"},
        ]
    )
    assert_same_rows(res[-1]["rows"], ROWS)
    rows = Cli(tmp_path).json(*dlf_flags(dlf_server), "read", "-t", f"{db}.t", warehouse=False)
    assert_same_rows([{k: v for k, v in r.items() if k != "_row_kind"} for r in rows], ROWS)
    wrong = {**via, "catalog": {**catalog, "dlf.access-key-secret": "wrong"}}
    before = len(dlf_server.requests())
    with pytest.raises(Exception, match="401|[Nn]ot [Aa]uthoriz|[Uu]nauthori"):
        java20.run([{"op": "catalog", **wrong, "action": "create_database", "database": f"{db}_wrong"}])
    assert not (dlf_server.warehouse / f"{db}_wrong.db").exists()
    assert all(line.endswith("401") for line in dlf_server.requests()[before:])
