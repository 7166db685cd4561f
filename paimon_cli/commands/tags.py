"""``paimon tag create|list|delete``: named snapshots that survive expiry. ``tag delete`` is
destructive (plan, ``--dry-run``, one record with the files it deletes)."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.file_plans import by_kind, file_list, print_files_plan, total_bytes
from paimon_cli.humanize import human_bytes
from paimon_cli.params import BranchOpt, DryRunOpt, TableOpt, iso_millis
from paimon_cli.state import get_state

app = typer.Typer()
tag_app = typer.Typer(
    help="""Create, list and delete tags: named snapshots that survive expiry.

A tag keeps its snapshot readable (read --tag, diff --from TAG, rollback --tag) after the snapshot itself has expired; expire and rollback never delete a file a tag uses.

Examples:

  paimon tag create nightly -t demo.events
  paimon tag list -t demo.events
  paimon tag delete nightly -t demo.events --dry-run
""",
    no_args_is_help=True,
)
app.add_typer(tag_app, name="tag")


@tag_app.command("create")
def tag_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Tag name: letters, digits, '-', '_', '.'.")],
    table: TableOpt = None,
    branch: BranchOpt = None,
    snapshot: Annotated[
        int | None,
        typer.Option("--snapshot", "-s", metavar="ID", min=1, help="Snapshot to tag (default: the latest)."),
    ] = None,
) -> None:
    """Tag a snapshot (the latest by default); the name must be new.

    Examples:

      paimon tag create nightly -t demo.events
      paimon tag create before-fix -t demo.events --snapshot 3
    """
    from paimon_core.maintain import create_tag

    state = get_state(ctx)
    tbl = state.table(table, branch)
    info = create_tag(tbl, name, snapshot)
    state.out.record(
        {
            "table": tbl.identifier,
            "tag": info.name,
            "snapshot": info.snapshot_id,
            "time": iso_millis(info.time_millis),
            "rows": info.record_count,
        },
        f"created tag {info.name} on snapshot {info.snapshot_id} of {tbl.identifier}",
    )


@tag_app.command("list")
def tag_list(ctx: typer.Context, table: TableOpt = None, branch: BranchOpt = None) -> None:
    """List the tags of a table with their snapshots.

    expired = true: the snapshot file is gone and only the tag keeps it readable.

    Example:

      paimon tag list -t demo.events
    """
    from paimon_core.maintain import list_tags

    state = get_state(ctx)
    tbl = state.table(table, branch)
    earliest = tbl.snapshots.earliest_id()
    rows = [
        [
            t.name,
            t.snapshot_id,
            iso_millis(t.time_millis),
            t.record_count,
            earliest is None or t.snapshot_id < earliest,
        ]
        for t in list_tags(tbl)
    ]
    state.out.rows(["tag", "snapshot", "time", "rows", "expired"], rows)


@tag_app.command("delete")
def tag_delete(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="The tag to delete.")],
    table: TableOpt = None,
    branch: BranchOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Delete a tag, and the files only it kept (when its snapshot has expired).

    Examples:

      paimon tag delete nightly -t demo.events --dry-run
      paimon tag delete nightly -t demo.events
    """
    from paimon_core.maintain import delete_tag, plan_delete_tag

    state = get_state(ctx)
    tbl = state.table(table, branch)
    ident = tbl.identifier

    def render(plan) -> None:
        info, files = plan
        plan_line(
            dry_run,
            f"delete tag {name} (snapshot {info.snapshot_id}) of {ident} and {len(files)} file(s) "
            "only it keeps"
            if files
            else f"delete tag {name} (snapshot {info.snapshot_id}) of {ident}; no file is only its own",
        )
        print_files_plan(state, files, None)

    def record(plan, result):
        info, files = plan
        if result is not None:
            files = result.files
        size = total_bytes(files)
        text = (
            f"dry run: would delete tag {name} and {len(files)} file(s), {human_bytes(size)}; nothing was "
            "deleted"
            if dry_run
            else f"deleted tag {name} of {ident} and {len(files)} file(s), {human_bytes(size)}"
        )
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "tag": name,
                "snapshot": info.snapshot_id,
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
            label=f"delete tag {name} of {ident}",
            plan=lambda: plan_delete_tag(tbl, name),
            render=render,
            work=lambda plan: len(plan[1]),
            record=record,
            run=lambda plan, done: delete_tag(tbl, name, progress=done),
        ),
        dry_run,
    )
