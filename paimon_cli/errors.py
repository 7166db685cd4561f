"""Errors the CLI raises itself, and the mapping of any exception to one stderr line + exit code.

The mapping is used in exactly one place: the root group's ``invoke`` (see ``app.py``).
"""

from __future__ import annotations

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
