"""Work over a sequence on a few threads, results in input order (Arrow and numpy release the GIL).

Invariant: at most ``window`` items are in flight, so at most ``window`` results wait in memory.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

THREADS = min(4, os.cpu_count() or 1)


def ordered_parallel(fn: Callable[[T], R], items: Iterable[T], window: int) -> Iterator[R]:
    """``fn`` over ``items`` with up to ``window`` in flight; results in input order."""
    items = list(items)
    if window <= 1 or len(items) <= 1:
        for it in items:
            yield fn(it)
        return
    with ThreadPoolExecutor(window) as pool:
        pending = deque()
        for it in items:
            pending.append(pool.submit(fn, it))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
