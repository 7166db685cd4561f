"""What the test lanes need from the machine (a JDK, pyspark, the SeaweedFS binary, the console
script): locally a missing piece skips its tests; with the environment variable ``CI`` set it
fails them, since there a skip would hide a missing install step."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def missing(what: str) -> NoReturn:
    """Skip (locally) or fail (CI) the current test or module because ``what`` is missing."""
    if in_ci():
        pytest.fail(f"{what}; CI is set, so this fails instead of skipping", pytrace=False)
    pytest.skip(what, allow_module_level=True)
