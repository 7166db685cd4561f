"""DLF ``openapi`` request signing (ROA, HMAC-SHA1): a signature pypaimon 2.1.0's signer computes
for the same request, and the canonical string's layout as Java Paimon's signer builds it."""

from __future__ import annotations

from datetime import datetime, timezone

from paimon_core.catalog.metastore.rest import dlf_openapi_signer as openapi

WHEN = datetime(2025, 4, 16, 3, 44, 46, tzinfo=timezone.utc)
BODY = '{"CategoryName":"test","CategoryType":"UNSTRUCTURED"}'
PARAMS = {"k2": "v%2B2", "k1": "", "pattern": "a%25"}  # as sent: each value URL-encoded once


def _sign(**kw):
    args = {"now": WHEN, "nonce": "ef34aae7", **kw}
    return openapi.sign(
        "POST",
        "/v1/a%24b/databases",
        PARAMS,
        BODY,
        "YourAccessKeyId",
        "YourAccessKeySecret",
        "securityToken",
        **args,
    )


def test_the_signature_pypaimon_computes():
    """pypaimon 2.1.0's DLFOpenApiSigner (the port of Java's) signs this request, with this date
    and nonce, with the same Authorization."""
    headers = _sign()
    assert headers["Authorization"] == "acs YourAccessKeyId:Fm7edJWqUn3+4GTznPHtc5v7fYo="
    assert headers["Date"] == "Wed, 16 Apr 2025 03:44:46 GMT"
    assert headers["x-acs-version"] == "2026-01-18" and headers["x-acs-signature-method"] == "HMAC-SHA1"


def test_the_string_to_sign():
    text = openapi.string_to_sign("POST", "/v1/a%24b/databases", PARAMS, _sign())
    assert text == (
        "POST\napplication/json\nq2qaEcR4P47+Z7CUzHRTBw==\napplication/json\nWed, 16 Apr 2025 03:44:46 GMT\n"
        "x-acs-security-token:securityToken\nx-acs-signature-method:HMAC-SHA1\n"
        "x-acs-signature-nonce:ef34aae7\nx-acs-signature-version:1.0\nx-acs-version:2026-01-18\n"
        "/v1/a$b/databases?k1&k2=v+2&pattern=a%"
    )
    get = openapi.sign("GET", "/v1/config", {}, None, "k", "s", now=WHEN, nonce="n")
    assert "Content-MD5" not in get and "x-acs-security-token" not in get
    assert openapi.string_to_sign("GET", "/v1/config", {}, get).startswith("GET\napplication/json\n\n\nWed,")
    assert openapi.string_to_sign("GET", "/v1/config", {}, get).endswith(
        "x-acs-version:2026-01-18\n/v1/config"
    )


def test_every_change_changes_the_signature():
    base = _sign()["Authorization"]
    assert _sign(nonce="other")["Authorization"] != base
    assert _sign(now=WHEN.replace(second=47))["Authorization"] != base
    h = _sign()
    assert (
        openapi.signature("POST", "/v1/a%24b/databases", PARAMS, h, "YourAccessKeySecret")
        == base.split(":")[1]
    )
    assert (
        openapi.signature("PUT", "/v1/a%24b/databases", PARAMS, h, "YourAccessKeySecret")
        != base.split(":")[1]
    )
    assert (
        openapi.signature("POST", "/v1/a%24b/databases", {}, h, "YourAccessKeySecret") != base.split(":")[1]
    )
    assert openapi.parse_authorization(base) == ("YourAccessKeyId", "Fm7edJWqUn3+4GTznPHtc5v7fYo=")
    assert openapi.parse_authorization("DLF4-HMAC-SHA256 Credential=x") is None
    assert openapi.parse_date("Wed, 16 Apr 2025 03:44:46 GMT") == WHEN
    assert openapi.parse_date("20250416T034446Z") is None
