"""``paimon consumer list|reset|delete``: the progress records of streaming readers."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, TableOpt, iso_millis
from paimon_cli.state import get_state
from paimon_cli.table_groups import METAVAR, TableFirstGroup

app = typer.Typer()
consumer_app = typer.Typer(
    cls=TableFirstGroup,
    subcommand_metavar=METAVAR,
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
    from paimon_core.maintain import list_consumers

    state = get_state(ctx)
    tbl = state.table(table, branch)
    rows = [
        [c.consumer_id, c.next_snapshot, None if c.modified_ms is None else iso_millis(c.modified_ms)]
        for c in list_consumers(tbl)
    ]
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
    from paimon_core.maintain import reset_consumer

    state = get_state(ctx)
    tbl = state.table(table, branch)
    reset_consumer(tbl, consumer_id, next_snapshot)
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
    from paimon_core.maintain import delete_consumer

    state = get_state(ctx)
    tbl = state.table(table, branch)
    delete_consumer(tbl, consumer_id)
    state.out.record(
        {"consumer": consumer_id, "deleted": True}, f"deleted consumer {consumer_id} of {tbl.identifier}"
    )
