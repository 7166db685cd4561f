"""Session fixtures for the interop tests: the Java Paimon 0.9 and pypaimon 2.1.0 drivers, with
their caches warmed once per session (jar download/compilation, CDS archive, pypaimon venv).

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


def _have_java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return bool((home and (Path(home) / "bin" / "java").exists()) or shutil.which("java"))


@pytest.fixture(scope="session")
def java() -> JavaPaimon:
    if not _have_java():
        missing("no JDK on PATH or JAVA_HOME: Java Paimon 0.9 interop tests need Java 17")
    j = JavaPaimon()
    j.command()  # fetch jars, compile the driver, build the CDS archive (once, file-locked)
    return j


@pytest.fixture(scope="session")
def pypaimon() -> PyPaimon:
    p = PyPaimon()
    p.command()  # build the pypaimon 2.1.0 venv (once, file-locked)
    return p
