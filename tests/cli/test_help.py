"""Help, version and shell completion: what a newcomer sees first."""

from __future__ import annotations

import re

import pytest
import typer

from paimon_cli.app import app

from .conftest import run_paimon


def all_command_paths() -> list[list[str]]:
    """Every command and subcommand, as the words that name it."""
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    out = [[]]

    def walk(group, prefix):
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            out.append(prefix + [name])
            if hasattr(cmd, "list_commands"):
                walk(cmd, prefix + [name])

    walk(root, [])
    return out


@pytest.mark.parametrize("words", all_command_paths(), ids=lambda w: " ".join(w) or "paimon")
def test_help_renders_cleanly_in_80_columns(cli, words):
    out = cli(*words, "--help", warehouse=False, env={"COLUMNS": "80"}).stdout
    assert "Usage: paimon" in out
    for bad in ("<bool>", "<list", "<str>", "<int>", "<path>", "{", "}", "…", "[["):
        assert bad not in out, f"{bad!r} in `paimon {' '.join(words)} --help`:\n{out}"
    assert max(len(line) for line in out.splitlines()) <= 80


def test_catalog_help_names_every_catalog_kind(cli):
    from paimon_core.catalog import CATALOG_KINDS

    out = " ".join(cli("catalog", "--help", warehouse=False, env={"COLUMNS": "200"}).stdout.split())
    assert set(CATALOG_KINDS) >= {"filesystem", "jdbc", "hive", "rest"}
    for kind in CATALOG_KINDS:
        assert kind in out, f"`paimon catalog --help` does not name {kind}:\n{out}"


def test_usage_line_of_a_command_with_files():
    from typer.testing import CliRunner

    out = CliRunner().invoke(app, ["ingest", "--help"], env={"COLUMNS": "100"}).stdout
    assert re.search(
        r"Usage: paimon ingest \[OPTIONS\] \[FILE\.\.\.\]\s*$", out, re.M
    )  # FILE is optional: - reads stdin


def test_version(tmp_path):
    from paimon_core import __version__

    r = run_paimon("--version", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, f"paimon {__version__}\n", "")
    for args in (["-v", "--version"], ["--version", "-v"]):
        r = run_paimon(*args, cwd=tmp_path)
        lines = r.stdout.splitlines()
        assert r.returncode == 0 and lines[0] == f"paimon {__version__}"
        names = [line.split()[0] for line in lines[1:]]
        assert names == ["python", "pyarrow", "pyspark", "fsspec", "s3fs"]
        import pyarrow

        assert f"pyarrow {pyarrow.__version__}" in lines


def test_a_missing_command_is_still_a_usage_error(tmp_path):
    r = run_paimon("-v", cwd=tmp_path)
    assert r.returncode == 2 and "Missing command" in r.stderr


def test_shell_completion(tmp_path):
    r = run_paimon("--show-completion", "bash", cwd=tmp_path, env={"SHELL": "/bin/bash"})
    assert r.returncode == 0 and "_paimon_completion" in r.stdout
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}
    env.update({"_PAIMON_COMPLETE": "complete_bash", "COMP_WORDS": "paimon ing", "COMP_CWORD": "1"})
    done = subprocess.run(
        [sys.executable, "-c", "from paimon_cli.app import main; main()"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.stdout.split() == ["ingest"], done
