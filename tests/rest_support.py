"""The REST catalog server as the tests run it, and a client that checks every answer.

``RestServer`` starts ``paimon rest-server`` as a real process on 127.0.0.1 (a free port, a
bearer token through the environment) over a warehouse folder and stops it by its pid.
``SpecClient`` sends raw HTTP (urllib, no client library to hide what is sent) and validates each
response against the pinned OpenAPI spec with openapi-core; a response the spec does not allow
fails the test. Two deviations of the spec from what Java's own server sends and pypaimon 2.1
needs are applied to the loaded spec, each named in ``SPEC_DEVIATIONS``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from openapi_core.templating.responses.exceptions import ResponseNotFound

from tests.infra import free_port

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "test-token-5f3a"
PREFIX = "paimon"

# (schema, property, the type Java's server sends): the spec says string-only.
SPEC_DEVIATIONS = (
    ("ListDatabasesResponse", "nextPageToken", ["string", "null"]),  # null on the last page
    ("ListTablesResponse", "nextPageToken", ["string", "null"]),
    ("ListTagsResponse", "nextPageToken", ["string", "null"]),
    ("ListSnapshotsResponse", "nextPageToken", ["string", "null"]),
    ("ListPartitionsResponse", "nextPageToken", ["string", "null"]),
    ("ListViewsResponse", "nextPageToken", ["string", "null"]),
    ("ListTableDetailsResponse", "nextPageToken", ["string", "null"]),
    ("ListTablesGloballyResponse", "nextPageToken", ["string", "null"]),
    ("ListConsumersResponse", "nextPageToken", ["string", "null"]),
    ("ListViewDetailsResponse", "nextPageToken", ["string", "null"]),
    ("ListViewsGloballyResponse", "nextPageToken", ["string", "null"]),
    ("ListFunctionsResponse", "nextPageToken", ["string", "null"]),
    ("ListFunctionDetailsResponse", "nextPageToken", ["string", "null"]),
    ("ListFunctionsGloballyResponse", "nextPageToken", ["string", "null"]),
    ("Snapshot", "commitIdentifier", ["integer", "string"]),  # Java's Snapshot JSON: a long
)


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """(cert.pem, key.pem) in ``folder``: a certificate for 127.0.0.1 made by ``openssl``, which
    a client trusts with ``ssl.create_default_context(cafile=cert)`` or ``SSL_CERT_FILE``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


