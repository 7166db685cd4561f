"""The xdist groups (tests/xdist_groups.py) name every module whose tests use a group's session
engine, so that engine starts on one worker only."""

from __future__ import annotations

import re
from pathlib import Path

from tests.xdist_groups import ENGINE_GROUPS, LONG_MODULES, base_group, group_of

TESTS = Path(__file__).resolve().parent
SIGNATURE = re.compile(r"^\s*def \w+\(([^)]*)\)", re.M | re.S)


def _uses(source: str, fixture: str) -> bool:
    return any(re.search(rf"\b{fixture}\b", params) for params in SIGNATURE.findall(source))


def _defined_in(fixture: str) -> list[Path]:
    """The folders whose conftest.py defines `fixture`: only tests under them can use it (every
    test, for a plugin of tests/conftest.py's ``pytest_plugins``)."""
    from tests.conftest import pytest_plugins

    defines = re.compile(rf"^def {fixture}\(", re.M)
    plugins = [TESTS.parent.joinpath(*name.split(".")).with_suffix(".py") for name in pytest_plugins]
    found = [c.parent for c in TESTS.rglob("conftest.py") if defines.search(c.read_text())]
    found += [TESTS for p in plugins if defines.search(p.read_text())]
    assert found, f"no conftest.py or plugin defines {fixture}"
    return found


def _imports(source: str, fixture: str) -> bool:
    """A module importing the fixture from a conftest elsewhere (and using it, maybe dynamically)."""
    return bool(re.search(rf"^from tests\.[\w.]+ import .*\b{fixture}\b", source, re.M))


def test_engine_groups_name_every_user():
    missing = []
    for group, (fixtures, _) in ENGINE_GROUPS.items():
        for fixture in fixtures:
            folders = _defined_in(fixture)
            for path in sorted(TESTS.rglob("test_*.py")):
                source = path.read_text()
                under = any(folder in path.parents for folder in folders)
                if (under and _uses(source, fixture)) or _imports(source, fixture):
                    rel = path.relative_to(TESTS.parent).as_posix()
                    if base_group(f"{rel}::t") != group:
                        missing.append((rel, group))
    assert missing == [], f"modules using a group's engine outside its prefixes: {missing}"


def test_groups_keep_other_modules_apart():
    assert group_of("tests/cli/test_read.py::test_x[a]") == "tests/cli/test_read.py"
    assert group_of("tests/spark/test_spark_cli.py::test_y") == "spark-engines"
    assert group_of("tests/spark/test_spark_engine.py::test_z[local-raise:write]") == "spark-engines[local]"
    assert group_of("tests/lanes/test_flink_batch.py::test_w[flink20-fixed]") == "flink-lane[flink20]"


def test_long_modules_exist_and_stand_alone():
    for module in LONG_MODULES:
        assert (TESTS.parent / module).is_file(), module
        assert group_of(f"{module}::t") == module, f"{module} is in an engine group: ranked there"
