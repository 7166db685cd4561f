"""Processes for the safety tests: writers, a compactor, an expirer, and crash-injected runs.

Everything here runs in child processes against real storage (local directory or S3). The only
thing patched is instrumentation around FileIO / SnapshotManager calls in the child itself:

* ``install_commit_log`` records every snapshot this process creates (id, sha256 of the exact
  bytes written, kind), so the parent can prove no snapshot id was claimed twice and no retained
  snapshot file was replaced;
* ``install_crash_hook`` counts the storage operations of the process (data-file writes, metadata
  writes, the snapshot create, hint updates, deletes) and ends the process with ``os._exit(137)``
  at the k-th one, before, during (a torn partial file) or after the operation, like a kill -9.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import traceback

import pyarrow as pa

CRASH_CODE = 137


# ---------------------------------------------------------------- tables and batches
def catalog(cfg: dict):
    from paimon_core.catalog import FileSystemCatalog

    return FileSystemCatalog(cfg["warehouse"], cfg.get("storage") or None)


def get_table(cfg: dict):
    return catalog(cfg).get_table(cfg["table"])


def batch_rows(writer: int, b: int, pk: bool, n: int = 40, shared: bool = False) -> dict[int, str]:
    """Keys and values of batch ``b`` of writer ``writer``. Append: fresh ids each batch. PK: a
    window that overlaps the previous batch, so later batches update earlier keys of the same
    writer (merge order matters); writers share no keys unless ``shared``, where every writer's
    batch ``b`` covers the same window of keys (values still name writer and batch)."""
    base = 0 if shared else writer * 1_000_000
    if pk:
        ids = range(base + b * (n // 2), base + b * (n // 2) + n)
    else:
        ids = range(base + b * n, base + (b + 1) * n)
    return {i: f"w{writer}b{b}" for i in ids}


def arrow_batch(rows: dict[int, str], pk: bool) -> pa.Table:
    ids = list(rows)
    cols = {"id": pa.array(ids, pa.int64()), "v": pa.array([rows[i] for i in ids], pa.string())}
    if not pk:
        cols["p"] = pa.array(["even" if i % 2 == 0 else "odd" for i in ids], pa.string())
    return pa.table(cols)


# ---------------------------------------------------------------- instrumentation
def _append_line(path: str, obj: dict) -> None:
    """One line in one write(2): a SIGKILL can leave out the line, never tear it (a buffered text
    file splits a long line into several writes)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        data = (json.dumps(obj) + "\n").encode()
        assert os.write(fd, data) == len(data)
        os.fsync(fd)
    finally:
        os.close(fd)


def install_commit_log(log_path: str, who: str) -> None:
    """Record every snapshot this process creates, with the hash of the bytes it wrote."""
    from paimon_core.metadata.snapshot import SnapshotManager

    orig = SnapshotManager.try_commit

    def try_commit(self, snapshot):
        ok = orig(self, snapshot)
        if ok:
            data = snapshot.to_json().encode("utf-8")
            _append_line(
                log_path,
                {
                    "who": who,
                    "id": snapshot.id,
                    "sha": hashlib.sha256(data).hexdigest(),
                    "kind": snapshot.commit_kind,
                    "uuid": snapshot.uuid,
                },
            )
        return ok

    SnapshotManager.try_commit = try_commit


