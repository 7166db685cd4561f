"""``token.provider = dlf``: the server's signature check (``--auth dlf``, both of Java's signing
methods, ``default`` and ``openapi``) and our client's signing against it; an unsigned, wrongly
signed, stale, replayed or tampered request is a 401 and does nothing."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

import pytest

from paimon_cli.rest.auth import dlf
from paimon_core.catalog.metastore.rest import dlf_openapi_signer, dlf_signer
from paimon_core.catalog.metastore.rest.dlf_token import DlfToken
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
    """The status of a POST of ``body`` to the server's databases with ``headers``."""
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


# ---- openapi (ROA, HMAC-SHA1)


def _acs(method="POST", path="/v1/p/databases", query="a=1", body: str | None = BODY, secret="s3cret", **kw):
    params = dict(p.split("=") for p in query.split("&")) if query else {}
    h = dlf_openapi_signer.sign(method, path, params, body, "AK", secret, **kw)
    return {k.lower(): v for k, v in h.items()}


def test_the_server_accepts_an_openapi_signature_once_and_refuses_every_change():
    check = dlf({"AK": "s3cret"})
    h = _acs()
    for method, path, query, body in [
        ("GET", "/v1/p/databases", "a=1", BODY),
        ("POST", "/v1/p/databasez", "a=1", BODY),
        ("POST", "/v1/p/databases", "a=2", BODY),
        ("POST", "/v1/p/databases", "", BODY),
    ]:
        assert "signature" in check(method, path, query, h, body.encode())
    assert "Content-MD5" in check("POST", "/v1/p/databases", "a=1", h, BODY.encode() + b" ")
    assert "signature" in check("POST", "/v1/p/databases", "a=1", _acs(secret="wrong"), BODY.encode())
    assert "signature" in check("POST", "/v1/p/databases", "a=1", {**h, "x-acs-version": "x"}, BODY.encode())
    assert "unknown" in dlf({"OTHER": "s3cret"})("POST", "/v1/p/databases", "a=1", h, BODY.encode())
    assert check("POST", "/v1/p/databases", "a=1", h, BODY.encode()) is None
    assert "nonce" in check("POST", "/v1/p/databases", "a=1", h, BODY.encode())  # a replay
    no_nonce = {k: v for k, v in h.items() if k != dlf_openapi_signer.NONCE}
    assert "nonce" in check("POST", "/v1/p/databases", "a=1", no_nonce, BODY.encode())
    # a GET signs no Content-Type; one sent anyway does not matter
    get = {**_acs("GET", "/v1/config", "warehouse=w%20x", None), "content-type": "application/json"}
    assert check("GET", "/v1/config", "warehouse=w+x", get, b"") is None


def test_an_old_or_future_openapi_date_is_refused():
    check = dlf({"AK": "s"})
    for skew in (timedelta(minutes=-16), timedelta(minutes=16)):
        h = _acs("GET", "/v1/c", "", None, "s", now=datetime.now(timezone.utc) + skew)
        assert "not current" in check("GET", "/v1/c", "", h, b"")
    assert (
        check(
            "GET",
            "/v1/c",
            "",
            _acs("GET", "/v1/c", "", None, "s", now=datetime.now(timezone.utc) - timedelta(minutes=14)),
            b"",
        )
        is None
    )
    assert "Date" in check("GET", "/v1/c", "", {**_acs("GET", "/v1/c", "", None, "s"), "date": "today"}, b"")


def test_a_key_with_a_security_token_needs_it_and_an_expired_key_is_refused():
    later = int(datetime.now(timezone.utc).timestamp() * 1000) + 60_000
    check = dlf(lambda: {"AK": DlfToken("AK", "s", "sts", later)})
    assert "security token" in check("GET", "/v1/c", "", _acs("GET", "/v1/c", "", None, "s"), b"")
    assert check("GET", "/v1/c", "", _acs("GET", "/v1/c", "", None, "s", security_token="sts"), b"") is None
    d = {k.lower(): v for k, v in dlf_signer.sign("GET", "/v1/c", {}, None, "AK", "s", "r", "sts").items()}
    assert check("GET", "/v1/c", "", d, b"") is None
    expired = dlf(lambda: {"AK": DlfToken("AK", "s", None, later - 120_000)})
    assert "expired" in expired("GET", "/v1/c", "", _acs("GET", "/v1/c", "", None, "s"), b"")


def test_our_client_signs_every_request_with_openapi(dlf_server, tmp_path):
    cli = Cli(tmp_path / "unused")
    f = _flags(dlf_server, algorithm="openapi")
    (tmp_path / "in.csv").write_text("id,v\n1,a\n2,b\n")
    cli(*f, "create-table", "dlf_oa.t", "--schema", "id INT, v STRING", warehouse=False)
    cli(*f, "ingest", "-t", "dlf_oa.t", str(tmp_path / "in.csv"), warehouse=False)
    rows = cli.json(*f, "read", "-t", "dlf_oa.t", warehouse=False)
    assert sorted((r["id"], r["v"]) for r in rows) == [(1, "a"), (2, "b")]
    before = len(dlf_server.requests())
    r = cli(
        *_flags(dlf_server, "wrong", "openapi"), "create-database", "dlf_oa_wrong", warehouse=False, code=1
    )
    assert "401" in r.stderr and not (dlf_server.warehouse / "dlf_oa_wrong.db").exists()
    assert all(line.endswith("401") for line in dlf_server.requests()[before:])


def test_raw_openapi_requests_wrong_stale_tampered_and_signed(dlf_server):
    body = json.dumps({"name": "dlf_oa_raw", "options": {}})
    path = "/v1/paimon/databases"

    def signed(text=body, secret=SECRET, **kw):
        return dlf_openapi_signer.sign("POST", path, {}, text, KEY_ID, secret, **kw)

    assert _post(dlf_server, signed(secret="wrong"), body) == 401
    stale = signed(now=datetime.now(timezone.utc) - timedelta(minutes=20))
    assert _post(dlf_server, stale, body) == 401
    assert _post(dlf_server, signed(), body.replace("dlf_oa_raw", "dlf_oa_evil")) == 401
    assert not (dlf_server.warehouse / "dlf_oa_evil.db").exists()
    assert not (dlf_server.warehouse / "dlf_oa_raw.db").exists()
    good = signed()
    assert _post(dlf_server, good, body) == 200
    assert (dlf_server.warehouse / "dlf_oa_raw.db").is_dir()
    assert _post(dlf_server, good, body) == 401  # the same nonce again: a replay