class RestServer:
    """``paimon rest-server`` over ``warehouse`` on 127.0.0.1."""

    def __init__(
        self,
        warehouse: Path | str,
        token: str | None = TOKEN,
        args: tuple[str, ...] = (),
        env: dict | None = None,
        warehouse_root: bool = False,
        log_dir: Path | None = None,
        port: int | None = None,
    ):
        """``warehouse``: a folder, or a URI (``s3://...``, then ``log_dir`` is needed);
        ``warehouse_root``: serve every warehouse folder under it (``--warehouse-root``);
        ``args``/``env``: more global and server options (``--storage k=v`` go in ``args``);
        ``port``: the port of a server started again (default: a free one)."""
        self.warehouse = warehouse
        self.token = token
        self.port = port or free_port()
        self.uri = f"http://127.0.0.1:{self.port}"
        if isinstance(warehouse, Path):
            warehouse.mkdir(parents=True, exist_ok=True)
            log_dir = log_dir or warehouse.parent
        env = {**os.environ, **(env or {}), "PAIMON_REST_TOKEN": token or ""}
        if not token:
            env.pop("PAIMON_REST_TOKEN")
        assert log_dir is not None, "a URI warehouse needs log_dir"
        self.log = log_dir / f"rest-server-{self.port}.log"
        where = (
            ["rest-server", "--warehouse-root"] if warehouse_root else ["-w", str(warehouse), "rest-server"]
        )
        if warehouse_root:
            where.append(str(warehouse))
        cmd = [sys.executable, "-m", "paimon_cli", *where, "--port", str(self.port), "--access-log", *args]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"rest-server exited {self.proc.returncode}: {self.log.read_text()[-2000:]}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"rest-server did not listen within {timeout}s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        """Stop the server process by its pid (SIGTERM, then SIGKILL)."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, 15)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, 9)
                self.proc.wait(10)

    def requests(self) -> list[str]:
        """The requests the server has answered so far (``METHOD /path STATUS`` lines of its log)."""
        import re

        text = self.log.read_text(errors="replace")
        return [
            f"{m[0]} {m[1]} {m[2]}" for m in re.findall(r'"(GET|POST|DELETE) (\S+) HTTP/[\d.]+" (\d+)', text)
        ]

    def cli_flags(self) -> list[str]:
        """The `paimon` global options of a client of this server."""
        return [
            "--catalog",
            "rest",
            "--catalog-option",
            f"uri={self.uri}",
            "--catalog-option",
            f"token={self.token}",
        ]

    def rest_options(self) -> dict:
        """The ``rest`` request of the pypaimon driver for this server."""
        return {"uri": self.uri, "token": self.token, "warehouse": "paimon"}


DLF_KEY_ID, DLF_SECRET, DLF_REGION = "LTAI-test", "dlf-test-secret", "cn-test"


def start_dlf_server(warehouse: Path, token_file: Path | None = None) -> RestServer:
    """``paimon rest-server --auth dlf`` accepting requests signed with ``DLF_KEY_ID``/``DLF_SECRET``
    (either signing method), and with the key of ``token_file`` when given."""
    env = {"PAIMON_REST_DLF_KEY_ID": DLF_KEY_ID, "PAIMON_REST_DLF_SECRET": DLF_SECRET}
    args = ("--auth", "dlf", *(("--dlf-token-file", str(token_file)) if token_file else ()))
    return RestServer(warehouse, token=None, args=args, env=env)


def dlf_options(secret: str = DLF_SECRET, algorithm: str | None = None) -> dict:
    """The REST catalog options of a DLF-signing client (ours and pypaimon's use the same keys);
    ``algorithm``: ``dlf.signing-algorithm`` (default: unset, which is ``default`` here)."""
    opts = {
        "token.provider": "dlf",
        "dlf.access-key-id": DLF_KEY_ID,
        "dlf.access-key-secret": secret,
        "dlf.region": DLF_REGION,
    }
    return {**opts, "dlf.signing-algorithm": algorithm} if algorithm else opts


def dlf_flags(server: RestServer, secret: str = DLF_SECRET, algorithm: str | None = None) -> list[str]:
    """Global CLI options for ``--catalog rest`` at ``server`` with DLF signing."""
    opts = {"uri": server.uri, **dlf_options(secret, algorithm)}
    return ["--catalog", "rest", *(x for k, v in opts.items() for x in ("--catalog-option", f"{k}={v}"))]


@dataclass
class Answer:
    status: int
    body: Any
    raw: bytes = b""
    headers: dict = field(default_factory=dict)


def _spec() -> dict:
    from tests.interop.harness.rest_spec import spec_path

    spec = yaml.safe_load(spec_path().read_text())
    for item in spec["paths"].values():  # YAML reads an unquoted `404:` as an int; OpenAPI keys are text
        for op in item.values():
            if isinstance(op, dict) and "responses" in op:
                op["responses"] = {str(k): v for k, v in op["responses"].items()}
    for schema, prop, types in SPEC_DEVIATIONS:
        spec["components"]["schemas"][schema]["properties"][prop]["type"] = types
    return spec


class _Request:
    def __init__(self, base: str, method: str, path: str, query: dict, headers: dict, body: bytes | None):
        from openapi_core.datatypes import RequestParameters

        self.host_url = base
        self.path = path
        self.full_url_pattern = base + path
        self.method = method.lower()
        self.parameters = RequestParameters(query=query, header=headers, cookie={})
        self.body = body
        self.content_type = "application/json"


class _Response:
    def __init__(self, status: int, raw: bytes, headers: dict):
        self.status_code = status
        self.data = raw
        self.headers = headers
        self.content_type = headers.get("content-type", "application/json") if raw else "application/json"


class SpecClient:
    """Raw HTTP to a ``RestServer``; every answer validated against the spec."""

    _openapi = None
    # why the spec could not be loaded (this machine may not reach raw.githubusercontent.com):
    # answers are then not validated, and tests/cli/rest/test_rest_spec.py says so as a skip
    unavailable: str | None = None
    _spec: dict = {}

    @classmethod
    def load_spec(cls) -> None:
        """Load the pinned spec (from the interop cache under the real HOME: call it from a
        session fixture, before a test points HOME elsewhere)."""
        if cls._openapi is None and cls.unavailable is None:
            from openapi_core import OpenAPI

            from tests.interop.harness._common import InteropError

            try:
                cls._spec = _spec()
            except InteropError as e:
                cls.unavailable = str(e)
                return
            cls._openapi = OpenAPI.from_dict(cls._spec)

    def __init__(self, server: RestServer, token: str | None = TOKEN):
        self.server = server
        self.token = token
        self.load_spec()

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        raw_body: bytes | None = None,
        query: str = "",
        outside_spec: bool = False,
    ) -> Answer:
        """``path`` as sent (already percent-encoded), e.g. ``/v1/paimon/databases``;
        ``outside_spec``: an endpoint Java's client calls that the spec lacks (``replace``), whose
        error answers are still checked as the spec's ErrorResponse."""
        data = raw_body if raw_body is not None else (json.dumps(body).encode() if body is not None else None)
        url = self.server.uri + path + (f"?{query}" if query else "")
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if self.token is not None:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, raw, headers = resp.status, resp.read(), dict(resp.headers)
        except urllib.error.HTTPError as e:
            status, raw, headers = e.code, e.read(), dict(e.headers)
        headers = {k.lower(): v for k, v in headers.items()}
        answer = Answer(status, json.loads(raw) if raw else None, raw, headers)
        if outside_spec:
            if answer.status >= 400:
                self.validate_error(answer)
        else:
            self.validate(method, path, query, data, answer)
        return answer

    def validate(self, method: str, path: str, query: str, data: bytes | None, answer: Answer) -> None:
        from urllib.parse import parse_qsl

        if self._openapi is None:  # the spec is unavailable (see ``unavailable``)
            return
        # matched against the spec's one server (its host is not ours; the path is what counts)
        request = _Request(self._spec["servers"][0]["url"], method, path, dict(parse_qsl(query)), {}, data)
        response = _Response(answer.status, answer.raw, answer.headers)
        try:
            self._openapi.validate_response(request, response)  # raises on anything the spec forbids
        except ResponseNotFound:
            # an error status the operation does not list (the spec lists 400 on few of them):
            # the body must still be the spec's ErrorResponse
            if answer.status < 400:
                raise
            self.validate_error(answer)
        if answer.status >= 400:  # the spec's ErrorResponse: its code is the HTTP status
            assert answer.body["code"] == answer.status, answer.body

    def validate_error(self, answer: Answer) -> None:
        """An error answer's body is the spec's ErrorResponse, its code the HTTP status."""
        assert answer.body["code"] == answer.status, answer.body
        if self._openapi is None:
            return
        from openapi_schema_validator import OAS31Validator

        spec = self._spec
        schema = {**spec["components"]["schemas"]["ErrorResponse"], "components": spec["components"]}
        OAS31Validator(schema).validate(answer.body)
