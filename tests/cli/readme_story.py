"""Runs README shell examples for real, in a scratch folder whose ./warehouse is the default
warehouse: `paimon` commands in this process (Typer's runner; a pipe's producer becomes stdin),
commands that run until stopped as the console entry point in a subprocess, stopped with
Ctrl-C once they did their work. A block's preparation makes the files and tables it names."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from paimon_cli.app import app
from tests.cli.readme_blocks import Block, Command


class Story:
    """One block's run: ``cwd`` holds ./warehouse and the files the block names; ``env`` is
    added to every command (a fixed clock, say); ``subst`` replaces literal text of a command
    before it runs (each entry says why where it is set)."""

    def __init__(self, cwd: Path, block: Block):
        self.cwd, self.block = cwd, block
        self.env: dict[str, str] = {}
        self.subst: dict[str, str] = {}
        self.runner = CliRunner()
        self.config: Any = None  # the pytest config, for blocks of pytest command lines
        self.ran: set[int] = set()  # README lines of the commands run (each runs through argv)

    # --- running -------------------------------------------------------------------------
    def paimon(self, *argv: str, input: str | None = None, env: dict | None = None, code: int | None = 0):
        r = self.runner.invoke(app, [str(a) for a in argv], input=input, env={**self.env, **(env or {})})
        if code is not None:
            assert r.exit_code == code, (
                f"paimon {shlex.join(map(str, argv))} -> {r.exit_code}\nstdout: {r.stdout}\n"
                f"stderr: {r.stderr}\nexception: {r.exception!r}"
            )
        return r

    def argv(self, cmd: Command) -> list[str]:
        assert cmd.argv is not None, f"README.md:{cmd.line}: no paimon command in {cmd.text!r}"
        self.ran.add(cmd.line)
        text = shlex.join(cmd.argv)
        for old, new in self.subst.items():
            text = text.replace(old, new)
        return shlex.split(text)

    def run(self, cmd: Command, input: str | None = None):
        """Run one README command in this process; its `> FILE` writes FILE."""
        r = self.paimon(*self.argv(cmd), input=input, code=None)
        assert r.exit_code == 0, (
            f"README.md:{cmd.line}: {cmd.text}\n-> exit {r.exit_code}\nstdout: {r.stdout}\nstderr: {r.stderr}"
            f"\nexception: {r.exception!r}"
        )
        if cmd.redirect:
            (self.cwd / cmd.redirect).write_text(r.stdout)
        return r

    def process_env(self) -> dict[str, str]:
        """The environment of a `paimon` process: this one's without PAIMON_*, plus ``env``."""
        return {**{k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}, **self.env}

    def until_stopped(
        self,
        cmd: Command,
        done: Callable[[str], bool],
        poke: Callable[[], None] | None = None,
        timeout: float = 60,
    ) -> str:
        """Start a command that runs until stopped (a stream, a watch, a server) as a user does,
        wait until ``done(stdout so far)``, calling ``poke`` about once a second meanwhile
        (a new commit for a stream to see), then Ctrl-C it: it must exit 130, or 0 for a server
        that shuts down cleanly. Returns its stdout."""
        out = self.cwd / f".out-{cmd.line}"
        with open(out, "w") as fh:
            proc = subprocess.Popen(
                [sys.executable, "-m", "paimon_cli", *self.argv(cmd)],
                cwd=self.cwd,
                env=self.process_env(),
                stdout=fh,
                stderr=subprocess.PIPE,
                text=True,
            )
        try:
            deadline = time.monotonic() + timeout
            while not done(out.read_text()):
                assert proc.poll() is None, f"README.md:{cmd.line}: {cmd.text} ended: {proc.stderr.read()}"  # type: ignore[union-attr]
                assert time.monotonic() < deadline, (
                    f"README.md:{cmd.line}: {cmd.text}: nothing after {timeout}s"
                )
                if poke:
                    poke()
                time.sleep(0.5 if poke is None else 1.0)
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode in (130, 0), (
            f"README.md:{cmd.line}: exit {proc.returncode} after Ctrl-C: {err}"
        )
        return out.read_text()

    def command(self, which: str | tuple[str, ...]) -> Command:
        """The block's command whose text starts with ``which``, or whose argv is ``which``."""
        if isinstance(which, tuple):
            found = [c for c in self.block.commands if c.argv == which]
        else:
            found = [c for c in self.block.commands if c.text.startswith(which)]
        assert len(found) == 1, f"{self.block.key}: {len(found)} commands match {which!r}"
        return found[0]

    # --- preparing -----------------------------------------------------------------------
    def table(self, name: str):
        from paimon_core import FileSystemCatalog

        return FileSystemCatalog(str(self.cwd / "warehouse")).get_table(name)

    def create(self, name: str, schema: str, *options: str) -> None:
        self.paimon("create-table", name, "--schema", schema, *options)

    def write(self, name: str, rows: dict, times: int = 1) -> None:
        """``times`` commits of ``rows`` through the library (faster than the CLI for a history)."""
        table = self.table(name)
        for _ in range(times):
            table.write_arrow(pa.table(rows))

    def parquet(self, path: str, rows: dict, schema: pa.Schema | None = None) -> Path:
        p = self.cwd / path
        p.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(rows, schema=schema), p)
        return p

    def file(self, path: str, text: str) -> Path:
        p = self.cwd / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def snapshots(self, name: str) -> int:
        return self.table(name).snapshots.latest_id() or 0
