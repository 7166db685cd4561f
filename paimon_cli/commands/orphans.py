"""``paimon remove-orphans``: delete files in Java Paimon's orphan-cleanup scope that no snapshot,
tag, branch or changelog uses, older than ``--older-than`` (plan, ``--dry-run``, one record with
the files it deletes; see ``paimon_core.maintain.orphan_scope``)."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.file_plans import by_kind, file_list, kinds_text, print_files_plan, total_bytes
from paimon_cli.humanize import human_bytes, human_duration
from paimon_cli.params import BranchOpt, DryRunOpt, TableArg, TableOpt, iso_millis, one_table, parse_duration
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("remove-orphans")
def remove_orphans(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    older_than: Annotated[
        str,
        typer.Option(
            "--older-than",
            metavar="DURATION",
            help="Only files older than this (30m, 12h, 7d); younger files may belong to a commit in flight.",
        ),
    ] = "1d",
    dry_run: DryRunOpt = False,
) -> None:
    """Delete data and metadata files that no snapshot, tag, branch or changelog uses.

    Such files are left by crashed writers or an interrupted expire, rollback or tag deletion. Only manifest/, index/, statistics/ and the bucket directories are looked at (plus stray files in snapshot/ and changelog/), as Java Paimon does; everything else in the table directory is never touched. Only files older than --older-than go: younger ones may belong to a commit in flight.

    Examples:

      paimon remove-orphans -t demo.events --dry-run
      paimon remove-orphans -t demo.events --older-than 12h
      paimon -o json remove-orphans -t demo.events --dry-run
    """
    table = one_table(name, table)
    from paimon_core import now_ms
    from paimon_core.maintain import plan_orphans
    from paimon_core.maintain import remove_orphans as run_remove

    older_ms = parse_duration(older_than, "'--older-than'")
    state = get_state(ctx)
    tbl = state.table(table, branch)
    ident = tbl.identifier
    now = now_ms()

    def render(plan) -> None:
        plan_line(
            dry_run,
            f"{len(plan.files)} orphan file(s) in {ident} older than {human_duration(older_ms)}"
            f" ({plan.referenced} file(s) in use, {plan.too_young} unreferenced but younger)",
        )
        print_files_plan(state, plan.files, None, list_limit=20 if dry_run else 0)

    def record(plan, result):
        if result is not None:
            plan = result.plan
        files = plan.files
        size = total_bytes(files)
        if not files:
            text = f"no orphan files in {ident} older than {human_duration(older_ms)}"
        elif dry_run:
            text = (
                f"dry run: would delete {len(files)} orphan file(s) ({kinds_text(files)}), {human_bytes(size)}; "
                "nothing was deleted"
            )
        else:
            text = (
                f"deleted {len(files)} orphan file(s) from {ident} ({kinds_text(files)}), {human_bytes(size)}"
            )
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "older_than_ms": older_ms,
                "cutoff": iso_millis(plan.cutoff_ms),
                "referenced": plan.referenced,
                "too_young": plan.too_young,
                "file_count": len(files),
                "bytes": size,
                "by_kind": by_kind(files),
                "files": file_list(files),
            },
            text,
        )

    run_destructive(
        state,
        Destructive(
            label=f"remove orphans of {ident}",
            plan=lambda: plan_orphans(tbl, older_ms, now),
            nothing=lambda plan: not plan.files,
            render=render,
            work=lambda plan: len(plan.files),
            record=record,
            run=lambda plan, done: run_remove(tbl, older_ms, now_ms=now, progress=done),
        ),
        dry_run,
    )
