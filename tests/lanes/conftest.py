"""Session fixtures of the lanes: one Flink driver per Flink version and one Spark driver per
test session, and Java Paimon 2.0.0 (which writes the ClickHouse lane's twin tables).

`flink` and `spark_connector` start their engine on first use and stop it at the session's end;
their logs are kept in the session's temporary folder (a failure quotes their tails).
"""

from __future__ import annotations

import pytest

from tests.interop.conftest import java20  # noqa: F401 - Java Paimon 2.0.0 writes the lanes' twins

from .engines import start_flink, start_spark
from .envs import FLINK_VERSIONS


def pytest_generate_tests(metafunc):
    """A test taking `flink` runs on each Flink version, or on those its `flink_versions` mark
    names (the 2.0 lane takes batch both ways and the lookup streaming job, not every 1.20 case:
    the suite's time budget)."""
    if "flink" in metafunc.fixturenames:
        mark = metafunc.definition.get_closest_marker("flink_versions")
        versions = list(mark.args) if mark else list(FLINK_VERSIONS)
        ids = [f"flink{v.replace('.', '')}" for v in versions]
        metafunc.parametrize("flink", versions, indirect=True, ids=ids, scope="session")


@pytest.fixture(scope="session")
def flink(request, tmp_path_factory):
    """The session's Flink of one version, for its batch SQL and streaming jobs (`-k flink20`
    runs one lane)."""
    root = tmp_path_factory.mktemp(f"flink-{request.param}-lane")
    driver = start_flink(root / "flink.log", checkpoint_interval="1s", version=request.param)
    yield driver
    driver.close()


@pytest.fixture(scope="session")
def spark_connector(tmp_path_factory):
    root = tmp_path_factory.mktemp("spark-lane")
    (root / "wh").mkdir()
    driver = start_spark(root / "spark.log", root / "wh")
    yield driver
    driver.close()
