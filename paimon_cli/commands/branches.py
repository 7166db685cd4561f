"""``paimon branch create|list|delete|rename|fast-forward``: branches of a table (their own
snapshots, schemas and tags over the table's shared files). ``branch delete`` is destructive
(plan, ``--dry-run``, one record with the files it deletes)."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.file_plans import by_kind, file_list, print_files_plan, total_bytes
from paimon_cli.humanize import human_bytes
from paimon_cli.params import DryRunOpt, TableOpt
from paimon_cli.state import get_state
from paimon_cli.table_groups import METAVAR, TableFirstGroup

app = typer.Typer()
branch_app = typer.Typer(
    cls=TableFirstGroup,
    subcommand_metavar=METAVAR,
    help="""Create, list, delete, rename and fast-forward branches of a table.

A branch has its own snapshots, schemas and tags over the table's data files: write to it, read it (--branch NAME on any table command, or DB.TABLE$branch_NAME), and make main the branch with fast-forward once it is right.

Examples:

  paimon branch create -t demo.events fix --tag nightly
  paimon ingest fixed.parquet -t demo.events --branch fix
  paimon branch fast-forward -t demo.events fix
""",
    no_args_is_help=True,
)
app.add_typer(branch_app, name="branch")

NameArg = Annotated[str, typer.Argument(metavar="NAME", help="Branch name: letters, digits, '-', '_', '.'.")]


def _main_table(state, table):
    """The table's main branch (branch commands name the branch as an argument)."""
    return state.table(table)


@branch_app.command("create")
def branch_create(
    ctx: typer.Context,
    name: NameArg,
    table: TableOpt = None,
    tag: Annotated[str | None, typer.Option("--tag", metavar="TAG", help="Start from this tag.")] = None,
    snapshot: Annotated[
        int | None, typer.Option("--snapshot", "-s", metavar="ID", min=1, help="Start from this snapshot.")
    ] = None,
) -> None:
    """Create a branch: from a tag, from a snapshot, or empty (the main schema, no rows).

    Examples:

      paimon branch create -t demo.events fix --tag nightly
      paimon branch create -t demo.events scratch
    """
    from paimon_core.maintain import create_branch

    if tag is not None and snapshot is not None:
        raise typer.BadParameter("give --tag or --snapshot, not both")
    state = get_state(ctx)
    tbl = _main_table(state, table)
    info = create_branch(tbl, name, tag, snapshot)
    state.out.record(
        _info_record(tbl.identifier, info),
        f"created branch {info.name} of {tbl.identifier} ({info.created_from})",
    )


def _info_record(ident: str, info) -> dict:
    return {
        "table": ident,
        "branch": info.name,
        "created_from": info.created_from,
        "earliest_snapshot": info.earliest_snapshot,
        "latest_snapshot": info.latest_snapshot,
        "schema_id": info.schema_id,
        "tags": list(info.tags),
    }


@branch_app.command("list")
def branch_list(ctx: typer.Context, table: TableOpt = None) -> None:
    """List the branches of a table: where each came from and its latest snapshot.

    Example:

      paimon branch list -t demo.events -o json
    """
    from paimon_core.maintain import list_branches

    state = get_state(ctx)
    tbl = _main_table(state, table)
    rows = [
        [b.name, b.created_from, b.latest_snapshot, b.schema_id, ",".join(b.tags)] for b in list_branches(tbl)
    ]
    state.out.rows(["branch", "created_from", "latest_snapshot", "schema_id", "tags"], rows)


@branch_app.command("rename")
def branch_rename(
    ctx: typer.Context,
    name: NameArg,
    new_name: Annotated[str, typer.Argument(metavar="NEW_NAME", help="The new name.")],
    table: TableOpt = None,
) -> None:
    """Rename a branch (as Java Paimon 1.x's renameBranch).

    Example:

      paimon branch rename -t demo.events fix fix-2024
    """
    from paimon_core.maintain import rename_branch

    state = get_state(ctx)
    tbl = _main_table(state, table)
    info = rename_branch(tbl, name, new_name)
    state.out.record(
        _info_record(tbl.identifier, info), f"renamed branch {name} of {tbl.identifier} to {new_name}"
    )


@branch_app.command("fast-forward")
def branch_fast_forward(
    ctx: typer.Context, name: NameArg, table: TableOpt = None, dry_run: DryRunOpt = False
) -> None:
    """Make main the branch, as Java's fast-forward.

    Main's snapshots, schemas and tags from the branch's first snapshot on are replaced by the
    branch's. Files only the replaced snapshots used are left for remove-orphans.

    Example:

      paimon branch fast-forward -t demo.events fix
    """
    from paimon_core.maintain import fast_forward, plan_fast_forward

    state = get_state(ctx)
    tbl = _main_table(state, table)
    plan = plan_fast_forward(tbl, name) if dry_run else fast_forward(tbl, name)
    replaced = (
        f" ({len(plan.snapshots_dropped)} snapshot(s) of main replaced)" if plan.snapshots_dropped else ""
    )
    done = (
        f"dry run: would fast-forward {tbl.identifier} to branch {name}: main's latest snapshot would be "
        f"{plan.latest}{replaced}; nothing was changed"
        if dry_run
        else f"fast-forwarded {tbl.identifier} to branch {name}: main's latest snapshot is {plan.latest}{replaced}"
    )
    state.out.record(
        {
            "table": tbl.identifier,
            "branch": name,
            "dry_run": dry_run,
            "snapshots_replaced": list(plan.snapshots_dropped),
            "tags_replaced": list(plan.tags_dropped),
            "latest_snapshot": plan.latest,
        },
        done,
    )


@branch_app.command("delete")
def branch_delete(
    ctx: typer.Context, name: NameArg, table: TableOpt = None, dry_run: DryRunOpt = False
) -> None:
    """Delete a branch, and the files only it used (no other branch, main included, uses them).

    Examples:

      paimon branch delete -t demo.events scratch --dry-run
      paimon branch delete -t demo.events scratch
    """
    from paimon_core.maintain import delete_branch, plan_delete_branch

    state = get_state(ctx)
    tbl = _main_table(state, table)
    ident = tbl.identifier

    def render(files) -> None:
        plan_line(dry_run, f"delete branch {name} of {ident} and {len(files)} file(s) only it uses")
        print_files_plan(state, files, None)

    def record(files, result):
        if result is not None:
            files = result.files
        size = total_bytes(files)
        text = (
            f"dry run: would delete branch {name} and {len(files)} file(s), {human_bytes(size)}; "
            "nothing was deleted"
            if dry_run
            else f"deleted branch {name} of {ident} and {len(files)} file(s), {human_bytes(size)}"
        )
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "branch": name,
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
            label=f"delete branch {name} of {ident}",
            plan=lambda: plan_delete_branch(tbl, name),
            render=render,
            work=len,
            record=record,
            run=lambda plan, done: delete_branch(tbl, name, progress=done),
        ),
        dry_run,
    )
