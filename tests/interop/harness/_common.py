"""Cache folder, file lock and JSON-batch subprocess runner shared by the Java and pypaimon helpers."""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import json
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ENV_VAR = "PAIMON_CLI_INTEROP_CACHE"
FRESH_ENV = "PAIMON_CLI_INTEROP_FRESH"  # set: one process per batch, no warm driver kept
SERVED_BATCHES = 200  # a warm driver is replaced after this many batches (bounds leaks of state)


# every JVM the tests start: C1 only and one GC thread. Their jobs are small, and on 2 cores C2's
# and G1's threads cost more CPU than they save (scripts run in other venvs repeat the two flags)
LEAN_JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


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


class _Server:
    """One warm driver process: a batch is one JSON line in, one JSON line out.

    Its stderr goes to a temporary file, read back only to explain a failure; its stdout is read
    by a thread into a queue, so that a batch can time out without blocking the test."""

    def __init__(self, cmd: list[str], env: dict[str, str] | None):
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.batches = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(b"")  # end of stream: the process died or closed its output

    def run(self, payload: bytes, n: int, side: str, timeout: float) -> list[dict]:
        self.log.seek(0, os.SEEK_END)
        start = self.log.tell()
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(payload + b"\n")
            self.proc.stdin.flush()
            line = self.lines.get(timeout=timeout)
        except queue.Empty as e:
            self.close(kill=True)
            raise InteropError(f"{side}: batch of {n} request(s) timed out after {timeout}s") from e
        except OSError:
            line = b""
        self.batches += 1
        try:
            results = json.loads(line.decode("utf-8")) if line else None
        except ValueError:
            results = None
        if not isinstance(results, list) or len(results) != n:
            self.close(kill=True)
            self.log.seek(start)
            stderr = self.log.read().decode("utf-8", "replace")
            raise InteropError(
                f"{side}: warm driver failed (exit {self.proc.returncode}); stderr tail:\n"
                f"{stderr[-4000:]}\nstdout head: {line[:1000]!r}"
            )
        return results

    def close(self, kill: bool = False) -> None:
        if self.proc.poll() is None:
            if kill:
                self.proc.kill()
            else:
                with contextlib.suppress(OSError):
                    assert self.proc.stdin is not None
                    self.proc.stdin.close()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


class _ServerPool:
    """Idle warm drivers by (command, environment, working folder): a test takes one for a batch
    and gives it back; parallel threads of one test each get their own process."""

    def __init__(self) -> None:
        self.idle: dict[tuple, list[_Server]] = {}
        self.lock = threading.Lock()
        atexit.register(self.close_all)

    def run(
        self, cmd: list[str], env: dict[str, str] | None, requests: list[dict], side: str, timeout: float
    ) -> list[dict]:
        key = _server_key(cmd, env)
        with self.lock:
            free = self.idle.get(key)
            server = free.pop() if free else None
        if server is None:
            server = _Server(cmd, env)
        payload = json.dumps(requests, ensure_ascii=False, allow_nan=False).encode("utf-8")
        results = server.run(payload, len(requests), side, timeout)  # a failed server is closed
        if server.batches >= SERVED_BATCHES:
            server.close()
        else:
            with self.lock:
                self.idle.setdefault(key, []).append(server)
        return results

    def close_all(self) -> None:
        with self.lock:
            servers = [s for group in self.idle.values() for s in group]
            self.idle.clear()
        for s in servers:
            s.close()


def _server_key(cmd: list[str], env: dict[str, str] | None) -> tuple:
    """What a process inherits at start: a changed variable or folder needs another process
    (PYTEST_CURRENT_TEST changes with every test and is ignored)."""
    source = os.environ if env is None else env
    variables = tuple(sorted((k, v) for k, v in source.items() if k != "PYTEST_CURRENT_TEST"))
    return (tuple(cmd), variables, os.getcwd())


_POOL = _ServerPool()


class BatchDriver:
    """A reference implementation driven by batches of JSON requests. A subclass gives
    ``command()`` and ``label`` (and ``env()`` when the process needs one); when its driver
    answers batches line by line with ``--serve``, ``serves`` is True and one warm process per
    pytest worker runs every batch (unless $PAIMON_CLI_INTEROP_FRESH is set)."""

    label = "reference"
    serves = False

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None, timeout: float = 600.0):
        self.cache_dir = cache_dir
        self.timeout = timeout

    def command(self) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def env(self) -> dict[str, str] | None:
        return None

    def run(self, requests: list[dict[str, Any]], check: bool = True) -> list[dict[str, Any]]:
        """Run all requests in one process; results in request order. With check=True (the
        default) any failed request raises InteropError listing every failure."""
        if not requests:
            return []
        if self.serves and not os.environ.get(FRESH_ENV):
            cmd = [*self.command(), "--serve"]
            results = _POOL.run(cmd, self.env(), requests, self.label, self.timeout)
        else:
            results = run_json_batch(self.command(), requests, self.label, self.timeout, env=self.env())
        if check:
            check_results(self.label, requests, results)
        return results

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """One request; raises on failure."""
        return self.run([{"op": op, **fields}])[0]

    # convenience wrappers (one process each; batch with run() when speed matters)
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
