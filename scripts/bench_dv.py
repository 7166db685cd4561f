"""Benchmark: reading deletion-vector tables vs reading the same rows as one Parquet file.

    .venv/bin/python scripts/bench_dv.py [--rows 1000000] [--rounds 25] [--json out.json] [--keep]

Steps (time.perf_counter; reads alternate, best of --rounds each, warm OS caches):
  setup   a primary-key table (bucket 1, deletion-vectors.enabled; and one with bucket 4 for
          context) gets the rows, then -D records for every 20th key (its lookup compaction
          marks them in deletion vectors); an append table with deletion vectors gets the rows,
          then `delete_where` marks 5% of them (scattered over the file)
  floor   pyarrow: the surviving rows as one Parquet file (zstd level 1) in the table's order
          (key order for the primary-key table, insertion order for the append table), read back
  ours    paimon_core: full read of each table (files minus their deleted rows)

Target: ours / floor <= 1.3 for both tables. Temp dirs are removed unless --keep.

Where the time goes: the deleted rows are in the file and pyarrow cannot skip single rows, so
ours decodes 1M rows where the floor decodes 950k (1.03-1.08x: "append table before the
delete"), then copies the 950k kept rows once with a boolean filter, its columns filtered in
parallel (3.5-5.5 ms on two cores, the string column the largest part; the append table's
randomly scattered deletes cost more than every 20th key). Ours uses about 1.2x the floor's
CPU time, so about 1.2x is the best case on two idle cores. Measured on the idle 2-core
machine (load 1.3-1.7), five runs of best of 25: pk 1.21-1.23x, append 1.24-1.28x (the previous
read path, best of 7 on the idle machine: 1.43x and 1.35x). Best of 7 moves by +-15% even there,
and by +-30% under load.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))
from bench import COLUMNS, best_of, gen_table  # noqa: E402

TARGET_RATIO = 1.3
DELETED = 0.05
ROUNDS = 25  # a read takes ~30 ms: fewer rounds leave the best of each at the mercy of noise


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=ROUNDS, help="best of how many reads of each")
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.metadata.schema import Schema
    from paimon_core.ops.delete import delete_where

    tmp = Path(tempfile.mkdtemp(prefix="bench_dv_"))
    n = args.rows
    cut = int(n * DELETED)
    data = gen_table(n)
    cat = FileSystemCatalog(str(tmp / "wh"))
    cols = Schema.parse_columns(COLUMNS)
    t0 = time.perf_counter()
    # the same 5% of keys in both tables: ids are a shuffled 0..n-1, so id < cut is scattered over
    # the append file; the PK table sorts by id, so there -D records for them would be one
    # contiguous range: delete every 20th key instead (scattered positions, as updates leave)
    gone = pa.array(np.arange(0, n, 20, dtype=np.int64)[:cut])
    for name, buckets in (("pk", "1"), ("pk4", "4")):
        pk = cat.create_table(
            f"b.{name}", Schema(cols, (), ("id",), {"bucket": buckets, "deletion-vectors.enabled": "true"})
        )
        pk.write_arrow(data)
        dels = data.filter(pa.compute.is_in(data.column("id"), gone))
        pk.write_arrow(dels.append_column("op", pa.array(["-D"] * dels.num_rows)), row_kind_column="op")
    ap_t = cat.create_table("b.ap", Schema(cols, (), (), {"deletion-vectors.enabled": "true"}))
    ap_t.write_arrow(data)
    delete_where(ap_t, f"id < {cut}")
    setup_s = time.perf_counter() - t0

    survivors = data.filter(pa.compute.greater_equal(data.column("id"), cut))
    # the floor of each table: its surviving rows in the order the table stores them (the
    # primary-key table sorts by key), as one Parquet file read by pyarrow
    floors = {"pk": tmp / "floor_pk.parquet", "append": tmp / "floor_append.parquet"}
    pk_survivors = data.filter(pa.compute.invert(pa.compute.is_in(data.column("id"), gone))).sort_by("id")
    pq.write_table(pk_survivors, floors["pk"], compression="zstd", compression_level=1)
    pq.write_table(survivors, floors["append"], compression="zstd", compression_level=1)
    tables = {"pk": cat.get_table("b.pk"), "append": cat.get_table("b.ap")}
    before_delete = cat.get_table("b.ap")  # context: the same append file read whole, no vector
    steps = {
        "pk": tables["pk"].read,
        "floor_pk": lambda: pq.read_table(floors["pk"]),
        "append": tables["append"].read,
        "floor_append": lambda: pq.read_table(floors["append"]),
        "append_no_dv": lambda: before_delete.read(snapshot_id=1),
        "pk4": cat.get_table("b.pk4").read,
    }
    # floors and ours alternate, best of --rounds each: other load on the machine hits both alike
    best = {k: float("inf") for k in steps}
    out = {}
    for _ in range(args.rounds):
        for k, fn in steps.items():
            s, _, out[k] = best_of(fn, 1)
            best[k] = min(best[k], s)
    results = {"rows": n, "deleted": cut, "setup_s": round(setup_s, 2)}
    ok = True
    for name in tables:
        s, floor_s, got = best[name], best[f"floor_{name}"], out[name]
        assert got.num_rows == out[f"floor_{name}"].num_rows == n - cut, (name, got.num_rows)
        ratio = s / floor_s
        ok &= ratio <= TARGET_RATIO
        results.update(
            {
                f"{name}_read_s": round(s, 4),
                f"{name}_floor_s": round(floor_s, 4),
                f"{name}_ratio": round(ratio, 2),
            }
        )
        print(
            f"{name:7s} read {got.num_rows} rows: {s:.3f}s vs floor {floor_s:.3f}s = {ratio:.2f}x "
            f"(target <= {TARGET_RATIO}x) {'OK' if ratio <= TARGET_RATIO else 'MISSED'}"
        )
    s = best["append_no_dv"]
    results["append_no_dv_read_s"] = round(s, 4)
    print(
        f"context: the append table before the delete (1M rows, no vector): {s:.3f}s = "
        f"{s / best['floor_append']:.2f}x its floor"
    )
    s = best["pk4"]
    results["pk4_read_s"] = round(s, 4)
    print(
        f"context: the primary-key table in 4 buckets (4 files of 250k rows): {s:.3f}s = "
        f"{s / best['floor_pk']:.2f}x the one-file floor"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"kept {tmp}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
