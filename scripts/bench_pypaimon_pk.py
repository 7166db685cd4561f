"""pypaimon 2.1.0 side of scripts/bench_pk.py: runs INSIDE the pypaimon venv (never the project's).

    <pypaimon-venv>/bin/python scripts/bench_pypaimon_pk.py WAREHOUSE BASE.parquet UPSERT1.parquet [UPSERT2..]

Table b.pk (primary key id, bucket 4): times the write+commit of BASE, then of UPSERT1, then a full
read (merge-on-read over 2 runs, best of 3). Table b.pk5 (same + write-only): BASE then every UPSERTn,
one commit each (untimed), then a full read (best of 3). Inputs are read with pyarrow untimed.
Prints one JSON object on stdout.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> None:
    wh, base_path, *upserts = sys.argv[1:]
    out = sys.stdout
    sys.stdout = sys.stderr  # library prints must not corrupt the JSON answer

    import pyarrow as pa
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory, Schema

    base = pq.read_table(base_path)
    ups = [pq.read_table(p) for p in upserts]
    catalog = CatalogFactory.create({"warehouse": wh})
    catalog.create_database("b", True)

    def create(name: str, options: dict) -> None:
        schema = Schema.from_pyarrow_schema(base.schema, primary_keys=["id"], options=options)
        catalog.create_table(name, schema, False)

    def write(name: str, data: pa.Table) -> float:
        table = catalog.get_table(name)
        t0 = time.perf_counter()
        wb = table.new_batch_write_builder()
        tw, tc = wb.new_write(), wb.new_commit()
        try:
            tw.write_arrow(data)
            tc.commit(tw.prepare_commit())
        finally:
            tw.close()
            tc.close()
        return time.perf_counter() - t0

    def read(name: str) -> tuple[float, list[float], int]:
        runs, n = [], 0
        for _ in range(3):
            t0 = time.perf_counter()
            rb = catalog.get_table(name).new_read_builder()
            res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
            runs.append(time.perf_counter() - t0)
            n = res.num_rows if res is not None else 0
            del res
        return min(runs), runs, n

    info: dict = {}
    create("b.pk", {"bucket": "4", "file.format": "parquet"})
    info["write_s"] = write("b.pk", base)
    info["upsert_s"] = write("b.pk", ups[0])
    info["read2_s"], info["read2_runs_s"], info["read2_rows"] = read("b.pk")

    create("b.pk5", {"bucket": "4", "file.format": "parquet", "write-only": "true"})
    build = [write("b.pk5", base)] + [write("b.pk5", u) for u in ups]
    info["build5_s"] = build
    info["read5_s"], info["read5_runs_s"], info["read5_rows"] = read("b.pk5")
    info["runs5"] = 1 + len(ups)
    try:
        from importlib.metadata import version

        info["pypaimon"] = version("pypaimon")
    except Exception:  # noqa: BLE001
        info["pypaimon"] = None
    info["pyarrow"] = pa.__version__
    out.write(json.dumps(info))
    out.flush()


if __name__ == "__main__":
    main()
