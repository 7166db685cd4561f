"""pypaimon 2.1.0 in its own venv (never the project's environment), driven by JSON batches.

`ensure_pypaimon_python()` builds the venv in the cache folder once (file-locked) and returns its
python; `PyPaimon().run([...])` runs `pypaimon_driver.py` there, one subprocess per batch.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._common import InteropError, cache_root, check_results, file_lock, run_json_batch

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pypaimon_driver.py"
# pypaimon 2.1.0 pins pyarrow<20 and fsspec<2026 itself; pandas/polars/fastavro come as its deps
REQUIREMENTS = ["pypaimon==2.1.0", "pyarrow<20", "fsspec<2026"]

__all__ = ["PyPaimon", "ensure_pypaimon_python", "InteropError"]


def _clean_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    env.setdefault("TZ", "UTC")
    return env


def _base_python() -> str:
    """An interpreter to create the venv from (the base of the current venv, if any)."""
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return str(base) if base.exists() else sys.executable


def ensure_pypaimon_python(cache_dir: str | os.PathLike[str] | None = None) -> str:
    """Build (once) a venv with pypaimon 2.1.0 in the interop cache; return its python path."""
    root = cache_root(cache_dir) / "pypaimon-2.1.0"
    venv = root / "venv"
    python = venv / "bin" / "python"
    stamp = venv / ".interop-complete"
    spec = "\n".join(REQUIREMENTS)
    if stamp.exists() and stamp.read_text() == spec:
        return str(python)
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root / ".lock"):
        if stamp.exists() and stamp.read_text() == spec:
            return str(python)
        shutil.rmtree(venv, ignore_errors=True)
        env = _clean_env()
        for cmd in (
            [_base_python(), "-m", "venv", str(venv)],
            [str(python), "-m", "pip", "install", "-q", *REQUIREMENTS],
        ):
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                raise InteropError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        stamp.write_text(spec)
    return str(python)


class PyPaimon:
    """Runs batches of requests through pypaimon 2.1.0: one subprocess per `run` call.
    Ops: read, create_table, write, snapshots, schema (same request shapes as JavaPaimon)."""

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None, timeout: float = 600.0):
        self.cache_dir = cache_dir
        self.timeout = timeout
        self._python: str | None = None

    def command(self) -> list[str]:
        if self._python is None:
            self._python = ensure_pypaimon_python(self.cache_dir)
        return [self._python, str(DRIVER)]

    def run(self, requests: list[dict[str, Any]], check: bool = True) -> list[dict[str, Any]]:
        """Run all requests in one subprocess; with check=True a failed request raises InteropError."""
        if not requests:
            return []
        results = run_json_batch(self.command(), requests, "pypaimon 2.1.0", self.timeout, env=_clean_env())
        if check:
            check_results("pypaimon 2.1.0", requests, results)
        return results

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        return self.run([{"op": op, **fields}])[0]

    def read(
        self, warehouse: str, table: str, snapshot: int | None = None, options: dict[str, str] | None = None
    ) -> list[dict[str, Any]]:
        return self.call(
            "read", warehouse=str(warehouse), table=table, snapshot=snapshot, options=options or {}
        )["rows"]

    def create_table(
        self,
        warehouse: str,
        table: str,
        schema: list[dict[str, str]],
        partition_keys: list[str] | None = None,
        primary_keys: list[str] | None = None,
        options: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        return self.call(
            "create_table",
            warehouse=str(warehouse),
            table=table,
            schema=schema,
            partition_keys=partition_keys or [],
            primary_keys=primary_keys or [],
            options=options or {},
        )

    def write(
        self, warehouse: str, table: str, rows: list[dict[str, Any]], overwrite: bool = False
    ) -> dict[str, Any]:
        return self.call("write", warehouse=str(warehouse), table=table, rows=rows, overwrite=overwrite)

    def snapshots(self, warehouse: str, table: str) -> list[dict[str, Any]]:
        return self.call("snapshots", warehouse=str(warehouse), table=table)["snapshots"]
