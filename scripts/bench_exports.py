"""Benchmark: ``read --out x.csv|x.jsonl`` against the floor, and ``diff --mode diff`` memory.

    .venv/bin/python scripts/bench_exports.py [--rows 3000000] [--keep DIR] [--only csv,jsonl,diff]

One run, same rows, warm OS caches, each step once (time.perf_counter):
  csv    flat and nested tables: ours = the local engine's ``export_rows`` (scan + render + write)
         beside pyarrow = the same scan (``to_arrow``) + ``pyarrow.csv.write_csv``. pyarrow cannot
         write nested columns: for the nested table its figure renders them with a plain
         ``json.dumps`` per value first (what a script would do), the flat columns by write_csv.
  jsonl  ours beside the naive script: the same scan, then ``json.dumps`` per row of
         ``to_pylist()`` (with ``default=str`` for dates, decimals, bytes).
  diff   ``paimon diff --mode diff --out x.parquet`` on a primary-key table (4 buckets, 4
         partitions) whose second snapshot updates, deletes and inserts rows: wall time and the
         peak RSS of the process (``resource.getrusage(RUSAGE_CHILDREN)``).

Ratios are ours / floor. The tables are built once in ``--keep DIR`` (reused when present).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
PAIMON = ROOT / ".venv" / "bin" / "paimon"
FLAT = (
    "id BIGINT, name STRING, value DOUBLE, qty INT, price DECIMAL(10, 2), d DATE, "
    "ts TIMESTAMP(6), flag BOOLEAN"
)
NESTED = "id BIGINT, name STRING, tags ARRAY<STRING>, attrs MAP<STRING, INT>, r ROW<x INT, y DOUBLE>"
KEYED = "id BIGINT NOT NULL, p INT NOT NULL, name STRING, value DOUBLE, ts TIMESTAMP(6)"
SEED = 20251126
TARGET_CSV = 1.3


def flat_rows(n: int, rng) -> pa.Table:
    words = np.array(
        ["alpha", "beta", "gamma delta", "naïve", "x" * 20] * 20 + ["b, c", 'say "hi"', "", "l\nb"]
    )
    name = pa.array(words[rng.integers(0, len(words), n)])  # 4% need quotes
    name = pa.array(np.where(rng.random(n) < 0.05, None, name.to_numpy(zero_copy_only=False)), pa.string())
    cents = rng.integers(-(10**8), 10**8, n)
    text = np.char.add(
        np.char.add((cents // 100).astype(str), "."), np.char.zfill((cents % 100).astype(str), 2)
    )
    price = pa.array(text).cast(pa.decimal128(10, 2))
    days = rng.integers(-20000, 30000, n).astype("datetime64[D]")
    ts = (rng.integers(0, 2_000_000_000_000_000, n)).astype("datetime64[us]")
    return pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "name": name,
            "value": pa.array(np.round(rng.standard_normal(n) * 10.0 ** rng.integers(0, 6, n), 2)),
            "qty": pa.array(rng.integers(-1000, 1000, n).astype(np.int32)),
            "price": price,
            "d": pa.array(days),
            "ts": pa.array(ts),
            "flag": pa.array(rng.random(n) < 0.5),
        }
    )


def nested_rows(n: int, rng) -> pa.Table:
    words = np.array(["a", "b,c", 'q"uote', "", "ünï"])
    lens = rng.integers(0, 4, n)
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tags = pa.ListArray.from_arrays(
        pa.array(offsets), pa.array(words[rng.integers(0, len(words), offsets[-1])])
    )
    mlens = rng.integers(0, 3, n)
    moff = np.concatenate([[0], np.cumsum(mlens)]).astype(np.int32)
    keys = pa.array(np.char.add("k", rng.integers(0, 1000, moff[-1]).astype(str)))
    attrs = pa.MapArray.from_arrays(
        pa.array(moff), keys, pa.array(rng.integers(0, 100, moff[-1]).astype(np.int32))
    )
    r = pa.StructArray.from_arrays(
        [pa.array(rng.integers(0, 10, n).astype(np.int32)), pa.array(rng.standard_normal(n))], ["x", "y"]
    )
    return pa.table(
        {
            "id": pa.array(np.arange(n, dtype=np.int64)),
            "name": pa.array(words[rng.integers(0, 5, n)]),
            "tags": tags,
            "attrs": attrs,
            "r": r,
        }
    )


def build(wh: Path, rows: int) -> None:
    """The three tables, once: bench.flat and bench.nested (append), bench.keyed (two snapshots)."""
    import pyarrow.parquet as pq

    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema
    from paimon_core.ops.ingest import ingest_files

    marker = wh / "built.json"
    if marker.exists() and json.loads(marker.read_text()) == {"rows": rows}:
        return
    rng = np.random.default_rng(SEED)
    cat = FileSystemCatalog(str(wh))
    for name, cols, make in (("flat", FLAT, flat_rows), ("nested", NESTED, nested_rows)):
        t = cat.create_table(f"bench.{name}", Schema(Schema.parse_columns(cols)), ignore_if_exists=True)
        pq.write_table(make(rows, rng).cast(t.schema.arrow_schema()), wh / f"{name}.parquet")
        ingest_files(t, [str(wh / f"{name}.parquet")])
    opts = {"bucket": "4"}
    schema = Schema(Schema.parse_columns(KEYED), partition_keys=["p"], primary_keys=["id", "p"], options=opts)
    t = cat.create_table("bench.keyed", schema, ignore_if_exists=True)
    ids = np.arange(rows, dtype=np.int64)
    base = pa.table(
        {
            "id": ids,
            "p": (ids % 4).astype(np.int32),
            "name": pa.array(np.char.add("n", (ids % 997).astype(str))),
            "value": rng.standard_normal(rows),
            "ts": (ids * 1000).astype("datetime64[us]"),
        }
    ).cast(t.schema.arrow_schema())
    pq.write_table(base, wh / "keyed1.parquet")
    ingest_files(t, [str(wh / "keyed1.parquet")])
    upd = base.filter(pa.array(rng.random(rows) < 0.1))
    upd = upd.set_column(3, "value", pa.array(rng.standard_normal(upd.num_rows)))
    new_ids = np.arange(rows, rows + rows // 20, dtype=np.int64)
    ins = pa.table(
        {
            "id": new_ids,
            "p": (new_ids % 4).astype(np.int32),
            "name": pa.array(["new"] * len(new_ids)),
            "value": rng.standard_normal(len(new_ids)),
            "ts": (new_ids * 1000).astype("datetime64[us]"),
        }
    ).cast(t.schema.arrow_schema())
    pq.write_table(pa.concat_tables([upd, ins]), wh / "keyed2.parquet")
    ingest_files(t, [str(wh / "keyed2.parquet")])
    where = "value < -2.0"  # ~2% of the rows, in every bucket
    subprocess.run(
        [PAIMON, "-w", wh, "delete", "-t", "bench.keyed", "--where", where], check=True, capture_output=True
    )
    marker.write_text(json.dumps({"rows": rows}))


def timed(fn):
    t0 = time.perf_counter()
    res = fn()
    return time.perf_counter() - t0, res


def table(wh: Path, name: str):
    from paimon_core.catalog import FileSystemCatalog

    return FileSystemCatalog(str(wh)).get_table(f"bench.{name}")


def ours(wh: Path, name: str, out: Path, fmt: str) -> float:
    from paimon_cli.outfile import text_renderer
    from paimon_core.engines import ExportTarget, RowsExport
    from paimon_core.engines.local import LocalEngine

    t = table(wh, name)
    request = RowsExport(t, t.plan(t.snapshots.latest()), ExportTarget(out, fmt, text_renderer))
    return timed(lambda: LocalEngine().export_rows(request))[0]


def floor_csv(wh: Path, name: str, out: Path) -> float:
    import pyarrow.csv as pcsv

    def run():
        t = table(wh, name)
        data = t.new_read().to_arrow(t.plan(t.snapshots.latest()))
        nested = [i for i, f in enumerate(data.schema) if pa.types.is_nested(f.type)]
        for i in nested:  # pyarrow cannot write these: the plainest script renders them
            text = [None if v is None else json.dumps(v, default=str) for v in data.column(i).to_pylist()]
            data = data.set_column(i, data.field(i).name, pa.array(text, pa.string()))
        pcsv.write_csv(data, out)

    return timed(run)[0]


def naive_jsonl(wh: Path, name: str, out: Path) -> float:
    def run():
        t = table(wh, name)
        data = t.new_read().to_arrow(t.plan(t.snapshots.latest()))
        with open(out, "w", encoding="utf-8") as f:
            for batch in data.to_batches(65_536):
                for row in batch.to_pylist():
                    f.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

    return timed(run)[0]


def diff_run(wh: Path, out: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of ``paimon diff --mode diff`` in a process of its own."""
    code = (
        "import resource, subprocess, sys, time; t0 = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
    )
    cmd = [
        PAIMON,
        "-w",
        wh,
        "diff",
        "-t",
        "bench.keyed",
        "--from",
        "1",
        "--to",
        "3",
        "--mode",
        "diff",
        "--out",
        out,
        "--force",
    ]
    res = subprocess.run(
        [sys.executable, "-c", code, *map(str, cmd)], check=True, capture_output=True, text=True
    )
    secs, mb = res.stdout.split()
    return float(secs), float(mb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--keep", type=Path, default=None, help="build/reuse the tables here")
    ap.add_argument("--only", default="csv,jsonl,diff")
    args = ap.parse_args()
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # pyarrow imports pandas (~0.5 s) on its first table operation, in every process that
    # makes one (ours and a pyarrow script alike): paid here, before either side is timed
    pa.table({"warm": [1]}).to_pandas()
    wh = args.keep or Path(tempfile.mkdtemp(prefix="bench-exports-"))
    wh.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    build(wh, args.rows)
    print(f"tables of {args.rows} rows in {wh} ({time.perf_counter() - t0:.1f} s to build or check)")
    only = args.only.split(",")
    out = wh / "out"
    out.mkdir(exist_ok=True)
    print(f"{'step':32} {'ours s':>8} {'floor s':>8} {'ratio':>6}")
    for name in ("flat", "nested"):
        if "csv" in only:
            a = ours(wh, name, out / f"{name}.csv", "csv")
            b = floor_csv(wh, name, out / f"{name}.floor.csv")
            print(f"{'csv ' + name + ' (floor: pyarrow)':32} {a:8.2f} {b:8.2f} {a / b:6.2f}")
        if "jsonl" in only:
            a = ours(wh, name, out / f"{name}.jsonl", "json")
            b = naive_jsonl(wh, name, out / f"{name}.naive.jsonl")
            print(f"{'jsonl ' + name + ' (floor: naive)':32} {a:8.2f} {b:8.2f} {a / b:6.2f}")
    if "diff" in only:
        secs, mb = diff_run(wh, out / "changes.parquet")
        print(f"diff --mode diff: {secs:.2f} s, peak RSS {mb:.0f} MB")
    print(f"CSV target: ratio <= {TARGET_CSV}")


if __name__ == "__main__":
    main()
