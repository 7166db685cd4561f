"""``paimon stream``: follow a table's changes as they are committed (JSON lines by default).

Delivery: a snapshot's rows are written and flushed, and only then is the consumer (if any)
moved past that snapshot. A crash between the two re-delivers at most the last snapshot on
stdout (``--snapshot-column`` lets a reader drop it); ``--out DIR`` is exactly-once: each
Parquet file is named by the snapshots it holds and renamed into place before the consumer
moves, and a restart skips snapshots a file in DIR already holds.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from paimon_cli.params import BranchOpt, split_list
from paimon_cli.state import get_state

app = typer.Typer()


def _parse_point(tbl, text: str, flag: str):
    """--from / --until: a snapshot id, a tag (its Snapshot) or a time -> (start, start_time_ms)."""
    from paimon_core.errors import InvalidInput

    try:
        spec = tbl.point(text)
    except InvalidInput as e:
        raise typer.BadParameter(str(e), param_hint=flag) from None
    if spec.time_millis is not None:
        return None, spec.time_millis
    if spec.tag is not None:
        return tbl.resolve_snapshot(tag=spec.tag), None
    return spec.snapshot_id, None


class _RowSink:
    """JSON lines / CSV on stdout, flushed per snapshot."""

    def __init__(self, fmt: str, columns: list[str]):
        from paimon_cli.output import Output

        self.sink = Output(fmt).sink(columns)

    def deliver(self, batch, rows) -> None:
        from paimon_cli.convert import arrow_rows

        if rows.num_rows:
            self.sink.write(arrow_rows(rows))
        sys.stdout.flush()

    def close(self) -> None:
        sys.stdout.flush()


class _LiveSink:
    """``-o table``: a live Rich view of the newest rows on a terminal; plain tables per snapshot
    otherwise."""

    KEEP = 30

    def __init__(self, columns: list[str], title: str):
        self.columns = columns
        self.title = title
        self.rows: list = []
        self.count = 0
        self.snapshot = None
        self.live = None
        if sys.stdout.isatty():
            from rich.live import Live

            self.live = Live(self._render(), auto_refresh=False)
            self.live.start()

    def _render(self):
        from rich import box
        from rich.table import Table

        caption = (
            f"{self.count} rows, last snapshot {self.snapshot}" if self.snapshot else "waiting for snapshots"
        )
        table = Table(title=self.title, caption=caption, box=box.ROUNDED, header_style="bold")
        for c in self.columns:
            table.add_column(c, overflow="fold")
        from paimon_cli.output import text_cell

        for r in self.rows:
            table.add_row(*["null" if v is None else text_cell(v) for v in r])
        return table

    def deliver(self, batch, rows) -> None:
        from paimon_cli.convert import arrow_rows
        from paimon_cli.output import plain_table

        new = list(arrow_rows(rows))
        self.count += len(new)
        self.snapshot = batch.snapshot_id
        if self.live is not None:
            self.rows = (self.rows + new)[-self.KEEP :]
            self.live.update(self._render(), refresh=True)
        elif new:
            sys.stdout.write(
                plain_table(
                    self.columns,
                    new,
                    [False] * len(self.columns),
                    f"snapshot {batch.snapshot_id} ({batch.kind})",
                )
            )
            sys.stdout.flush()

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()


@app.command("stream")
def stream(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(metavar="DB.TABLE", show_default=False, help="Table to follow (or --table)."),
    ] = None,
    table: Annotated[str | None, typer.Option("--table", "-t", metavar="DB.TABLE", hidden=True)] = None,
    branch: BranchOpt = None,
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            metavar="MODE",
            help="Start: latest-full (default: all rows, then changes) | latest | from-snapshot | from-snapshot-full | compacted-full (the rows of the latest full compaction, then changes).",
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--from", metavar="N|TAG|TIME", help="Start at this snapshot (implies --mode from-snapshot)."
        ),
    ] = None,
    consumer_id: Annotated[
        str | None,
        typer.Option(
            "--consumer-id", metavar="NAME", help="Record progress as consumer NAME and resume from it."
        ),
    ] = None,
    ignore_progress: Annotated[
        bool, typer.Option("--ignore-progress", help="Start by --mode even if the consumer has progress.")
    ] = False,
    poll: Annotated[
        str, typer.Option("--poll", metavar="DURATION", help="Wait between looks for new snapshots.")
    ] = "1s",
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="N|TIME",
            help="Stop after snapshot N, or before the first snapshot committed after TIME.",
        ),
    ] = None,
    max_snapshots: Annotated[
        int | None,
        typer.Option(
            "--max-snapshots",
            metavar="N",
            min=1,
            help="Stop after N snapshots with rows to stream (the start counts).",
        ),
    ] = None,
    select: Annotated[
        str | None, typer.Option("--select", metavar="COLS", help="Columns, comma-separated.")
    ] = None,
    snapshot_column: Annotated[
        bool,
        typer.Option("--snapshot-column", help="Add a _snapshot column (the snapshot each row comes from)."),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write rolling Parquet files part-FIRST-LAST.parquet into DIR (exactly once).",
        ),
    ] = None,
    roll_rows: Annotated[
        int, typer.Option("--roll-rows", metavar="N", min=1, help="With --out: rows per file.")
    ] = 100_000,
    roll_interval: Annotated[
        str,
        typer.Option("--roll-interval", metavar="DURATION", help="With --out: close a file after this long."),
    ] = "10s",
) -> None:
    """Follow a table: its rows, then each new snapshot's changes, first column _row_kind.

    Changes come from the changelog files when the table has a changelog producer, else from
    the rows APPEND snapshots added. Output is JSON lines unless -o csv / -o table is given,
    flushed after each snapshot. Ctrl-C stops cleanly.

    Examples:

      paimon stream demo.events
      paimon stream shop.customers --mode latest --consumer-id audit
      paimon stream shop.customers --from 42 --until 50 -o csv
      paimon stream demo.events --out changes/ --consumer-id archive
    """
    import numpy as np
    import pyarrow as pa

    from paimon_core import StreamRead, parse_duration_ms

    state = get_state(ctx)
    if name and table and name != table:
        raise typer.BadParameter("give the table once (argument or --table)")
    tbl = state.table(name or table, branch)
    s, s_ms = _parse_point(tbl, start, "'--from'") if start is not None else (None, None)
    until_id, until_ms = _parse_point(tbl, until, "'--until'") if until is not None else (None, None)
    if until_id is not None and not isinstance(until_id, int):
        until_id = until_id.id  # a tag: up to the snapshot it holds
    poll_s = parse_duration_ms(poll) / 1000
    latest_id = tbl.snapshots.latest_id() or 0
    if isinstance(s, int) and s > latest_id + 1:
        from paimon_cli.output import note

        note(f"snapshot {s} does not exist yet (the latest is {latest_id}): waiting for it")
    reader = StreamRead(
        tbl,
        mode=mode,
        start=s,
        start_time_ms=s_ms,
        consumer_id=consumer_id,
        ignore_progress=ignore_progress or None,
        columns=split_list(select) or None,
    )
    columns = ["_row_kind"] + (["_snapshot"] if snapshot_column else []) + reader.columns
    fmt = state.flags.output or "json"
    if out is not None:
        from paimon_core.ops.stream_sink import ParquetDirSink

        sink = ParquetDirSink(out, roll_rows, parse_duration_ms(roll_interval), reader.ack)
    elif fmt == "table":
        sink = _LiveSink(columns, f"{tbl.identifier} (streaming)")
    else:
        sink = _RowSink(fmt, columns)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    from paimon_cli.output import note

    try:
        for batch in reader.follow(
            poll_s, until_id, until_ms, max_snapshots, idle=(sink.maybe_roll if out is not None else None)
        ):
            if batch.kind == "skipped":
                if batch.commit_kind == "OVERWRITE":
                    note(
                        f"snapshot {batch.snapshot_id} is an OVERWRITE: not streamed (as Paimon's streaming read)"
                    )
            if out is not None and sink.already_written(batch):
                reader.ack(batch)
                continue
            rows = batch.rows
            if snapshot_column:
                rows = rows.add_column(
                    1, "_snapshot", pa.array(np.full(rows.num_rows, batch.snapshot_id, np.int64))
                )
            sink.deliver(batch, rows)
            if out is None:
                reader.ack(batch)
        sink.close()
    except KeyboardInterrupt:
        try:
            if out is not None:
                sink.maybe_roll(force=True)
            sink.close()
        finally:
            nxt = reader.delivered
            note(f"interrupted; next snapshot to read is {nxt}" if nxt else "interrupted")
        raise typer.Exit(130) from None  # the exit code of an interrupted command
    finally:
        signal.signal(signal.SIGTERM, old)
