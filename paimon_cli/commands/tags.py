"""``paimon tag create|list|delete``: named snapshots that survive expiry. ``tag delete`` is
destructive (plan, ``--dry-run``, one record with the files it deletes)."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.file_plans import by_kind, file_list, print_files_plan, total_bytes
from paimon_cli.humanize import human_bytes
from paimon_cli.params import BranchOpt, DryRunOpt, TableOpt, iso_millis, parse_duration, parse_time_millis
from paimon_cli.state import get_state
from paimon_cli.table_groups import METAVAR, TableFirstGroup

app = typer.Typer()
tag_app = typer.Typer(
    cls=TableFirstGroup,
    subcommand_metavar=METAVAR,
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
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", metavar="TIME", help="Tag the newest snapshot committed at or before TIME."),
    ] = None,
    time_retained: Annotated[
        str | None,
        typer.Option(
            "--time-retained",
            metavar="DURATION",
            help="A time-to-live (e.g. 7d): tag expire deletes it after.",
        ),
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Move an existing tag of this name to the snapshot.")
    ] = False,
) -> None:
    """Tag a snapshot (the latest by default); the name must be new unless --replace.

    Examples:

      paimon tag create nightly -t demo.events
      paimon tag create before-fix -t demo.events --snapshot 3
      paimon tag create eod -t demo.events --as-of 2024-05-01T23:59:59 --time-retained 7d
    """
    from paimon_core import now_ms
    from paimon_core.maintain import create_tag

    state = get_state(ctx)
    tbl = state.table(table, branch)
    info = create_tag(
        tbl,
        name,
        snapshot,
        as_of_ms=parse_time_millis(as_of) if as_of is not None else None,
        time_retained_ms=parse_duration(time_retained, "--time-retained"),
        replace=replace,
        now_ms=now_ms(),
    )
    state.out.record(
        {
            "table": tbl.identifier,
            "tag": info.name,
            "snapshot": info.snapshot_id,
            "time": iso_millis(info.time_millis),
            "rows": info.record_count,
        },
        f"{'moved' if replace else 'created'} tag {info.name} on snapshot {info.snapshot_id} of {tbl.identifier}",
    )


@tag_app.command("rename")
def tag_rename(
    ctx: typer.Context,
    old: Annotated[str, typer.Argument(metavar="OLD", help="The tag to rename.")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="Its new name (must be free).")],
    table: TableOpt = None,
    branch: BranchOpt = None,
) -> None:
    """Rename a tag (its snapshot and time-to-live stay).

    Example:

      paimon tag rename nightly nightly-2024-05-01 -t demo.events
    """
    from paimon_core.maintain import rename_tag

    state = get_state(ctx)
    tbl = state.table(table, branch)
    info = rename_tag(tbl, old, new)
    state.out.record(
        {"table": tbl.identifier, "tag": info.name, "was": old, "snapshot": info.snapshot_id},
        f"renamed tag {old} to {info.name} (snapshot {info.snapshot_id}) of {tbl.identifier}",
    )


@tag_app.command("expire")
def tag_expire(
    ctx: typer.Context, table: TableOpt = None, branch: BranchOpt = None, dry_run: DryRunOpt = False
) -> None:
    """Delete the tags whose time-to-live (tag create --time-retained, tag.default-time-retained)
    has passed, and the files only they kept, as Java's writers do after each commit.

    Example:

      paimon tag expire -t demo.events --dry-run
    """
    from paimon_core.maintain import expire_tags

    state = get_state(ctx)
    tbl = state.table(table, branch)
    if dry_run:
        tbl.require_readable()
    names = expire_tags(tbl, dry_run=dry_run)
    if not names:
        text = f"no tag of {tbl.identifier} is past its time-to-live"
    elif dry_run:
        text = f"dry run: would delete {len(names)} expired tag(s) of {tbl.identifier}: {', '.join(names)}"
    else:
        text = f"deleted {len(names)} expired tag(s) of {tbl.identifier}: {', '.join(names)}"
    state.out.record({"table": tbl.identifier, "dry_run": dry_run, "tags": names}, text)


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
