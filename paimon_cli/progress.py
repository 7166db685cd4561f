"""A transient Rich progress bar on stderr, fed by the core's progress callbacks (with the Spark
engine, by Spark's job progress: completed tasks of the job's stages, from the status tracker).

Shown only when stderr is a terminal: scripts and pipes get no control characters.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def stderr_is_terminal() -> bool:
    """Whether progress is shown when the caller does not say (the one place that decides)."""
    return sys.stderr.isatty()


@contextmanager
def byte_progress(description: str, enabled: bool | None = None) -> Iterator[tuple[Callable, Callable]]:
    """Yield ``(on_plan(total_bytes), advance(bytes))`` for ``paimon_core.ops.ingest``."""
    if enabled is None:
        enabled = stderr_is_terminal()
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
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    task = progress.add_task(description, total=None)
    with progress:
        yield (lambda total: progress.update(task, total=total)), (lambda n: progress.advance(task, n))


@contextmanager
def count_progress(
    description: str, unit: str, enabled: bool | None = None, total: int | None = None
) -> Iterator[Callable]:
    """Yield ``advance(n)`` for work counted in units (compaction: buckets; deletions: files)."""
    if enabled is None:
        enabled = stderr_is_terminal()
    if not enabled:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    task = progress.add_task(description, total=total)
    with progress:
        yield lambda n: progress.advance(task, n)


@contextmanager
def spinner(description: str, enabled: bool | None = None) -> Iterator[None]:
    """A spinner with elapsed time for work that reports no progress (a Spark session start)."""
    if enabled is None:
        enabled = stderr_is_terminal()
    if not enabled:
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    progress.add_task(description, total=None)
    with progress:
        yield
