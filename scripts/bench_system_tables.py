"""Time each system table on a table with many files and snapshots (issue #25's target: < 1 s each).

    python scripts/bench_system_tables.py [--files 10000] [--snapshots 1000] [--warehouse DIR]

Builds (once per warehouse) an append table with ``--snapshots`` commits of ``files/snapshots``
files each (one per partition written), then reads every system table through the library and prints
the seconds each took (wall clock, and CPU time: on a shared machine the CPU time is the
figure to read). Timings are for this script's output only; no test asserts them.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import pyarrow as pa


def build(wh: str, files: int, snapshots: int) -> None:
    from paimon_core import FileSystemCatalog, Schema

    c = FileSystemCatalog(wh)
    if c.table_exists("bench.t"):
        return
    c.create_database("bench")
    t = c.create_table(
        "bench.t",
        Schema(
            Schema.parse_columns("p INT, id BIGINT, v STRING"),
            partition_keys=("p",),
            options={"bucket": "-1", "write-only": "true", "snapshot.num-retained.max": str(snapshots + 10)},
        ),
    )
    per = max(1, files // snapshots)  # files per commit: one per partition written
    for s in range(snapshots):
        data = pa.table(
            {
                "p": pa.array([(s + i) % (per * 10) for i in range(per)], pa.int32()),
                "id": pa.array(range(s * per, s * per + per), pa.int64()),
                "v": ["x"] * per,
            }
        )
        t.write_arrow(data)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--snapshots", type=int, default=1_000)
    ap.add_argument("--warehouse")
    a = ap.parse_args()
    wh = a.warehouse or tempfile.mkdtemp(prefix="bench-systables-")
    t0 = time.perf_counter()
    build(wh, a.files, a.snapshots)
    print(f"table ready in {time.perf_counter() - t0:.1f} s at {wh}")
    from paimon_core import FileSystemCatalog
    from paimon_core.catalog import create_catalog
    from paimon_core.systables import GLOBAL_SYSTEM_TABLES, TABLE_SYSTEM_TABLES

    c = FileSystemCatalog(wh)
    n_files = c.system_table("bench.t$files").to_arrow(columns=["bucket"]).num_rows
    n_snaps = c.system_table("bench.t$snapshots").to_arrow(columns=["snapshot_id"]).num_rows
    import os

    print(
        f"{n_files} files, {n_snaps} snapshots; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    names = [n for n in TABLE_SYSTEM_TABLES if n != "row_tracking"]  # row-tracking tables only
    enabled = {"catalog-options-table.enabled": "true"}  # sys.catalog_options exists only then
    for name in names + [f"sys.{n}" for n in GLOBAL_SYSTEM_TABLES]:
        full = name if name.startswith("sys.") else f"bench.t${name}"
        start, cpu = time.perf_counter(), time.process_time()
        cold = create_catalog("filesystem", wh, enabled)  # a cold catalog each time
        rows = cold.system_table(full).to_arrow().num_rows
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{full:32s} {wall:7.3f} s wall {cpu:7.3f} s CPU  {rows} rows")


if __name__ == "__main__":
    main()
