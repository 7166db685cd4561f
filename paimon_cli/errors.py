"""Errors the CLI raises itself, and the mapping of any exception to one stderr line + exit code
(also for Ctrl-C and a closed stdout pipe).

The mapping is used in exactly one place: the root group's ``invoke`` (see ``app.py``).
"""

from __future__ import annotations

import io
import os
import sys
import traceback


class CliError(Exception):
    """A user-facing error found by the CLI layer (bad config file, bad option value...)."""


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return " ".join(lines)


def message_for(exc: BaseException, verbose: bool = False) -> str:
    """The single line printed for ``exc`` (without the 'error: ' prefix)."""
    from paimon_core.errors import PaimonError

    if isinstance(exc, (PaimonError, CliError)):
        return _one_line(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        if exc.filename is not None and exc.strerror:
            return _one_line(f"{exc.strerror}: {exc.filename}")
        return _one_line(exc) or type(exc).__name__
    hint = "" if verbose else " (run with --verbose for the traceback)"
    return _one_line(f"internal error: {type(exc).__name__}: {exc}{hint}")


def report(exc: BaseException, verbose: bool) -> int:
    """Print ``exc`` as one line on stderr (after the traceback when verbose); return the exit code."""
    if verbose:
        traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.write(f"error: {message_for(exc, verbose)}\n")
    sys.stderr.flush()
    return 1


# commands that delete files without committing a snapshot; each can be run again to finish
_DELETING = ("expire", "rollback", "remove-orphans", "tag", "drop-table")


def interrupted_message(journal: list, command: str | None) -> str:
    """What Ctrl-C left behind, from the commits the command made (see ``paimon_core.journal``)."""
    snapshots = [(path, n) for path, kind, n in journal if kind == "snapshot"]
    schemas = [(path, n) for path, kind, n in journal if kind == "schema"]
    if snapshots or schemas:
        path, n = (snapshots or schemas)[-1]
        what = "snapshot" if snapshots else "schema"
        return f"interrupted after commit: {what} {n} of {_table_name(path)}"
    if command in _DELETING:
        return f"interrupted: {command} may have stopped part-way; run it again to finish"
    return "interrupted: nothing committed"


def _table_name(path: str) -> str:
    """``.../<db>.db/<table>`` -> ``db.table``."""
    parts = path.rstrip("/").replace("\\", "/").split("/")
    db = parts[-2][:-3] if len(parts) > 1 and parts[-2].endswith(".db") else parts[-2] if len(parts) > 1 else ""
    return f"{db}.{parts[-1]}" if db else parts[-1]


def stdout_to_devnull() -> None:
    """The reader of stdout went away (`paimon read -o json | head -1`): that is normal, the
    command ends quietly with exit 0. stdout now points at /dev/null, so the rest of the
    buffered output and the interpreter's final flush go nowhere instead of failing again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file descriptor (an in-process test runner)
