"""Spark's Python daemon for this engine's local sessions (``spark.python.daemon.module``).

It is PySpark's own daemon, with one change: pyspark is imported from the installed package.
Spark puts pyspark's source zip first on its workers' path, and code imported from a zip is
compiled again by every process: about a second for each daemon (a local session starts four or
five: data source lookup, creation, planning, the task workers). The workers it forks inherit
the compiled modules. Only for local sessions, whose workers run this installation's pyspark.
"""

import sys

sys.path[:] = [p for p in sys.path if not p.endswith("pyspark.zip")]

from pyspark import daemon  # noqa: E402

if __name__ == "__main__":
    daemon.manager()
