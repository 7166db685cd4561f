"""How the suite splits over pytest-xdist workers (``-n 2 --dist loadgroup``, the README's test
command): the modules sharing a session engine run on one worker, so each engine starts once per
run; every other module is a unit of its own, so its module fixtures are set up once.

xdist's own ``loadgroup`` reads ``xdist_group`` marks through a node id suffix that pytest 9 no
longer keeps, so this plugin brings its own scheduler (xdist's scope scheduler with our scopes).
The controller sees node ids only, so a group is named by the modules whose tests use the
engine's fixture (`ENGINE_GROUPS`; tests/test_xdist_groups.py keeps it true).

The engine groups are scheduled first, in `ENGINE_GROUPS` order (the longest first), then the
`LONG_MODULES`, so that no worker picks up a long unit at the end while the other one idles: each worker collects the
tests in that order (a stable sort after pytest's own reordering, which keeps each session
parameter's tests together), and xdist's reordering by test count is off. A group whose engine
is parametrised (Flink 1.20/2.0; local, Connect, standalone Spark) is one unit per parameter.
"""

from __future__ import annotations

import pytest

# group -> (the session fixtures it shares, the module path prefixes whose tests use them)
ENGINE_GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "flink-lane": (("flink",), ("tests/lanes/test_flink_",)),
    "spark-engines": (("engine",), ("tests/spark/",)),  # local, Connect and standalone Spark
    "spark35-lane": (("spark_connector",), ("tests/lanes/test_spark_connector",)),
    # the HDFS lane shares the worker of the Hive Metastore, which one of its tests uses
    "hive-metastore": (
        ("hive_ms", "java_hive", "hdfs_cluster"),
        ("tests/catalog/test_hive_", "tests/safety/test_faults.py", "tests/hdfs/"),
    ),
}


# a group whose engine fixture is parametrised splits into one unit per parameter (each worker
# starts only the engines of the units it runs): the parameter's id, one "-" part of a test's id
SPLIT_BY_PARAM = {
    "flink-lane": ("flink120", "flink20"),
    "spark-engines": ("local", "connect", "standalone"),
}


def group_of(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    for group, (_, prefixes) in ENGINE_GROUPS.items():
        if module.startswith(prefixes):
            params = nodeid[nodeid.find("[") + 1 : -1].split("-") if nodeid.endswith("]") else []
            found = [p for p in SPLIT_BY_PARAM.get(group, ()) if p in params]
            return f"{group}[{found[0]}]" if found else group
    return module


def base_group(nodeid: str) -> str:
    return group_of(nodeid).split("[", 1)[0]


# then the modules that take longest (40 s or more of test time in a CI run, longest first), so
# that the short modules fill the end of the run on both workers
LONG_MODULES = (
    "tests/safety/test_signals.py",
    "tests/safety/test_concurrency.py",
    "tests/s3/test_s3_tables.py",
    "tests/cli/test_stream_crash.py",
    "tests/interop/test_file_formats_interop.py",
    "tests/safety/test_crash.py",
    "tests/core/engines/test_sql_aggregates.py",
    "tests/lanes/test_trino.py",
    "tests/interop/test_cross_partition_interop.py",
    "tests/interop/test_merge_matrix_interop.py",
    "tests/s3/test_s3_cli.py",
    "tests/cli/test_readme_blocks.py",
)


def _rank(nodeid: str) -> int:
    order = [*ENGINE_GROUPS, *LONG_MODULES]
    group = base_group(nodeid)
    return order.index(group) if group in order else len(order)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(config, items):
    yield
    if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
        items.sort(key=lambda item: _rank(item.nodeid))  # stable


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # keep our order (xdist would sort units by test count)

    class EngineGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return EngineGroupScheduling(config, log)
