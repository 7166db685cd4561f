"""Cache folder, file lock and JSON-batch subprocess runner shared by the Java and pypaimon helpers."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

ENV_VAR = "PAIMON_CLI_INTEROP_CACHE"


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The interop cache folder: argument, else $PAIMON_CLI_INTEROP_CACHE, else ~/.cache/paimon-cli-interop."""
    if cache_dir is None:
        cache_dir = os.environ.get(ENV_VAR) or Path.home() / ".cache" / "paimon-cli-interop"
    root = Path(cache_dir).expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    return root


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Exclusive advisory lock (flock) on `path`, so parallel pytest workers build a cache once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class InteropError(RuntimeError):
    """A request of a batch failed on the Java or pypaimon side (or the subprocess died)."""


def run_json_batch(
    cmd: list[str], requests: list[dict], side: str, timeout: float, env: dict[str, str] | None = None
) -> list[dict]:
    """Feed `requests` as a JSON array to `cmd` on stdin; return the JSON array it prints on stdout."""
    payload = json.dumps(requests, ensure_ascii=False, allow_nan=False)
    try:
        proc = subprocess.run(
            cmd, input=payload.encode("utf-8"), capture_output=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired as e:
        raise InteropError(f"{side}: batch of {len(requests)} request(s) timed out after {timeout}s") from e
    stderr = proc.stderr.decode("utf-8", "replace")
    try:
        results = json.loads(proc.stdout.decode("utf-8")) if proc.returncode == 0 else None
    except ValueError:
        results = None
    if not isinstance(results, list) or len(results) != len(requests):
        raise InteropError(
            f"{side}: driver failed (exit {proc.returncode}); stderr tail:\n{stderr[-4000:]}\n"
            f"stdout head: {proc.stdout[:1000]!r}"
        )
    return results


def check_results(side: str, requests: list[dict], results: list[dict]) -> None:
    """Raise InteropError naming every failed request of the batch."""
    failed = [
        (i, req, res)
        for i, (req, res) in enumerate(zip(requests, results, strict=True))
        if isinstance(res, dict) and "error" in res
    ]
    if not failed:
        return
    lines = [f"{side}: {len(failed)} of {len(requests)} request(s) failed:"]
    for i, req, res in failed:
        brief = {k: v for k, v in req.items() if k != "rows"}
        if "rows" in req:
            brief["rows"] = f"<{len(req['rows'])} rows>"
        lines.append(f"  [{i}] {json.dumps(brief, default=str)[:300]}")
        lines.append(f"      -> {res['error']}")
        for t in (res.get("trace") or [])[:8]:
            lines.append(f"         at {t}")
    raise InteropError("\n".join(lines))
