"""DLF request signing (``token.provider = dlf``, signing algorithm ``default``): the headers a
REST client adds to each request and the signature a server recomputes to accept it.

The facts (Paimon 1.4's DLF default signer): the signed headers are ``x-dlf-date``
(``yyyyMMddTHHmmssZ``, UTC), ``x-dlf-content-sha256: UNSIGNED-PAYLOAD``, ``x-dlf-version: v1``,
with a body also ``Content-Type: application/json`` and ``Content-MD5`` (base64 MD5 of the
body), and ``x-dlf-security-token`` when the credentials have one. The canonical request is the
method, the request path as sent, the query parameters sorted by name (``k=v`` joined by ``&``,
a bare ``k`` for an empty value), each signed header ``name:value`` sorted by name, and the
payload hash, joined by newlines. The string to sign is ``DLF4-HMAC-SHA256``, the date-time,
the scope ``<date>/<region>/DlfNext/aliyun_v4_request`` and the SHA-256 of the canonical
request; the key is an HMAC-SHA256 chain from ``"aliyun_v4" + secret`` over date, region,
``DlfNext`` and ``aliyun_v4_request``. The ``Authorization`` header is
``DLF4-HMAC-SHA256 Credential=<key id>/<scope>,Signature=<hex>``.

Invariant: ``sign`` and ``signature`` agree: a server that recomputes ``signature`` from the
request it received and the secret of the named key id gets the header the client sent, and any
change to method, path, query, signed headers or body (through its MD5) changes it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Mapping
from datetime import datetime, timezone

ALGORITHM = "DLF4-HMAC-SHA256"
PRODUCT = "DlfNext"
REQUEST_TYPE = "aliyun_v4_request"
UNSIGNED = "UNSIGNED-PAYLOAD"
DATE, SHA256, VERSION, TOKEN = "x-dlf-date", "x-dlf-content-sha256", "x-dlf-version", "x-dlf-security-token"
SIGNED_HEADERS = ("content-md5", "content-type", SHA256, DATE, VERSION, TOKEN)
_AUTH = re.compile(
    r"^DLF4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/DlfNext/"
    r"aliyun_v4_request,\s*Signature=(?P<sig>[0-9a-f]{64})$"
)


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def canonical_query(params: Mapping[str, str]) -> str:
    parts = []
    for key in sorted(params):
        value = (params[key] or "").strip()
        parts.append(f"{key.strip()}={value}" if value else key.strip())
    return "&".join(parts)


def signature(
    method: str,
    path: str,
    params: Mapping[str, str],
    headers: Mapping[str, str],
    secret: str,
    region: str,
) -> str:
    """The hex signature of a request whose signed headers are ``headers`` (any case)."""
    signed = {k.lower(): v.strip() for k, v in headers.items() if k.lower() in SIGNED_HEADERS}
    date_time = signed.get(DATE, "")
    lines = [method.upper(), path, canonical_query(params)]
    lines += [f"{k}:{signed[k]}" for k in sorted(signed)]
    lines.append(signed.get(SHA256, UNSIGNED))
    canonical = "\n".join(lines)
    scope = f"{date_time[:8]}/{region}/{PRODUCT}/{REQUEST_TYPE}"
    to_sign = "\n".join([ALGORITHM, date_time, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(f"aliyun_v4{secret}".encode(), date_time[:8])
    for part in (region, PRODUCT, REQUEST_TYPE):
        key = _hmac(key, part)
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def body_md5(body: str | bytes) -> str:
    raw = body.encode() if isinstance(body, str) else body
    return base64.b64encode(hashlib.md5(raw).digest()).decode()


def sign(
    method: str,
    path: str,
    params: Mapping[str, str],
    body: str | None,
    key_id: str,
    secret: str,
    region: str,
    security_token: str | None = None,
    now: datetime | None = None,
) -> dict[str, str]:
    """The headers (``Authorization`` included) that sign this request."""
    date_time = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    headers = {DATE: date_time, SHA256: UNSIGNED, VERSION: "v1"}
    if body:
        headers["Content-Type"] = "application/json"
        headers["Content-MD5"] = body_md5(body)
    if security_token:
        headers[TOKEN] = security_token
    sig = signature(method, path, params, headers, secret, region)
    scope = f"{date_time[:8]}/{region}/{PRODUCT}/{REQUEST_TYPE}"
    headers["Authorization"] = f"{ALGORITHM} Credential={key_id}/{scope},Signature={sig}"
    return headers


def parse_authorization(value: str) -> tuple[str, str, str, str] | None:
    """(key id, date, region, signature) of a DLF ``Authorization`` header, None if it is not one."""
    m = _AUTH.match(value.strip())
    return (m["key"], m["date"], m["region"], m["sig"]) if m else None
