"""The root loads a command's module only when the command runs (``paimon_cli/lazy_group.py``),
and ``COMMANDS`` (``paimon_cli/commands/__init__.py``) says the truth about every module."""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import typer.main

import paimon_cli.commands as commands_pkg
from paimon_cli.commands import COMMANDS

MODULES = sorted(p.stem for p in Path(commands_pkg.__file__).parent.glob("*.py") if p.stem != "__init__")


def _first_paragraph(command) -> str:
    return inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0].strip()


def test_commands_names_each_modules_commands_with_their_help_lines():
    names = [e.name for e in COMMANDS]
    assert len(names) == len(set(names))
    modules_with_apps = [
        m for m in MODULES if hasattr(importlib.import_module(f"paimon_cli.commands.{m}"), "app")
    ]
    assert sorted({e.module for e in COMMANDS}) == modules_with_apps, "a command module missing from COMMANDS"
    for module in modules_with_apps:
        group = typer.main.get_group(importlib.import_module(f"paimon_cli.commands.{module}").app)
        listed = {e.name: e.help for e in COMMANDS if e.module == module}
        assert set(group.commands) == set(listed), module
        for name, command in group.commands.items():
            assert listed[name] == _first_paragraph(command), f"COMMANDS help of {name!r} differs"


def _run(args: list[str]) -> tuple[str, set[str]]:
    code = textwrap.dedent(f"""
        import sys
        from paimon_cli.app import app
        try:
            app({args!r}, prog_name="paimon")
        except SystemExit:
            pass
        print("MODULES " + " ".join(sorted(sys.modules)))
    """)
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}
    )
    out, _, mods = r.stdout.rpartition("MODULES ")
    return out, set(mods.split())


def test_root_help_lists_every_command_without_importing_one():
    out, mods = _run(["--help"])
    for entry in COMMANDS:
        assert f" {entry.name} " in out
        assert entry.help.splitlines()[0] in out
    assert not {m for m in mods if m.startswith("paimon_cli.commands.")}
    assert not {m for m in mods if m.split(".")[0] in ("pyarrow", "numpy", "pydantic")}


def test_a_command_loads_its_module_alone():
    out, mods = _run(["tag", "--help"])
    assert "create" in out
    assert {m for m in mods if m.startswith("paimon_cli.commands.")} == {"paimon_cli.commands.tags"}


def test_a_typo_still_gets_a_suggestion(cli):
    r = cli("sqll", code=2)
    assert "Did you mean 'sql'?" in r.output
