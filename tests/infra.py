"""What the test lanes need from the machine (a JDK, pyspark, the SeaweedFS binary, the console
script): locally a missing piece skips its tests; with the environment variable ``CI`` set it
fails them, since there a skip would hide a missing install step."""

from __future__ import annotations

import os
import socket
from typing import NoReturn

import pytest


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server a test starts on loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def missing(what: str) -> NoReturn:
    """Skip (locally) or fail (CI) the current test or module because ``what`` is missing."""
    if in_ci():
        pytest.fail(f"{what}; CI is set, so this fails instead of skipping", pytrace=False)
    pytest.skip(what, allow_module_level=True)
