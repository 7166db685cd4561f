"""The catalog tests' own setup: what they need is fetched or named, never silently skipped."""

from __future__ import annotations

import zipfile

import pytest

from tests.catalog import conftest, postgres
from tests.interop.harness.jdbc_jars import ensure_jdbc_jars


def test_a_missing_postgres_server_fails_naming_the_package(monkeypatch):
    monkeypatch.setattr(postgres, "bin_dir", lambda: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install postgresql"):
        conftest.require_postgres()


def test_the_jdbc_drivers_come_from_the_interop_cache():
    """Both driver jars are in the cache (downloaded from Maven Central on first use) and hold
    the driver classes Java Paimon's JdbcCatalog loads by URI."""
    jars = ensure_jdbc_jars()
    classes = {"org/postgresql/Driver.class", "org/sqlite/JDBC.class"}
    found = set()
    for jar in jars:
        with zipfile.ZipFile(jar) as z:
            found |= classes & set(z.namelist())
    assert found == classes
