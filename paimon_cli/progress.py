"""A transient Rich progress bar on stderr, fed by the core's progress callbacks (with the Spark
engine, by Spark's job progress: completed tasks of the job's stages, from the status tracker).

Shown only when stderr is a terminal: scripts and pipes get no control characters. Work whose
total is known shows a bar with "done/total"; work whose total is not known (yet) shows a
spinner and the amount done, never "n/?".
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def stderr_is_terminal() -> bool:
    """Whether progress is shown when the caller does not say (the one place that decides)."""
    return sys.stderr.isatty()


def _columns(bytes_done: bool, unit: str = ""):
    """Spinner (unknown total) or bar, the amount done ("done/total" once the total is known),
    the unit (counts) or speed (bytes), elapsed time."""
    from rich.filesize import decimal
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.text import Text

    class Known(ProgressColumn):
        """Renders `known` while the task's total is known, else `unknown`."""

        def __init__(self, known, unknown):
            super().__init__()
            self.known, self.unknown = known, unknown

        def render(self, task):
            return (self.known if task.total is not None else self.unknown).render(task)

    class Speed(ProgressColumn):
        """Bytes per second once measured (Rich's own column shows "?" until then)."""

        def render(self, task):
            speed = task.finished_speed or task.speed
            return Text(f"{decimal(int(speed))}/s" if speed else "", style="progress.data.speed")

    class SoFar(ProgressColumn):
        def render(self, task):
            done = decimal(int(task.completed)) if bytes_done else f"{int(task.completed):,}"
            return Text(done, style="progress.download")

    nothing = TextColumn("")
    return (
        Known(nothing, SpinnerColumn()),
        TextColumn("{task.description}"),
        Known(BarColumn(), nothing),
        Known(DownloadColumn() if bytes_done else MofNCompleteColumn(), SoFar()),
        TextColumn(unit) if unit else Speed(),
        TimeElapsedColumn(),
    )


@contextmanager
def byte_progress(description: str, enabled: bool | None = None) -> Iterator[tuple[Callable, Callable]]:
    """Yield ``(on_plan(total_bytes), advance(bytes))`` for ``paimon_core.ops.ingest``."""
    if enabled is None:
        enabled = stderr_is_terminal()
    if not enabled:
        yield (lambda total: None), (lambda n: None)
        return
    from rich.console import Console
    from rich.progress import Progress

    progress = Progress(*_columns(True), console=Console(file=sys.stderr), transient=True)
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
    from rich.progress import Progress

    progress = Progress(*_columns(False, unit), console=Console(file=sys.stderr), transient=True)
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
