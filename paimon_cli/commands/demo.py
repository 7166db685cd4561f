"""``paimon demo``: a guided tour that runs the real commands and prints each one first.

Two tables tell Paimon's story: ``demo.events`` (append-only, partitioned by day: ingest, read,
partition pruning) and ``demo.orders`` (primary key ``id``, 2 buckets: an insert batch, an upsert
batch and a CDC batch with a row-kind column, the LSM's level-0 sorted runs as ``paimon doctor``
draws them, a full compaction, ``diff`` between snapshots with row kinds, time travel, and an
expire dry run). The orders facts are fixed, so a test can check every step:

* snapshot 1: ids 0..999, status ``new``: 1000 rows;
* snapshot 2: ids 0..99 again as ``paid`` (updates) and ids 1000..1099 (inserts): 1100 rows;
* snapshot 3 (``op`` column): ``-D`` ids 100..102, ``-U``/``+U`` ids 0 and 1 to ``shipped``:
  1097 rows; its diff against snapshot 2 is 3 ``-D``, 2 ``-U`` and 2 ``+U`` rows;
* snapshot 4: the full compaction (same 1097 rows, one sorted run per bucket).
"""

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
ORDERS_TABLE = "demo.orders"
ORDERS_SCHEMA = "id BIGINT NOT NULL, customer STRING, amount DOUBLE, status STRING"
ORDERS, UPDATES, INSERTS = 1000, 100, 100
DELETED = (100, 101, 102)
SHIPPED = (0, 1)


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
    table = pa.table(
        {
            "id": ids,
            "name": names,
            "value": rng.random(rows),
            "ts": ts,
            "dt": pc.strftime(ts, format="%Y-%m-%d"),
        }
    )
    pq.write_table(table, path)


def _orders(ids, status: str, op: str | None = None):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    ids = pa.array(np.asarray(ids, dtype=np.int64))
    cols = {
        "id": ids,
        "customer": pc.binary_join_element_wise(
            "customer-", pc.cast(pc.bit_wise_and(ids, 31), pa.string()), ""
        ),
        "amount": pc.divide(pc.cast(pc.add(pc.multiply(ids, 37), 500), pa.float64()), 100.0),
        "status": pa.array([status] * len(ids)),
    }
    if op is not None:
        cols["op"] = pa.array([op] * len(ids))
    return pa.table(cols)


