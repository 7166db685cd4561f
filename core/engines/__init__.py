"""Engines compute (write files, compact, read) and return CommitMessages; the core commits.

``local`` runs in this process on pyarrow. ``spark`` (the only module that imports pyspark)
runs the same writers inside Spark tasks.
"""

from paimon_core.engines.base import Engine, get_engine

__all__ = ["Engine", "get_engine"]
