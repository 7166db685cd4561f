"""``paimon demo``: a guided tour that runs the real commands and prints each one first."""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from paimon_cli.state import get_state

app = typer.Typer()

DEMO_TABLE = "demo.events"
DEMO_SCHEMA = "id BIGINT NOT NULL, name STRING, value DOUBLE, ts TIMESTAMP(6), dt STRING"
DAYS = ("2024-01-01", "2024-01-02", "2024-01-03")


def make_events(path: Path, rows: int, seed: int = 7) -> None:
    """A Parquet file of ``rows`` events spread evenly over ``DAYS`` (vectorised, no row loop)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    ids = np.arange(rows, dtype=np.int64)
    span_s = len(DAYS) * 86_400
    ts_s = np.datetime64(DAYS[0], "s").astype(np.int64) + ids * span_s // rows
    ts = pa.array(ts_s * 10**6, pa.timestamp("us"))
    names = pc.binary_join_element_wise("user-", pc.cast(pa.array(ids % 1000), pa.string()), "")
    table = pa.table({
        "id": ids,
        "name": names,
        "value": rng.random(rows),
        "ts": ts,
        "dt": pc.strftime(ts, format="%Y-%m-%d"),
    })
    pq.write_table(table, path)


def _quote(arg: str) -> str:
    """Shell quoting that stays readable: double quotes around text with spaces or single quotes."""
    if arg and not any(c in arg for c in " '\"$`\\!*?[]{}()<>|&;#~"):
        return arg
    if not any(c in arg for c in '"$`\\!'):
        return f'"{arg}"'
    return shlex.quote(arg)


@app.command("demo")
def demo(
    ctx: typer.Context,
    rows: Annotated[int, typer.Option("--rows", min=1, help="Rows in the generated file.")] = 100_000,
) -> None:
    """Tour: create demo.events in the current warehouse, ingest twice, read, time-travel.

    Each step prints the paimon command that does the same. An existing demo.events is
    dropped and recreated.

    Example:

      paimon -w ./warehouse demo
    """
    from paimon_cli.commands.ingest import ingest
    from paimon_cli.commands.inspect import snapshots
    from paimon_cli.commands.read import read
    from paimon_cli.commands.tables import create_table, drop_table

    state = get_state(ctx)
    prefix = "paimon"
    if state.settings.warehouse_source == "flag":
        prefix += f" -w {shlex.quote(state.settings.warehouse)}"

    def step(title: str, args: list[str]) -> None:
        typer.secho(f"\n# {title}", fg=typer.colors.BRIGHT_BLACK)
        typer.secho(f"$ {prefix} {' '.join(_quote(a) for a in args)}", bold=True)
        sys.stdout.flush()

    with tempfile.TemporaryDirectory(prefix="paimon-demo-") as tmp:
        data = Path(tmp) / "events.parquet"
        typer.secho(f"# generating {rows} rows into {data}", fg=typer.colors.BRIGHT_BLACK)
        make_events(data, rows)

        step("start from scratch", ["drop-table", DEMO_TABLE, "--if-exists"])
        drop_table(ctx, name=DEMO_TABLE, if_exists=True)

        step("create a table partitioned by day",
             ["create-table", DEMO_TABLE, "--schema", DEMO_SCHEMA, "--partition", "dt"])
        create_table(ctx, name=DEMO_TABLE, schema=DEMO_SCHEMA, partition="dt")

        for i in (1, 2):
            step(f"ingest the file (commit {i}: snapshot {i})", ["ingest", str(data), "-t", DEMO_TABLE])
            ingest(ctx, files=[str(data)], table=DEMO_TABLE)

    step("read a few rows", ["read", "-t", DEMO_TABLE, "--limit", "5"])
    read(ctx, table=DEMO_TABLE, limit=5)

    step("count the rows of the latest snapshot", ["read", "-t", DEMO_TABLE, "--count"])
    read(ctx, table=DEMO_TABLE, count=True)

    step("time travel: count the rows of snapshot 1", ["read", "-t", DEMO_TABLE, "--snapshot", "1", "--count"])
    read(ctx, table=DEMO_TABLE, snapshot=1, count=True)

    step("filter one partition (the others are skipped)",
         ["read", "-t", DEMO_TABLE, "--where", f"dt = '{DAYS[1]}'", "--count"])
    read(ctx, table=DEMO_TABLE, where=f"dt = '{DAYS[1]}'", count=True)

    step("the commits so far", ["snapshots", "-t", DEMO_TABLE])
    snapshots(ctx, table=DEMO_TABLE)

    typer.secho(f"\n# next: `{prefix} use {DEMO_TABLE}` makes it the default table, then try "
                f"`{prefix} schema` and `{prefix} files`", fg=typer.colors.BRIGHT_BLACK)
