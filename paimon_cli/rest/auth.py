"""Who may call the server: a bearer token (``--token``) or DLF signatures (``--auth dlf`` with an
access key id and secret, or a token file). Each checker answers None for an accepted request and
the reason otherwise; the app answers every refused request 401 before anything runs.

DLF invariants: both of Java Paimon's signing methods are accepted, told apart by the
``Authorization`` header (``DLF4-HMAC-SHA256 ...``: ``default``; ``acs <id>:<sig>``:
``openapi``). The signature is recomputed from the request as received (method, raw path, query,
signed headers) with the secret of the key id it names; the body must match the signed
``Content-MD5``; the signed date (``x-dlf-date``, or ``Date`` for openapi) must be within
``MAX_SKEW`` of the server's clock, so a captured request cannot be replayed later, and an
openapi nonce is accepted once (per server process) within that window. ``Content-Type`` and
``Content-MD5`` are signed only with a body (a client may send a Content-Type it did not sign on
a GET). A key that carries a security token (from a token file) accepts only requests that carry
the same token, and none once its ``Expiration`` has passed.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qsl, quote_plus

from paimon_core.catalog.metastore.rest import dlf_openapi_signer, dlf_signer, dlf_token
from paimon_core.errors import CatalogUnavailable

MAX_SKEW = timedelta(minutes=15)

# (method, raw path, raw query, headers (lower-case names), body) -> None or why it is refused
Checker = Callable[[str, str, str, Mapping[str, str], bytes], "str | None"]
# the keys a DLF server accepts now: key id -> token (its secret, security token and expiry)
Keys = Callable[[], Mapping[str, dlf_token.DlfToken]]


def bearer(token: str) -> Checker:
    expected = f"Bearer {token}".encode()

    def check(method, path, query, headers, body):
        given = headers.get("authorization", "").encode()
        return None if hmac.compare_digest(given, expected) else "missing or wrong bearer token"

    return check


class KeyFile:
    """The key of a token file (``--dlf-token-file``, JSON as Java's ``dlf.token-path``), read
    again when the file changes. A file that cannot be read or parsed keeps the last key it held
    (a rotation caught mid-write), so it must hold one when the server starts."""

    def __init__(self, path: str):
        self.file = dlf_token.TokenFile(path, tries=1)
        self._keys = self._read()
        self._lock = threading.Lock()

    def _read(self) -> dict[str, dlf_token.DlfToken]:
        token = self.file.load()
        return {token.access_key_id: token}

    def __call__(self) -> Mapping[str, dlf_token.DlfToken]:
        if self.file.changed():
            with self._lock:
                if self.file.changed():
                    try:
                        self._keys = self._read()
                    except CatalogUnavailable:  # keep the last key (tried again on the next request)
                        pass
        return self._keys


class _Nonces:
    """Nonces seen within the last ``2 * MAX_SKEW`` (a request older than that is refused by its date)."""

    def __init__(self):
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def first_use(self, nonce: str) -> bool:
        now = time.monotonic()
        with self._lock:
            if len(self._seen) > 1024:
                horizon = now - 2 * MAX_SKEW.total_seconds()
                self._seen = {n: t for n, t in self._seen.items() if t > horizon}
            if nonce in self._seen:
                return False
            self._seen[nonce] = now
            return True


def _keys(keys: Mapping[str, str] | Keys) -> Keys:
    if callable(keys):
        return keys
    fixed = {k: dlf_token.DlfToken(k, secret) for k, secret in keys.items()}
    return lambda: fixed


def with_key_file(keys: Mapping[str, str], path: str) -> Keys:
    """``keys`` (key id -> secret) and the key of the token file at ``path``, read now (an
    unreadable file is an error here) and again whenever it changes."""
    fixed, key_file = _keys(keys), KeyFile(path)
    return lambda: {**fixed(), **key_file()}


def _usable(token: dlf_token.DlfToken | None, key_id: str, security_token: str | None) -> str | None:
    if token is None:
        return f"unknown DLF access key id {key_id!r}"
    now = datetime.now(timezone.utc)  # the clock the signed dates are checked against
    if token.expiration_ms is not None and token.expiration_ms <= now.timestamp() * 1000:
        return f"the DLF access key {key_id!r} has expired"
    if token.security_token and not hmac.compare_digest(
        (security_token or "").encode(), token.security_token.encode()
    ):
        return "missing or wrong DLF security token"
    return None


def _unsigned_without_body(headers: Mapping[str, str], body: bytes) -> Mapping[str, str]:
    if body:
        return headers
    return {k: v for k, v in headers.items() if k.lower() not in ("content-type", "content-md5")}


def dlf(keys: Mapping[str, str] | Keys) -> Checker:
    """Requests signed by one of DLF's signers with one of ``keys`` (key id -> secret, or a
    function answering the current key id -> token)."""
    current = _keys(keys)
    nonces = _Nonces()

    def check(method, path, query, headers, body):
        authorization = headers.get("authorization", "")
        if authorization.startswith("acs "):
            return _openapi(current(), nonces, method, path, query, headers, body)
        return _default(current(), method, path, query, headers, body)

    return check


def _default(keys, method, path, query, headers, body) -> str | None:
    parsed = dlf_signer.parse_authorization(headers.get("authorization", ""))
    if parsed is None:
        return "missing or malformed DLF Authorization header"
    key_id, date, region, given = parsed
    token = keys.get(key_id)
    refused = _usable(token, key_id, headers.get(dlf_signer.TOKEN))
    if refused or token is None:
        return refused
    stamp = headers.get(dlf_signer.DATE, "")
    try:
        when = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return "missing or malformed x-dlf-date header"
    if stamp[:8] != date or abs(datetime.now(timezone.utc) - when) > MAX_SKEW:
        return "the DLF signature's date is not current"
    if body and headers.get("content-md5") != dlf_signer.body_md5(body):
        return "the body does not match the signed Content-MD5"
    headers = _unsigned_without_body(headers, body)
    # Java and pypaimon sign each query value URL-encoded, a plain client the value itself
    decoded = dict(parse_qsl(query, keep_blank_values=True))
    encoded = {k: quote_plus(v, safe="*").replace("~", "%7E") for k, v in decoded.items()}
    for params in (decoded, encoded):
        want = dlf_signer.signature(method, path, params, headers, token.access_key_secret, region)
        if hmac.compare_digest(want, given):
            return None
    return "wrong DLF signature"


def _openapi(keys, nonces: _Nonces, method, path, query, headers, body) -> str | None:
    parsed = dlf_openapi_signer.parse_authorization(headers.get("authorization", ""))
    if parsed is None:
        return "malformed DLF openapi Authorization header"
    key_id, given = parsed
    token = keys.get(key_id)
    refused = _usable(token, key_id, headers.get(dlf_openapi_signer.TOKEN))
    if refused or token is None:
        return refused
    when = dlf_openapi_signer.parse_date(headers.get("date", ""))
    if when is None:
        return "missing or malformed Date header"
    if abs(datetime.now(timezone.utc) - when) > MAX_SKEW:
        return "the DLF signature's date is not current"
    nonce = headers.get(dlf_openapi_signer.NONCE, "")
    if not nonce:
        return "missing x-acs-signature-nonce header"
    if body and headers.get("content-md5") != dlf_signer.body_md5(body):
        return "the body does not match the signed Content-MD5"
    signed = _unsigned_without_body(dict(headers.items()), body)
    # the signature is over the decoded values: hand the signer each value encoded once
    params = {k: quote_plus(v) for k, v in parse_qsl(query, keep_blank_values=True)}
    want = dlf_openapi_signer.signature(method, path, params, signed, token.access_key_secret)
    if not hmac.compare_digest(want.encode(), given.encode()):
        return "wrong DLF signature"
    if not nonces.first_use(nonce):
        return "the DLF signature nonce was used before"
    return None
