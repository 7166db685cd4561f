"""Warm the interop caches before pytest (CI): Java Paimon 0.9, 1.4.2 and 2.0.0 jars + the driver
compiled for each + a CDS archive each, the PostgreSQL and SQLite JDBC driver jars (Maven Central), and the pypaimon 2.1.0 venv.

    python -m tests.interop.harness.prepare [--java-only | --pypaimon-only] [--cache-dir DIR]
    python tests/interop/harness/prepare.py ...
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `tests.interop.harness` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    __package__ = "tests.interop.harness"  # noqa: A001

from .java_paimon import VERSIONS, JavaPaimon, ensure_java_classpath  # noqa: E402
from .jdbc_jars import ensure_jdbc_jars  # noqa: E402
from .pypaimon_env import PyPaimon, ensure_pypaimon_python  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    only = ap.add_mutually_exclusive_group()
    only.add_argument("--java-only", action="store_true")
    only.add_argument("--pypaimon-only", action="store_true")
    ap.add_argument(
        "--cache-dir", default=None, help="default: $PAIMON_CLI_INTEROP_CACHE or ~/.cache/paimon-cli-interop"
    )
    args = ap.parse_args(argv)
    pool = ThreadPoolExecutor(max_workers=1)  # the pypaimon venv (downloads) builds beside the JVM work
    pypaimon = None if args.java_only else pool.submit(_pypaimon, args.cache_dir)
    if not args.pypaimon_only:
        for version in VERSIONS:
            t = time.time()
            cp = ensure_java_classpath(args.cache_dir, version=version)
            JavaPaimon(args.cache_dir, version=version).call(
                "bucket_of", types=["INT"], rows=[[1]], num_buckets=4
            )
            print(f"java {version}: ready in {time.time() - t:.1f}s; classpath {cp}")
        print(f"jdbc drivers: {', '.join(ensure_jdbc_jars(args.cache_dir))}")
    if pypaimon is not None:
        print(pypaimon.result())
    pool.shutdown()
    return 0


def _pypaimon(cache_dir: str | None) -> str:
    t = time.time()
    py = ensure_pypaimon_python(cache_dir)
    info = PyPaimon(cache_dir).call("ping")
    return f"pypaimon: ready in {time.time() - t:.1f}s; python {py}; {info}"


if __name__ == "__main__":
    sys.exit(main())
