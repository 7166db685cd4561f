"""Who may call the server: a bearer token (``--token``) or DLF signatures (``--auth dlf`` with an
access key id and secret). Each checker answers None for an accepted request and the reason
otherwise; the app answers every refused request 401 before anything runs.

DLF invariants: the signature is recomputed from the request as received (method, raw path,
query, signed headers) with the secret of the key id it names; the body must match the signed
``Content-MD5``; the signed ``x-dlf-date`` must be within ``MAX_SKEW`` of the server's clock (a
captured request cannot be replayed later). Query values are checked as decoded and as
URL-encoded once (Java and pypaimon sign the encoded value, a plain client the value itself);
``Content-Type`` and ``Content-MD5`` are signed only with a body (a client may send a
Content-Type it did not sign on a GET).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qsl, quote_plus

from paimon_core.catalog.metastore.rest import dlf_signer

MAX_SKEW = timedelta(minutes=15)

# (method, raw path, raw query, headers (lower-case names), body) -> None or why it is refused
Checker = Callable[[str, str, str, Mapping[str, str], bytes], "str | None"]


def bearer(token: str) -> Checker:
    expected = f"Bearer {token}".encode()

    def check(method, path, query, headers, body):
        given = headers.get("authorization", "").encode()
        return None if hmac.compare_digest(given, expected) else "missing or wrong bearer token"

    return check


def dlf(keys: Mapping[str, str]) -> Checker:
    """Requests signed by DLF's default signer with one of ``keys`` (key id -> secret)."""

    def check(method, path, query, headers, body):
        parsed = dlf_signer.parse_authorization(headers.get("authorization", ""))
        if parsed is None:
            return "missing or malformed DLF Authorization header"
        key_id, date, region, given = parsed
        secret = keys.get(key_id)
        if secret is None:
            return f"unknown DLF access key id {key_id!r}"
        stamp = headers.get(dlf_signer.DATE, "")
        try:
            when = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=timezone.utc)
        except ValueError:
            return "missing or malformed x-dlf-date header"
        if stamp[:8] != date or abs(datetime.now(timezone.utc) - when) > MAX_SKEW:
            return "the DLF signature's date is not current"
        if body and headers.get("content-md5") != dlf_signer.body_md5(body):
            return "the body does not match the signed Content-MD5"
        if not body:  # a signer signs Content-Type and Content-MD5 only with a body
            headers = {k: v for k, v in headers.items() if k.lower() not in ("content-type", "content-md5")}
        decoded = dict(parse_qsl(query, keep_blank_values=True))
        encoded = {k: quote_plus(v, safe="*").replace("~", "%7E") for k, v in decoded.items()}
        for params in (decoded, encoded):
            want = dlf_signer.signature(method, path, params, headers, secret, region)
            if hmac.compare_digest(want, given):
                return None
        return "wrong DLF signature"

    return check
