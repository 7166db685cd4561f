"""kill -9 at random points: `paimon stream`, `paimon ingest --watch` and `paimon ingest -`
(real processes), against a plain model of what was written.

* stream --out DIR --consumer-id: every row exactly once across restarts;
* stream to stdout --consumer-id: every row at least once, and only the snapshot being
  delivered when the process died may repeat;
* ingest --watch: every file exactly once;
* ingest -: every commit whole, the committed rows a prefix of the input, nothing twice.
"""

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema import Schema

pytestmark = pytest.mark.slow  # kill -9 at random points, many times: a safety proof, seconds per test

ROUNDS = int(os.environ.get("PAIMON_CRASH_ROUNDS", "5"))


def argv(wh: Path, *args) -> list[str]:
    return [sys.executable, "-m", "paimon_cli", "-w", str(wh), *map(str, args)]


def paimon_env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith("PAIMON_")}


def paimon(wh: Path, *args, **kw) -> subprocess.Popen:
    return subprocess.Popen(argv(wh, *args), env=paimon_env(), **kw)


def paimon_run(wh: Path, *args, **kw) -> int:
    return subprocess.run(argv(wh, *args), env=paimon_env(), timeout=300, **kw).returncode


def kill9_after(p: subprocess.Popen, seconds: float) -> None:
    try:
        p.wait(seconds)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


@pytest.fixture
def table(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    opts = {"snapshot.num-retained.min": "2", "snapshot.time-retained": "0ms"}  # expiry races the stream
    return cat.create_table(
        "db.t", Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), (), (), opts)
    )


def writer(t, commits: int, per: int, pause: float) -> threading.Thread:
    def run():
        for i in range(commits):
            t.write_arrow(
                pa.table({"id": pa.array(range(i * per, (i + 1) * per), pa.int64()), "v": [f"c{i}"] * per})
            )
            time.sleep(pause)

    th = threading.Thread(target=run)
    th.start()
    return th


def test_stream_out_dir_is_exactly_once_under_kill9(table, tmp_path):
    rng = random.Random(7)
    wh = tmp_path / "wh"
    out = tmp_path / "out"
    consumer_manager(table).reset("arch", 1)  # pins every snapshot from the first
    th = writer(table, 40, 5, 0.2)
    args = ["stream", "db.t", "--consumer-id", "arch", "--out", out, "--roll-rows", "7", "--poll", "50ms"]
    for _ in range(ROUNDS):
        kill9_after(paimon(wh, *args), rng.uniform(0.5, 5.0))
    th.join()
    last = table.snapshots.latest_id()
    assert paimon_run(wh, *args, "--until", last) == 0
    ids = [i for p in sorted(out.glob("part-*.parquet")) for i in pq.read_table(p).column("id").to_pylist()]
    assert sorted(ids) == list(range(200)), Counter(ids).most_common(3)
    # the consumer held expiry back (a gap would have failed a run); once it is done they go
    table.write_arrow(pa.table({"id": pa.array([999], pa.int64()), "v": ["x"]}))
    assert table.snapshots.earliest_id() == last


def test_stream_stdout_repeats_at_most_the_snapshot_in_flight(table, tmp_path):
    rng = random.Random(11)
    wh = tmp_path / "wh"
    consumer_manager(table).reset("tail", 1)
    th = writer(table, 30, 4, 0.1)
    args = ["stream", "db.t", "--consumer-id", "tail", "--snapshot-column", "--poll", "50ms"]
    runs = []
    for k in range(ROUNDS):
        path = tmp_path / f"run{k}.jsonl"
        with open(path, "wb") as f:
            kill9_after(paimon(wh, *args, stdout=f), rng.uniform(0.5, 5.0))
        runs.append(path)
    th.join()
    path = tmp_path / "final.jsonl"
    with open(path, "wb") as f:
        assert paimon_run(wh, *args, "--until", table.snapshots.latest_id(), stdout=f) == 0
    runs.append(path)
    by_snapshot: dict = {}  # snapshot -> (run, ids) of its latest delivery
    last_of_run: dict = {}
    for k, p in enumerate(runs):
        text = p.read_text()
        complete = text[: text.rfind("\n") + 1]  # a line cut by the kill was not delivered
        rows = [json.loads(x) for x in complete.splitlines()]
        snaps = list(dict.fromkeys(r["_snapshot"] for r in rows))
        assert snaps == sorted(snaps)
        for s in snaps:
            if s in by_snapshot:
                j = by_snapshot[s][0]
                assert last_of_run.get(j) == s, (
                    f"snapshot {s} of run {j} (not its last) delivered again in run {k}"
                )
            by_snapshot[s] = (k, [r["id"] for r in rows if r["_snapshot"] == s])
        if snaps:
            last_of_run[k] = snaps[-1]
    ids = [i for _, got in by_snapshot.values() for i in got]
    assert sorted(ids) == list(range(120))


def test_watch_ingests_every_file_exactly_once_under_kill9(table, tmp_path):
    rng = random.Random(3)
    wh = tmp_path / "wh"
    land = tmp_path / "land"
    land.mkdir()
    files = 30

    def produce():
        for i in range(files):
            tmp = land / f".f{i:04d}.tmp"
            pq.write_table(
                pa.table({"id": pa.array(range(i * 10, i * 10 + 10), pa.int64()), "v": [f"f{i}"] * 10}), tmp
            )
            os.replace(tmp, land / f"f{i:04d}.parquet")
            time.sleep(0.15)

    th = threading.Thread(target=produce)
    th.start()
    args = ["ingest", "--watch", land, "-t", "db.t", "--poll", "50ms"]
    for _ in range(ROUNDS):
        kill9_after(paimon(wh, *args, stdout=subprocess.DEVNULL), rng.uniform(0.5, 5.0))
    th.join()
    p = paimon(wh, *args, stdout=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and _rows(table) < files * 10:
        time.sleep(0.2)
    time.sleep(1.0)  # a file ingested twice would show up now
    p.terminate()
    assert p.wait(60) in (143, -15)  # 143: stopped cleanly by SIGTERM (128 + 15); -15: while starting up
    ids = table.read().column("id").to_pylist()
    assert sorted(ids) == list(range(files * 10)), Counter(ids).most_common(3)


def _rows(table):
    snap = table.snapshots.latest()
    return snap.total_record_count if snap is not None else 0


def feed(p: subprocess.Popen, base: int) -> None:
    """JSON lines with ids base, base+1, ... in small pieces until the process dies."""
    try:
        for j in range(0, 100_000, 50):
            p.stdin.write(
                "".join(json.dumps({"id": base + i, "v": "x"}) + "\n" for i in range(j, j + 50)).encode()
            )
            p.stdin.flush()
            time.sleep(0.005)
    except (BrokenPipeError, ValueError, OSError):
        pass


def test_ingest_stdin_commits_whole_prefixes_under_kill9(table, tmp_path):
    rng = random.Random(5)
    wh = tmp_path / "wh"
    for k in range(ROUNDS):
        p = paimon(
            wh,
            "ingest",
            "-",
            "-t",
            "db.t",
            "--commit-rows",
            "100",
            "--commit-interval",
            "1h",
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
        )
        base = (k + 1) * 1_000_000
        th = threading.Thread(target=feed, args=(p, base))
        th.start()
        time.sleep(rng.uniform(1.0, 5.0))
        p.kill()
        p.wait()
        th.join()
        got = sorted(i - base for i in table.read().column("id").to_pylist() if base <= i < base + 1_000_000)
        assert got == list(range(len(got))), "committed rows are not a prefix of the input"
        assert len(got) % 100 == 0, "a commit was not whole"
