"""pypaimon side of scripts/bench_scale.py: runs INSIDE a venv with pypaimon 2.1.0 and
pypaimon-rust (never the project's).

    <venv>/bin/python scripts/bench_scale_pypaimon.py WAREHOUSE TABLE PARTITION [--python]

Times, after an untimed warm-up of imports and catalog, planning one partition (``p =
PARTITION``) and the whole table with ``scan.native-plan.enabled`` (the Rust planner; with
``--python``, pypaimon's Python planner). Prints one JSON object: {"one_s", "full_s",
"one_files", "full_files", "native"}; each time is the best of two fresh table loads.
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("warehouse")
    ap.add_argument("table")
    ap.add_argument("partition", type=int)
    ap.add_argument("--python", action="store_true")
    a = ap.parse_args()
    out = sys.stdout
    sys.stdout = sys.stderr

    from pypaimon import CatalogFactory

    catalog = CatalogFactory.create({"warehouse": a.warehouse})
    native = "false" if a.python else "true"

    def plan(where: bool) -> tuple[float, int]:
        table = catalog.get_table(a.table).copy({"scan.native-plan.enabled": native})
        rb = table.new_read_builder()
        if where:
            rb = rb.with_filter(rb.new_predicate_builder().equal("p", a.partition))
        t0 = time.perf_counter()
        splits = rb.new_scan().plan().splits()
        dt = time.perf_counter() - t0
        return dt, sum(len(s.files) for s in splits)

    plan(True)  # warm-up: imports, the native runtime
    one = min(plan(True) for _ in range(2))
    full = min(plan(False) for _ in range(2))
    json.dump(
        {
            "one_s": one[0],
            "one_files": one[1],
            "full_s": full[0],
            "full_files": full[1],
            "native": not a.python,
        },
        out,
    )
    out.write("\n")


if __name__ == "__main__":
    main()
