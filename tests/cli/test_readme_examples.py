"""Every `paimon` command in the README's shell examples names commands and options that exist:
each one runs with ``--help`` appended (Click parses every option before it answers ``--help``,
so an unknown command, option or misplaced flag fails), so an example cannot drift from the CLI.
The optional parts of a usage line (``[--dry-run]``), which the runs of the blocks leave out
(tests/cli/test_readme_blocks.py), are parsed here too.
"""

from __future__ import annotations

import re
import shlex

import pytest

from tests.cli.readme_blocks import README, paimon_commands

COMMANDS = paimon_commands(re.sub(r"\[(-[^\]]*)\]", r"\1", README.read_text()))


def test_the_readme_has_examples():
    assert len(COMMANDS) > 80


@pytest.mark.parametrize("line, argv", COMMANDS, ids=[f"README:{n}" for n, _ in COMMANDS])
def test_readme_command_parses(cli, line, argv):
    r = cli(*argv, "--help", warehouse=False, code=None)
    assert r.exit_code == 0, f"README.md:{line}: paimon {shlex.join(argv)}\n{r.stderr or r.stdout}"
