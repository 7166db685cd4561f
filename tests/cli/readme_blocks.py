"""The README's shell examples as data: each ```bash block under its heading, each command line
(continuations joined) with the `paimon` argv it runs, what is piped into it and where its output
is redirected. Optional parts of a usage line (``[--dry-run]``) are left out of the argv."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


@dataclass(frozen=True)
class Command:
    line: int  # README line where the command starts
    text: str  # the whole command line, continuations joined
    argv: tuple[str, ...] | None  # the words after `paimon`, or None when no `paimon` runs
    piped_from: str | None  # the shell command whose output feeds `paimon`, if any
    redirect: str | None  # the file `> FILE` writes `paimon`'s stdout to, if any


@dataclass(frozen=True)
class Block:
    key: str  # "HEADING" for a heading's first block, "HEADING #2" for its second...
    line: int  # README line of the opening fence
    commands: tuple[Command, ...]


def blocks(text: str | None = None) -> list[Block]:
    """Every ```bash block of the README, in order."""
    text = README.read_text() if text is None else text
    out: list[Block] = []
    heading, seen = "", {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            heading = line.lstrip("#").strip()
        if line.strip() == "```bash":
            end = lines.index("```", i + 1)
            n = seen[heading] = seen.get(heading, 0) + 1
            key = heading if n == 1 else f"{heading} #{n}"
            out.append(Block(key, i + 1, tuple(_commands(lines[i + 1 : end], i + 2))))
            i = end
        elif line.startswith("```"):
            i = lines.index("```", i + 1)  # another language's block: its lines are no headings
        i += 1
    return out


def _commands(lines: list[str], first: int) -> list[Command]:
    out, pending, start = [], "", first
    for n, line in enumerate(lines, first):
        if not pending:
            start = n
        pending += line.rstrip("\\").rstrip() + " "
        if line.endswith("\\"):
            continue
        text, pending = " ".join(pending.split()), ""
        if text and not text.startswith("#"):
            out.append(_command(start, text))
    return out


def _command(line: int, text: str) -> Command:
    parts = [p.strip() for p in re.split(r"\s\|\s", _code(text))]
    for k, part in enumerate(parts):
        words = _words(part)
        if words is None:
            continue
        for i, w in enumerate(words):
            if w == "paimon" or w.endswith("/paimon"):
                argv = words[i + 1 :]
                redirect = None
                if ">" in argv:
                    redirect = argv[argv.index(">") + 1]
                    argv = argv[: argv.index(">")]
                piped = " | ".join(parts[:k]) or None
                return Command(line, text, tuple(argv), piped, redirect)
    return Command(line, text, None, None, None)


def _code(text: str) -> str:
    """The command without its trailing `# comment` (a `#` that starts a word outside quotes)."""
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
        lexer.whitespace_split = True
        lexer.commenters = ""
        words = []
        for w in lexer:
            if w.startswith("#"):
                break
            words.append(w)
    except ValueError:
        return text
    cut = text.find(" #")
    while cut != -1:
        try:
            if shlex.split(text[:cut]) == words:
                return text[:cut].rstrip()
        except ValueError:
            pass
        cut = text.find(" #", cut + 1)
    return text


def _words(part: str) -> list[str] | None:
    part = re.sub(r"\[-[^\]]*\]", " ", part)  # optional parts of a usage line: [--commit-rows N]
    try:
        words = shlex.split(part, comments=True)
    except ValueError:
        return None
    return [w.replace("\\$", "$") for w in words]  # the shell's \$ inside double quotes


def paimon_commands(text: str | None = None) -> list[tuple[int, list[str]]]:
    """(line, argv) of every `paimon` command of every block."""
    return [(c.line, list(c.argv)) for b in blocks(text) for c in b.commands if c.argv is not None]
