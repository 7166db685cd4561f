"""Benchmark (issue 26, point 6): the floors of the format, three ratios in one run.

    .venv/bin/python scripts/bench_floors.py [--rows 1000000] [--upserts 200000] [--repeat 5] [--profile W|R|M]

Same data as scripts/bench_pk.py (bench.gen_table, id BIGINT NOT NULL, bucket 4, Parquet zstd 1);
each figure is the best of --repeat runs, ours and its anchor timed alternately in the same loop;
the ratio is of wall seconds, "cpu ratio" of process CPU seconds (all threads: steadier on a shared
machine, and it shows work that threads hide):
  write    ours:   t.write_arrow(1M rows) into a new PK table (bucket, sequence, sort, write).
           anchor: the least work of the same output with pyarrow: the bucket of each row (the
                   murmur hash of core/paimon_core/write/bucket.py, vectorised), rows ordered by bucket
                   (Arrow's counting sort) then id (numpy) and taken once, _KEY_id,
                   _SEQUENCE_NUMBER, _VALUE_KIND added, one Parquet file a bucket written with the
                   same writer options, buckets on as many threads as ours.
           target <= 1.2x
  read     ours:   t.read() of the table after a full compaction (one sorted run a bucket).
           anchor: pq.read_table of the same data files, value columns only.
           target <= 1.3x
  merge    ours:   t.read() of a table written base + 4 upserts (write-only: 5 sorted runs a bucket).
           anchor: pq.read_table of the same (20) files, value columns only.
           context: the ratio to the read anchor above (the answer's rows read by pyarrow; as
                    scripts/bench_pk.py's floor_pk_read, against which "3.1x" was measured).
           target <= 2x
Measured on the shared 2-core machine (load ~13, so wall ratios move by +-30%; CPU ratios are
steadier), before -> after raw-convertible reads and timsort of sorted runs:
  write  wall 1.21 -> 1.06..1.25, cpu 1.27 -> 1.00..1.22
  read   wall 2.23..2.64 -> 0.90..1.49, cpu 1.99..2.22 -> 0.95..1.03
  merge  wall 2.35..2.55 -> 1.28..1.80, cpu 2.00..2.08 -> 1.33..1.50
  context (5-run read / compacted-read anchor): cpu 4.1..4.6 -> 2.6..3.1
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pk import PK_COLUMNS, PK_OPTIONS, check_state, expected_state, pk_data  # noqa: E402

TARGETS = {"write": 1.2, "read": 1.3, "merge": 2.0}


def anchor_write(base: pa.Table, out: Path, buckets: int, threads: int) -> None:
    from paimon_core.data.types import parse_type
    from paimon_core.fileformat.parquet import writer_options
    from paimon_core.write.bucket import assign_buckets

    b = assign_buckets(base, ["id"], [parse_type("BIGINT NOT NULL")], buckets)
    by_bucket = pc.array_sort_indices(pa.array(b)).to_numpy()  # counting sort of small ints
    bounds = np.searchsorted(b[by_bucket], np.arange(buckets + 1))
    ids = base.column("id").to_numpy()
    parts = [by_bucket[bounds[i] : bounds[i + 1]] for i in range(buckets)]
    order = np.concatenate([p[np.argsort(ids[p])] for p in parts])  # then by id: one take
    ordered = base.take(pa.array(order))

    def one(i: int) -> None:
        part = ordered.slice(bounds[i], bounds[i + 1] - bounds[i])
        n = part.num_rows
        kv = pa.Table.from_arrays(
            [
                part.column("id"),
                pa.array(np.arange(n, dtype=np.int64)),
                pa.array(np.zeros(n, dtype=np.int8)),
                *part.columns,
            ],
            names=["_KEY_id", "_SEQUENCE_NUMBER", "_VALUE_KIND", *part.column_names],
        )
        pq.write_table(kv, out / f"bucket-{i}.parquet", row_group_size=n, **writer_options(kv.schema))

    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(buckets)))


def data_files(table) -> list[str]:
    splits = table.plan(table.snapshots.latest())
    return [
        table.io.join(table.bucket_path(s.partition, s.bucket), f.file_name) for s in splits for f in s.files
    ]


CPU: dict[str, list[float]] = {}


def splits_one_thread(table) -> list:
    """The table's splits read one after another on this thread (cProfile sees one thread)."""
    from paimon_core.read.table_read import TableRead

    reader = TableRead(table)
    return [reader.read_split(s) for s in table.plan(table.snapshots.latest())]


