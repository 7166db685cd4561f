"""A real Structured Streaming job (its own process, local[2]) killed with SIGKILL mid-run while
another process keeps ingesting, then restarted from its checkpoint and consumer: the
aggregation it maintains must equal a plain model, so no micro-batch was lost or committed
twice (by the writer's batch-id commit identifiers) and no snapshot was read twice or skipped
(by offsets = snapshot ids and the consumer)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema import Schema
from tests.spark.jvm import java_options

pytest.importorskip("pyspark")
JOB = Path(__file__).with_name("stream_job.py")


def _start(wh, ck, stop, log):
    # the job's own Python for its workers: a Spark fixture of this session may have left the
    # bare executor Python (without paimon_core) in PYSPARK_PYTHON, which the data source's
    # planner process cannot use
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable)
    env.pop("PYSPARK_DRIVER_PYTHON", None)
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, str(JOB), wh, str(ck), str(stop), java_options()],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


def _counts(t):
    return {r["cat"]: r["n"] for r in t.read().to_pylist() if r["n"]}


def test_stream_job_killed_and_restarted_is_exactly_once(tmp_path):
    rng = random.Random(12)
    wh = str(tmp_path / "wh")
    cat = FileSystemCatalog(wh)
    src = cat.create_table(
        "db.src",
        Schema(
            Schema.parse_columns("id INT NOT NULL, cat STRING"),
            (),
            ("id",),
            {"bucket": "2", "changelog-producer": "input"},
        ),
    )
    counts = cat.create_table(
        "db.counts",
        Schema(
            Schema.parse_columns("cat STRING NOT NULL, n BIGINT"),
            (),
            ("cat",),
            {"bucket": "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
        ),
    )
    consumer_manager(src).reset("job", 1)  # from the first snapshot
    model: dict = {}
    live: dict = {}
    done = threading.Event()

    def ingest():
        """Inserts of new ids and deletes of live ones (input changelog: a delete carries its row)."""
        next_id = 0
        for _ in range(30):  # 6+ micro-batches (5 snapshots each at most): the kill lands mid-run
            ids, cats, kinds = [], [], []
            first = next_id  # a key is touched at most once per commit
            for _ in range(rng.randint(1, 5)):
                old = sorted(k for k in live if k < first)
                if old and rng.random() < 0.3:
                    k = rng.choice(old)
                    c = live.pop(k)
                    kind = "-D"
                    model[c] -= 1
                else:
                    k, c, kind = next_id, f"c{rng.randint(0, 4)}", "+I"
                    live[k] = c
                    model[c] = model.get(c, 0) + 1
                    next_id += 1
                ids.append(k)
                cats.append(c)
                kinds.append(kind)
            src.write_arrow(
                pa.table({"id": pa.array(ids, pa.int32()), "cat": cats, "k": kinds}), row_kind_column="k"
            )
            time.sleep(0.4)
        done.set()

    ck, stop, log = tmp_path / "ck", tmp_path / "stop", tmp_path / "job.log"
    job = _start(wh, ck, stop, log)
    writer = threading.Thread(target=ingest)
    writer.start()
    deadline = time.time() + 400
    while time.time() < deadline and counts.snapshots.latest_id() is None:  # first micro-batch committed
        time.sleep(0.5)
    assert counts.snapshots.latest_id() is not None, log.read_text()[-3000:]
    time.sleep(rng.uniform(0.5, 3.0))
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()
    killed_at = counts.snapshots.latest_id()
    job = _start(wh, ck, stop, log)
    writer.join()
    while time.time() < deadline and (
        _counts(counts) != {k: v for k, v in model.items() if v}
        or consumer_manager(src).get("job") != src.snapshots.latest_id() + 1
    ):
        time.sleep(1)
    stop.touch()
    assert job.wait(300) == 0, log.read_text()[-3000:]
    assert _counts(counts) == {k: v for k, v in model.items() if v}
    assert counts.snapshots.latest_id() > killed_at  # the restarted job did part of the work
