"""``paimon delete [DB.TABLE] --where EXPR``: delete the matching rows in one snapshot."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, run_destructive
from paimon_cli.params import BranchOpt, TableArg, TableOpt, one_table
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("delete")
def delete(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    where: Annotated[
        str, typer.Option("--where", metavar="EXPR", help="Rows to delete (as in read --where).")
    ] = "",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Count the rows and files; change nothing.")
    ] = False,
) -> None:
    """Delete the rows matching --where, in one snapshot.

    Append tables with deletion-vectors.enabled mark the rows in deletion vectors (data files
    untouched); other append tables rewrite the files holding them; primary-key tables get a
    -D record per matching key.

    Examples:

      paimon delete shop.orders --where "dt = '2024-01-01' AND amount < 0" --dry-run
      paimon delete -t shop.orders --where "id IN (3, 5)"
    """
    from paimon_cli.humanize import after_commit_summary
    from paimon_core.ops.delete import delete_where

    state = get_state(ctx)
    tbl = state.table(one_table(name, table), branch)
    unit = "bucket(s)" if tbl.is_primary_key_table else "file(s)"

    def record(_plan, result):
        sid = result.snapshot.id if result.snapshot is not None else None
        if dry_run:
            text = f"would delete {result.rows} row(s) of {tbl.identifier} in {result.files} {unit} ({result.mode})"
            if tbl.is_primary_key_table:
                text = f"would delete {result.rows} row(s) of {tbl.identifier} ({result.mode})"
        elif result.rows == 0:
            text = f"no rows of {tbl.identifier} match; nothing changed"
        else:
            text = f"deleted {result.rows} row(s) of {tbl.identifier} ({result.mode}), snapshot {sid}"
            text += after_commit_summary(result.after)
        return (
            {
                "table": tbl.identifier,
                "rows": result.rows,
                "files": result.files,
                "mode": result.mode,
                "dry_run": dry_run,
                "snapshot": sid,
            },
            text,
        )

    # the core counts and deletes in one pass: the dry run's count is the plan, and nothing is printed before
    run_destructive(
        state,
        Destructive(
            label=f"delete from {tbl.identifier}",
            plan=lambda: None,
            record=record,
            preview=lambda _plan: delete_where(tbl, where, dry_run=True),
            run=lambda _plan, _done: delete_where(tbl, where, dry_run=False),
        ),
        dry_run,
    )
