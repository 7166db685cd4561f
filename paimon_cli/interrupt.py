"""Ctrl-C seen by the process, for errors it causes indirectly.

SIGINT raises KeyboardInterrupt wherever the program is; inside a third-party import or a
library that catches it, it can come back as another error (a half-imported module's
AttributeError). ``watch()`` records that SIGINT arrived, so the CLI reports such a failure as
the interruption it is (exit 130), not as an internal error. A process that ignores SIGINT
(started in the background) keeps ignoring it. Standard library only: it runs before the rest of
the CLI is imported.
"""

from __future__ import annotations

import signal
import sys

_received = False


def _on_sigint(signum, frame):
    global _received
    _received = True
    raise KeyboardInterrupt


def _quiet_unraisable(previous):
    """A KeyboardInterrupt raised where Python cannot propagate it (a weakref or import-lock
    callback, a finalizer) is dropped silently: the command goes on as if Ctrl-C came a moment
    too early to count, instead of printing 'Exception ignored' with a traceback."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return
        previous(unraisable)

    return hook


def _quiet_excepthook(previous):
    """Extension code that cannot raise (Cython's ``noexcept`` functions and ``__dealloc__``)
    prints the error it swallows through ``sys.excepthook`` before the unraisable hook sees it:
    a KeyboardInterrupt there came out as a bare traceback (ci of 2026-11-30, an import lock
    inside pyarrow). The command itself still reports the interruption once, in one line."""

    def hook(exc_type, exc_value, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            return
        previous(exc_type, exc_value, tb)

    return hook


def watch() -> None:
    """Record SIGINT from now on (only where it would raise KeyboardInterrupt anyway)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
        sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
        sys.excepthook = _quiet_excepthook(sys.excepthook)


def received() -> bool:
    return _received


def exit_before_command() -> None:
    """Ctrl-C before any command ran (while the CLI starts): nothing was done."""
    sys.stderr.write("interrupted: nothing committed\n")
    sys.stderr.flush()
    raise SystemExit(130)
