"""paimon_cli/plain_params.py converts every plain parameter of every command as Typer's own
conversion does: the same value for good input, a usage error for bad input; and a command
runs without importing pydantic."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import get_args, get_origin

import pytest
import typer.main
from typer import _click
from typer._coercion import build_runtime_param

from paimon_cli.app import app
from paimon_cli.plain_params import _converter


def _params():
    out = []

    def walk(command, path):
        for p in command.params:
            if hasattr(p, "type_descriptor"):
                out.append((f"{path} {p.name}", p))
        if hasattr(command, "list_commands"):
            ctx = _click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name), f"{path} {name}")

    walk(typer.main.get_command(app), "paimon")
    return out


PARAMS = _params()


def _samples(annotation) -> list:
    if get_origin(annotation) is list:
        return [[v] for v in _samples(get_args(annotation)[0])] + [("a", "b")]
    if annotation is str:
        return ["x", "ünï code", ""]
    if annotation is int:
        return ["5", " 7", "-3", "0", "100000", "abc", "1.5", 4]
    if annotation is bool:
        return [True, False]
    if annotation is Path:
        return ["a/b", "/tmp", Path("c")]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return [m.value for m in annotation] + [str(m.value).upper() for m in annotation] + ["bogus"]
    return []


def _outcome(runtime, param, value):
    try:
        return "ok", runtime._coerce_value(value, param=param, ctx=None)
    except _click.exceptions.BadParameter:
        return "bad", None


def test_every_plain_parameter_converts_as_typer_does():
    covered = 0
    for name, param in PARAMS:
        convert = _converter(param.type_descriptor)
        if convert is None:
            continue
        covered += 1
        plain, typer_own = param.get_runtime_param(), build_runtime_param(param.type_descriptor)
        assert type(plain).__name__ == "PlainRuntimeParam", name
        for value in _samples(param.type_descriptor.annotation):
            assert _outcome(plain, param, value) == _outcome(typer_own, param, value), (name, value)
    assert covered > 200  # every parameter of every command, nearly


@pytest.mark.parametrize(
    "argv", [["snapshots", "-t", "db.t"], ["read", "-t", "db.t", "--limit", "2", "-o", "json"]]
)
def test_a_command_runs_without_pydantic(tmp_path, argv):
    code = (
        "import atexit, sys; from paimon_cli.app import main\n"
        f"sys.argv = ['paimon', '-w', {str(tmp_path)!r}, *{argv!r}]\n"
        "atexit.register(lambda: print('pydantic' in sys.modules))\n"  # main() ends the process
        "main()\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip().splitlines()[-1] == "False", r.stdout + r.stderr
