"""The Flink lane streaming: a Flink 1.20 job (paimon-flink 1.3.1) upserts into a primary-key
table continuously while `paimon stream --consumer-id` follows it, with each changelog producer:
Flink's `lookup`, Flink's `full-compaction`, and `lookup` with `write-only=true` while `paimon
compact` runs as the dedicated compactor.

The job's input is a checkpointed sequence 1..N (datagen), each number written as ``v`` of key
``k = v % K``; so the table must end as {k: the largest v with that k}, and the changelog must be
+I, then -U/+U pairs with values that only grow. Midway the stream is killed (SIGKILL by pid)
and restarted from its consumer; with `lookup` and write-only on Flink 1.20 and with `lookup` on
Flink 2.0 the Flink job's own driver is killed too (its whole process group) and restarted from
its last retained checkpoint, while the other jobs run in the session's Flink. Nothing may be
lost or replayed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from .changelog import delivered, fold_checked
from .cli import argv, cli_env, paimon, paimon_rows
from .engines import start_flink
from .model import assert_rows

N, K, RATE = 2400, 40, 200  # rows, keys, rows per second: ~12 s of input
TABLE = "db.s"

pytestmark = pytest.mark.timeout(900)


def snapshots(wh: Path) -> int:
    folder = wh / "db.db" / "s" / "snapshot"
    ids = [int(p.name.split("-")[1]) for p in folder.glob("snapshot-*")] if folder.exists() else []
    return max(ids, default=0)


def snapshot_files(wh: Path) -> list[dict]:
    folder = wh / "db.db" / "s" / "snapshot"
    snaps = [json.loads(p.read_text()) for p in folder.glob("snapshot-*")]
    return sorted(snaps, key=lambda snap: snap["id"])


def latest_checkpoint(root: Path) -> Path | None:
    done = [p.parent for p in root.glob("*/chk-*/_metadata")]
    return max(done, key=lambda p: int(p.name.split("-")[1]), default=None)


def wait_for(what: str, cond, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while not cond():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def start_stream(wh: Path, out: Path) -> subprocess.Popen:
    args = argv(
        wh, "-o", "json", "stream", TABLE, "--consumer-id", "lane", "--snapshot-column", "--poll", "200ms"
    )
    with open(out, "wb") as f:
        return subprocess.Popen(args, stdout=f, stderr=subprocess.DEVNULL, env=cli_env())


def kill9(p: subprocess.Popen) -> None:
    os.kill(p.pid, signal.SIGKILL)
    p.wait()


def submit(flink, wh: Path) -> str:
    return flink.submit(
        wh,
        "CREATE TEMPORARY TABLE gen (seq BIGINT) WITH ('connector' = 'datagen', "
        f"'rows-per-second' = '{RATE}', 'fields.seq.kind' = 'sequence', "
        f"'fields.seq.start' = '1', 'fields.seq.end' = '{N}')",
        f"INSERT INTO {TABLE} SELECT seq % {K}, seq, CAST(seq AS STRING) FROM gen",
    )


class Compactor:
    """`paimon compact` in a loop, every 2 s (the dedicated compactor of a write-only table)."""

    def __init__(self, wh: Path):
        self.wh, self.runs, self.stop = wh, 0, threading.Event()
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.is_set():
            if snapshots(self.wh):
                proc = subprocess.run(
                    argv(self.wh, "compact", "-t", TABLE), capture_output=True, text=True, env=cli_env()
                )
                self.runs += 1
                if proc.returncode != 0:
                    self.errors.append(proc.stderr)
            self.stop.wait(2.0)  # each run is a CLI process (about 1.5 s of CPU here)

    def finish(self) -> None:
        self.stop.set()
        self.thread.join()
        assert not self.errors, self.errors[:3]


@pytest.mark.flink_versions("1.20")
@pytest.mark.parametrize(
    ("options", "kill_flink"),
    [
        # in the session's Flink (no extra start): Flink 1.20's own lookup and full-compaction
        # changelogs; a job killed and restored from its checkpoint: write-only here, and
        # Flink 2.0's lookup job below
        ({"changelog-producer": "lookup"}, False),
        ({"changelog-producer": "full-compaction"}, False),
        ({"changelog-producer": "lookup", "write-only": "true"}, True),
    ],
    ids=["lookup", "full-compaction", "write-only-lookup"],
)
def test_streamed_changelog_equals_the_jobs_input_across_kills(flink, options, kill_flink, tmp_path):
    streamed_changelog_equals_input(flink, options, kill_flink, tmp_path)


@pytest.mark.flink_versions("2.0")
def test_flink2_streamed_changelog_equals_the_jobs_input_across_kills(flink, tmp_path):
    """Flink 2.0's job with the lookup changelog producer, killed and restarted from its checkpoint."""
    streamed_changelog_equals_input(flink, {"changelog-producer": "lookup"}, True, tmp_path)


