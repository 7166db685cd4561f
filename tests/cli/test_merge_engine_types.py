"""Merge engines through the CLI: the issue's failing cases work, and a function that does not
fit its column's type is refused at create-table and alter-table with one line (never an
"internal error" at ingest)."""

from __future__ import annotations

import decimal
from pathlib import Path

import pyarrow as pa

from .conftest import run_paimon, write_parquet

SCHEMA = "id INT NOT NULL, amount DECIMAL(10, 2), tags ARRAY<STRING>, attrs MAP<STRING, INT>, pos ROW<x INT, y INT>"


def _batch(amounts, tags) -> pa.Table:
    n = len(amounts)
    return pa.table(
        {
            "id": pa.array(range(n), pa.int32()),
            "amount": pa.array(
                [None if a is None else decimal.Decimal(a) for a in amounts], pa.decimal128(10, 2)
            ),
            "tags": pa.array(tags, pa.list_(pa.string())),
            "attrs": pa.array(
                [[("k", i)] if i % 2 else None for i in range(n)], pa.map_(pa.string(), pa.int32())
            ),
            "pos": pa.array(
                [{"x": i, "y": None} if i != 1 else None for i in range(n)],
                pa.struct([("x", pa.int32()), ("y", pa.int32())]),
            ),
        }
    )


def test_partial_update_and_aggregation_over_decimal_array_map_row(cli):
    write_parquet(Path("a.parquet"), _batch(["1.50", None, "2.25"], [["a"], None, []]))
    write_parquet(Path("b.parquet"), _batch([None, "3.00", "-1.25"], [None, ["b", "c"], ["d"]]))
    cli(
        "create-table",
        "db.pu",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "--bucket",
        "1",
        "-O",
        "merge-engine=partial-update",
    )
    cli(
        "create-table",
        "db.agg",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "--bucket",
        "1",
        "-O",
        "merge-engine=aggregation",
        "-O",
        "fields.amount.aggregate-function=sum",
        "-O",
        "fields.tags.aggregate-function=collect",
        "-O",
        "fields.attrs.aggregate-function=merge_map",
        "-O",
        "fields.pos.aggregate-function=first_value",
    )
    for t in ("db.pu", "db.agg"):
        cli("ingest", "a.parquet", "-t", t)
        cli("ingest", "b.parquet", "-t", t)
    pu = {r["id"]: r for r in cli.json("read", "-t", "db.pu")}
    assert [pu[i]["amount"] for i in range(3)] == ["1.50", "3.00", "-1.25"]
    assert [pu[i]["tags"] for i in range(3)] == [["a"], ["b", "c"], ["d"]]
    agg = {r["id"]: r for r in cli.json("read", "-t", "db.agg")}
    assert [agg[i]["amount"] for i in range(3)] == ["1.50", "3.00", "1.00"]
    assert [agg[i]["tags"] for i in range(3)] == [["a"], ["b", "c"], ["d"]]
    cli("compact", "-t", "db.agg", "--level-max")
    assert {r["id"]: r for r in cli.json("read", "-t", "db.agg")} == agg


def test_misfit_function_is_refused_at_create_and_alter(cli, tmp_path):
    wh = str(tmp_path / "wh")
    res = run_paimon(
        "-w",
        wh,
        "create-table",
        "db.t",
        "--schema",
        SCHEMA,
        "-k",
        "id",
        "-O",
        "merge-engine=aggregation",
        "-O",
        "fields.tags.aggregate-function=sum",
        cwd=tmp_path,
    )
    assert res.returncode == 1
    assert res.stderr.strip() == (
        "error: aggregate function 'sum' cannot aggregate column 'tags' of type "
        "ARRAY<STRING>: it takes TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE or DECIMAL"
    )
    assert (
        run_paimon(
            "-w",
            wh,
            "create-table",
            "db.t",
            "--schema",
            SCHEMA,
            "-k",
            "id",
            "-O",
            "merge-engine=aggregation",
            cwd=tmp_path,
        ).returncode
        == 0
    )
    res = run_paimon(
        "-w", wh, "alter-table", "db.t", "set-option", "fields.pos.aggregate-function=max", cwd=tmp_path
    )
    assert res.returncode == 1 and "internal error" not in res.stderr
    assert res.stderr.strip().splitlines() == [
        "error: aggregate function 'max' cannot aggregate column 'pos' of type ROW<x INT, y INT>: it takes a "
        "numeric, DECIMAL, CHAR/VARCHAR, BINARY/VARBINARY, DATE, TIME or TIMESTAMP type"
    ]