def timed(fn, key: str = "") -> tuple[float, object]:
    """Wall seconds of ``fn()`` and its result; the process CPU seconds go to ``CPU[key]``."""
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    CPU.setdefault(key, []).append(time.process_time() - c0)
    return wall, out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--upserts", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--profile", choices=["W", "R", "M"], help="cProfile one of ours and print the top")
    args = ap.parse_args()

    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.compaction.compaction import compact
    from paimon_core.metadata.schema import Schema
    from paimon_core.write.kv_writer import FLUSH_THREADS

    base, ups = pk_data(args.rows, args.upserts, 4)
    want1, want5 = expected_state(base, []), expected_state(base, ups)
    tmp = Path(tempfile.mkdtemp(prefix="bench_floors_"))
    cat = FileSystemCatalog(str(tmp / "wh"))
    cols = Schema.parse_columns(PK_COLUMNS)
    buckets = int(PK_OPTIONS["bucket"])
    try:
        # tables to read: compacted, and 5 sorted runs
        tc = cat.create_table("b.compacted", Schema(cols, (), ("id",), dict(PK_OPTIONS)))
        tc.write_arrow(base)
        compact(tc, full=True)
        t5 = cat.create_table("b.runs5", Schema(cols, (), ("id",), {**PK_OPTIONS, "write-only": "true"}))
        for d in [base, *ups]:
            t5.write_arrow(d)
        tc, t5 = cat.get_table("b.compacted"), cat.get_table("b.runs5")
        value_cols = base.column_names
        cfiles, rfiles = data_files(tc), data_files(t5)

        if args.profile:
            fn = {
                "W": lambda: cat.create_table(
                    f"b.prof{time.monotonic_ns()}", Schema(cols, (), ("id",), dict(PK_OPTIONS))
                ).write_arrow(base),
                "R": lambda: splits_one_thread(tc),
                "M": lambda: splits_one_thread(t5),
            }[args.profile]
            fn()
            prof = cProfile.Profile()
            prof.enable()
            fn()
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
            return 0

        times: dict[str, list[float]] = {k: [] for k in ("w", "wa", "r", "ra", "m", "ma")}
        notes = []
        for i in range(args.repeat):
            t = cat.create_table(f"b.w{i}", Schema(cols, (), ("id",), dict(PK_OPTIONS)))
            times["w"].append(timed(lambda t=t: t.write_arrow(base), "w")[0])
            times["wa"].append(
                timed(lambda i=i: anchor_write(base, tmp / f"anchor{i}", buckets, FLUSH_THREADS), "wa")[0]
            )
            s, got = timed(tc.read, "r")
            times["r"].append(s)
            times["ra"].append(timed(lambda: pq.read_table(cfiles, columns=value_cols), "ra")[0])
            if i == 0:
                notes.append(f"compacted read: {check_state(got, want1) or 'OK'}")
            s, got = timed(t5.read, "m")
            times["m"].append(s)
            times["ma"].append(timed(lambda: pq.read_table(rfiles, columns=value_cols), "ma")[0])
            if i == 0:
                notes.append(f"5-run read: {check_state(got, want5) or 'OK'}")
        best = {k: min(v) for k, v in times.items()}
        cpu = {k: min(v) for k, v in CPU.items()}
        print(f"rows {args.rows:,}, upserts 4 x {args.upserts:,}, bucket {buckets}, best of {args.repeat}")
        print(f"files: compacted {len(cfiles)}, 5 runs {len(rfiles)}; {'; '.join(notes)}")
        rows = [
            ("write", "w", "wa", "sort + split into buckets + write KV columns (pyarrow)"),
            ("read", "r", "ra", "pq.read_table(value columns of the compacted files)"),
            ("merge", "m", "ma", "pq.read_table(value columns of the 5 runs' files)"),
        ]
        print(
            f"{'figure':<7} {'ours s':>8} {'anchor s':>9} {'ratio':>6} {'cpu ratio':>10} {'target':>7}  anchor"
        )
        for name, ours, anchor, label in rows:
            r, c = best[ours] / best[anchor], cpu[ours] / cpu[anchor]
            print(
                f"{name:<7} {best[ours]:8.3f} {best[anchor]:9.3f} {r:6.2f} {c:10.2f}"
                f" {TARGETS[name]:6.1f}x  {label}"
            )
        print(
            f"context: the 5-run read is {best['m'] / best['ra']:.2f}x (cpu {cpu['m'] / cpu['ra']:.2f}x)"
            " the compacted read's anchor (the answer's rows read by pyarrow; before issue 26 this"
            " figure was 3.1x)"
        )
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
