"""``paimon rescale [DB.TABLE] --bucket N [-p K=V ...]``: rewrite partitions into N buckets."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, run_destructive
from paimon_cli.params import BranchOpt, TableArg, TableOpt, one_table
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("rescale")
def rescale(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    bucket: Annotated[
        int | None,
        typer.Option("--bucket", metavar="N", help="Buckets to write (default: the table's bucket option)."),
    ] = None,
    partition: Annotated[
        list[str] | None,
        typer.Option("--partition", "-p", metavar="K=V,...", help="A partition (repeatable; default: all)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the partitions and rows; change nothing.")
    ] = False,
) -> None:
    """Rewrite partitions of a bucketed table with another number of buckets, in one snapshot.

    As Java's rescale procedure: the partitions' current rows are written again in N buckets and
    replace them (an OVERWRITE snapshot). The table's bucket option is not changed; to make N the
    number for new partitions too, alter-table set-option bucket=N (before or after). Writes into a
    partition whose files have another bucket count are refused until it is rescaled.

    Examples:

      paimon alter-table shop.orders set-option bucket=8
      paimon rescale shop.orders -p dt=2024-01-01 --dry-run
      paimon rescale shop.orders --bucket 8
    """
    from paimon_core.ops.rescale import rescale as run_rescale

    state = get_state(ctx)
    tbl = state.table(one_table(name, table), branch)
    current = tbl.schema.core_options.bucket
    if bucket is not None and not partition and current > 0 and bucket != current:
        from paimon_cli.output import note

        note(
            f"{tbl.identifier} keeps its bucket option ({current}): writes into the rescaled partitions "
            f"are refused until `paimon alter-table {tbl.identifier} set-option bucket={bucket}`"
        )

    def record(_plan, result):
        sid = result.snapshot.id if result.snapshot is not None else None
        counts = ", ".join(f"{p}: {n}" for p, n in sorted(result.buckets_before.items())) or "none"
        if result.partitions == 0:
            text = f"no partition of {tbl.identifier} matches; nothing changed"
        elif dry_run:
            text = (
                f"would rewrite {result.partitions} partition(s) of {tbl.identifier} ({result.rows} row(s)) "
                f"into {result.bucket} bucket(s); buckets now: {counts}"
            )
        else:
            text = (
                f"rewrote {result.partitions} partition(s) of {tbl.identifier} ({result.rows} row(s)) into "
                f"{result.bucket} bucket(s), snapshot {sid}"
            )
        return (
            {
                "table": tbl.identifier,
                "partitions": result.partitions,
                "rows": result.rows,
                "bucket": result.bucket,
                "buckets_before": result.buckets_before,
                "dry_run": dry_run,
                "snapshot": sid,
            },
            text,
        )

    run_destructive(
        state,
        Destructive(
            label=f"rescale {tbl.identifier}",
            plan=lambda: None,
            record=record,
            preview=lambda _plan: run_rescale(tbl, bucket, partition, dry_run=True),
            run=lambda _plan, _done: run_rescale(tbl, bucket, partition, dry_run=False),
        ),
        dry_run,
    )
