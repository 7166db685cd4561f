"""``paimon partition list|drop|mark-done|expire``: a table's partitions, as Java's ``$partitions``,
drop partition, mark-done and partition expiry (core: ``paimon_core.maintain.partitions`` and
``partition_expire``). ``drop`` and ``expire`` commit one OVERWRITE snapshot; ``--dry-run`` writes
nothing."""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, DryRunOpt, TableOpt, iso_millis, parse_duration
from paimon_cli.state import get_state
from paimon_cli.table_groups import METAVAR, TableFirstGroup

app = typer.Typer()
partition_app = typer.Typer(
    cls=TableFirstGroup,
    subcommand_metavar=METAVAR,
    help="""List, drop, mark done and expire the partitions of a table.

Examples:

  paimon partition list -t demo.events
  paimon partition drop -t demo.events --partition dt=2024-01-01 --dry-run
  paimon partition mark-done -t demo.events --partition dt=2024-01-01
  paimon partition expire -t demo.events --expiration-time 30d --dry-run
""",
    no_args_is_help=True,
)
app.add_typer(partition_app, name="partition")

PartitionsOpt = Annotated[
    list[str],
    typer.Option(
        "--partition", "-p", metavar="K=V,...", help="A partition (repeatable; a prefix names several)."
    ),
]


def _specs(tbl, given: list[str]) -> list[dict]:
    from paimon_core import parse_partition_spec
    from paimon_core.errors import InvalidInput

    if not given:
        raise InvalidInput("name at least one partition with --partition K=V[,K2=V2]")
    return [s for s in (parse_partition_spec(tbl, g) for g in given) if s is not None]


def _names(tbl, partitions) -> list[str]:
    codec = tbl.partition_codec
    return [codec.display(codec.spec(p)) for p in partitions]


@partition_app.command("list")
def partition_list(ctx: typer.Context, table: TableOpt = None, branch: BranchOpt = None) -> None:
    """The partitions of the latest snapshot, with Java's $partitions figures: rows, bytes,
    files and the newest file's creation time (UTC).

    Example:

      paimon partition list -t demo.events -o json
    """
    from paimon_core.maintain import partition_stats

    state = get_state(ctx)
    tbl = state.table(table, branch)
    tbl.require_readable()
    codec = tbl.partition_codec
    rows = [
        [
            codec.display(codec.spec(s.values)) if codec.keys else "",
            s.record_count,
            s.file_size_in_bytes,
            s.file_count,
            iso_millis(s.last_file_creation_time),
        ]
        for s in partition_stats(tbl)
    ]
    # the names of the other listings (doctor, files): snake case, times as UTC text
    state.out.rows(["partition", "rows", "bytes", "files", "last_file_created"], rows)


