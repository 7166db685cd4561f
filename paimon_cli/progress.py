"""A transient Rich progress bar on stderr, fed by the core's byte-progress callbacks.

Shown only when stderr is a terminal: scripts and pipes get no control characters.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def byte_progress(description: str, enabled: bool | None = None) -> Iterator[tuple[Callable, Callable]]:
    """Yield ``(on_plan(total_bytes), advance(bytes))`` for ``paimon_core.ingest``."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield (lambda total: None), (lambda n: None)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    progress = Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
        TimeRemainingColumn(), console=Console(file=sys.stderr), transient=True,
    )
    task = progress.add_task(description, total=None)
    with progress:
        yield (lambda total: progress.update(task, total=total)), (lambda n: progress.advance(task, n))
