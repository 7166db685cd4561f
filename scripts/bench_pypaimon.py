"""pypaimon 2.1.0 side of scripts/bench.py: runs INSIDE the pypaimon venv (never the project's).

    <pypaimon-venv>/bin/python scripts/bench_pypaimon.py INPUT.parquet WAREHOUSE [--table db.t]

Creates an append table (bucket -1, unpartitioned) in WAREHOUSE, reads INPUT.parquet with pyarrow
(untimed), then times one batch write+commit of all rows and one full read (plan + to_arrow).
Prints one JSON object on stdout: {"write_s", "read_s", "rows_written", "rows_read", versions...}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("input")
    ap.add_argument("warehouse")
    ap.add_argument("--table", default="bench.append")
    args = ap.parse_args()

    out = sys.stdout
    sys.stdout = sys.stderr  # library prints must not corrupt the JSON answer

    import pyarrow as pa
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory, Schema

    try:
        from importlib.metadata import version

        pp_version = version("pypaimon")
    except Exception:  # noqa: BLE001
        pp_version = None

    data = pq.read_table(args.input)  # untimed
    catalog = CatalogFactory.create({"warehouse": args.warehouse})
    db = args.table.split(".", 1)[0]
    catalog.create_database(db, True)
    schema = Schema.from_pyarrow_schema(data.schema, options={"bucket": "-1"})
    catalog.create_table(args.table, schema, False)
    table = catalog.get_table(args.table)

    t0 = time.perf_counter()
    wb = table.new_batch_write_builder()
    tw = wb.new_write()
    tc = wb.new_commit()
    try:
        tw.write_arrow(data)
        tc.commit(tw.prepare_commit())
    finally:
        tw.close()
        tc.close()
    write_s = time.perf_counter() - t0

    def full_read() -> pa.Table:
        t = catalog.get_table(args.table)
        rb = t.new_read_builder()
        splits = rb.new_scan().plan().splits()
        return rb.new_read().to_arrow(splits)

    read_times = []
    rows_read = None
    for _ in range(3):  # best of 3 (warm cache)
        t0 = time.perf_counter()
        res = full_read()
        read_times.append(time.perf_counter() - t0)
        rows_read = res.num_rows if res is not None else 0
        del res

    out.write(
        json.dumps(
            {
                "write_s": write_s,
                "read_s": min(read_times),
                "read_runs_s": read_times,
                "rows_written": data.num_rows,
                "rows_read": rows_read,
                "pypaimon": pp_version,
                "pyarrow": pa.__version__,
                "python": sys.version.split()[0],
                "schema": [f"{f.name} {f.type}" for f in table.fields],
            }
        )
    )
    out.flush()


if __name__ == "__main__":
    main()
