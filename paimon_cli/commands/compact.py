"""``paimon compact``: universal (minor) compaction of the buckets that need it, or
``--level-max`` to merge every bucket into one sorted run at the top level."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, TableArg, TableOpt, one_table, split_list
from paimon_cli.progress import count_progress
from paimon_cli.state import get_state

app = typer.Typer()


@app.command("compact")
def compact(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    level_max: Annotated[
        bool,
        typer.Option(
            "--level-max", "--full", help="Full compaction: every bucket into the top level, deletes dropped."
        ),
    ] = False,
    partition: Annotated[
        str | None, typer.Option("--partition", "-p", metavar="K=V,...", help="Only this partition.")
    ] = None,
    order_by: Annotated[
        str | None,
        typer.Option("--order-by", metavar="C1,C2", help="Append tables: rewrite sorted by these columns."),
    ] = None,
    zorder: Annotated[
        str | None,
        typer.Option("--zorder", metavar="C1,C2", help="Append tables: rewrite in Z-order of these columns."),
    ] = None,
    hilbert: Annotated[
        str | None,
        typer.Option(
            "--hilbert", metavar="C1,C2", help="Append tables: rewrite in Hilbert order of these columns."
        ),
    ] = None,
    manifests: Annotated[
        bool,
        typer.Option(
            "--manifests", help="Rewrite the table's manifests into as few as possible (no data files)."
        ),
    ] = False,
) -> None:
    """Compact a table in one COMPACT snapshot (reads return the same rows before and after).

    Without --level-max, each bucket is compacted the way Paimon's universal strategy picks
    (num-sorted-run.compaction-trigger, compaction.max-size-amplification-percent,
    compaction.size-ratio); append tables merge small files.

    Examples:

      paimon compact -t demo.events
      paimon compact -t demo.events --level-max
      paimon compact -t demo.events --full -p dt=2024-01-01
      paimon compact -t demo.events --manifests
      paimon compact -t demo.logs --zorder user_id,ts -p dt=2024-01-01
      paimon --engine spark compact -t demo.logs --hilbert user_id,ts
    """
    table = one_table(name, table)
    from paimon_core import compact as run_compact

    state = get_state(ctx)
    tbl = state.table(table, branch)
    if manifests:
        if level_max or partition:
            raise typer.BadParameter(
                "--manifests compacts manifests only: without --level-max or --partition"
            )
        _compact_manifests(state, tbl)
        return
    sorts = {k: v for k, v in (("order", order_by), ("zorder", zorder), ("hilbert", hilbert)) if v}
    if sorts:
        if len(sorts) > 1 or level_max:
            raise typer.BadParameter(
                "give one of --order-by, --zorder, --hilbert (a sort compaction is always full)"
            )
        ((strategy, cols),) = sorts.items()
        _sort_compact(state, tbl, strategy, split_list(cols), partition)
        return
    with count_progress(f"compact {tbl.identifier}", "buckets") as advance:
        result = run_compact(
            tbl, full=level_max, partition=partition, engine=state.engine(), progress=advance
        )
    sid = result.snapshot.id if result.snapshot is not None else None
    text = (
        f"compacted {result.buckets} bucket(s) of {tbl.identifier}: {result.files_before} file(s) -> "
        f"{result.files_after}, snapshot {sid}"
        if sid is not None
        else f"nothing to compact in {tbl.identifier}"
    )
    state.out.record(
        {
            "table": tbl.identifier,
            "snapshot": sid,
            "buckets": result.buckets,
            "files_before": result.files_before,
            "files_after": result.files_after,
        },
        text,
    )


def _compact_manifests(state, tbl) -> None:
    from paimon_core import compact_manifests

    result = compact_manifests(tbl)
    sid = result.snapshot.id if result.snapshot is not None else None
    text = (
        f"compacted the manifests of {tbl.identifier}: {result.manifests_before} -> {result.manifests_after}, "
        f"snapshot {sid}"
        if sid is not None
        else f"the manifests of {tbl.identifier} are compact ({result.manifests_before}); nothing to do"
    )
    state.out.record(
        {
            "table": tbl.identifier,
            "snapshot": sid,
            "manifests_before": result.manifests_before,
            "manifests_after": result.manifests_after,
        },
        text,
    )


def _sort_compact(state, tbl, strategy: str, columns: list[str], partition: str | None) -> None:
    from paimon_cli.progress import spinner
    from paimon_core import sort_compact

    with spinner(f"sort-compact {tbl.identifier}"):
        result = sort_compact(tbl, strategy, columns, partition, engine=state.engine())
    sid = result.snapshot.id if result.snapshot is not None else None
    how = f"{strategy} of {', '.join(columns)}" if strategy != "order" else f"order by {', '.join(columns)}"
    text = (
        f"rewrote {result.partitions} partition(s) of {tbl.identifier} in {how}: {result.rows} row(s), "
        f"{result.files_before} file(s) -> {result.files_after}, snapshot {sid}"
        if sid is not None
        else f"nothing to sort in {tbl.identifier}"
    )
    state.out.record(
        {
            "table": tbl.identifier,
            "snapshot": sid,
            "strategy": strategy,
            "columns": columns,
            "partitions": result.partitions,
            "rows": result.rows,
            "files_before": result.files_before,
            "files_after": result.files_after,
        },
        text,
    )
