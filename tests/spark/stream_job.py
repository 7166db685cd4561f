"""A Structured Streaming job run as its own process by test_spark_stream_kill.py:
changelog of db.src (consumer 'job') -> +1/-1 per category -> db.counts (aggregation sum).

    python tests/spark/stream_job.py WAREHOUSE CHECKPOINT STOPFILE JAVA_OPTIONS

Runs until STOPFILE exists, then stops the query and exits 0 (or until it is killed)."""

import os
import sys
import time


def main() -> None:
    wh, checkpoint, stopfile, opts = sys.argv[1:5]  # opts: the tests' JVM flags (tests/spark/jvm.py)
    from pyspark.sql import functions as F

    from paimon_core.engines.spark.engine import register
    from paimon_core.engines.spark.session import create_session

    spark = create_session(
        "local[2]",
        conf={
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.driver.extraJavaOptions": opts,
        },
    )
    register(spark, wh)
    changes = (
        spark.readStream.format("paimon")
        .option("consumer-id", "job")
        .option("max-snapshots-per-trigger", "5")
        .load("db.src")
    )
    deltas = changes.select(
        "cat", F.when(F.col("_row_kind").isin("+I", "+U"), 1).otherwise(-1).cast("bigint").alias("n")
    )
    q = (
        deltas.writeStream.format("paimon")
        .option("checkpointLocation", checkpoint)
        .trigger(processingTime="300 milliseconds")
        .start("db.counts")
    )
    print("started", flush=True)
    while not os.path.exists(stopfile):
        if q.exception() is not None:
            raise q.exception()
        time.sleep(0.2)
    q.processAllAvailable()
    q.stop()
    spark.stop()


if __name__ == "__main__":
    main()
