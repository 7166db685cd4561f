"""DLF keys from files and from a metadata service, both sides: ``paimon rest-server --auth dlf
--dlf-token-file`` accepts the key of a token file and follows its rotation; our client reads
``dlf.token-path`` (rotated while it runs) and ``dlf.token-loader=ecs`` (an ECS-style metadata
service, served here on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from paimon_core.catalog.factory import create_catalog
from paimon_core.errors import CatalogUnavailable
from tests.cli.conftest import Cli
from tests.rest_support import DLF_KEY_ID, DLF_REGION, DLF_SECRET, start_dlf_server

ROLE_PATH = "/latest/meta-data/Ram/security-credentials/"


def _write_token(path, key: str, security_token: str | None = None) -> None:
    """Rotate as a credentials agent should: a whole new file renamed over the old one."""
    doc = {"AccessKeyId": key, "AccessKeySecret": f"secret-of-{key}", "SecurityToken": security_token}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc))
    os.replace(tmp, path)


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    """A DLF server that accepts the environment's key and the key of its token file."""
    folder = tmp_path_factory.mktemp("rest-dlf-keys")
    token = folder / "token.json"
    _write_token(token, "rot-1", "sts-1")
    server = start_dlf_server(folder / "wh", token_file=token)
    yield server, token
    server.stop()


def _catalog(server, **options):
    return create_catalog(
        "rest", "", {"uri": server.uri, "token.provider": "dlf", "dlf.region": DLF_REGION, **options}
    )


@pytest.mark.parametrize("algorithm", ["default", "openapi"])
def test_a_rotated_token_file_is_picked_up_by_a_running_client_and_the_server(keyed, algorithm):
    server, token = keyed
    _write_token(token, "rot-1", "sts-1")
    client = _catalog(server, **{"dlf.token-path": str(token), "dlf.signing-algorithm": algorithm})
    old = _catalog(
        server,
        **{
            "dlf.access-key-id": "rot-1",
            "dlf.access-key-secret": "secret-of-rot-1",
            "dlf.security-token": "sts-1",
        },
    )
    client.create_database(f"before_{algorithm}")
    _write_token(token, "rot-2", "sts-2")
    client.create_database(f"after_{algorithm}")  # the same client, the new key
    assert {f"before_{algorithm}", f"after_{algorithm}"} <= set(client.list_databases())
    with pytest.raises(CatalogUnavailable, match="401"):
        old.create_database(f"old_{algorithm}")  # the server no longer takes the rotated-out key
    assert not (server.warehouse / f"old_{algorithm}.db").exists()
    with pytest.raises(CatalogUnavailable, match="401.*security token"):  # the file's key needs its token
        _catalog(server, **{"dlf.access-key-id": "rot-2", "dlf.access-key-secret": "secret-of-rot-2"})
    env_key = {"dlf.access-key-id": DLF_KEY_ID, "dlf.access-key-secret": DLF_SECRET}
    assert f"after_{algorithm}" in _catalog(server, **env_key).list_databases()  # the flag's key stays


def test_a_server_without_a_readable_token_file_does_not_start(tmp_path):
    (tmp_path / "bad.json").write_text('{"AccessKeyId": "k", "AccessKeySecret": "cut-sec')
    for path in (tmp_path / "bad.json", tmp_path / "none.json"):
        r = Cli(tmp_path / "wh")("rest-server", "--auth", "dlf", "--dlf-token-file", str(path), code=1)
        assert "--dlf-token-file" in r.stderr and "cut-sec" not in r.stderr and "Traceback" not in r.stderr


class _Metadata(BaseHTTPRequestHandler):
    """An ECS metadata service: the role name, and the role's credentials."""

    role = "paimon-role"
    token = {"AccessKeyId": DLF_KEY_ID, "AccessKeySecret": DLF_SECRET, "Expiration": "2999-01-01T00:00:00Z"}
    asked: list[str] = []

    def do_GET(self):
        self.asked.append(self.path)
        if self.path == ROLE_PATH:
            body = self.role.encode()
        elif self.path == ROLE_PATH + self.role:
            body = json.dumps({"Code": "Success", **self.token, "SecurityToken": None}).encode()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 - the base class names it so
        pass


@pytest.fixture
def metadata():
    _Metadata.asked = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Metadata)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}{ROLE_PATH}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("algorithm", ["default", "openapi"])
def test_keys_from_an_ecs_metadata_service(keyed, metadata, algorithm):
    server, _ = keyed
    ecs = {
        "dlf.token-loader": "ecs",
        "dlf.token-ecs-metadata-url": metadata,
        "dlf.signing-algorithm": algorithm,
    }
    client = _catalog(server, **ecs)
    client.create_database(f"ecs_{algorithm}")
    assert f"ecs_{algorithm}" in client.list_databases()
    # the role is asked once, the token once: it expires far off
    assert _Metadata.asked == [ROLE_PATH, ROLE_PATH + "paimon-role"]
    _catalog(server, **ecs, **{"dlf.token-ecs-role-name": "paimon-role"}).list_databases()
    assert _Metadata.asked[2:] == [ROLE_PATH + "paimon-role"]  # a named role is not asked for
    with pytest.raises(CatalogUnavailable, match="metadata|DLF"):
        _catalog(server, **ecs, **{"dlf.token-ecs-role-name": "other"})
