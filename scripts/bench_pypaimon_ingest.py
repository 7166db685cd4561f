"""pypaimon 2.1.0 side of scripts/bench_spark.py: runs INSIDE the pypaimon venv (never the project's).

    <pypaimon-venv>/bin/python scripts/bench_pypaimon_ingest.py WAREHOUSE BUCKETS FILE.parquet [FILE..]

Creates b.pk (primary key id, BUCKETS buckets) and writes all FILEs in one commit, as the local and
Spark engines do; reading the inputs with pyarrow is not timed. pypaimon cannot compact. Prints
one JSON object on stdout: {"ingest_s": ..., "rows": ..., "maxrss_mb": ...}.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def main() -> None:
    wh, buckets, *files = sys.argv[1:]
    out = sys.stdout
    sys.stdout = sys.stderr  # library prints must not corrupt the JSON answer
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory, Schema

    tables = [pq.read_table(f) for f in files]
    catalog = CatalogFactory.create({"warehouse": wh})
    catalog.create_database("b", True)
    schema = Schema.from_pyarrow_schema(tables[0].schema, primary_keys=["id"], options={"bucket": buckets})
    catalog.create_table("b.pk", schema, False)
    table = catalog.get_table("b.pk")
    t0 = time.perf_counter()
    wb = table.new_batch_write_builder()
    tw, tc = wb.new_write(), wb.new_commit()
    try:
        for t in tables:
            tw.write_arrow(t)
        tc.commit(tw.prepare_commit())
    finally:
        tw.close()
        tc.close()
    secs = time.perf_counter() - t0
    out.write(
        json.dumps(
            {
                "ingest_s": secs,
                "rows": sum(t.num_rows for t in tables),
                "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
