"""Session fixtures of the lanes: one Flink and one Spark driver per test session.

`flink` and `spark_connector` start their engine on first use and stop it at the session's end;
their logs are kept in the session's temporary folder (a failure quotes their tails).
"""

from __future__ import annotations

import pytest

from .engines import start_flink, start_spark
from .envs import FLINK_VERSIONS


@pytest.fixture(
    scope="session", params=list(FLINK_VERSIONS), ids=[f"flink{v.replace('.', '')}" for v in FLINK_VERSIONS]
)
def flink(request, tmp_path_factory):
    """The session's Flink of one version (every Flink test runs on each: `-k flink20` one lane)."""
    root = tmp_path_factory.mktemp(f"flink-{request.param}-lane")
    driver = start_flink(
        root / "flink.log", checkpoint_interval="1s", version=request.param
    )  # for its streaming jobs
    yield driver
    driver.close()


@pytest.fixture(scope="session")
def spark_connector(tmp_path_factory):
    root = tmp_path_factory.mktemp("spark-lane")
    (root / "wh").mkdir()
    driver = start_spark(root / "spark.log", root / "wh")
    yield driver
    driver.close()


from tests.interop.conftest import java20  # noqa: E402,F401 - Java Paimon 2.0.0 writes the lanes' twins
