"""Suite-wide settings.

Markers for the test lanes, given by where a test lives and which servers it uses:

* ``interop``: Java Paimon 0.9 or pypaimon 2.1.0 (tests/interop, or the ``java``/``pypaimon`` fixtures)
* ``spark``: a Spark session or cluster (tests/spark, or the ``engine``/``spark`` fixtures)
* ``s3``: the SeaweedFS S3 server (tests/s3, or the ``s3_*`` fixtures)
* ``safety``: crash, corruption and concurrency proofs (tests/safety)
* ``catalog``: Hive Metastore and PostgreSQL servers for the catalogs (tests/catalog)
* ``lanes``: Flink 1.20 and Spark 3.5 with Paimon's own connectors (tests/lanes)
* ``slow``: all of the above, and tests marked by hand that take seconds

``pytest -m "not slow"`` is the quick loop for development; the README's test command runs all.

Hypothesis profiles and the seed of a run:

* ``CI`` set: the ``ci`` profile, derandomized (every run draws the same examples) with a fixed
  default example count, so a CI failure is reproducible as is.
* otherwise the ``dev`` profile: random examples from one seed per run, printed in the header
  and after failures; ``pytest --hypothesis-seed=N`` replays a run.
Both print the ``@reproduce_failure`` blob of a failing example.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from tests.infra import in_ci

# build/test-durations.json (scripts/test_durations.py); the xdist groups of the README's command
pytest_plugins = ["tests.durations", "tests.xdist_groups", "tests.s3.fixtures", "tests.catalog.hive_fixtures"]

TESTS = Path(__file__).resolve().parent
LANE_DIRS = {
    "interop": "interop",
    "spark": "spark",
    "s3": "s3",
    "safety": "safety",
    "catalog": "catalog",
    "lanes": "lanes",
}
LANE_FIXTURES = {
    "interop": {"java", "java_releases", "java14", "java20", "pypaimon"},
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


def pytest_addoption(parser):
    parser.addoption(
        "--rest-lane",
        choices=("subset", "full"),
        default="subset",
        help="CLI tests through --catalog rest: the named subset (default) or all (tests/cli/rest_lane.py)",
    )
    parser.addoption(
        "--manifest-cache",
        choices=("default", "disk"),
        default="default",
        help="disk: every manifest read in the test processes goes through the disk cache (no "
        "process-wide cache, small local manifests kept too), so the tests run on the cached path",
    )


def pytest_generate_tests(metafunc):
    from tests.interop.conftest import parametrize_java

    parametrize_java(metafunc)


def pytest_collection_modifyitems(config, items):
    for item in items:
        lanes = lanes_of(item)
        for lane in sorted(lanes):
            item.add_marker(lane)
        if lanes:
            item.add_marker("slow")


settings.register_profile(
    "ci", derandomize=True, max_examples=50, deadline=None, print_blob=True, database=None
)
settings.register_profile("dev", deadline=None, print_blob=True)
_SEED: int | None = None
_MANIFEST_CACHE: str | None = None  # the disk cache folder this process made for the run


def pytest_configure(config):
    global _SEED
    settings.load_profile("ci" if in_ci() else "dev")
    # the disk cache of decoded manifests in a folder of this run (each xdist worker its own,
    # shared with the CLI processes its tests start), never the user's ~/.cache
    global _MANIFEST_CACHE
    if config.getoption("manifest_cache", "default") == "disk":
        from paimon_core.metadata import manifest_cache, manifest_disk_cache

        manifest_disk_cache.MIN_LOCAL_ENTRIES = 0
        manifest_cache.MAX_ENTRIES = -1  # holds nothing: each read is a disk-cache load after the first
    if "PAIMON_MANIFEST_CACHE" not in os.environ:
        _MANIFEST_CACHE = os.environ["PAIMON_MANIFEST_CACHE"] = tempfile.mkdtemp(
            prefix="paimon-manifest-cache-"
        )
    # every Spark 4 JVM of the run (in process or not) starts from the cached Spark home, whose
    # class-data archive outlives the venv (tests/spark/jvm.py); other venvs' pysparks drop it
    if importlib.util.find_spec("pyspark") is not None:
        from tests.spark.jvm import spark_home

        os.environ["SPARK_HOME"] = str(spark_home())
    if in_ci():
        return
    given = config.getoption("hypothesis_seed", None)
    if given is None:
        from hypothesis import core

        _SEED = random.randrange(2**32)
        core.global_force_seed = _SEED  # what --hypothesis-seed sets
    else:
        _SEED = int(given)


def pytest_unconfigure(config):
    if _MANIFEST_CACHE is not None:
        shutil.rmtree(_MANIFEST_CACHE, ignore_errors=True)


def pytest_report_header(config):
    if in_ci():
        return "hypothesis: profile ci (derandomized)"
    return f"hypothesis: profile dev, seed {_SEED} (replay: --hypothesis-seed={_SEED})"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if terminalreporter.stats.get("failed") and not in_ci():
        terminalreporter.write_line(
            f"hypothesis seed of this run: {_SEED} (replay: --hypothesis-seed={_SEED})"
        )


@pytest.fixture(scope="session")
def rest_server(tmp_path_factory):
    """``paimon rest-server`` over a fresh warehouse on 127.0.0.1, token ``rest_support.TOKEN``,
    shared by the session (each test uses its own database names); stopped by its pid."""
    from tests.rest_support import RestServer, SpecClient

    SpecClient.load_spec()
    server = RestServer(tmp_path_factory.mktemp("rest") / "warehouse")
    yield server
    server.stop()
