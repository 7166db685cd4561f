"""DLF request signing: the signature Java Paimon's own test expects; the client's DLF options."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from paimon_core.catalog.metastore.rest import dlf_signer
from paimon_core.catalog.metastore.rest.auth import RestAuth
from paimon_core.errors import InvalidInput

WHEN = datetime(2023, 12, 3, 12, 12, 12, tzinfo=timezone.utc)
BODY = '{"name":"database","options":{"a":"b"}}'


def test_the_signature_java_paimon_computes():
    """Java Paimon 1.4.2's DLFAuthSignatureTest: the same request, key and time give this header."""
    headers = dlf_signer.sign(
        "POST",
        "/v1/paimon/databases",
        {"k1": "v1", "k2": "v2"},
        BODY,
        "access-key-id",
        "access-key-secret",
        "cn-hangzhou",
        "securityToken",
        now=WHEN,
    )
    assert headers["Authorization"] == (
        "DLF4-HMAC-SHA256 Credential=access-key-id/20231203/cn-hangzhou/DlfNext/aliyun_v4_request,"
        "Signature=c72caf1d40b55b1905d891ee3e3de48a2f8bebefa7e39e4f277acc93c269c5e3"
    )
    assert headers["x-dlf-date"] == "20231203T121212Z" and headers["Content-MD5"]


def test_dlf_options_are_checked():
    with pytest.raises(InvalidInput, match="dlf.region"):
        RestAuth({"token.provider": "dlf", "dlf.access-key-id": "a", "dlf.access-key-secret": "b"})
    with pytest.raises(InvalidInput, match="openapi"):
        RestAuth(
            {
                "token.provider": "dlf",
                "dlf.access-key-id": "a",
                "dlf.access-key-secret": "b",
                "dlf.region": "r",
                "dlf.signing-algorithm": "openapi",
            }
        )