def make_orders(folder: Path) -> tuple[Path, Path, Path]:
    """The three order batches of the story (see the module docstring)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    first, second, cdc = folder / "orders.parquet", folder / "upserts.parquet", folder / "cdc.parquet"
    pq.write_table(_orders(np.arange(ORDERS), "new"), first)
    pq.write_table(
        pa.concat_tables(
            [_orders(np.arange(UPDATES), "paid"), _orders(np.arange(ORDERS, ORDERS + INSERTS), "new")]
        ),
        second,
    )
    pq.write_table(
        pa.concat_tables(
            [_orders(DELETED, "new", "-D"), _orders(SHIPPED, "paid", "-U"), _orders(SHIPPED, "shipped", "+U")]
        ),
        cdc,
    )
    return first, second, cdc


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
    rows: Annotated[int, typer.Option("--rows", min=1, help="Rows in the generated events file.")] = 100_000,
) -> None:
    """Tour of Paimon in a few seconds: an append table and a primary-key table.

    demo.events (append, partitioned by day): create, ingest, read, filter a partition. demo.orders (primary key, 2 buckets): inserts, upserts and a CDC batch with row kinds, the LSM's sorted runs (doctor), a full compaction, diff between snapshots, time travel and an expire dry run. Each step prints the paimon command that does the same. Existing demo.events and demo.orders are dropped and recreated.

    Example:

      paimon -w ./warehouse demo
    """
    from paimon_cli.commands.compact import compact
    from paimon_cli.commands.diff import diff
    from paimon_cli.commands.doctor import doctor
    from paimon_cli.commands.expire import expire
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
        typer.secho(
            f"# generating {rows} events into {data}, and three batches of orders",
            fg=typer.colors.BRIGHT_BLACK,
        )
        make_events(data, rows)
        first, second, cdc = make_orders(Path(tmp))

        typer.secho("\n## 1. an append table", bold=True)
        step("start from scratch", ["drop-table", DEMO_TABLE, "--if-exists"])
        drop_table(ctx, name=DEMO_TABLE, if_exists=True)

        step(
            "create a table partitioned by day",
            ["create-table", DEMO_TABLE, "--schema", DEMO_SCHEMA, "--partition", "dt"],
        )
        create_table(ctx, name=DEMO_TABLE, schema=DEMO_SCHEMA, partition="dt")

        step("ingest the file (one atomic commit: snapshot 1)", ["ingest", str(data), "-t", DEMO_TABLE])
        ingest(ctx, files=[str(data)], table=DEMO_TABLE)

        step("read a few rows", ["read", "-t", DEMO_TABLE, "--limit", "5"])
        read(ctx, table=DEMO_TABLE, limit=5)

        step(
            "filter one partition (the others are skipped)",
            ["read", "-t", DEMO_TABLE, "--where", f"dt = '{DAYS[1]}'", "--count"],
        )
        read(ctx, table=DEMO_TABLE, where=f"dt = '{DAYS[1]}'", count=True)

        typer.secho("\n## 2. a primary-key table: upserts, deletes, the LSM tree", bold=True)
        step("start from scratch", ["drop-table", ORDERS_TABLE, "--if-exists"])
        drop_table(ctx, name=ORDERS_TABLE, if_exists=True)

        step(
            "create a table keyed by id, in 2 buckets",
            ["create-table", ORDERS_TABLE, "--schema", ORDERS_SCHEMA, "-k", "id", "--bucket", "2"],
        )
        create_table(ctx, name=ORDERS_TABLE, schema=ORDERS_SCHEMA, primary_key="id", bucket=2)

        step(f"insert {ORDERS} orders (snapshot 1)", ["ingest", str(first), "-t", ORDERS_TABLE])
        ingest(ctx, files=[str(first)], table=ORDERS_TABLE)

        step(
            f"upsert: {UPDATES} orders paid (same ids: updates), {INSERTS} new ones (snapshot 2)",
            ["ingest", str(second), "-t", ORDERS_TABLE],
        )
        ingest(ctx, files=[str(second)], table=ORDERS_TABLE)

        step(
            "CDC batch, column op = +I/-U/+U/-D: 3 orders deleted, 2 shipped (snapshot 3)",
            ["ingest", str(cdc), "-t", ORDERS_TABLE, "--row-kind-column", "op"],
        )
        ingest(ctx, files=[str(cdc)], table=ORDERS_TABLE, row_kind_column="op")

        step("the rows now: one per key, the latest version", ["read", "-t", ORDERS_TABLE, "--count"])
        read(ctx, table=ORDERS_TABLE, count=True)

    step(
        "each commit added a sorted run in level 0 of its buckets: reads merge them", ["doctor", ORDERS_TABLE]
    )
    doctor(ctx, name=ORDERS_TABLE)

    step(
        "full compaction: one sorted run per bucket, at the top level (snapshot 4)",
        ["compact", "-t", ORDERS_TABLE, "--level-max"],
    )
    compact(ctx, table=ORDERS_TABLE, level_max=True)

    step("what snapshot 3 changed, with row kinds", ["diff", "-t", ORDERS_TABLE, "--from", "2", "--to", "3"])
    diff(ctx, start="2", end="3", table=ORDERS_TABLE)

    step("time travel: the rows of snapshot 1", ["read", "-t", ORDERS_TABLE, "--snapshot", "1", "--count"])
    read(ctx, table=ORDERS_TABLE, snapshot=1, count=True)

    step(
        "time travel: orders 0 and 1 back then",
        ["read", "-t", ORDERS_TABLE, "--snapshot", "1", "--where", "id < 2"],
    )
    read(ctx, table=ORDERS_TABLE, snapshot=1, where="id < 2")

    step("the commits so far", ["snapshots", "-t", ORDERS_TABLE])
    snapshots(ctx, table=ORDERS_TABLE)

    step(
        "what expiring all but the latest snapshot would delete (nothing is deleted)",
        ["expire", "-t", ORDERS_TABLE, "--retain-min", "1", "--older-than", "0s", "--dry-run"],
    )
    expire(ctx, table=ORDERS_TABLE, retain_min=1, older_than="0s", dry_run=True)

    typer.secho(
        f"\n# next: `{prefix} use {ORDERS_TABLE}` makes it the default table, then try "
        f"`{prefix} schema`, `{prefix} files` and `{prefix} doctor`",
        fg=typer.colors.BRIGHT_BLACK,
    )
