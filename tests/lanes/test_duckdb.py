"""The DuckDB lane: DuckDB 1.5.5's iceberg extension (PyPI wheels, in its own venv) reads the
Iceberg-compatible metadata we write exactly, at every snapshot (time travel by snapshot id),
and `paimon sql` runs on DuckDB 1.5 as on the newest DuckDB `pyproject.toml` allows.

DuckDB's own limit is pinned by name: it reads Iceberg v3 deletion vectors only from Puffin
files, and Paimon's (Java's and ours, the same bytes) live in Paimon's index files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from tests.interop.harness import assert_same_rows, rows_from_arrow

from .envs import DUCKDB_VERSION, duckdb_overlay, duckdb_python, lane_env
from .iceberg_kinds import DV_V3, KINDS, write_kind, write_kinds

pytestmark = [pytest.mark.lanes, pytest.mark.slow]

DRIVER = Path(__file__).with_name("duckdb_driver.py")
ROOT = Path(__file__).resolve().parents[2]
# the project's tests of `paimon sql` and of DuckDB relations over our scans (their Java
# interop twins check our metadata answers against Java's tables, not DuckDB: newest DuckDB only)
SQL_TESTS = [
    "tests/cli/test_sql.py",
    "tests/core/engines/test_sql_aggregates.py",
    "tests/core/engines/test_sql_partition_filter.py",
    "tests/core/engines/test_sql_refs.py",
    "tests/core/engines/test_sql_script.py",
    "tests/core/read/test_handoffs.py",
]
# left to the newest DuckDB only: random tables whose answers from our metadata are checked
# against the same queries over the data (DuckDB only computes the reference there; minutes)
SQL_DESELECT = "not on_random_tables and not equal_counts_over_the_data"


def _duckdb_read(root: Path, reads: list[dict]) -> list[dict]:
    """One DuckDB process for every read: [{"table": pa.Table} | {"error": message}]."""
    out = root / "duckdb-out"
    out.mkdir()
    proc = subprocess.run(
        [duckdb_python(), str(DRIVER)],
        input=json.dumps({"reads": reads, "out": str(out)}),
        capture_output=True,
        text=True,
        env=lane_env(),
        timeout=300,
    )
    assert proc.returncode == 0, f"DuckDB driver exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    answers = json.loads(proc.stdout)
    for a in answers:
        if "file" in a:
            with pa.ipc.open_file(a["file"]) as f:
                a["table"] = f.read_all()
    return answers


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    """{kind: [(snapshot id or None, DuckDB's answer, our rows)]} and the v3 table's answer."""
    root = tmp_path_factory.mktemp("duckdb")
    written = write_kinds(str(root / "wh"))
    written["dv_v3"] = write_kind(str(root / "wh"), "dv_v3", DV_V3)
    plan = []
    for name, w in written.items():
        plan += [(name, sid, rows) for sid, rows in w.rows.items()]
        plan.append((name, None, w.rows[w.latest]))  # no snapshot named: the current one
    reads = [{"metadata": written[name].metadata, "snapshot": sid} for name, sid, _ in plan]
    got: dict[str, list] = {}
    for (name, sid, rows), answer in zip(plan, _duckdb_read(root, reads), strict=True):
        got.setdefault(name, []).append((sid, answer, rows, written[name].types))
    return got


@pytest.mark.parametrize("name", sorted(KINDS))
def test_duckdb_reads_our_iceberg_metadata_at_every_snapshot(answers, name):
    for sid, answer, rows, types in answers[name]:
        label = f"DuckDB {DUCKDB_VERSION} on {name} at snapshot {sid or 'current'}"
        assert "error" not in answer, f"{label}: {answer['error'][:500]}"
        assert_same_rows(rows_from_arrow(answer["table"], types), rows, label_a=label)
    assert len(answers[name]) >= 2


def test_duckdb_limit_v3_deletion_vectors_only_in_puffin_files(answers):
    """Pinned: DuckDB reads an Iceberg v3 deletion vector only from a Puffin file. Paimon's
    vectors (Java 1.4.2's metadata names the same index file at the same offsets, see
    test_iceberg_interop) are blobs inside Paimon's index file, which Java's Iceberg reads."""
    for sid, answer, _, _ in answers["dv_v3"]:
        assert "not a valid Puffin file" in answer.get("error", ""), (sid, answer)


def test_paimon_sql_on_duckdb_1_5(tmp_path):
    """The SQL tests again, on DuckDB 1.5.5 (the oldest `duckdb>=1.5.5` allows; the venv has the newest)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([duckdb_overlay(), str(ROOT)]))
    check = subprocess.run(
        [sys.executable, "-c", "import duckdb; print(duckdb.sql('SELECT version()').fetchone()[0])"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert check.stdout.strip() == f"v{DUCKDB_VERSION}", check
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"),
            *("--durations-file", str(tmp_path / "durations.json"), "-k", SQL_DESELECT),
            *SQL_TESTS,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout.splitlines()[-1], proc.stdout[-500:]
