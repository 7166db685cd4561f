"""Benchmark: `paimon diff` of an append table with nested columns against the same diff of a flat
table (the same rows with the nested leaves as top-level columns), in one run.

Each table has PARTS partitions of ROWS rows. Two diffs per table, each timed in its own process:
- one partition overwritten (a tenth of its rows changed): the other partitions' files are the
  same at both snapshots and need not be read;
- every partition overwritten the same way: every row is compared.

    .venv/bin/python scripts/bench_diff.py [--rows 100000] [--parts 10] [--keep]

Target (the performance issue): the nested diff within 2x of the flat one.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
PAIMON = ROOT / ".venv" / "bin" / "paimon"
TARGET = 2.0
NESTED = (
    "dt STRING, id BIGINT, name STRING, "
    "addr ROW<city STRING, zip INT, geo ROW<lat DOUBLE, lon DOUBLE>>, "
    "items ARRAY<ROW<sku STRING, qty INT, price DECIMAL(12, 2)>>"
)
FLAT = (
    "dt STRING, id BIGINT, name STRING, city STRING, zip INT, lat DOUBLE, lon DOUBLE, "
    "sku STRING, qty INT, price DECIMAL(12, 2)"
)


def rows(dt: str, n: int, seed: int, changed: float = 0.0) -> tuple[pa.Table, pa.Table]:
    """(nested, flat) tables of one partition; ``changed`` of the rows get another name."""
    rng = np.random.default_rng(seed)
    ids = np.arange(n, dtype=np.int64)
    names = [f"name-{i}" for i in ids]
    for i in rng.choice(n, int(n * changed), replace=False):
        names[i] = f"renamed-{i}"
    city = [f"city-{i % 997}" for i in ids]
    zips = (10_000 + ids % 90_000).astype(np.int32)
    lat, lon = (ids % 90).astype(float), -(ids % 180).astype(float)
    sku = [f"sku-{i % 10_000}" for i in ids]
    qty = (1 + ids % 19).astype(np.int32)
    price = [Decimal(int(p)).scaleb(-2) for p in 100 + ids % 1_000_000]
    nested = pa.table(
        {
            "dt": [dt] * n,
            "id": ids,
            "name": names,
            "addr": pa.StructArray.from_arrays(
                [city, zips, pa.StructArray.from_arrays([lat, lon], ["lat", "lon"])], ["city", "zip", "geo"]
            ),
            "items": pa.array(
                [[{"sku": s, "qty": int(q), "price": p}] for s, q, p in zip(sku, qty, price, strict=True)],
                pa.list_(
                    pa.struct([("sku", pa.string()), ("qty", pa.int32()), ("price", pa.decimal128(12, 2))])
                ),
            ),
        }
    )
    flat = pa.table(
        {
            "dt": [dt] * n,
            "id": ids,
            "name": names,
            "city": city,
            "zip": zips,
            "lat": lat,
            "lon": lon,
            "sku": sku,
            "qty": qty,
            "price": pa.array(price, pa.decimal128(12, 2)),
        }
    )
    return nested, flat


def paimon(wh: Path, *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([str(PAIMON), "-w", str(wh), *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000, help="rows per partition")
    ap.add_argument("--parts", type=int, default=10)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-diff-"))
    wh = work / "wh"
    days = [f"2026-11-{d + 1:02d}" for d in range(a.parts)]
    try:
        results: dict[tuple[str, str], float] = {}
        for kind, schema in (("nested", NESTED), ("flat", FLAT)):
            paimon(wh, "create-table", f"b.{kind}", "--schema", schema, "-p", "dt")
            base = [rows(d, a.rows, seed=i)[kind == "flat"] for i, d in enumerate(days)]
            pq.write_table(pa.concat_tables(base), work / f"{kind}-base.parquet")
            paimon(wh, "ingest", str(work / f"{kind}-base.parquet"), "-t", f"b.{kind}")
            one = rows(days[3], a.rows, seed=3, changed=0.1)[kind == "flat"]
            pq.write_table(one, work / f"{kind}-one.parquet")
            paimon(wh, "ingest", str(work / f"{kind}-one.parquet"), "-t", f"b.{kind}", "--overwrite")
            every = [rows(d, a.rows, seed=i, changed=0.1)[kind == "flat"] for i, d in enumerate(days)]
            pq.write_table(pa.concat_tables(every), work / f"{kind}-all.parquet")
            paimon(wh, "ingest", str(work / f"{kind}-all.parquet"), "-t", f"b.{kind}", "--overwrite")
            for case, lo, hi in (("one partition changed", "1", "2"), ("every partition changed", "2", "3")):
                out = work / f"{kind}-{lo}.parquet.out.parquet"
                results[kind, case] = paimon(
                    wh, "diff", f"b.{kind}", "--from", lo, "--to", hi, "--mode", "diff", "--out", str(out)
                )
                results[kind, case + " rows"] = pq.read_metadata(out).num_rows
        total = a.rows * a.parts
        print(f"paimon diff of an append table, {a.parts} partitions x {a.rows:,} rows ({total:,} rows)")
        for case in ("one partition changed", "every partition changed"):
            n, f = results["nested", case], results["flat", case]
            changes = int(results["nested", case + " rows"])
            assert changes == int(results["flat", case + " rows"]), "nested and flat diffs disagree"
            print(
                f"  {case:<24} nested {n:6.2f} s  flat {f:6.2f} s  ratio {n / f:4.2f}x "
                f"(target {TARGET:.0f}x: {'met' if n / f <= TARGET else 'missed'}); {changes:,} changes"
            )
    finally:
        if a.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
