"""DLF request signing with the ``openapi`` algorithm (Alibaba Cloud's ROA signature, HMAC-SHA1,
product DlfNext API version 2026-01-18): the headers a REST client adds to each request and the
signature a server recomputes to accept it.

The facts (Paimon 1.4.2's and 2.0.0's DLF openapi signer, the same in both): the signed headers
are ``Date`` (RFC 1123, GMT), ``Accept: application/json``, with a body also
``Content-MD5`` (base64 MD5 of the body) and ``Content-Type: application/json``, and the
``x-acs-*`` headers: ``x-acs-signature-method: HMAC-SHA1``, ``x-acs-signature-nonce`` (unique
per request), ``x-acs-signature-version: 1.0``, ``x-acs-version: 2026-01-18`` and
``x-acs-security-token`` when the credentials have one. The string to sign is, one per line:
the method, Accept, Content-MD5, Content-Type (empty lines for absent ones), Date, then each
``x-acs-*`` header as ``name:value`` (names lower-case, sorted, values trimmed) each ending in a
newline, then the resource: the URL-decoded request path and, with query parameters, ``?`` and
the parameters sorted by name with URL-decoded values (``k=v`` joined by ``&``, a bare ``k``
for an empty value). The signature is the base64 HMAC-SHA1 of it under the access key secret;
the ``Authorization`` header is ``acs <key id>:<signature>``.

Invariant: ``sign`` and ``signature`` agree: a server that recomputes ``signature`` from the
request it received and the secret of the named key id gets the signature the client sent, and a
change to method, path, query, a signed header or the body (through its MD5) changes it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from email.utils import format_datetime, parsedate_to_datetime
from urllib.parse import unquote_plus

IDENTIFIER = "openapi"
API_VERSION = "2026-01-18"
ACS = "x-acs-"
NONCE, TOKEN = "x-acs-signature-nonce", "x-acs-security-token"
JSON = "application/json"
_AUTH = re.compile(r"^acs (?P<key>[^:\s]+):(?P<sig>[A-Za-z0-9+/]+={0,2})$")


def _body_md5(body: str | bytes) -> str:
    raw = body.encode() if isinstance(body, str) else body
    return base64.b64encode(hashlib.md5(raw).digest()).decode()


def canonical_resource(path: str, params: Mapping[str, str]) -> str:
    """The decoded path, and ``?`` with the sorted decoded parameters when there are any."""
    resource = unquote_plus(path)
    if not params:
        return resource
    parts = []
    for key in sorted(params):
        value = unquote_plus(params[key] or "")
        parts.append(f"{key}={value}" if value else key)
    return f"{resource}?{'&'.join(parts)}"


def string_to_sign(method: str, path: str, params: Mapping[str, str], headers: Mapping[str, str]) -> str:
    """What is signed, from the request's headers (any case; only the signed ones are read)."""
    lower = {k.lower(): v for k, v in headers.items()}
    lines = [method.upper(), *(lower.get(h, "") for h in ("accept", "content-md5", "content-type"))]
    lines.append(lower.get("date", ""))
    acs = "".join(f"{k}:{lower[k].strip()}\n" for k in sorted(lower) if k.startswith(ACS))
    return "\n".join(lines) + "\n" + acs + canonical_resource(path, params)


def signature(
    method: str, path: str, params: Mapping[str, str], headers: Mapping[str, str], secret: str
) -> str:
    """The base64 signature of a request whose signed headers are ``headers``."""
    text = string_to_sign(method, path, params, headers)
    return base64.b64encode(hmac.new(secret.encode(), text.encode(), hashlib.sha1).digest()).decode()


def http_date(now: datetime) -> str:
    return format_datetime(now.astimezone(timezone.utc), usegmt=True)


def parse_date(value: str) -> datetime | None:
    """The instant of a ``Date`` header, None if it is not an RFC 1123 date with a zone."""
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else None


def sign(
    method: str,
    path: str,
    params: Mapping[str, str],
    body: str | None,
    key_id: str,
    secret: str,
    security_token: str | None = None,
    now: datetime | None = None,
    nonce: str | None = None,
) -> dict[str, str]:
    """The headers (``Authorization`` included) that sign this request; ``path`` as sent and
    ``params`` as sent (URL-encoded: the signature is over their decoded form)."""
    headers = {"Date": http_date(now or datetime.now(timezone.utc)), "Accept": JSON}
    if body:
        headers["Content-MD5"] = _body_md5(body)
        headers["Content-Type"] = JSON
    headers.update(
        {
            "x-acs-signature-method": "HMAC-SHA1",
            NONCE: nonce or uuid.uuid4().hex,
            "x-acs-signature-version": "1.0",
            "x-acs-version": API_VERSION,
        }
    )
    if security_token:
        headers[TOKEN] = security_token
    headers["Authorization"] = f"acs {key_id}:{signature(method, path, params, headers, secret)}"
    return headers


def parse_authorization(value: str) -> tuple[str, str] | None:
    """(key id, signature) of an ``acs`` ``Authorization`` header, None if it is not one."""
    m = _AUTH.match(value.strip())
    return (m["key"], m["sig"]) if m else None
