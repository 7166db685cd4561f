"""pypaimon 2.1.0 with ``token.provider = dlf`` against ``paimon rest-server --auth dlf``: its
signed requests are accepted (it creates, writes and reads a table, our CLI reads it); a wrong
secret is refused."""

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


def test_pypaimon_signs_with_token_provider_dlf(dlf_server, pypaimon, tmp_path):
    rest = {"uri": dlf_server.uri, "warehouse": "paimon", "options": dlf_options()}
    schema = [{"name": "id", "type": "BIGINT"}, {"name": "v", "type": "STRING"}]
    out = pypaimon.run(
        [
            {"op": "create_table", "rest": rest, "table": "dlf_py.t", "schema": schema},
            {"op": "write", "rest": rest, "table": "dlf_py.t", "rows": [{"id": 1, "v": "a"}]},
            {"op": "read", "rest": rest, "table": "dlf_py.t"},
        ]
    )
    assert_same_rows(out[-1]["rows"], [{"id": 1, "v": "a"}])
    wrong = {**rest, "options": {**rest["options"], "dlf.access-key-secret": "wrong"}}
    with pytest.raises(Exception, match="401|[Nn]ot [Aa]uthoriz|[Uu]nauthori"):
        pypaimon.run([{"op": "list_databases", "rest": wrong}])
    rows = Cli(tmp_path)(
        *dlf_flags(dlf_server), "-o", "json", "read", "-t", "dlf_py.t", warehouse=False
    ).stdout
    assert [json.loads(x) for x in rows.splitlines()] == [{"id": 1, "v": "a"}]
