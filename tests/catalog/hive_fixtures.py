"""The session's Hive Metastore, a plugin of tests/conftest.py: the catalog tests and the fault
harness share one per worker (a fixture imported into another module would start its own)."""

from __future__ import annotations

import atexit

import pytest


@pytest.fixture(scope="session")
def hive_ms():
    """A Hive Metastore 2.3 (PySpark's jars) on 127.0.0.1 for the session; ~40 s to start."""
    from tests.catalog import hive_metastore

    if hive_metastore.pyspark_jars() is None:
        pytest.skip("pyspark's jars with the Hive Metastore are not installed")
    server = hive_metastore.start()
    atexit.register(server.stop)
    yield server
    server.stop()
