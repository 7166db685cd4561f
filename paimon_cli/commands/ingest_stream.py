"""``paimon ingest --watch DIR`` and ``paimon ingest -``: long-running ingest, one line per commit.

Ctrl-C / SIGTERM stop cleanly: stdin input read so far is committed, a watch stops between
files. Exactly-once for --watch comes from the core (a stable commit user and increasing
commit identifiers recorded in snapshots; see ``paimon_core.ops.streaming``).
"""

from __future__ import annotations

import signal
import sys

import typer


def run_streaming(
    state,
    table,
    watch,
    pattern,
    commit_interval,
    commit_rows,
    input_format,
    poll,
    commit_user,
    row_kind_column,
) -> None:
    from paimon_cli.output import note
    from paimon_core import parse_duration_ms
    from paimon_core.ops.cdc_schema import CDC_FORMATS
    from paimon_core.ops.streaming import ingest_stream, watch_dir

    tbl = table  # the opened table (its branch chosen by the caller)
    stopping = []

    def on_signal(signum, frame):
        if stopping:  # a second Ctrl-C: stop now
            raise KeyboardInterrupt
        stopping.append(signum)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    total = {"rows": 0, "commits": 0}

    def record(result, files=None):
        snap = result.snapshot
        total["rows"] += result.rows
        total["commits"] += snap is not None
        what = f" from {', '.join(files)}" if files else ""
        text = (
            f"snapshot {snap.id}: {result.rows} rows{what}"
            if snap is not None
            else f"commit {result.identifier} was made before a restart: skipped{what}"
        )
        obj = {
            "snapshot": snap.id if snap else None,
            "commit_identifier": result.identifier,
            "rows": result.rows,
        }
        if files is not None:
            obj["files"] = ",".join(files)
        state.out.record(obj, text)
        sys.stdout.flush()

    try:
        if watch is not None:
            interval = parse_duration_ms(commit_interval) / 1000 if commit_interval else None
            watch_dir(
                tbl,
                watch,
                pattern,
                interval,
                parse_duration_ms(poll) / 1000,
                commit_user,
                stop=lambda: bool(stopping),
                on_commit=record,
                on_skip=lambda name, last: note(
                    f"{name} sorts before {last}, which is ingested already: skipped"
                ),
                row_kind_column=row_kind_column,
                input_format=input_format if input_format in CDC_FORMATS else None,
            )
        else:
            interval = parse_duration_ms(commit_interval or "5s") / 1000
            ingest_stream(
                tbl,
                sys.stdin.buffer,
                input_format,
                interval,
                commit_rows,
                commit_user,
                stop=lambda: bool(stopping),
                on_commit=record,
                row_kind_column=row_kind_column,
            )
    except KeyboardInterrupt:
        pass
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    done = f"{total['commits']} commit(s), {total['rows']} rows"
    if stopping:  # Ctrl-C / SIGTERM: what landed, and the exit code of an interrupted command
        note(f"interrupted: {done} committed")
        raise typer.Exit(130 if stopping[0] == signal.SIGINT else 128 + int(stopping[0]))
    if watch is not None:
        note(f"stopped after {done}")
    elif total["commits"] == 0 and total["rows"] == 0:
        note("stdin held no rows: nothing was committed")
