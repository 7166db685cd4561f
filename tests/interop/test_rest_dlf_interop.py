"""pypaimon 2.1.0 with ``token.provider = dlf`` against ``paimon rest-server --auth dlf``, with
either signing method (``default``, ``openapi``): its signed requests are accepted (it creates,
writes and reads a table, our CLI reads it); a wrong secret is refused."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import Cli
from tests.interop.harness.canonical import assert_same_rows
from tests.rest_support import dlf_flags, dlf_options, start_dlf_server


@pytest.fixture(scope="module")
def dlf_server(tmp_path_factory):
    server = start_dlf_server(tmp_path_factory.mktemp("rest-dlf") / "wh")
    yield server
    server.stop()


@pytest.mark.parametrize("algorithm", ["default", "openapi"])
def test_pypaimon_signs_with_token_provider_dlf(dlf_server, pypaimon, tmp_path, algorithm):
    rest = {"uri": dlf_server.uri, "warehouse": "paimon", "options": dlf_options(algorithm=algorithm)}
    schema = [{"name": "id", "type": "BIGINT"}, {"name": "v", "type": "STRING"}]
    table = f"dlf_py_{algorithm}.t"
    out = pypaimon.run(
        [
            {"op": "create_table", "rest": rest, "table": table, "schema": schema},
            {"op": "write", "rest": rest, "table": table, "rows": [{"id": 1, "v": "a"}]},
            {"op": "read", "rest": rest, "table": table},
        ]
    )
    assert_same_rows(out[-1]["rows"], [{"id": 1, "v": "a"}])
    wrong = {**rest, "options": {**rest["options"], "dlf.access-key-secret": "wrong"}}
    with pytest.raises(Exception, match="401|[Nn]ot [Aa]uthoriz|[Uu]nauthori"):
        pypaimon.run([{"op": "list_databases", "rest": wrong}])
    rows = Cli(tmp_path)(*dlf_flags(dlf_server), "-o", "json", "read", "-t", table, warehouse=False).stdout
    assert [json.loads(x) for x in rows.splitlines()] == [{"id": 1, "v": "a"}]