def install_crash_hook(k: int, report_path: str | None = None) -> dict:
    """Crash (os._exit(137)) at the k-th storage operation of this process. Returns the counter."""
    # one storage operation at a time, so that the k-th point is the same step in every run (the
    # writer flushes buckets on a thread pool and the reader reads splits in parallel otherwise)
    from paimon_core.read import table_read
    from paimon_core.write import kv_writer

    kv_writer.FLUSH_THREADS = 1
    table_read.READ_THREADS = 1
    from paimon_core.fileformat import parquet as data_file
    from paimon_core.storage.file_io import FileIO
    from tests.safety.sites import call_site

    # committed: a snapshot was created; sites: each point's call site (tests/safety/sites.py)
    state = {"n": 0, "events": [], "sites": [], "committed": False}

    def point(label: str) -> bool:
        """Count one crash point; True when this is the one to crash at."""
        state["n"] += 1
        state["events"].append(label)
        state["sites"].append(call_site(2))
        if state["n"] == k:
            if report_path:
                _append_line(report_path, {"crashed_at": label, "k": k, "committed": state["committed"]})
            return True
        return False

    def die():
        os._exit(CRASH_CODE)

    def basename(path: str) -> str:
        return path.rstrip("/").rsplit("/", 1)[-1]

    orig_write_bytes = FileIO.write_bytes

    def write_bytes(self, path, data):
        kind = basename(path).split("-")[0]
        if point(f"before-write:{kind}"):
            die()
        if point(f"torn-write:{kind}"):
            orig_write_bytes(self, path, data[: max(1, len(data) // 2)])
            die()
        orig_write_bytes(self, path, data)
        if point(f"after-write:{kind}"):
            die()

    orig_if_absent = FileIO.write_if_absent

    def write_if_absent(self, path, data):
        kind = basename(path).split("-")[0]
        if point(f"before-create:{kind}"):
            die()
        if point(f"torn-create:{kind}") and self.is_local:
            # the temp file of the atomic create, half written, never linked
            d = os.path.dirname(path)
            os.makedirs(d, exist_ok=True)
            with open(f"{d}/.{basename(path)}.crash.tmp", "wb") as f:
                f.write(data[: len(data) // 2])
            die()
        ok = orig_if_absent(self, path, data)
        if ok and kind == "snapshot":
            state["committed"] = True
        if point(f"after-create:{kind}"):
            die()
        return ok

    orig_hint = FileIO.overwrite_hint

    def overwrite_hint(self, path, data):
        if point(f"before-hint:{basename(path)}"):
            die()
        orig_hint(self, path, data)
        if point(f"after-hint:{basename(path)}"):
            die()

    orig_delete = FileIO.delete

    def delete(self, path):
        if point(f"before-delete:{basename(path).split('-')[0]}"):
            die()
        orig_delete(self, path)

    orig_pq_write = data_file.ParquetFileWriter.write
    orig_pq_close = data_file.ParquetFileWriter.close

    def pq_write(self, table):
        if point("before-data-write"):
            die()
        orig_pq_write(self, table)
        if point("torn-data-file"):  # row group written, footer never: a truncated Parquet file
            self._sink.flush()
            die()

    def pq_close(self):
        size = orig_pq_close(self)
        if point("after-data-close"):
            die()
        return size

    FileIO.write_bytes = write_bytes
    FileIO.write_if_absent = write_if_absent
    FileIO.overwrite_hint = overwrite_hint
    FileIO.delete = delete
    data_file.ParquetFileWriter.write = pq_write
    data_file.ParquetFileWriter.close = pq_close
    return state


# ---------------------------------------------------------------- process bodies
def run_writer(cfg: dict) -> None:
    """Ingest ``cfg['batches']`` batches; a batch that fails with a conflict is tried again (as a
    user would), at most ``cfg['attempts']`` times. Results go to ``cfg['out']`` (JSON lines)."""
    import dataclasses

    from paimon_core.errors import CommitConflict

    who = f"writer-{cfg['writer']}"
    install_commit_log(cfg["commits"], who)
    table = get_table(cfg)
    if cfg.get("write_only"):  # leave level-0 files behind: work the compactor can always land
        options = {**table.schema.options, "write-only": "true"}
        table = table.with_schema(dataclasses.replace(table.schema, options=options))
    for b in range(cfg["batches"]):
        rows = batch_rows(cfg["writer"], b, cfg["pk"], shared=cfg.get("shared", False))
        for attempt in range(cfg.get("attempts", 3)):
            t0 = time.time()
            try:
                snap = table.write_arrow(arrow_batch(rows, cfg["pk"]))
            except CommitConflict as e:
                _append_line(
                    cfg["out"],
                    {
                        "writer": cfg["writer"],
                        "batch": b,
                        "ok": False,
                        "error": f"CommitConflict: {e}",
                        "attempt": attempt,
                    },
                )
                continue
            except Exception as e:
                _append_line(
                    cfg["out"],
                    {
                        "writer": cfg["writer"],
                        "batch": b,
                        "ok": False,
                        "fatal": True,
                        "error": f"{type(e).__name__}: {e}",
                        "tb": traceback.format_exc(),
                        "attempt": attempt,
                    },
                )
                break
            _append_line(
                cfg["out"],
                {
                    "writer": cfg["writer"],
                    "batch": b,
                    "ok": True,
                    "snapshot": snap.id,
                    "secs": round(time.time() - t0, 3),
                    "attempt": attempt,
                },
            )
            break


def _loop_until_stop(cfg: dict, who: str, body) -> None:
    from paimon_core.errors import CommitConflict

    install_commit_log(cfg["commits"], who)
    table = get_table(cfg)
    stats = {"ok": 0, "conflict": 0, "noop": 0, "errors": []}
    while not os.path.exists(cfg["stop"]):
        try:
            stats[body(table)] += 1
        except CommitConflict:
            stats["conflict"] += 1
        except Exception as e:
            stats["errors"].append(f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
            if len(stats["errors"]) > 20:
                break
        time.sleep(cfg.get("pause", 0.05))
    _append_line(cfg["out"], {"who": who, **stats})


def run_compactor(cfg: dict) -> None:
    from paimon_core.compaction.compaction import compact

    def body(table):
        r = compact(table, full=True)
        return "ok" if r.snapshot is not None else "noop"

    _loop_until_stop(cfg, "compactor", body)


def run_expirer(cfg: dict) -> None:
    from paimon_core.maintain import expire_snapshots

    def body(table):
        r = expire_snapshots(table, retain_min=cfg.get("retain_min", 3), older_than_ms=0)
        return "ok" if r.expired else "noop"

    _loop_until_stop(cfg, "expirer", body)


def run_crash_ingest(cfg: dict) -> None:
    """One ingest (with the auto compaction / expiry after it) and a full compaction, crashing at
    storage operation k; if
    it gets through, the number of crash points seen is reported in ``cfg['report']``."""
    from paimon_core.compaction.compaction import compact

    state = install_crash_hook(cfg["k"], cfg["report"])
    table = get_table(cfg)
    table.write_arrow(arrow_batch(cfg["rows"], cfg["pk"]))  # with auto compaction and expiry
    state["events"].append("|compact")
    compact(table, full=True)  # and a full compaction: crash points in a COMPACT commit too
    _append_line(
        cfg["report"],
        {"completed": True, "points": state["n"], "events": state["events"], "sites": state["sites"]},
    )


def run_crash_expire(cfg: dict) -> None:
    from paimon_core.maintain import expire_snapshots

    state = install_crash_hook(cfg["k"], cfg["report"])
    table = get_table(cfg)
    expire_snapshots(table, retain_min=cfg["retain_min"], older_than_ms=0)
    _append_line(
        cfg["report"],
        {"completed": True, "points": state["n"], "events": state["events"], "sites": state["sites"]},
    )


def run_crash_rescale(cfg: dict) -> None:
    """Rescale the table into ``cfg['bucket']`` buckets, crashing at storage operation k."""
    from paimon_core.ops.rescale import rescale

    state = install_crash_hook(cfg["k"], cfg["report"])
    rescale(get_table(cfg), cfg["bucket"])
    _append_line(
        cfg["report"],
        {"completed": True, "points": state["n"], "events": state["events"], "sites": state["sites"]},
    )


def run_commit_then_die_before_latest(cfg: dict) -> None:
    """Commit a batch and die right after snapshot-N is created, before the LATEST hint."""
    from paimon_core.storage.file_io import FileIO

    orig = FileIO.overwrite_hint

    def overwrite_hint(self, path, data):
        if path.endswith("/LATEST"):
            os._exit(CRASH_CODE)
        orig(self, path, data)

    FileIO.overwrite_hint = overwrite_hint
    table = get_table(cfg)
    table.write_arrow(arrow_batch(cfg["rows"], cfg["pk"]))


BODIES = {
    "writer": run_writer,
    "compactor": run_compactor,
    "expirer": run_expirer,
    "crash_ingest": run_crash_ingest,
    "crash_expire": run_crash_expire,
    "crash_rescale": run_crash_rescale,
    "die_before_latest": run_commit_then_die_before_latest,
}


def main(role: str, cfg: dict) -> None:
    _stacks_on_sigusr1(cfg)
    BODIES[role](cfg)


def _stacks_on_sigusr1(cfg: dict) -> None:
    """SIGUSR1 writes every thread's stack to ``<out>.stacks`` (the parent sends it to a child
    that hangs, before killing it, and shows where it was)."""
    import faulthandler
    import signal

    if cfg.get("out"):
        faulthandler.register(signal.SIGUSR1, file=open(cfg["out"] + ".stacks", "w"), all_threads=True)


if __name__ == "__main__":  # python worker.py ROLE CONFIG_JSON
    import sys

    main(sys.argv[1], json.loads(sys.argv[2]))
