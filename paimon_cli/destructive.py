"""The one shape of every destructive command (expire, rollback, remove-orphans, tag delete, delete):
plan -> print the plan -> stop on --dry-run -> run with progress -> record the result.

Invariants: with ``--dry-run`` nothing but ``plan`` (and ``preview``) runs, so nothing is deleted;
the plan is printed only with ``-o table`` (``-o json``/``csv`` print one record, with the
files); progress goes to stderr on a terminal only; exactly one record is printed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Destructive:
    """What a destructive command does, step by step (closures over its table and options).

    ``plan()``: what would be done (deletes nothing). ``nothing(plan)``: there is nothing to do (the
    plan is not printed, nothing runs). ``render(plan)``: the plan, for ``-o table``. ``preview(plan)``:
    the result of a dry run (default None). ``run(plan, done)``: does it, calling ``done(item)`` per
    unit of work (a deleted file). ``work(plan)``: the number of those units, None when unknown (then
    a spinner shows instead of a bar). ``record(plan, result)``: ``(json record, summary line)``;
    ``result`` is None after ``nothing`` or a dry run without ``preview``."""

    label: str
    plan: Callable[[], Any]
    run: Callable[[Any, Callable[[Any], None]], Any]
    record: Callable[[Any, Any], tuple[dict, str]]
    render: Callable[[Any], None] | None = None
    nothing: Callable[[Any], bool] = lambda plan: False
    preview: Callable[[Any], Any] | None = None
    work: Callable[[Any], int | None] = lambda plan: None
    unit: str = "files"


def run_destructive(state, op: Destructive, dry_run: bool) -> None:
    from paimon_cli.progress import count_progress, spinner

    plan = op.plan()
    result = None
    if not op.nothing(plan):
        if state.out.fmt == "table" and op.render is not None:
            op.render(plan)
        if dry_run:
            result = op.preview(plan) if op.preview is not None else None
        else:
            total = op.work(plan)
            if total is None:
                with spinner(op.label):
                    result = op.run(plan, lambda _item: None)
            else:
                with count_progress(op.label, op.unit, total=total) as advance:
                    result = op.run(plan, lambda _item: advance(1))
    obj, text = op.record(plan, result)
    state.out.record(obj, text)


def plan_line(dry_run: bool, text: str) -> None:
    """The first line of a printed plan."""
    sys.stdout.write(("plan (dry run): " if dry_run else "plan: ") + text + "\n")
    sys.stdout.flush()
