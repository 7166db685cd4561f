"""Snapshot lifecycle: ``paimon expire``, ``paimon tag create|list|delete``, ``paimon rollback``,
``paimon remove-orphans``.

Destructive commands plan first (``paimon_core.maintain.plan_*``), print the plan, then run the
core operation with progress (``paimon_cli.destructive``); ``--dry-run`` stops after the plan and
deletes nothing. With ``-o json`` (or
csv) each command prints one record that lists every file it deletes (or would).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from paimon_cli.destructive import Destructive, plan_line, run_destructive
from paimon_cli.params import TableOpt, iso_millis
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

DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Print the plan; delete nothing.")]


# ---------------------------------------------------------------- helpers
def parse_duration(text: str | None, flag: str) -> int | None:
    """``30m`` / ``12h`` / ``7d`` -> milliseconds; a bad value is a usage error. A bare number
    is refused: these commands delete, and whether ``7`` means days or milliseconds (as in a
    Paimon option) is not something to guess."""
    if text is None:
        return None
    import re

    from paimon_core.errors import PaimonError
    from paimon_core.options import parse_duration_ms

    if re.fullmatch(r"\s*[-+]?\d+(\.\d*)?\s*", text):
        raise typer.BadParameter(
            f"'{text}' has no unit: write e.g. {text.strip()}d, {text.strip()}h, "
            f"{text.strip()}m, {text.strip()}s or {text.strip()}ms",
            param_hint=flag,
        )
    try:
        ms = parse_duration_ms(text)
    except PaimonError as e:
        raise typer.BadParameter(str(e), param_hint=flag) from None
    if ms < 0:
        raise typer.BadParameter(f"duration '{text}' must not be negative", param_hint=flag)
    return ms


def human_bytes(n: int) -> str:
    n = max(int(n), 0)
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}"
    return f"{n} B"  # unreachable


def human_duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0 or (ms == 0 and unit == "s"):
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def id_range(ids) -> str:
    ids = sorted(ids)
    if not ids:
        return "-"
    if ids == list(range(ids[0], ids[-1] + 1)):
        return str(ids[0]) if len(ids) == 1 else f"{ids[0]}..{ids[-1]}"
    return ",".join(map(str, ids))


def by_kind(files) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for f in files:
        k = out.setdefault(f.kind, {"files": 0, "bytes": 0})
        k["files"] += 1
        k["bytes"] += max(f.size, 0)
    return out


def total_bytes(files) -> int:
    return sum(max(f.size, 0) for f in files)


def file_list(files) -> list[dict]:
    return [{"path": f.path, "kind": f.kind, "bytes": f.size if f.size >= 0 else None} for f in files]


def kinds_text(files) -> str:
    """``data 2, manifest 4`` (per-kind counts, for a summary line)."""
    return ", ".join(f"{k} {v['files']}" for k, v in by_kind(files).items())


def _write(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def print_files_plan(state, files, title: str, list_limit: int = 0) -> None:
    """Table output only: files per kind with bytes, and optionally the first paths."""
    if state.out.fmt != "table" or not files:
        return
    kinds = by_kind(files)
    rows = [[k, v["files"], human_bytes(v["bytes"])] for k, v in kinds.items()]
    rows.append(["total", len(files), human_bytes(total_bytes(files))])
    state.out.rows(["kind", "files", "bytes"], rows, title=title)
    if list_limit:
        for f in files[:list_limit]:
            _write(f"  {f.kind:<14} {human_bytes(f.size) if f.size >= 0 else '?':>10}  {f.path}")
        if len(files) > list_limit:
            _write(f"  ... and {len(files) - list_limit} more (-o json lists every file)")


# ---------------------------------------------------------------- expire
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
    table: TableOpt = None,
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
    dry_run: DryRunOpt = False,
) -> None:
    """Expire old snapshots and delete the files no retained snapshot or tag uses.

    Paimon's rules: the newest --retain-min snapshots always stay; older ones go once they are older than --older-than, or whatever their age beyond --retain-max; at most --max-deletes per run. Tagged snapshots stay readable through their tags. --dry-run prints what would go and what protects the rest.

    Examples:

      paimon expire -t demo.events --dry-run
      paimon expire -t demo.events --older-than 7d --retain-min 5
      paimon expire -t demo.events --retain-max 20 --max-deletes 100
      paimon -o json expire -t demo.events --older-than 12h --dry-run
    """
    from paimon_core.maintain import expire_snapshots, plan_expire
    from paimon_core.maintain.expire import now_millis

    older_ms = parse_duration(older_than, "'--older-than'")
    state = get_state(ctx)
    tbl = state.table(table)
    now = now_millis()
    kw = dict(
        older_than_ms=older_ms,
        retain_min=retain_min,
        retain_max=retain_max,
        max_deletes=max_deletes,
        now_ms=now,
    )
    ident = tbl.identifier

    def render(plan) -> None:
        plan_line(
            dry_run,
            f"expire snapshots {id_range(plan.snapshot_ids)} of {ident} "
            f"({len(plan.snapshot_ids)} snapshot(s)); snapshot {plan.range.end} becomes the earliest",
        )
        print_files_plan(state, plan.files, None)
        if dry_run:
            _write("what protects the rest:")
            prot = _protection(plan)
            width = max(len(k) for k in prot)
            for k, v in prot.items():
                _write(f"  {k:<{width}}  {v}")

    def record(plan, result):
        if not plan.range:
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
        result_plan, expired = (plan, plan.snapshot_ids) if result is None else (result.plan, result.expired)
        files = result_plan.files
        size = total_bytes(files)
        if dry_run:
            text = (
                f"dry run: would expire snapshots {id_range(expired)} of {ident} and delete {len(files)} "
                f"file(s) ({kinds_text(files)}), {human_bytes(size)}; nothing was deleted"
            )
        elif expired:
            text = (
                f"expired snapshots {id_range(expired)} of {ident}: deleted {len(files)} file(s) "
                f"({kinds_text(files)}), {human_bytes(size)}; earliest is now {result_plan.range.end}"
            )
        else:  # the table changed between plan and run
            text = f"nothing to expire in {ident}: {_nothing_reason(result_plan)}"
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "expired": expired,
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
            nothing=lambda plan: not plan.range,
            render=render,
            work=lambda plan: len(plan.files),
            record=record,
            run=lambda plan, done: expire_snapshots(tbl, dry_run=False, progress=done, **kw),
        ),
        dry_run,
    )


# ---------------------------------------------------------------- tags
@tag_app.command("create")
def tag_create(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", help="Tag name: letters, digits, '-', '_', '.'.")],
    table: TableOpt = None,
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
    tbl = state.table(table)
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
def tag_list(ctx: typer.Context, table: TableOpt = None) -> None:
    """List the tags of a table with their snapshots.

    expired = true: the snapshot file is gone and only the tag keeps it readable.

    Example:

      paimon tag list -t demo.events
    """
    from paimon_core.maintain import list_tags

    state = get_state(ctx)
    tbl = state.table(table)
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
    dry_run: DryRunOpt = False,
) -> None:
    """Delete a tag, and the files only it kept (when its snapshot has expired).

    Examples:

      paimon tag delete nightly -t demo.events --dry-run
      paimon tag delete nightly -t demo.events
    """
    from paimon_core.maintain import delete_tag, plan_delete_tag

    state = get_state(ctx)
    tbl = state.table(table)
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


# ---------------------------------------------------------------- rollback
@app.command("rollback")
def rollback(
    ctx: typer.Context,
    table: TableOpt = None,
    to: Annotated[
        int | None, typer.Option("--to", metavar="ID", min=1, help="Snapshot to roll back to.")
    ] = None,
    tag: Annotated[str | None, typer.Option("--tag", metavar="NAME", help="Tag to roll back to.")] = None,
    dry_run: DryRunOpt = False,
) -> None:
    """Roll a table back to an older snapshot or a tag, deleting everything newer.

    Deletes every newer snapshot, the files only they used, and tags on newer snapshots; a tag whose snapshot has expired brings that snapshot back.

    Examples:

      paimon rollback -t demo.events --to 3 --dry-run
      paimon rollback -t demo.events --to 3
      paimon rollback -t demo.events --tag before-fix
    """
    from paimon_core.maintain import plan_rollback
    from paimon_core.maintain import rollback as run_rollback

    if (to is None) == (tag is None):
        raise typer.BadParameter("give exactly one of --to ID or --tag NAME", param_hint="'--to' / '--tag'")
    state = get_state(ctx)
    tbl = state.table(table)
    ident = tbl.identifier

    def target(plan) -> str:
        return f"tag {tag} (snapshot {plan.target.id})" if tag else f"snapshot {plan.target.id}"

    def render(plan) -> None:
        plan_line(dry_run, f"roll {ident} back to {target(plan)}")
        _write(f"  snapshots removed: {id_range(plan.snapshots) if plan.snapshots else 'none'}")
        if plan.tags_deleted:
            _write(f"  tags deleted: {', '.join(plan.tags_deleted)}")
        if plan.recreate_snapshot:
            _write(f"  snapshot {plan.target.id} is rewritten from the tag (it had expired)")
        print_files_plan(state, plan.files, None)

    def record(plan, result):
        where = target(plan)
        if result is not None:
            plan = result.plan
        size = total_bytes(plan.files)
        removed = sorted(plan.snapshots)
        what = f"{len(removed)} snapshot(s) ({id_range(removed)}), " if removed else "no snapshot, "
        what += f"{len(plan.files)} file(s), {human_bytes(size)}"
        text = (
            f"dry run: rolling back to {where} would delete {what}; nothing was deleted"
            if dry_run
            else f"rolled {ident} back to {where}: deleted {what}"
        )
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "snapshot": plan.target.id,
                "tag": tag,
                "snapshots_removed": removed,
                "tags_deleted": list(plan.tags_deleted),
                "recreated_snapshot": plan.recreate_snapshot,
                "file_count": len(plan.files),
                "bytes": size,
                "by_kind": by_kind(plan.files),
                "files": file_list(plan.files),
            },
            text,
        )

    run_destructive(
        state,
        Destructive(
            label=f"roll back {ident}",
            plan=lambda: plan_rollback(tbl, to, tag),
            render=render,
            work=lambda plan: len(plan.files),
            record=record,
            run=lambda plan, done: run_rollback(tbl, to, tag, progress=done),
        ),
        dry_run,
    )


# ---------------------------------------------------------------- orphans
@app.command("remove-orphans")
def remove_orphans(
    ctx: typer.Context,
    table: TableOpt = None,
    older_than: Annotated[
        str,
        typer.Option(
            "--older-than",
            metavar="DURATION",
            help="Only files older than this (30m, 12h, 7d); younger files may belong to a commit in flight.",
        ),
    ] = "1d",
    dry_run: DryRunOpt = False,
) -> None:
    """Delete files under the table that no snapshot or tag uses.

    Such files are left by crashed writers or an interrupted expire, rollback or tag deletion. Only files older than --older-than go: younger ones may belong to a commit in flight.

    Examples:

      paimon remove-orphans -t demo.events --dry-run
      paimon remove-orphans -t demo.events --older-than 12h
      paimon -o json remove-orphans -t demo.events --dry-run
    """
    from paimon_core.maintain import plan_orphans
    from paimon_core.maintain import remove_orphans as run_remove
    from paimon_core.maintain.expire import now_millis

    older_ms = parse_duration(older_than, "'--older-than'")
    state = get_state(ctx)
    tbl = state.table(table)
    ident = tbl.identifier
    now = now_millis()

    def render(plan) -> None:
        plan_line(
            dry_run,
            f"{len(plan.files)} orphan file(s) in {ident} older than {human_duration(older_ms)}"
            f" ({plan.referenced} file(s) in use, {plan.too_young} unreferenced but younger)",
        )
        print_files_plan(state, plan.files, None, list_limit=20 if dry_run else 0)

    def record(plan, result):
        if result is not None:
            plan = result.plan
        files = plan.files
        size = total_bytes(files)
        if not files:
            text = f"no orphan files in {ident} older than {human_duration(older_ms)}"
        elif dry_run:
            text = (
                f"dry run: would delete {len(files)} orphan file(s) ({kinds_text(files)}), {human_bytes(size)}; "
                "nothing was deleted"
            )
        else:
            text = (
                f"deleted {len(files)} orphan file(s) from {ident} ({kinds_text(files)}), {human_bytes(size)}"
            )
        return (
            {
                "table": ident,
                "dry_run": dry_run,
                "older_than_ms": older_ms,
                "cutoff": iso_millis(plan.cutoff_ms),
                "referenced": plan.referenced,
                "too_young": plan.too_young,
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
            label=f"remove orphans of {ident}",
            plan=lambda: plan_orphans(tbl, older_ms, now),
            nothing=lambda plan: not plan.files,
            render=render,
            work=lambda plan: len(plan.files),
            record=record,
            run=lambda plan, done: run_remove(tbl, older_ms, now_ms=now, progress=done),
        ),
        dry_run,
    )
