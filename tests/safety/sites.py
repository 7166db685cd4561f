"""Which injection points take distinct code paths.

A storage call is known by its label and its call site: the chain of code locations in the
library (``core/``) that led to it. A loop that writes one file per bucket or deletes one file
per expired snapshot makes the same call from the same site again and again; the harnesses
inject at the first and the last of such a run of calls (the loop's first step, with nothing of
it done yet, and its last, with all the rest done) instead of at every one: the steps between
take the same path with a state between those two. Every distinct site is still injected.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence
from pathlib import Path

LIBRARY = str(Path(__file__).resolve().parents[2] / "core") + "/"


def call_site(skip: int = 1) -> str:
    """The library frames of the current stack (innermost first) as ``file:line`` steps."""
    frame = sys._getframe(skip + 1)
    steps = []
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(LIBRARY):
            steps.append(f"{name[len(LIBRARY) :]}:{frame.f_lineno}")
        frame = frame.f_back
    return ">".join(steps)


def first_and_last(keys: Sequence[Hashable], among: Sequence[int] | None = None) -> list[int]:
    """The 1-based points (of ``among``, default all) that are the first or the last with their key."""
    points = list(range(1, len(keys) + 1)) if among is None else list(among)
    first: dict[Hashable, int] = {}
    last: dict[Hashable, int] = {}
    for k in points:
        first.setdefault(keys[k - 1], k)
        last[keys[k - 1]] = k
    return sorted(set(first.values()) | set(last.values()))
