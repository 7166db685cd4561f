"""``paimon expire``: delete old snapshots and the files only they use.

Plans first (``paimon_core.maintain.plan_expire``), prints the plan, then deletes with progress
(``paimon_cli.destructive``); ``--dry-run`` stops after the plan. ``-o json``/``csv`` print one
record listing every file deleted (or that would be).
"""

from __future__ import annotations

from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.file_plans import by_kind, file_list, kinds_text, print_files_plan, total_bytes, write_line
from paimon_cli.humanize import human_bytes, human_duration, id_range
from paimon_cli.params import BranchOpt, DryRunOpt, TableArg, TableOpt, one_table, parse_duration
from paimon_cli.state import get_state

app = typer.Typer()


def _nothing_reason(plan) -> str:
    if plan.latest is None:
        return "the table has no snapshots"
    rng, n = plan.range, plan.latest - plan.earliest + 1
    reason = rng.reason
    if reason == "retain-min":
        return (
            f"{n} snapshot(s) ({plan.earliest}..{plan.latest}) and retain-min keeps the newest "
            f"{plan.retain_min}"
        )
    if reason.endswith("time-retained"):
        return (
            f"snapshot {rng.end} is younger than {human_duration(plan.time_retained_ms)} "
            "(--older-than / snapshot.time-retained)"
        )
    if reason == "expire-limit":
        return f"max-deletes is {plan.max_deletes}"
    if reason == "consumer":
        return f"a consumer still needs snapshot {rng.end}"
    return f"stopped by {reason}"


def _protection(plan) -> dict[str, str]:
    prot = plan.protection()
    if "time-retained" in prot:
        prot["time-retained"] = (
            f"snapshots committed in the last {human_duration(plan.time_retained_ms)} are kept"
        )
    return prot


