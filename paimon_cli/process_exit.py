"""How a ``paimon`` process ends once its command returned: threads joined and ``atexit``
handlers run as the interpreter would, output flushed, then ``os._exit`` with the command's exit
status, skipping the interpreter's teardown.

Why: native thread pools (Arrow's) can abort a process while it tears down, after the command
finished and printed everything ("terminate called without an active exception", exit 134;
apache/arrow#34314; seen once in this project's CI on a read of an HDFS table). Nothing a
command does is left to the teardown: its commits are durable before it returns, and the
handlers that clean up (logging, a Spark session, temporary folders) are ``atexit`` handlers,
which still run. Standard library only.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def exit_status(code: object) -> int:
    """The status ``SystemExit(code)`` ends a process with: None is 0, an int itself, anything
    else is printed to stderr and is 1 (as the interpreter does)."""
    if code is None:
        return 0
    if isinstance(code, int) and not isinstance(code, bool):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except (OSError, ValueError):
        pass
    return 1


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, a closed stream: nothing to add
            pass


def exit_process(code: object) -> NoReturn:
    """End the process with ``SystemExit(code)``'s status (see the module docstring)."""
    status = exit_status(code)
    _flush()
    shutdown = getattr(threading, "_shutdown", None)  # what the interpreter runs first at exit
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    _flush()
    os._exit(status)
