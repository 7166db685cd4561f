"""Markers for the test lanes, given by where a test lives and which servers it uses:

* ``interop``: Java Paimon 0.9 or pypaimon 2.1.0 (tests/interop, or the ``java``/``pypaimon`` fixtures)
* ``spark``: a Spark session or cluster (tests/spark, or the ``engine``/``spark`` fixtures)
* ``s3``: the SeaweedFS S3 server (tests/s3, or the ``s3_*`` fixtures)
* ``safety``: crash, corruption and concurrency proofs (tests/safety)
* ``slow``: all of the above, and tests marked by hand that take seconds

``pytest -m "not slow"`` is the quick loop for development; the README's test command runs all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
LANE_DIRS = {"interop": "interop", "spark": "spark", "s3": "s3", "safety": "safety"}
LANE_FIXTURES = {
    "interop": {"java", "pypaimon"},
    "spark": {"engine", "spark", "spark_session", "local_spark"},
    "s3": {"s3_server", "s3_bucket", "s3_warehouse"},
}


def lanes_of(item: pytest.Item) -> set[str]:
    found = set()
    try:
        top = Path(str(item.fspath)).resolve().relative_to(TESTS).parts[0]
    except ValueError:
        top = ""
    if top in LANE_DIRS:
        found.add(LANE_DIRS[top])
    names = set(getattr(item, "fixturenames", ()))
    found.update(lane for lane, fixtures in LANE_FIXTURES.items() if names & fixtures)
    return found


def pytest_collection_modifyitems(config, items):
    for item in items:
        lanes = lanes_of(item)
        for lane in sorted(lanes):
            item.add_marker(lane)
        if lanes:
            item.add_marker("slow")
