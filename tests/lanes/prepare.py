"""Warm the lanes' caches before pytest (CI): the PyFlink 1.20 and 2.0, PySpark 3.5 and chDB venvs and the
pinned paimon-flink / paimon-spark jars (see envs.py). Starts no engine.

    python -m tests.lanes.prepare [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
import time

from .engines import flink_jars
from .envs import FLINK_VERSIONS, PAIMON_SPARK, chdb_python, connector_jar, flink_python, spark_python


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--cache-dir", default=None, help="default: $PAIMON_CLI_INTEROP_CACHE or ~/.cache/paimon-cli-interop"
    )
    args = ap.parse_args(argv)
    t = time.time()
    print(
        f"spark lane: python {spark_python(args.cache_dir)}; jar {connector_jar(PAIMON_SPARK, args.cache_dir)}"
    )
    for version in FLINK_VERSIONS:
        python, jars = flink_python(version, args.cache_dir), flink_jars(version, args.cache_dir)
        print(f"flink {version} lane: python {python}; jars {', '.join(jars)}")
    print(f"clickhouse lane: python {chdb_python(args.cache_dir)}")
    print(f"lanes: ready in {time.time() - t:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
