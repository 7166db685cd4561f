"""The HDFS lane's fixtures: one MiniDFSCluster per session (``cluster.py``), a fresh warehouse
folder on it per test, and Java Paimon 2.0.0 to read and write the same tables."""

from __future__ import annotations

import uuid

import pytest

from tests.hdfs import cluster


@pytest.fixture(scope="session")
def hdfs_cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("minihdfs")
    c = cluster.start(base / "data", base / "cluster.log")
    yield c
    c.stop()


@pytest.fixture
def hdfs_wh(hdfs_cluster) -> str:
    """``hdfs://127.0.0.1:PORT/wh-<id>``: a warehouse of this test alone."""
    return f"{hdfs_cluster.url}/wh-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def java20_hdfs():
    """Java Paimon 2.0.0 (the interop harness's driver: its Hadoop client reaches hdfs://)."""
    from tests.interop.conftest import _java_driver

    return _java_driver("2.0.0")
