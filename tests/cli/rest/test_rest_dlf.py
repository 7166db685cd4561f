"""``token.provider = dlf``: the server's signature check (``--auth dlf``) and our client and
pypaimon 2.1's signing against it; an unsigned or wrongly signed request is a 401 and does nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import datetime, timezone

import pytest

from paimon_cli.rest.auth import dlf
from paimon_core.catalog.metastore.rest import dlf_signer
from tests.cli.conftest import Cli
from tests.rest_support import DLF_KEY_ID as KEY_ID
from tests.rest_support import DLF_REGION as REGION
from tests.rest_support import DLF_SECRET as SECRET
from tests.rest_support import dlf_flags as _flags
from tests.rest_support import start_dlf_server

WHEN = datetime(2023, 12, 3, 12, 12, 12, tzinfo=timezone.utc)
BODY = '{"name":"database","options":{"a":"b"}}'


def _signed(method="POST", path="/v1/p/databases", query="a=1", body=BODY, secret="s3cret"):
    params = dict(p.split("=") for p in query.split("&")) if query else {}
    h = dlf_signer.sign(method, path, params, body, "AK", secret, "r1")
    return {k.lower(): v for k, v in h.items()}


def test_the_server_accepts_the_request_signed_and_refuses_every_change():
    check = dlf({"AK": "s3cret"})
    h = _signed()
    assert check("POST", "/v1/p/databases", "a=1", h, BODY.encode()) is None
    assert "signature" in check("GET", "/v1/p/databases", "a=1", h, BODY.encode())
    assert "signature" in check("POST", "/v1/p/databasez", "a=1", h, BODY.encode())
    assert "signature" in check("POST", "/v1/p/databases", "a=2", h, BODY.encode())
    assert "Content-MD5" in check("POST", "/v1/p/databases", "a=1", h, BODY.encode() + b" ")
    assert "signature" in check("POST", "/v1/p/databases", "a=1", _signed(secret="wrong"), BODY.encode())
    assert "unknown" in dlf({"OTHER": "s3cret"})("POST", "/v1/p/databases", "a=1", h, BODY.encode())
    assert "Authorization" in check("POST", "/v1/p/databases", "a=1", {}, BODY.encode())


def test_an_old_signature_is_refused():
    h = {k.lower(): v for k, v in dlf_signer.sign("GET", "/v1/c", {}, None, "AK", "s", "r", now=WHEN).items()}
    assert "not current" in dlf({"AK": "s"})("GET", "/v1/c", "", h, b"")


@pytest.fixture(scope="module")
def dlf_server(tmp_path_factory):
    server = start_dlf_server(tmp_path_factory.mktemp("rest-dlf") / "wh")
    yield server
    server.stop()


def test_our_client_signs_every_request(dlf_server, tmp_path):
    cli = Cli(tmp_path / "unused")
    f = _flags(dlf_server)
    (tmp_path / "in.csv").write_text("id,v\n1,a\n2,b\n")
    cli(*f, "create-table", "dlf_db.t", "--schema", "id INT, v STRING", warehouse=False)
    cli(*f, "ingest", "-t", "dlf_db.t", str(tmp_path / "in.csv"), warehouse=False)
    rows = cli.json(*f, "read", "-t", "dlf_db.t", warehouse=False)
    assert sorted((r["id"], r["v"]) for r in rows) == [(1, "a"), (2, "b")]


def test_a_wrong_secret_is_a_401_and_changes_nothing(dlf_server, tmp_path):
    cli = Cli(tmp_path / "unused")
    r = cli(*_flags(dlf_server, "wrong"), "create-database", "dlf_wrong", warehouse=False, code=1)
    assert "401" in r.stderr and "Traceback" not in r.stderr
    assert not (dlf_server.warehouse / "dlf_wrong.db").exists()


def _post(server, headers: dict, body: str) -> int:
    req = urllib.request.Request(
        f"{server.uri}/v1/paimon/databases", data=body.encode(), method="POST", headers=headers
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        assert json.loads(e.read())["code"] == e.code
        return e.code


def test_raw_requests_unsigned_tampered_and_signed(dlf_server):
    body = json.dumps({"name": "dlf_raw", "options": {}})
    assert _post(dlf_server, {"Authorization": "Bearer x"}, body) == 401
    signed = dlf_signer.sign("POST", "/v1/paimon/databases", {}, body, KEY_ID, SECRET, REGION)
    tampered = body.replace("dlf_raw", "dlf_evil")
    assert _post(dlf_server, signed, tampered) == 401
    assert not (dlf_server.warehouse / "dlf_evil.db").exists()
    assert _post(dlf_server, signed, body) == 200
    assert (dlf_server.warehouse / "dlf_raw.db").is_dir()
