"""A failed Spark job as one core error: the task's last Python exception line, mapped back to
the ``paimon_core.errors`` class it names (so a user's mistake stays a one-line error)."""

from __future__ import annotations

import re

from paimon_core.errors import PaimonError

_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Mismatch|Input|Conflict|Exit)): (.*)$")


def _core_error_class(name: str, errors):
    """The class of ``paimon_core.errors`` that a task's error named ``name`` is (or derives
    from: ``InputRowError`` is a ``SchemaMismatch``); None for errors that are not ours."""
    stack, match = [PaimonError], None
    while stack and match is None:
        c = stack.pop()
        if c.__name__ == name:
            match = c
        stack.extend(c.__subclasses__())
    if match is None:
        return None
    return next(k for k in match.__mro__ if k.__module__ == errors.__name__)


def task_error(e: BaseException) -> BaseException:
    """A failed Spark job as a core error: the last Python exception line of the failed task."""
    from paimon_core import errors

    found = None
    for line in str(e).splitlines():
        m = _EXC_LINE.match(line.strip())
        if m:
            found = m
    if found:
        name, msg = found.group(1).rsplit(".", 1)[-1], found.group(2)
        cls = _core_error_class(name, errors)
        if cls is not None:
            return cls(msg)
        return PaimonError(f"the Spark job failed: {name}: {msg[:500]}")
    first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return PaimonError(f"the Spark job failed: {first[:500]}")
