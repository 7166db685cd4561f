"""``paimon consumer list|reset|delete``: the progress records of streaming readers."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, TableOpt, iso_millis
from paimon_cli.state import get_state

app = typer.Typer()
consumer_app = typer.Typer(
    help="""List, reset and delete consumers: where a streaming reader (paimon stream --consumer-id, or a
Paimon Flink/Spark job with consumer-id) resumes. Expiry keeps every snapshot a consumer still needs.

Examples:

  paimon consumer list -t demo.events
  paimon consumer reset audit --next 42 -t demo.events
  paimon consumer delete audit -t demo.events
""",
    no_args_is_help=True,
)
app.add_typer(consumer_app, name="consumer")


@consumer_app.command("list")
def list_consumers(ctx: typer.Context, table: TableOpt = None, branch: BranchOpt = None) -> None:
    """Consumers of a table with the next snapshot each will read."""
    from paimon_core.metadata.consumer import consumer_manager

    state = get_state(ctx)
    tbl = state.table(table, branch)
    cm = consumer_manager(tbl)
    rows = []
    for cid, nxt in sorted(cm.consumers().items()):
        try:
            modified = iso_millis(tbl.io.mtime_millis(cm.path(cid)))
        except FileNotFoundError:
            continue
        rows.append([cid, nxt, modified])
    state.out.rows(["consumer", "next_snapshot", "modified"], rows)


@consumer_app.command("reset")
def reset(
    ctx: typer.Context,
    consumer_id: Annotated[str, typer.Argument(metavar="NAME", show_default=False)],
    next_snapshot: Annotated[
        int,
        typer.Option(
            "--next", metavar="N", min=1, help="The next snapshot the consumer reads (earliest..latest+1)."
        ),
    ],
    table: TableOpt = None,
    branch: BranchOpt = None,
) -> None:
    """Set (or create) a consumer's next snapshot."""
    from paimon_core.errors import InvalidInput
    from paimon_core.metadata.consumer import consumer_manager

    state = get_state(ctx)
    tbl = state.table(table, branch)
    sm = tbl.snapshots
    earliest, latest = sm.earliest_id(), sm.latest_id()
    lo, hi = (earliest or 1), (latest or 0) + 1
    if not lo <= next_snapshot <= hi:
        raise InvalidInput(f"--next {next_snapshot} is outside {lo}..{hi} (earliest snapshot .. latest + 1)")
    consumer_manager(tbl).reset(consumer_id, next_snapshot)
    state.out.record(
        {"consumer": consumer_id, "next_snapshot": next_snapshot},
        f"consumer {consumer_id} of {tbl.identifier} reads snapshot {next_snapshot} next",
    )


@consumer_app.command("delete")
def delete(
    ctx: typer.Context,
    consumer_id: Annotated[str, typer.Argument(metavar="NAME", show_default=False)],
    table: TableOpt = None,
    branch: BranchOpt = None,
) -> None:
    """Delete a consumer (its snapshots may then expire)."""
    from paimon_core.metadata.consumer import consumer_manager

    state = get_state(ctx)
    tbl = state.table(table, branch)
    consumer_manager(tbl).delete(consumer_id)
    state.out.record(
        {"consumer": consumer_id, "deleted": True}, f"deleted consumer {consumer_id} of {tbl.identifier}"
    )
