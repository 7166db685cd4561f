"""The `paimon` CLI as the lanes run it: real processes of this project's interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["argv", "cli_env", "paimon", "paimon_rows", "paimon_json"]


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


def paimon_json(wh: Path, *args: Any) -> Any:
    return json.loads(paimon(wh, "-o", "json", *args))


def paimon_rows(wh: Path, *args: Any) -> list[dict[str, Any]]:
    """JSON-lines output of `paimon -o json ARGS` as rows."""
    return [json.loads(line) for line in paimon(wh, "-o", "json", *args).splitlines() if line.strip()]
