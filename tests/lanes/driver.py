"""A long-lived lane driver process: one engine (PyFlink or PySpark) in its own venv, spoken to
in JSON lines (see lane_protocol.py).

The process starts in its own session (process group), so ``kill()`` sends SIGKILL to the driver
and the JVM it started, by the group's id; its stderr goes to a log file whose tail any failure
quotes.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.interop.harness._common import InteropError

__all__ = ["LaneDriver", "InteropError"]


class LaneDriver:
    def __init__(
        self, label: str, cmd: list[str], env: dict[str, str], log: Path, start_timeout: float = 300
    ):
        self.label = label
        self.log = log
        log.parent.mkdir(parents=True, exist_ok=True)
        self._err = open(log, "ab")
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err,
            env=env,
            start_new_session=True,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.info = self._receive(start_timeout)["ready"]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def _tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def _receive(self, timeout: float) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise InteropError(f"{self.label}: no answer in {timeout}s; log tail:\n{self._tail()}") from None
        if not line:
            raise InteropError(f"{self.label}: driver exited ({self.proc.poll()}); log tail:\n{self._tail()}")
        return json.loads(line)

    def call(self, op: str, timeout: float = 600, **fields: Any) -> Any:
        """Run one request; its result, or InteropError with the engine's message."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps({"op": op, **fields}) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise InteropError(f"{self.label}: driver is gone; log tail:\n{self._tail()}") from None
        msg = self._receive(timeout)
        if "error" in msg:
            raise InteropError(
                f"{self.label}: {op} failed: {msg['error']}\n  " + "\n  ".join(msg.get("trace", []))
            )
        return msg["result"]

    def kill(self) -> None:
        """SIGKILL the driver and everything it started (its process group)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self._err.close()

    def close(self, timeout: float = 30) -> None:
        """End the driver: stdin closed, then SIGKILL after `timeout` if it has not exited."""
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except OSError:
                pass
            deadline = time.time() + timeout
            while self.proc.poll() is None and time.time() < deadline:
                time.sleep(0.1)
        self.kill()
