"""CLI test fixtures: an isolated home and working directory, a warehouse, data files.

Every test runs in its own ``tmp_path`` as cwd with ``HOME`` pointing inside it and the
PAIMON_* variables unset, so no user config or environment leaks in.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from tests.cli import rest_lane

SCHEMA = "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING"


def pytest_generate_tests(metafunc):
    """``catalog_lane``: ``fs`` and ``rest`` where ``rest_lane`` runs the test through REST
    (other tests keep their ids and run on the filesystem catalog alone)."""
    if "catalog_lane" not in metafunc.fixturenames:
        return
    if rest_lane.runs_rest(metafunc.definition.nodeid, metafunc.config.getoption("rest_lane") == "full"):
        rest = pytest.param("rest", marks=[pytest.mark.rest_lane, pytest.mark.slow])
        metafunc.parametrize("catalog_lane", ["fs", rest], indirect=True)


@pytest.fixture(scope="session")
def rest_lane_server(tmp_path_factory):
    """The REST lane's server: every warehouse folder under the session's temp root."""
    from tests.rest_support import RestServer

    server = RestServer(tmp_path_factory.getbasetemp(), warehouse_root=True)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def catalog_lane(request):
    """The catalog the CLI runs with: ``fs`` (none given) or ``rest`` (``rest_lane.FLAGS``)."""
    lane = getattr(request, "param", "fs")
    if lane == "rest":
        server = request.getfixturevalue("rest_lane_server")
        rest_lane.FLAGS[:] = server.cli_flags()
    yield lane
    rest_lane.FLAGS.clear()


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    for var in ("PAIMON_WAREHOUSE", "PAIMON_TABLE", "COLUMNS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


class Cli:
    """Runs ``paimon`` in-process; ``wh`` is passed as --warehouse unless ``warehouse=False``."""

    def __init__(self, wh: Path):
        self.wh = wh
        self.runner = CliRunner()

    def __call__(self, *args: str, warehouse: bool = True, env: dict | None = None, code: int | None = 0):
        argv = rest_lane.FLAGS + (["-w", str(self.wh)] if warehouse else []) + [str(a) for a in args]
        result = self.runner.invoke(app, argv, env=env)
        if code is not None:
            assert result.exit_code == code, (
                f"paimon {' '.join(argv)} -> {result.exit_code}\nstdout: {result.stdout}\n"
                f"stderr: {result.stderr}\nexception: {result.exception!r}"
            )
        return result

    def json(self, *args: str, **kw) -> list[dict]:
        out = self("-o", "json", *args, **kw).stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def snapshot_ids(self, table: str) -> list[int]:
        return [r["id"] for r in self.json("snapshots", "-t", table)]


@pytest.fixture
def wh(tmp_path) -> Path:
    return tmp_path / "wh"


@pytest.fixture
def cli(wh) -> Cli:
    return Cli(wh)


def events(n: int = 10, start: int = 0, days=("2024-01-01", "2024-01-02")) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": [f"n{i}" for i in ids],
            "value": [i / 2 for i in ids],
            "dt": [days[i % len(days)] for i in ids],
        }
    )


def write_parquet(path: Path, table: pa.Table) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path


@pytest.fixture
def events_table(cli) -> str:
    """demo.events (partitioned by dt) with one snapshot of 10 rows."""
    cli("create-table", "demo.events", "--schema", SCHEMA, "--partition", "dt")
    cli("ingest", write_parquet(Path("in/e1.parquet"), events(10)), "-t", "demo.events")
    return "demo.events"


def run_paimon(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real console entry point in a subprocess (exit codes and stderr as a user sees them)."""
    import os

    full_env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "paimon_cli", *rest_lane.FLAGS, *map(str, args)],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
