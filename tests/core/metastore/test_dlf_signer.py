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
    with pytest.raises(InvalidInput, match="dlf.token-path"):
        RestAuth({"token.provider": "dlf", "dlf.region": "r"})
    with pytest.raises(InvalidInput, match="dlf.signing-algorithm"):
        RestAuth({**KEYS, "dlf.signing-algorithm": "v4"})


KEYS = {"token.provider": "dlf", "dlf.access-key-id": "a", "dlf.access-key-secret": "b", "dlf.region": "r"}


@pytest.mark.parametrize(
    "options, algorithm, region",
    [
        # Java's DLFAuthProviderFactory: the option wins; unset, a uri naming dlfnext means openapi
        ({"uri": "http://127.0.0.1:8080"}, "default", "r"),
        ({"uri": "https://dlfnext.cn-hangzhou.aliyuncs.com"}, "openapi", "r"),
        ({"uri": "https://DLFNEXT-vpc.cn-hangzhou.aliyuncs.com"}, "openapi", "r"),
        ({"uri": "https://cn-hangzhou-vpc.dlf.aliyuncs.com"}, "default", "r"),
        (
            {"uri": "https://dlfnext.cn-hangzhou.aliyuncs.com", "dlf.signing-algorithm": "default"},
            "default",
            "r",
        ),
        ({"uri": "http://127.0.0.1:8080", "dlf.signing-algorithm": "openapi"}, "openapi", "r"),
        # no dlf.region: the region the uri names
        ({"uri": "https://dlfnext.cn-beijing.aliyuncs.com", "dlf.region": None}, "openapi", "cn-beijing"),
        (
            {"uri": "https://pre-cn-shanghai-2.dlf.aliyuncs.com", "dlf.region": None},
            "default",
            "cn-shanghai-2",
        ),
    ],
)
def test_the_signing_algorithm_and_region_are_chosen_as_java_chooses(options, algorithm, region):
    given = {k: v for k, v in {**KEYS, **options}.items() if v is not None}
    auth = RestAuth(given)
    assert (auth.algorithm, auth.region) == (algorithm, region)
    headers = auth.headers("GET", "/v1/config", {}, None)
    assert headers["Authorization"].startswith("acs a:" if algorithm == "openapi" else "DLF4-HMAC-SHA256 ")


def test_the_keys_come_from_the_loader_the_file_or_the_options(tmp_path):
    token = tmp_path / "token.json"
    token.write_text('{"AccessKeyId": "from-file", "AccessKeySecret": "s", "SecurityToken": "st"}')
    both = {**KEYS, "dlf.token-path": str(token)}
    assert RestAuth(both).credentials.token().access_key_id == "from-file"  # the file before the keys
    loader = {**both, "dlf.token-loader": "ecs", "dlf.token-ecs-metadata-url": "http://127.0.0.1:1/"}
    assert type(RestAuth(loader).credentials.source).__name__ == "EcsMetadata"  # the loader first
    assert RestAuth(KEYS).credentials.token().access_key_id == "a"
    with pytest.raises(InvalidInput, match="dlf.token-path"):
        RestAuth({**KEYS, "dlf.token-loader": "local_file"})
    signed = RestAuth({**both, "dlf.signing-algorithm": "openapi"}).headers("GET", "/v1/config", {}, None)
    assert signed["x-acs-security-token"] == "st" and signed["Authorization"].startswith("acs from-file:")
