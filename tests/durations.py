"""Where a test run's time goes: a pytest plugin that writes one JSON record per test phase and
per fixture set-up, for ``scripts/test_durations.py`` to summarise.

Each test's report carries, in ``user_properties``, the fixtures whose set-up ran for it with their
wall time (a session fixture shows on the first test that needed it). pytest-xdist ships
``user_properties`` from its workers, so the controller sees every record and writes the file
alone. The file is ``--durations-file`` (default ``build/test-durations.json``, beside the other
build output; empty disables it).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

FIXTURE_KEY = "fixture_setup"
MARKS_KEY = "marks"
_current: list[pytest.Item] = []


def pytest_addoption(parser):
    parser.addoption(
        "--durations-file",
        default="build/test-durations.json",
        help="write each test phase's and fixture set-up's wall time here (scripts/test_durations.py); '' disables",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    item.user_properties.append((MARKS_KEY, sorted({m.name for m in item.iter_markers()})))
    _current.append(item)
    try:
        yield
    finally:
        _current.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    start = time.perf_counter()
    yield
    if _current:
        spent = time.perf_counter() - start
        _current[-1].user_properties.append(
            (FIXTURE_KEY, [fixturedef.argname, fixturedef.scope, round(spent, 4)])
        )


def _worker(report) -> str:
    """The xdist worker that ran the test ("gw0", ...), or "main" without xdist."""
    node = getattr(report, "node", None)
    gateway = getattr(node, "gateway", None)
    return getattr(gateway, "id", None) or "main"


class _Recorder:
    def __init__(self, path: Path):
        self.path = path
        self.records: list[dict] = []
        self.started = time.time()

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report):
        rec = {
            "nodeid": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "duration": round(report.duration, 4),
            "worker": _worker(report),
            "marks": next((v for k, v in report.user_properties if k == MARKS_KEY), []),
        }
        if report.when == "setup":
            rec["fixtures"] = [v for k, v in report.user_properties if k == FIXTURE_KEY]
        self.records.append(rec)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"started": self.started, "wall": round(time.time() - self.started, 2), "records": self.records}
        self.path.write_text(json.dumps(doc))


def pytest_configure(config):
    path = config.getoption("durations_file")
    if path and not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        config.pluginmanager.register(_Recorder(Path(config.rootpath) / path), "durations-recorder")
