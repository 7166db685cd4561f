"""SIGINT (Ctrl-C) and SIGKILL at random moments of a real ``paimon`` process, for the committing
commands of ``test_faults.py`` (the in-process harness injects at every storage call; this one
proves the same end states through the CLI, its signal handling and a real process death).

Per command: the operation's states are taken from an in-process calibration run (the same
``Harness``), an uninterrupted CLI run gives the command's duration, then each signal lands at a
random moment within it (seeded). After each: the CLI exits as interrupted (130) or killed,
without a traceback, and the table passes the harness's checks (old or new state, no live file
missing, leftovers only where orphan cleanup looks).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from tests.infra import with_default_sigint
from tests.safety.test_faults import OPS, Harness, batch

pytestmark = [pytest.mark.safety, pytest.mark.slow]

T = ["-t", "db.t"]
# op name -> CLI arguments after ``paimon -w WAREHOUSE`` (``{work}``: the op's work folder)
COMMANDS = {
    "ingest[pk-fixed]": ["ingest", "{work}/in-7.parquet", *T],
    "ingest[pk-dv]": ["ingest", "{work}/in-7.parquet", *T],
    "ingest[pk-postpone]": ["ingest", "{work}/in-7.parquet", *T],
    "ingest -": ["ingest", "-", *T, "--format", "json", "--commit-rows", "8", "--commit-user", "stdin"],
    "ingest --watch": ["ingest", "--watch", "{work}/watch", *T, "--poll", "50ms", "--commit-user", "watcher"],
    "overwrite[append]": ["ingest", "{work}/in-7.parquet", *T, "--overwrite"],
    "delete[pk-dv]": ["delete", *T, "--where", "id < 5"],
    "truncate[pk-fixed, p=a]": ["sql", "TRUNCATE TABLE db.t PARTITION (p = 'a')"],
    "compact --level-max[pk-fixed]": ["compact", *T, "--level-max"],
    "compact[pk-postpone]": ["compact", *T],
    "expire": ["expire", *T, "--retain-min", "1", "--older-than", "0s"],
    "rollback": ["rollback", *T, "--to", "2"],
    "tag delete": ["tag", "delete", "old", *T],
    "remove-orphans": ["remove-orphans", *T, "--older-than", "0s"],
    "alter-table": ["alter-table", "db.t", "add-column", "w", "INT"],
}
RUNS = 2  # signalled runs per command and signal


class ProcessHarness(Harness):
    def start(self, args: list[str]) -> subprocess.Popen:
        if self.op.name == "ingest --watch":
            src = self.work / "watch"
            src.mkdir(exist_ok=True)
            for f in src.iterdir():
                f.unlink()
            pq.write_table(batch(7), src / "f1.parquet")
            pq.write_table(batch(8), src / "f2.parquet")
        argv = [a.format(work=self.work) for a in args]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}
        proc = subprocess.Popen(
            with_default_sigint([sys.executable, "-m", "paimon_cli", "-w", str(self.cat.warehouse), *argv]),
            stdin=subprocess.PIPE if self.op.name == "ingest -" else subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.work,
            env=env,
        )
        if self.op.name == "ingest -":  # the producer keeps the pipe open, as a live one does
            lines = [json.dumps(r) for r in batch(7).to_pylist() + batch(8).to_pylist()]
            proc.stdin.write(("\n".join(lines) + "\n").encode())
            proc.stdin.flush()
        return proc

    def endless(self) -> bool:
        return self.op.name in ("ingest --watch", "ingest -")

    def finish(self, proc: subprocess.Popen, budget: float = 60.0) -> tuple[int, str]:
        """Wait for the command; a streaming one is stopped with Ctrl-C once its two commits landed."""
        if self.endless():
            deadline = time.monotonic() + budget
            while len(self.table().snapshots.list_ids()) < self.n_before + 2:
                assert time.monotonic() < deadline, "the streaming command did not commit twice"
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=budget)[1].decode()
        return proc.returncode, err

    def duration(self, args: list[str]) -> float:
        self.restore()
        self.n_before = len(self.table().snapshots.list_ids())
        t0 = time.monotonic()
        code, err = self.finish(self.start(args))
        took = time.monotonic() - t0
        assert code in ((0, 130) if self.endless() else (0,)), f"{self.op.name}: exit {code}: {err}"
        self.check(f"{self.op.name}: uninterrupted CLI run")
        return took

    def signalled(self, args: list[str], sig: int, delay: float) -> int:
        self.restore()
        proc = self.start(args)
        time.sleep(delay)
        proc.send_signal(sig)
        err = proc.communicate(timeout=60)[1].decode()
        where = f"{self.op.name}: {signal.Signals(sig).name} after {delay:.2f}s (exit {proc.returncode})"
        if sig == signal.SIGKILL:
            assert proc.returncode in (0, -signal.SIGKILL), f"{where}: {err}"
        else:
            assert proc.returncode in (0, 130, -signal.SIGINT), f"{where}: {err}"
            assert "Traceback" not in err, f"{where}: {err}"
        self.check(where)
        return proc.returncode


SIGNAL_OPS = [o for o in OPS if o.name in COMMANDS]


@pytest.mark.parametrize("op", SIGNAL_OPS, ids=[o.name for o in SIGNAL_OPS])
def test_sigint_and_sigkill_at_random_moments(op, tmp_path):
    h = ProcessHarness(op, tmp_path)
    h.calibrate()
    took = h.duration(COMMANDS[op.name])
    rng = random.Random(op.name)
    codes = []
    for sig in (signal.SIGINT, signal.SIGKILL):
        for _ in range(RUNS):
            codes.append(h.signalled(COMMANDS[op.name], sig, rng.uniform(0.3 * took, 0.9 * took)))
    print(f"\n{op.name}: CLI run {took:.2f}s; exits of {len(codes)} signalled runs: {sorted(codes)}")


def test_sigint_while_the_cli_imports(tmp_path):
    """Ctrl-C in the first moments, while ``paimon`` is still importing its modules: exit 130 and
    one line, no traceback (it printed a KeyboardInterrupt traceback and died of SIGINT)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}
    proc = subprocess.Popen(
        with_default_sigint(
            [sys.executable, "-X", "importtime", "-m", "paimon_cli", "-w", str(tmp_path), "tables"]
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    seen = []
    for line in proc.stderr:  # -X importtime: a line per finished import
        seen.append(line)
        if line.rstrip().endswith("typer.colors"):  # paimon_cli.app is importing typer
            proc.send_signal(signal.SIGINT)
            break
    rest = proc.stderr.read()
    code = proc.wait(timeout=60)
    assert seen and seen[-1].rstrip().endswith("typer.colors"), "typer was never imported"
    messages = [x for x in rest.splitlines() if not x.startswith("import time:")]
    assert (code, messages) == (130, ["interrupted: nothing committed"]), (code, rest[-2000:])
