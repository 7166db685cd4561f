"""Storage options as users write them map to s3fs's and pyarrow's arguments (no server)."""

from __future__ import annotations

import pytest

from paimon_core.errors import InvalidInput
from paimon_core.storage.file_io import FileIO
from paimon_core.storage.s3 import S3Options


@pytest.fixture(autouse=True)
def _clean_aws_env(monkeypatch):
    for k in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(k, raising=False)


def test_toml_storage_table_maps_to_s3fs():
    o = S3Options.parse(
        {
            "endpoint": "http://h:9000",
            "access_key_id": "AK",
            "secret_access_key": "SK",
            "region": "eu-west-1",
            "path_style": True,
        }
    )
    assert o.s3fs_kwargs() == {
        "key": "AK",
        "secret": "SK",
        "use_listings_cache": False,
        "client_kwargs": {"endpoint_url": "http://h:9000", "region_name": "eu-west-1"},
        "config_kwargs": {"s3": {"addressing_style": "path"}},
    }


@pytest.mark.parametrize(
    "opts",
    [
        {"endpoint_url": "http://h:9000", "key": "AK", "secret": "SK", "path-style": "true"},
        {
            "s3.endpoint": "http://h:9000",
            "s3.access-key": "AK",
            "s3.secret-key": "SK",
            "s3.path.style.access": "true",
        },
        {"Endpoint": "http://h:9000", "AWS_ACCESS_KEY_ID": "AK", "aws_secret_access_key": "SK"},
    ],
)
def test_spellings_are_equivalent(opts):
    kw = S3Options.parse(opts).s3fs_kwargs()
    assert kw["key"] == "AK" and kw["secret"] == "SK"
    assert kw["client_kwargs"] == {"endpoint_url": "http://h:9000", "region_name": "us-east-1"}
    assert kw["config_kwargs"] == {"s3": {"addressing_style": "path"}}


def test_nothing_given_leaves_it_to_the_aws_environment():
    assert S3Options.parse({}).s3fs_kwargs() == {"use_listings_cache": False}


def test_s3fs_arguments_pass_through_and_unsafe_commits_does_not():
    o = S3Options.parse(
        {
            "requester_pays": True,
            "unsafe-commits": "true",
            "config_kwargs": {"s3": {"addressing_style": "virtual"}},
        }
    )
    assert o.unsafe_commits
    assert o.s3fs_kwargs() == {
        "requester_pays": True,
        "use_listings_cache": False,
        "config_kwargs": {"s3": {"addressing_style": "virtual"}},
    }


def test_bad_values_are_clear():
    with pytest.raises(InvalidInput, match="path_style"):
        S3Options.parse({"path_style": "maybe"})
    with pytest.raises(InvalidInput, match="repeats"):
        S3Options.parse({"key": "a", "access_key_id": "b"})


def test_arrow_filesystem_uses_the_same_endpoint_and_credentials():
    fs = S3Options.parse(
        {"endpoint": "http://127.0.0.1:9000", "key": "AK", "secret": "SK"}
    ).arrow_filesystem()
    args = fs.__reduce__()[1][0]
    assert (args["endpoint_override"], args["scheme"], args["region"]) == (
        "127.0.0.1:9000",
        "http",
        "us-east-1",
    )
    assert (args["access_key"], args["secret_key"], args["force_virtual_addressing"]) == ("AK", "SK", False)


def test_native_arrow_only_when_every_option_translates():
    import pyarrow.fs as pafs

    native = FileIO("s3://b/wh", {"endpoint": "http://127.0.0.1:9", "key": "a", "secret": "b"})
    assert isinstance(native.arrow_fs, pafs.S3FileSystem)
    other = FileIO("s3://b/wh", {"endpoint": "http://127.0.0.1:9", "requester_pays": True})
    assert isinstance(other.arrow_fs, pafs.PyFileSystem)
