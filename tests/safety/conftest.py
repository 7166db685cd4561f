"""Fixtures of the safety lane: a warehouse on the local filesystem or on S3 (SeaweedFS, the
fixture of tests/s3), tables, and child processes forked from a preloaded fork server."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.schema import Schema
from tests.interop.conftest import java, java_releases  # noqa: F401
from tests.s3.conftest import _no_instance_metadata  # noqa: F401

# every module a child imports (one that is missing here is imported again by every child: pandas,
# which pyarrow imports at the first conversion of a Python list, cost each child 0.5 s)
PRELOAD = [
    "tests.safety.worker",
    "tests.safety.sites",
    "paimon_core.catalog",
    "paimon_core.ops.ingest",
    "paimon_core.ops.rescale",
    "paimon_core.compaction.compaction",
    "paimon_core.compaction.partition_rewrite",
    "paimon_core.maintain",
    "paimon_core.maintain.after_commit",
    "paimon_core.metadata.consumer",
    "paimon_core.read.count",
    "paimon_core.write.kv_writer",
    "paimon_core.write.append_writer",
    "paimon_core.write.dynamic_bucket",
    "paimon_core.write.postpone",
    "paimon_core.engines.local",
    "pyarrow.parquet",
    "pyarrow.dataset",
    "pyarrow.pandas_compat",
    "pandas",
    "s3fs",
]

_ctx = None


def mp():
    """A forkserver context: children start in milliseconds from a server that imported the
    library once and never ran Arrow threads (forking a process that did is unsafe)."""
    global _ctx
    if _ctx is None:
        os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
        _ctx = multiprocessing.get_context("forkserver")
        _ctx.set_forkserver_preload(PRELOAD)
    return _ctx


def start(role: str, cfg: dict):
    from tests.safety import worker

    p = mp().Process(target=worker.main, args=(role, cfg), name=f"{role}")
    p.start()
    p.stacks = cfg["out"] + ".stacks" if cfg.get("out") else None  # type: ignore[attr-defined]
    return p


def join_all(procs, timeout: float) -> None:
    """Join the children within ``timeout`` seconds in all; any child still running then is
    killed (SIGKILL) and the test fails naming it, with the stacks it was in (SIGUSR1 first), so
    a hang fails one test, not the run, and says where it hung."""
    import signal
    import time

    deadline = time.monotonic() + timeout
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    hung = [p for p in procs if p.is_alive()]
    for p in hung:
        os.kill(p.pid, signal.SIGUSR1)
    if hung:
        time.sleep(1.0)
    stacks = []
    for p in hung:
        os.kill(p.pid, signal.SIGKILL)
        p.join(10)
        path = getattr(p, "stacks", None)
        if path and os.path.exists(path):
            with open(path) as f:
                stacks.append(f"--- {p.name} (pid {p.pid}):\n{f.read()}")
    if hung:
        pytest.fail(
            f"child process(es) {[p.name for p in hung]} still running after {timeout:.0f}s: killed\n"
            + "\n".join(stacks)
        )


def read_lines(path: str) -> list[dict]:
    """The whole lines of a report; a last line without its newline was cut by a kill and is left out."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n") and line.strip()]


def make_table(cat: FileSystemCatalog, ident: str, pk: bool, options: dict | None = None):
    if pk:
        schema = Schema(
            Schema.parse_columns("id BIGINT NOT NULL, v STRING"),
            (),
            ("id",),
            {"bucket": "2", **(options or {})},
        )
    else:
        schema = Schema(
            Schema.parse_columns("id BIGINT, v STRING, p STRING"), ("p",), (), dict(options or {})
        )
    return cat.create_table(ident, schema)


@pytest.fixture(params=["local", "s3"])
def warehouse(request, tmp_path) -> tuple[str, dict]:
    """(warehouse URI, storage options) on the local filesystem and on S3."""
    if request.param == "local":
        return str(tmp_path / "wh"), {}
    return request.getfixturevalue("s3_warehouse")


@pytest.fixture
def local_warehouse(tmp_path) -> tuple[str, dict]:
    return str(tmp_path / "wh"), {}


def pytest_terminal_summary(terminalreporter):
    """The injection points per operation of the fault harness (test_faults.py), when it ran."""
    import sys

    module = sys.modules.get("tests.safety.test_faults")
    points = getattr(module, "POINTS", None)
    if not points:
        return
    tr = terminalreporter
    tr.section("fault injection points per operation")
    modes = ("error", "error-after", "interrupt")
    tr.write_line(f"{'operation':36} {'calls':>6} {'after':>6} {'Ctrl-C':>6} {'total':>6} {'Java reads':>10}")
    for name, c in points.items():
        total = sum(c[m] for m in modes)
        tr.write_line(
            f"{name:36} {c['error']:>6} {c['error-after']:>6} {c['interrupt']:>6} {total:>6} "
            f"{c['java-read tables']:>10}"
        )
    tr.write_line(
        f"{'all':36} {'':>6} {'':>6} {'':>6} {sum(sum(c[m] for m in modes) for c in points.values()):>6}"
    )
