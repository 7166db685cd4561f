"""Session fixtures for the interop tests: the Java Paimon (0.9, 1.4.2, 2.0.0) and pypaimon 2.1.0
drivers, with their caches warmed once per session (jar download/compilation, CDS archive, pypaimon venv).

`java` is parametrised over JAVA_VERSIONS: every test that takes it (here, and in tests/catalog,
tests/safety, which import it) runs once per Java release, with the ids `java09` and `java14`
(`pytest -k java14` runs one lane); a module may set its own `JAVA_VERSIONS` (the system tables
add 2.0.0, id `java20`). A test that needs to know which release it talks to reads
`java.version` ("0.9", "1.4.2" or "2.0.0").

The tests skip when no JDK is installed (`java` not on PATH / JAVA_HOME), and fail instead when
the environment variable CI is set; any other failure to prepare a reference implementation is
an error, not a skip.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.infra import missing
from tests.interop.harness import JavaPaimon, PyPaimon
from tests.interop.harness.java_paimon import VERSIONS, version_id

# the releases every `java` test runs on; 2.0.0 writes the layouts 1.4.2 writes, so it has its own
# modules (the `java20` fixture: every table kind both ways, the fixtures, the metadata conformance)
# rather than a third run of each test
JAVA_VERSIONS = ("0.9", "1.4.2")
assert set(JAVA_VERSIONS) <= set(VERSIONS)


def _have_java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return bool((home and (Path(home) / "bin" / "java").exists()) or shutil.which("java"))


def parametrize_java(metafunc: pytest.Metafunc) -> None:
    """Every test taking ``java`` runs once per release in its module's ``JAVA_VERSIONS`` (all
    of them unless the module narrows it, naming the differences it has not pinned yet); called
    by tests/conftest.py's pytest_generate_tests, so tests/catalog and tests/safety get it too."""
    if "java" in metafunc.fixturenames:
        versions = getattr(metafunc.module, "JAVA_VERSIONS", JAVA_VERSIONS)
        ids = [version_id(v) for v in versions]
        metafunc.parametrize("java", versions, indirect=True, ids=ids, scope="session")


@pytest.fixture(scope="session")
def java(request: pytest.FixtureRequest) -> JavaPaimon:
    """Java Paimon of the release the test is parametrised with (see parametrize_java)."""
    return _java_driver(request.param)


def _java_driver(version: str) -> JavaPaimon:
    if not _have_java():
        missing("no JDK on PATH or JAVA_HOME: the Java Paimon interop tests need Java 17")
    j = JavaPaimon(version=version)
    j.command()  # fetch jars, compile the driver, build the CDS archive (once, file-locked)
    return j


@pytest.fixture(scope="session")
def java_releases() -> tuple[JavaPaimon, ...]:
    """Every release of JAVA_VERSIONS at once, for a test whose own work does not depend on the
    release and ends with Java reads (the fault harness): the work runs once, not once per
    release, and each release checks its result."""
    return tuple(_java_driver(v) for v in JAVA_VERSIONS)


@pytest.fixture(scope="session")
def java14() -> JavaPaimon:
    """Java Paimon 1.4.2 alone (not parametrised), for tests of what only 1.x writes (ORC
    manifests, row tracking, BLOB, ...): name such a test module ``*java14*`` so ``-k java14`` keeps it."""
    return _java_driver("1.4.2")


@pytest.fixture(scope="session")
def java20() -> JavaPaimon:
    """Java Paimon 2.0.0 alone (not parametrised): name such a test module ``*java20*``."""
    return _java_driver("2.0.0")


@pytest.fixture(scope="session")
def pypaimon() -> PyPaimon:
    p = PyPaimon()
    p.command()  # build the pypaimon 2.1.0 venv (once, file-locked)
    return p
