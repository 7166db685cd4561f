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

from ._common import BatchDriver, InteropError, cache_root, file_lock

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "pypaimon_driver.py"
# pypaimon 2.1.0 pins pyarrow<20 and fsspec<2026 itself; pandas/polars/fastavro come as its deps
REQUIREMENTS = ["pypaimon==2.1.0", "pyarrow<20", "fsspec<2026"]

__all__ = ["PyPaimon", "ensure_pypaimon_python", "ensure_venv", "InteropError"]


# what a Spark Connect session of this process leaves in os.environ (PySpark sets it): a child
# inheriting it builds Connect sessions too (the Spark 3.5 lane's driver then failed for want of
# pandas, a Hive test's PySpark for want of a remote URL)
SPARK_SESSION_MARKS = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")


def _clean_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "SPARK_HOME")
        and k not in SPARK_SESSION_MARKS
    }
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONNOUSERSITE"] = "1"
    env.setdefault("TZ", "UTC")
    return env


def _base_python() -> str:
    """An interpreter to create the venv from (the base of the current venv, if any)."""
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return str(base) if base.exists() else sys.executable


def ensure_venv(name: str, requirements: list[str], cache_dir: str | os.PathLike[str] | None = None) -> str:
    """Build (once, under the cache's file lock) ``<cache>/<name>/venv`` with `requirements`
    from the base interpreter; return its python. The venv counts as built only when its stamp
    file holds exactly the requirement list (a changed list builds it again)."""
    root = cache_root(cache_dir) / name
    venv = root / "venv"
    python = venv / "bin" / "python"
    stamp = venv / ".interop-complete"
    spec = "\n".join(requirements)
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
            [str(python), "-m", "pip", "install", "-q", *requirements],
        ):
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                raise InteropError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
        stamp.write_text(spec)
    return str(python)


def ensure_pypaimon_python(cache_dir: str | os.PathLike[str] | None = None) -> str:
    """Build (once) a venv with pypaimon 2.1.0 in the interop cache; return its python path."""
    return ensure_venv("pypaimon-2.1.0", REQUIREMENTS, cache_dir)


class PyPaimon(BatchDriver):
    """Runs batches of requests through pypaimon 2.1.0, in a process kept warm per pytest worker.
    Ops: read, create_table, write, snapshots, schema (same request shapes as JavaPaimon)."""

    label = "pypaimon 2.1.0"
    serves = True

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None, timeout: float = 600.0):
        super().__init__(cache_dir, timeout)
        self._python: str | None = None

    def command(self) -> list[str]:
        if self._python is None:
            self._python = ensure_pypaimon_python(self.cache_dir)
        return [self._python, str(DRIVER)]

    def env(self) -> dict[str, str]:
        return _clean_env()
