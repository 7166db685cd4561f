"""``paimon doctor``: a table's health drawn with Rich (panels, level bars, advice), or as one
JSON object with ``-o json``. The facts come from ``paimon_core.maintain.health``; this module
only draws them, within the terminal's width (80 columns at least)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, TableOpt
from paimon_cli.state import get_state

app = typer.Typer()

MAX_BUCKETS = 16  # buckets drawn; the rest are counted (all of them are in -o json)
BAR = 22
LEVEL_STYLES = ("yellow", "cyan", "blue", "magenta", "green")


def _size(n: int | None) -> str:
    from paimon_cli.humanize import human_bytes

    return "n/a" if n is None else human_bytes(n)


def _ago(ms: int | None) -> str:
    if ms is None:
        return "-"
    s = max(ms, 0) // 1000
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if s >= size:
            rest = (s % size) // {"d": 3600, "h": 60, "m": 1}[unit]
            small = {"d": "h", "h": "m", "m": "s"}[unit]
            return f"{s // size}{unit}{f' {rest}{small}' if rest else ''} ago"
    return f"{s}s ago"


def _bar(value: int, top: int, style: str):
    from rich.text import Text

    n = 0 if top <= 0 or value <= 0 else max(1, round(BAR * value / top))
    return Text("█" * n + "·" * (BAR - n), style=style)


def _shown(buckets):
    """At most MAX_BUCKETS, the worst first chosen (most runs, then files), drawn in table order."""
    if len(buckets) <= MAX_BUCKETS:
        return list(buckets)
    worst = sorted(range(len(buckets)), key=lambda i: (-(buckets[i].sorted_runs or 0), -buckets[i].files))
    keep = set(worst[:MAX_BUCKETS])
    return [b for i, b in enumerate(buckets) if i in keep]


def _render(h) -> None:
    from rich import box
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = Console(file=sys.stdout, highlight=False)
    kind = "primary key" if h.primary_key else "append"
    mode = {-1: "dynamic buckets", -2: "postpone buckets"}.get(h.bucket_mode, f"{h.bucket_mode} bucket(s)")
    levels = f", {h.num_levels} levels" if h.num_levels else ""
    head = Text.assemble(
        (f"{h.files}", "bold"),
        " file" if h.files == 1 else " files",
        "  ",
        (_size(h.bytes), "bold"),
        "  ",
        (f"{h.rows}", "bold"),
        " rows  ",
        (f"{h.small_files}", "bold"),
        " small",
    )
    if h.primary_key:
        head.append_text(Text.assemble("  ", (f"{h.level0_rows}", "bold"), " rows in L0"))
    if h.postpone_rows:
        head.append_text(Text.assemble("  ", (f"{h.postpone_rows}", "bold red"), " waiting"))
    snap = f"snapshot {h.snapshot_id}" if h.snapshot_id is not None else "no snapshot"
    console.print(
        Panel(
            head,
            title=f"[bold]{h.table}[/bold]",
            subtitle=f"{kind}, {mode}{levels}, {snap}",
            box=box.ROUNDED,
            expand=True,
        )
    )

    if h.buckets:
        shown = _shown(h.buckets)
        top = max(lv.bytes for b in shown for lv in b.levels) or 1
        grid = Table(box=box.SIMPLE_HEAD, expand=True, pad_edge=False, show_edge=False)
        grid.add_column("partition/bucket", overflow="ellipsis", no_wrap=True, ratio=1, min_width=10)
        grid.add_column("lvl", justify="right", no_wrap=True)
        grid.add_column("bytes per level", no_wrap=True, width=BAR)
        grid.add_column("files", justify="right", no_wrap=True)
        grid.add_column("size", justify="right", no_wrap=True)
        grid.add_column("rows", justify="right", no_wrap=True)
        for b in shown:
            bucket = "postpone" if b.postponed else b.bucket
            where = f"{b.partition}/{bucket}" if b.partition else f"bucket {bucket}"
            note = []
            if b.sorted_runs is not None:
                style = "bold red" if b.sorted_runs >= h.thresholds.runs_trigger else "green"
                note.append((f"{b.sorted_runs} run{'s' if b.sorted_runs != 1 else ''}", style))
            if b.small_files:
                style = "bold red" if b.small_files >= h.thresholds.small_files_per_bucket else "dim"
                note.append((f"{' · ' if note else ''}{b.small_files} small", style))
            for i, lv in enumerate(b.levels):
                label = Text(where) if i == 0 else Text.assemble("  ", *note) if i == 1 else Text("")
                style = "red" if b.postponed else LEVEL_STYLES[min(lv.level, len(LEVEL_STYLES) - 1)]
                grid.add_row(
                    label,
                    "P" if b.postponed else f"L{lv.level}",
                    _bar(lv.bytes, top, style),
                    str(lv.files),
                    _size(lv.bytes),
                    str(lv.rows),
                )
            if len(b.levels) == 1 and note:
                grid.add_row(Text.assemble("  ", *note), "", "", "", "", "")
        parts = [grid]
        if len(shown) < len(h.buckets):
            parts.append(
                Text(f"{len(h.buckets) - len(shown)} more bucket(s) not drawn (all in -o json)", style="dim")
            )
        console.print(
            Panel(Group(*parts), title="LSM levels per partition/bucket", box=box.ROUNDED, expand=True)
        )

    s = h.snapshots
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold", no_wrap=True)
    facts.add_column(overflow="fold")
    span = f" ({s.earliest}..{s.latest})" if s.count else ""
    facts.add_row(
        "snapshots",
        f"{s.count}{span}, oldest {_ago(s.oldest_age_ms)}, newest {_ago(s.newest_age_ms)}; "
        f"{s.tags} tag(s); {s.expirable} can expire",
    )
    live = max(h.bytes, 1)
    held = Text.assemble(
        _bar(h.held_bytes, max(live, h.held_bytes), "magenta"),
        f" {_size(h.held_bytes)} in {h.held_files} file(s)",
    )
    facts.add_row("held by old", held)
    facts.add_row(
        "orphans",
        "not checked: " + (h.orphans_note or "")
        if h.orphan_files is None
        else f"{h.orphan_files} file(s), {_size(h.orphan_bytes)}",
    )
    if h.dv_ratio is None:
        facts.add_row("deletion vec.", "n/a")
    else:
        facts.add_row(
            "deletion vec.",
            Text.assemble(
                _bar(h.dv_deleted_rows or 0, max(h.rows, 1), "red"), f" {h.dv_ratio:.1%} of rows deleted"
            ),
        )
    console.print(Panel(facts, title="snapshots and files", box=box.ROUNDED, expand=True))

    advice = Table.grid(padding=(0, 1))
    advice.add_column(no_wrap=True)
    advice.add_column(overflow="fold")
    for f in h.findings:
        mark = Text("!", style="bold red") if f.level == "warn" else Text("✓", style="green")
        advice.add_row(mark, Text.assemble((f.topic, "bold"), ": ", f.text))
        if f.command:
            advice.add_row("", Text.assemble(("→ run ", "dim"), (f"{f.command} -t {h.table}", "bold cyan")))
        advice.add_row("", Text(f"threshold: {f.threshold}", style="dim"))
    warn = sum(f.level == "warn" for f in h.findings)
    title = f"findings: {warn} to act on" if warn else "findings: all good"
    console.print(
        Panel(advice, title=title, box=box.ROUNDED, expand=True, border_style="red" if warn else "green")
    )


@app.command("doctor")
def doctor(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="DB.TABLE",
            show_default=False,
            help="The table (or give -t; default: the configured table).",
        ),
    ] = None,
    table: TableOpt = None,
    branch: BranchOpt = None,
) -> None:
    """The health of a table at a glance, and what to run about it.

    Per partition and bucket: LSM levels with their sorted runs, files, sizes and small files; rows waiting in level 0 or in bucket-postpone; the deletion-vector ratio; snapshots and their age; bytes only older snapshots or tags hold; orphan files (a dry run of remove-orphans). Each finding states its threshold and the command to run. -o json prints the same facts as one JSON object, for monitoring.

    Examples:

      paimon doctor demo.events
      paimon -o json doctor demo.events
    """
    from paimon_core.maintain import table_health

    if name and table and name != table:
        raise typer.BadParameter(f"two tables given: {name} and -t {table}")
    state = get_state(ctx)
    tbl = state.table(name or table, branch)
    h = table_health(tbl)
    fmt = state.out.fmt
    if fmt == "json":
        from paimon_cli.plain import json_safe

        sys.stdout.write(json.dumps(json_safe(h.to_dict()), ensure_ascii=False) + "\n")
    elif fmt == "csv":
        rows = [
            [b.partition, b.bucket, lv.level, lv.files, lv.bytes, lv.rows, b.sorted_runs, b.small_files]
            for b in h.buckets
            for lv in b.levels
        ]
        state.out.rows(
            ["partition", "bucket", "level", "files", "bytes", "rows", "sorted_runs", "small_files"], rows
        )
    else:
        _render(h)
