"""``paimon rollback``: back to an older snapshot or a tag, deleting everything newer (plan,
``--dry-run``, one record with the files it deletes)."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.file_plans import by_kind, file_list, print_files_plan, total_bytes, write_line
from paimon_cli.humanize import human_bytes, id_range
from paimon_cli.params import BranchOpt, DryRunOpt, TableArg, TableOpt, one_table, parse_time_millis
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("rollback")
def rollback(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    to: Annotated[
        int | None, typer.Option("--to", metavar="ID", min=1, help="Snapshot to roll back to.")
    ] = None,
    tag: Annotated[str | None, typer.Option("--tag", metavar="NAME", help="Tag to roll back to.")] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            metavar="TIME",
            help="Roll back to the newest snapshot committed at or before this time (as read --as-of).",
        ),
    ] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Roll a table back to an older snapshot, a tag or a time, deleting everything newer.

    Deletes every newer snapshot, the files only they used, and tags on newer snapshots; a tag whose snapshot has expired brings that snapshot back.

    Examples:

      paimon rollback -t demo.events --to 3 --dry-run
      paimon rollback -t demo.events --to 3
      paimon rollback -t demo.events --tag before-fix
      paimon rollback -t demo.events --as-of 2024-05-01T12:00:00
    """
    table = one_table(name, table)
    from paimon_core.maintain import plan_rollback
    from paimon_core.maintain import rollback as run_rollback

    if sum(x is not None for x in (to, tag, as_of)) != 1:
        raise typer.BadParameter(
            "give exactly one of --to ID, --tag NAME or --as-of TIME",
            param_hint="'--to' / '--tag' / '--as-of'",
        )
    as_of_ms = parse_time_millis(as_of) if as_of is not None else None
    state = get_state(ctx)
    tbl = state.table(table, branch)
    ident = tbl.identifier

    def target(plan) -> str:
        if tag:
            return f"tag {tag} (snapshot {plan.target.id})"
        return f"snapshot {plan.target.id}" + (f" (the newest at or before {as_of})" if as_of else "")

    def render(plan) -> None:
        plan_line(dry_run, f"roll {ident} back to {target(plan)}")
        write_line(f"  snapshots removed: {id_range(plan.snapshots) if plan.snapshots else 'none'}")
        if plan.tags_deleted:
            write_line(f"  tags deleted: {', '.join(plan.tags_deleted)}")
        if plan.recreate_snapshot:
            write_line(f"  snapshot {plan.target.id} is rewritten from the tag (it had expired)")
        if plan.damaged:
            write_line(f"  {_damaged(plan)}")
        print_files_plan(state, plan.files, None)

    def record(plan, result):
        where = target(plan)
        if result is not None:
            plan = result.plan
        size = total_bytes(plan.files)
        removed = sorted(plan.snapshots)
        what = f"{len(removed)} snapshot(s) ({id_range(removed)}), " if removed else "no snapshot, "
        what += f"{len(plan.files)} file(s), {human_bytes(size)}"
        if plan.damaged:
            what += f" ({_damaged(plan)})"
        text = (
            f"dry run: rolling back to {where} would delete {what}; nothing was deleted"
            if dry_run
            else f"rolled {ident} back to {where}: deleted {what}"
        )
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "snapshot": plan.target.id,
                "tag": tag,
                "snapshots_removed": removed,
                "tags_deleted": list(plan.tags_deleted),
                "damaged_snapshots": list(plan.damaged),
                "recreated_snapshot": plan.recreate_snapshot,
                "file_count": len(plan.files),
                "bytes": size,
                "by_kind": by_kind(plan.files),
                "files": file_list(plan.files),
            },
            text,
        )

    run_destructive(
        state,
        Destructive(
            label=f"roll back {ident}",
            plan=lambda: plan_rollback(tbl, to, tag, as_of_ms),
            render=render,
            work=lambda plan: len(plan.files),
            record=record,
            run=lambda plan, done: run_rollback(tbl, to, tag, progress=done, as_of_ms=as_of_ms),
        ),
        dry_run,
    )


def _damaged(plan) -> str:
    ids = ", ".join(map(str, sorted(plan.damaged)))
    return (
        f"damaged snapshot file(s) {ids}: deleted with the others; the data files only they added "
        "cannot be listed, `paimon remove-orphans` deletes them"
    )
