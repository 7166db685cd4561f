"""The `paimon` CLI as the lanes run it: commands that write are real processes of this project's
interpreter; the read-only ones a lane runs dozens of times per test (``snapshots``, ``read``,
``schema``, ``stream --until``) run in this process through Typer's runner, the same code without
a process's start-up (about a second each on 2 busy cores)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["argv", "cli_env", "paimon", "paimon_json", "paimon_read_only", "paimon_rows"]


def argv(wh: Path, *args: Any) -> list[str]:
    return [sys.executable, "-m", "paimon_cli", "-w", str(wh), *map(str, args)]


def cli_env() -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("PAIMON_") or k == "PAIMON_CLI_INTEROP_CACHE"
    }
    env["TZ"] = "UTC"
    return env


def paimon(wh: Path, *args: Any, timeout: float = 300) -> str:
    """Run `paimon -w WH ARGS...`; its stdout (an AssertionError with stderr if it fails)."""
    proc = subprocess.run(argv(wh, *args), env=cli_env(), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"paimon {' '.join(map(str, args))} exited {proc.returncode}:\n{proc.stderr}"
    return proc.stdout


def paimon_read_only(wh: Path, *args: Any) -> str:
    """Run a read-only `paimon -w WH ARGS...` in this process; its stdout."""
    from typer.testing import CliRunner

    from paimon_cli.app import app

    r = CliRunner().invoke(app, ["-w", str(wh), *map(str, args)])
    assert r.exit_code == 0, f"paimon {' '.join(map(str, args))} exited {r.exit_code}:\n{r.stderr}"
    return r.stdout


def paimon_json(wh: Path, *args: Any) -> Any:
    return json.loads(paimon_read_only(wh, "-o", "json", *args))


def paimon_rows(wh: Path, *args: Any) -> list[dict[str, Any]]:
    """JSON-lines output of a read-only `paimon -o json ARGS` as rows."""
    return [
        json.loads(line) for line in paimon_read_only(wh, "-o", "json", *args).splitlines() if line.strip()
    ]