@partition_app.command("drop")
def partition_drop(
    ctx: typer.Context,
    partition: PartitionsOpt,
    table: TableOpt = None,
    branch: BranchOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Drop partitions: one OVERWRITE snapshot without their files (as Java's drop partition).
    Time travel to earlier snapshots still reads them until those expire.

    Examples:

      paimon partition drop -t demo.events --partition dt=2024-01-01 --dry-run
      paimon partition drop -t demo.events -p dt=2024-01-01 -p dt=2024-01-02
    """
    from paimon_core.maintain import drop_partitions, matching

    state = get_state(ctx)
    tbl = state.table(table, branch)
    found = matching(tbl, _specs(tbl, partition))
    names = _names(tbl, found)
    # Java's drop partition commits through FileStoreCommit, without the table commit's housekeeping
    snap = None if dry_run else drop_partitions(tbl, found)
    sid = snap.id if snap is not None else None
    text = (
        f"dry run: would drop {len(names)} partition(s) of {tbl.identifier}: {'; '.join(names)}; nothing was written"
        if dry_run
        else f"dropped {len(names)} partition(s) of {tbl.identifier} in snapshot {sid}: {'; '.join(names)}"
    )
    state.out.record(
        {"table": tbl.identifier, "dry_run": dry_run, "partitions": names, "snapshot": sid}, text
    )


@partition_app.command("mark-done")
def partition_mark_done(
    ctx: typer.Context,
    partition: PartitionsOpt,
    table: TableOpt = None,
    branch: BranchOpt = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Run the table's partition.mark-done-action on partitions (success-file: a _SUCCESS file
    in the partition directory, as Java writes it).

    Example:

      paimon partition mark-done -t demo.events --partition dt=2024-01-01
    """
    from paimon_core.maintain import mark_done, matching

    state = get_state(ctx)
    tbl = state.table(table, branch)
    found = matching(tbl, _specs(tbl, partition))
    names = _names(tbl, found)
    actions = mark_done(tbl, found, dry_run=dry_run)
    text = (
        f"dry run: would mark {len(names)} partition(s) of {tbl.identifier} done ({', '.join(actions)}): "
        f"{'; '.join(names)}"
        if dry_run
        else f"marked {len(names)} partition(s) of {tbl.identifier} done ({', '.join(actions)}): {'; '.join(names)}"
    )
    state.out.record(
        {"table": tbl.identifier, "dry_run": dry_run, "partitions": names, "actions": actions}, text
    )


@partition_app.command("expire")
def partition_expire(
    ctx: typer.Context,
    table: TableOpt = None,
    branch: BranchOpt = None,
    expiration_time: Annotated[
        str | None,
        typer.Option("--expiration-time", metavar="DURATION", help="Expire older partitions (e.g. 30d)."),
    ] = None,
    strategy: Annotated[
        str | None,
        typer.Option("--strategy", metavar="NAME", help="values-time or update-time."),
    ] = None,
    formatter: Annotated[
        str | None,
        typer.Option("--timestamp-formatter", metavar="PATTERN", help="Java date pattern, e.g. yyyyMMdd."),
    ] = None,
    pattern: Annotated[
        str | None,
        typer.Option("--timestamp-pattern", metavar="PATTERN", help="Time from the keys, e.g. $dt."),
    ] = None,
    max_num: Annotated[
        int | None,
        typer.Option("--max-num", metavar="N", min=1, help="Most partitions to drop."),
    ] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Drop the partitions older than the expiration time now (whatever the check interval), in
    one OVERWRITE snapshot. A partition whose values the timestamp formatter cannot read is named
    and nothing is dropped. Each flag overrides the table's partition.expiration-* or
    partition.timestamp-* option.

    Examples:

      paimon partition expire -t demo.events --dry-run
      paimon partition expire -t demo.events --expiration-time 7d --timestamp-formatter yyyyMMdd
    """
    from paimon_core.errors import InvalidInput
    from paimon_core.maintain import ExpireSettings, expire_partitions

    state = get_state(ctx)
    tbl = state.table(table, branch)
    if dry_run:
        tbl.require_readable()
    settings = ExpireSettings.of(
        tbl,
        expiration_ms=parse_duration(expiration_time, "--expiration-time"),
        strategy=strategy,
        formatter=formatter,
        pattern=pattern,
        max_num=max_num,
    )
    if settings is None:
        raise InvalidInput(f"table {tbl.identifier} has no partition.expiration-time: give --expiration-time")
    result = expire_partitions(tbl, settings, dry_run=dry_run, strict=True)  # no housekeeping after, as Java
    names = _names(tbl, result.expired)
    sid = result.snapshot.id if result.snapshot is not None else None
    if not names:
        text = f"no partition of {tbl.identifier} is older than {iso_millis(result.cutoff_ms)}"
    elif dry_run:
        text = (
            f"dry run: would drop {len(names)} expired partition(s) of {tbl.identifier}: {'; '.join(names)}"
        )
    else:
        text = f"dropped {len(names)} expired partition(s) of {tbl.identifier} in snapshot {sid}: {'; '.join(names)}"
    state.out.record(
        {"table": tbl.identifier, "dry_run": dry_run, "partitions": names, "snapshot": sid}, text
    )
