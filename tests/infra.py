"""What the test lanes need from the machine (a JDK, pyspark, the SeaweedFS binary, the console
script): locally a missing piece skips its tests; with the environment variable ``CI`` set it
fails them, since there a skip would hide a missing install step."""

from __future__ import annotations

import os
import socket
import sys
from typing import NoReturn

import pytest


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server a test starts on loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_DEFAULT_SIGINT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"


def with_default_sigint(argv: list[str]) -> list[str]:
    """``argv`` exec'd by a small launcher that first sets SIGINT back to its default action. A
    test run started in the background (``pytest &``, ``nohup``) ignores SIGINT, children inherit
    that, and Python then installs no KeyboardInterrupt handler, so a test's Ctrl-C would be lost.
    Not a ``preexec_fn``: it runs in the forked child of a process with threads (a pytest worker
    with engine threads), where it can deadlock, as Python's documentation warns (it did, in CI)."""
    return [sys.executable, "-I", "-S", "-c", _DEFAULT_SIGINT, *argv]


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def missing(what: str) -> NoReturn:
    """Skip (locally) or fail (CI) the current test or module because ``what`` is missing."""
    if in_ci():
        pytest.fail(f"{what}; CI is set, so this fails instead of skipping", pytrace=False)
    pytest.skip(what, allow_module_level=True)
