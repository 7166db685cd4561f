"""Table tokens over S3 (``GET .../tables/T/token``, ``data-token.enabled``): ``paimon
rest-server`` over a SeaweedFS warehouse vends its storage credentials with a short expiry; our
client, given no storage settings of its own, reads and writes through them and fetches a new
token before the one in use expires; pypaimon 2.1 reads through the same tokens."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.catalog.factory import create_catalog
from paimon_core.catalog.metastore.rest.token_io import TokenFileIO
from paimon_core.metadata.schema import Schema
from tests.interop.conftest import pypaimon  # noqa: F401 - the fixture, for the pypaimon test
from tests.interop.harness.canonical import assert_same_rows
from tests.rest_support import TOKEN, RestServer

LIFETIME_S = 4


@pytest.fixture
def token_server(s3_warehouse, tmp_path):
    uri, storage = s3_warehouse
    # the server refuses a warehouse with nothing in it (S3 has no empty folders)
    FileSystemCatalog(uri, storage).create_table("tok.seed", Schema(Schema.parse_columns("id BIGINT")))
    args = ["--data-token-lifetime", str(LIFETIME_S)]
    for k, v in storage.items():
        args += ["--storage", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
    server = RestServer(uri, args=tuple(args), log_dir=tmp_path)
    yield server
    server.stop()


def _options(server) -> dict:
    return {"uri": server.uri, "token": TOKEN}


def _rows(ids) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "v": [f"v{i}" for i in ids]})


def test_the_server_vends_its_s3_credentials_with_the_expiry(token_server, s3_server):
    from tests.rest_support import SpecClient

    client = SpecClient(token_server)
    catalog = create_catalog("rest", "paimon", {**_options(token_server), "data-token.enabled": "true"})
    catalog.create_table("tok.v", Schema(Schema.parse_columns("id BIGINT")))
    before = int(time.time() * 1000)
    got = client.call("GET", "/v1/paimon/databases/tok/tables/v/token")
    assert got.status == 200
    token = got.body["token"]
    assert token["fs.s3.accessKeyId"] == s3_server.storage_options["access_key_id"]
    assert token["fs.s3.accessKeySecret"] == s3_server.storage_options["secret_access_key"]
    assert token["fs.s3.endpoint"] == s3_server.endpoint
    expires = got.body["expiresAtMillis"]  # Java's and pypaimon's key; the spec's is expiresAt
    assert before + LIFETIME_S * 1000 <= expires <= int(time.time() * 1000) + LIFETIME_S * 1000
    assert got.body["expiresAt"] == expires


def test_our_client_reads_and_writes_through_tokens_and_refreshes_them(token_server):
    opts = {**_options(token_server), "data-token.enabled": "true"}
    catalog = create_catalog("rest", "paimon", opts)  # no storage options: the tokens are the credentials
    table = catalog.create_table("tok.t", Schema(Schema.parse_columns("id BIGINT, v STRING")))
    table.write_arrow(_rows(range(3)))
    io = catalog.get_table("tok.t").io
    assert isinstance(io, TokenFileIO)
    table = catalog.get_table("tok.t")
    assert sorted(table.to_arrow().column("id").to_pylist()) == [0, 1, 2]
    first_expiry, fetches = table.io.expires_at, table.io.fetches
    assert table.io.storage_options["key"] and table.io.refresh_at < first_expiry
    time.sleep(max(0.0, (table.io.refresh_at - time.time() * 1000) / 1000) + 0.2)
    table.write_arrow(_rows(range(3, 5)))  # past the refresh point, before the expiry
    assert table.io.fetches == fetches + 1 and table.io.expires_at > first_expiry
    assert sorted(catalog.get_table("tok.t").to_arrow().column("id").to_pylist()) == [0, 1, 2, 3, 4]


def test_pypaimon_reads_through_our_tokens(token_server, pypaimon):  # noqa: F811
    catalog = create_catalog("rest", "paimon", {**_options(token_server), "data-token.enabled": "true"})
    catalog.create_table("tok.p", Schema(Schema.parse_columns("id BIGINT, v STRING"))).write_arrow(
        _rows(range(4))
    )
    rest = {**token_server.rest_options(), "options": {"data-token.enabled": "true"}}
    out = pypaimon.run([{"op": "read", "rest": rest, "table": "tok.p"}])
    assert_same_rows(out[0]["rows"], [{"id": i, "v": f"v{i}"} for i in range(4)])
