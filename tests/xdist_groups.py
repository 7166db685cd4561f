"""How the suite splits over pytest-xdist workers (``-n 2 --dist loadgroup``, the README's test
command): the tests sharing a session engine run on one worker, so each engine starts once per
run; every other test goes with its module, so module fixtures are set up once.

The engine groups are scheduled first, in `ENGINE_GROUPS` order, so that no worker picks up a
long group at the end while the other one idles. Runs after pytest's own reordering (which keeps
each session parameter's tests together) and after deselection.
"""

from __future__ import annotations

import pytest

ENGINE_GROUPS = {  # session fixture -> group
    "engine": "spark-engines",  # local, Connect and standalone Spark (tests/spark)
    "flink": "flink-lane",
    "spark_connector": "spark35-lane",
    "hive_ms": "hive-metastore",
    "java_hive": "hive-metastore",
}


def xdist_group_of(item: pytest.Item) -> str:
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for fixture, group in ENGINE_GROUPS.items():
        if any(d.scope == "session" for d in defs.get(fixture, ())):
            return group
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    if getattr(config.option, "dist", "no") != "loadgroup":
        return
    groups = {id(item): xdist_group_of(item) for item in items}
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[id(item)]))
    order = {g: i for i, g in enumerate(dict.fromkeys(ENGINE_GROUPS.values()))}
    items.sort(key=lambda item: order.get(groups[id(item)], len(order)))  # stable