@app.command("expire")
def expire(
    ctx: typer.Context,
    name: TableArg = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than",
            metavar="DURATION",
            help="Expire only snapshots older than this (30m, 12h, 7d). Default: snapshot.time-retained (1h).",
        ),
    ] = None,
    retain_min: Annotated[
        int | None,
        typer.Option(
            "--retain-min",
            metavar="N",
            min=1,
            help="Always keep the newest N snapshots. Default: snapshot.num-retained.min (10).",
        ),
    ] = None,
    retain_max: Annotated[
        int | None,
        typer.Option(
            "--retain-max",
            metavar="N",
            min=1,
            help="Keep at most N snapshots, whatever their age. Default: snapshot.num-retained.max (unlimited).",
        ),
    ] = None,
    max_deletes: Annotated[
        int | None,
        typer.Option(
            "--max-deletes",
            metavar="N",
            min=0,
            help="Expire at most N snapshots in this run. Default: snapshot.expire.limit (50).",
        ),
    ] = None,
    changelog_older_than: Annotated[
        str | None,
        typer.Option(
            "--changelog-older-than",
            metavar="DURATION",
            help="Changelogs: expire only those older than this. Default: changelog.time-retained.",
        ),
    ] = None,
    changelog_retain_min: Annotated[
        int | None,
        typer.Option(
            "--changelog-retain-min",
            metavar="N",
            min=1,
            help="Changelogs: always keep the newest N. Default: changelog.num-retained.min.",
        ),
    ] = None,
    changelog_retain_max: Annotated[
        int | None,
        typer.Option(
            "--changelog-retain-max",
            metavar="N",
            min=1,
            help="Changelogs: keep at most N. Default: changelog.num-retained.max.",
        ),
    ] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Expire old snapshots and delete the files no retained snapshot or tag uses.

    Paimon's rules: the newest --retain-min snapshots always stay; older ones go once they are older than --older-than, or whatever their age beyond --retain-max; at most --max-deletes per run. Tagged snapshots stay readable through their tags. A table that sets changelog.* options keeps its changelogs by them whatever these flags say (stream readers rely on them); only the --changelog-* flags override them. --dry-run prints what would go and what protects the rest.

    Examples:

      paimon expire -t demo.events --dry-run
      paimon expire -t demo.events --older-than 7d --retain-min 5
      paimon expire -t demo.events --retain-max 20 --max-deletes 100
      paimon -o json expire -t demo.events --older-than 12h --dry-run
    """
    table = one_table(name, table)
    from paimon_core import now_ms
    from paimon_core.maintain import ChangelogFlags, expire_snapshots, plan_expire

    older_ms = parse_duration(older_than, "'--older-than'")
    changelog_flags = ChangelogFlags(
        changelog_retain_min,
        changelog_retain_max,
        parse_duration(changelog_older_than, "'--changelog-older-than'"),
    )
    state = get_state(ctx)
    tbl = state.table(table, branch)
    now = now_ms()
    kw = dict(
        older_than_ms=older_ms,
        retain_min=retain_min,
        retain_max=retain_max,
        max_deletes=max_deletes,
        now_ms=now,
        changelog_flags=changelog_flags,
    )
    ident = tbl.identifier

    def render(plan) -> None:
        if plan.range:
            plan_line(
                dry_run,
                f"expire snapshots {id_range(plan.snapshot_ids)} of {ident} "
                f"({len(plan.snapshot_ids)} snapshot(s)); snapshot {plan.range.end} becomes the earliest"
                + ("; their changelogs stay in changelog/ (decoupled)" if plan.changelog_writes else ""),
            )
        c = plan.changelog
        if c is not None and c.range:
            plan_line(
                dry_run,
                f"expire changelogs {id_range(c.changelog_ids)} of {ident} "
                f"({len(c.changelog_ids)} changelog(s)); changelog {c.range.end} becomes the earliest",
            )
        print_files_plan(state, plan.files + (c.files if c is not None else ()), None)
        if dry_run:
            write_line("what protects the rest:")
            prot = _protection(plan)
            width = max(len(k) for k in prot)
            for k, v in prot.items():
                write_line(f"  {k:<{width}}  {v}")

    def record(plan, result):
        if plan.nothing:
            why = _nothing_reason(plan)
            return (
                {
                    "table": ident,
                    "dry_run": dry_run,
                    "expired": [],
                    "earliest": plan.earliest,
                    "file_count": 0,
                    "bytes": 0,
                    "reason": why,
                    "protection": _protection(plan),
                    "files": [],
                },
                f"nothing to expire in {ident}: {why}",
            )
        if result is None:
            result_plan, expired = plan, plan.snapshot_ids
            cplan = plan.changelog
            changelogs = cplan.changelog_ids if cplan is not None else []
            files = plan.files + (cplan.files if cplan is not None else ())
        else:
            result_plan, expired, changelogs, files = (
                result.plan,
                result.expired,
                result.expired_changelogs,
                result.files,
            )
        size = total_bytes(files)
        what = " and ".join(
            x
            for x in (
                f"snapshots {id_range(expired)}" if expired else "",
                f"changelogs {id_range(changelogs)}" if changelogs else "",
            )
            if x
        )
        if dry_run:
            text = (
                f"dry run: would expire {what} of {ident} and delete {len(files)} "
                f"file(s) ({kinds_text(files)}), {human_bytes(size)}; nothing was deleted"
            )
        elif what:
            text = (
                f"expired {what} of {ident}: deleted {len(files)} file(s) "
                f"({kinds_text(files)}), {human_bytes(size)}"
                + (f"; earliest is now {result_plan.range.end}" if expired else "")
            )
        else:  # the table changed between plan and run
            text = f"nothing to expire in {ident}: {_nothing_reason(result_plan)}"
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "expired": expired,
                "expired_changelogs": changelogs,
                "earliest": result_plan.range.end if expired else result_plan.earliest,
                "file_count": len(files),
                "bytes": size,
                "by_kind": by_kind(files),
                "protection": _protection(result_plan),
                "files": file_list(files),
            },
            text,
        )

    run_destructive(
        state,
        Destructive(
            label=f"expire {ident}",
            plan=lambda: plan_expire(tbl, **kw),
            nothing=lambda plan: plan.nothing,
            render=render,
            work=lambda plan: len(plan.files) + (len(plan.changelog.files) if plan.changelog else 0),
            record=record,
            run=lambda plan, done: expire_snapshots(tbl, dry_run=False, progress=done, **kw),
        ),
        dry_run,
    )