def streamed_changelog_equals_input(flink, options, kill_flink, tmp_path):
    wh, ck = tmp_path / "wh", tmp_path / "checkpoints"
    wh.mkdir()
    opts = [x for k, v in {"bucket": "2", **options}.items() for x in ("-O", f"{k}={v}")]
    paimon(wh, "create-table", TABLE, "--schema", "k BIGINT NOT NULL, v BIGINT, s STRING", "-k", "k", *opts)
    runs = [tmp_path / "stream0.jsonl"]
    stream = start_stream(wh, runs[-1])
    compactor = Compactor(wh) if options.get("write-only") == "true" else None

    job_side = (
        start_flink(tmp_path / "job0.log", checkpoints=ck, checkpoint_interval="1s", version=flink.version)
        if kill_flink
        else flink
    )
    try:
        job = submit(job_side, wh)
        # the first stream is killed only once it has delivered a snapshot (and so recorded its
        # consumer): killed before that, the next run starts with a full read of the latest
        # snapshot, which with `full-compaction` can be an APPEND one whose merged rows the next
        # COMPACT changelog retracts from its older state (Java's latest-full start does the
        # same; `scan.mode=compacted-full` is the answer there)
        wait_for(
            "two snapshots, one delivered, and a retained checkpoint",
            lambda: (
                snapshots(wh) >= 2
                and b"\n" in runs[-1].read_bytes()
                and (latest_checkpoint(ck) or not kill_flink)
            ),
        )
        kill9(stream)
        if kill_flink:
            job_side.kill()
        if kill_flink:
            at_kill = max(r["v"] for r in paimon_rows(wh, "read", "-t", TABLE))
            assert at_kill < N, "the job ended before the kill: the test would not cover a restart"
        runs.append(tmp_path / "stream1.jsonl")
        stream = start_stream(wh, runs[-1])
        if kill_flink:
            job_side = start_flink(
                tmp_path / "job1.log", checkpoints=ck, restore=latest_checkpoint(ck), version=flink.version
            )
            job = submit(job_side, wh)
        job_side.wait(job, timeout=600)
    except BaseException:  # a failure leaves no `paimon stream` or compactor loop behind
        if stream.poll() is None:
            kill9(stream)
        if compactor:
            compactor.stop.set()
        raise
    finally:
        if job_side is not flink:
            job_side.kill()
    if compactor:
        compactor.finish()
        assert compactor.runs > 1
        paimon(wh, "compact", "-t", TABLE)  # the changelog of the job's last commits
    kill9(stream)
    runs.append(tmp_path / "stream2.jsonl")
    last = snapshots(wh)
    with open(runs[-1], "wb") as f:
        subprocess.run(
            argv(
                wh,
                "-o",
                "json",
                "stream",
                TABLE,
                "--consumer-id",
                "lane",
                "--snapshot-column",
                "--until",
                last,
            ),
            stdout=f,
            env=cli_env(),
            check=True,
            timeout=300,
        )

    model = {k: max(v for v in range(1, N + 1) if v % K == k) for k in range(K)}
    expected = [{"k": k, "v": v, "s": str(v)} for k, v in model.items()]
    assert_rows(paimon_rows(wh, "read", "-t", TABLE), expected, "paimon read")
    assert_rows(flink.query(wh, f"SELECT * FROM {TABLE}"), expected, "Flink batch SELECT")
    # the second job resumed the first's state (a fresh start would commit as another user)
    appends = [snap for snap in snapshot_files(wh) if snap["commitKind"] == "APPEND"]
    assert appends[-1]["timeMillis"] > appends[0]["timeMillis"]
    assert {snap["commitUser"] for snap in appends} == {appends[0]["commitUser"]}
    changes = delivered(runs)
    assert fold_checked(changes, lambda r: r["k"], lambda r: r["v"]) == model
    assert len({r["_snapshot"] for r in changes}) > 2, "the changelog came in one piece: nothing was followed"
