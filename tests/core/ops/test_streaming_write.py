"""Streaming write: commitUser/commitIdentifier exactly-once, folder watch, stdin ingest."""

import io
import json
import os
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_core.commit.file_store_commit import latest_commit_of
from paimon_core.metadata.schema import Schema
from paimon_core.ops.streaming import LAST_FILE, StreamingCommitter, ingest_stream, watch_dir


def append(catalog, name="db.ap", **opts):
    return catalog.create_table(name, Schema(Schema.parse_columns("id BIGINT, v STRING"), (), (), opts))


def batch(ids):
    return pa.table({"id": pa.array(ids, pa.int64()), "v": [f"v{i}" for i in ids]})


def data_files(t):
    return sorted(n for root, _, files in os.walk(t.path) for n in files if n.startswith("data-"))


def test_identifiers_increase_and_a_replayed_commit_is_skipped(catalog):
    t = append(catalog)
    c = StreamingCommitter(t, "user-a")
    assert c.next_identifier == 1
    r1 = c.write([batch([1, 2])])
    r2 = c.write([batch([3])])
    assert (r1.snapshot.commit_identifier, r2.snapshot.commit_identifier) == (1, 2)
    assert (r1.snapshot.commit_user, r2.snapshot.commit_user) == ("user-a", "user-a")
    t.write_arrow(batch([100]))  # another writer in between
    again = StreamingCommitter(t, "user-a")  # a restart
    assert again.next_identifier == 3 and latest_commit_of(t, "user-a").id == 2
    files = data_files(t)
    again.next_identifier = 2  # replay of commit 2 (e.g. after a crash before the caller noted it)
    r = again.write([batch([3])])
    assert r.snapshot is None and r.rows == 0
    assert data_files(t) == files  # its files were discarded
    assert sorted(x["id"] for x in t.read().to_pylist()) == [1, 2, 3, 100]


def write_file(d, name, ids):
    tmp = os.path.join(d, f".{name}.tmp")
    pq.write_table(batch(ids), tmp)
    os.replace(tmp, os.path.join(d, name))


def test_watch_ingests_each_file_once_in_name_order_and_resumes(catalog, tmp_path):
    t = append(catalog)
    land = tmp_path / "land"
    land.mkdir()
    for i in range(3):
        write_file(land, f"f{i:03d}.parquet", [i])
    commits, skipped = [], []
    watch_dir(
        t,
        str(land),
        poll_s=0.05,
        settle_s=0.0,
        stop=lambda: len(commits) >= 3,
        on_commit=lambda r, files: commits.append((r.snapshot.id, files)),
    )
    assert commits == [(1, ["f000.parquet"]), (2, ["f001.parquet"]), (3, ["f002.parquet"])]
    assert t.snapshots.snapshot(3).properties == {LAST_FILE: "f002.parquet"}
    write_file(land, "f003.parquet", [3])
    write_file(land, "a-late.parquet", [99])
    write_file(land, "f004.parquet", [4])
    # a restart: the same folder and pattern give the same commit user, so it resumes after f002
    watch_dir(
        t,
        str(land),
        poll_s=0.05,
        settle_s=0.0,
        stop=lambda: commits[-1][1] == ["f004.parquet"],
        on_commit=lambda r, files: commits.append((r.snapshot.id, files)),
        on_skip=lambda name, last: skipped.append((name, last)),
    )
    assert commits[3:] == [(4, ["f003.parquet"]), (5, ["f004.parquet"])]
    assert skipped == [("a-late.parquet", "f002.parquet")]  # ingested files are not "late"
    assert sorted(x["id"] for x in t.read().to_pylist()) == [0, 1, 2, 3, 4]


def test_watch_with_commit_interval_groups_files(catalog, tmp_path):
    t = append(catalog)
    land = tmp_path / "land"
    land.mkdir()
    for i in range(4):
        write_file(land, f"f{i}.parquet", [i])
    commits = []
    watch_dir(
        t,
        str(land),
        commit_interval_s=0.0,
        poll_s=0.05,
        settle_s=0.0,
        stop=lambda: bool(commits),
        on_commit=lambda r, files: commits.append(files),
    )
    assert commits == [[f"f{i}.parquet" for i in range(4)]]
    assert t.snapshots.latest().delta_record_count == 4


def test_stdin_json_commits_by_rows_and_at_eof(catalog):
    t = append(catalog)
    lines = b"".join(json.dumps({"id": i, "v": f"v{i}"}).encode() + b"\n" for i in range(25))
    commits = []
    ingest_stream(
        t,
        io.BytesIO(lines[:-1]),
        commit_interval_s=60,
        commit_rows=10,  # last line unterminated
        on_commit=lambda r: commits.append(r.rows),
    )
    assert commits == [10, 10, 5]
    assert sorted(x["id"] for x in t.read().to_pylist()) == list(range(25))


def test_stdin_csv_commits_on_interval_while_the_pipe_stays_open(catalog):
    t = append(catalog)
    r, w = os.pipe()
    reader = os.fdopen(r, "rb", buffering=0)
    commits = []
    stop = threading.Event()
    th = threading.Thread(
        target=lambda: ingest_stream(
            t,
            reader,
            "auto",
            commit_interval_s=0.2,
            stop=stop.is_set,
            on_commit=lambda res: commits.append(res.rows),
        )
    )
    th.start()
    os.write(w, b"id,v\n1,a\n2,b\n")
    deadline = time.time() + 10
    while not commits and time.time() < deadline:
        time.sleep(0.05)
    assert commits == [2]  # committed although the pipe is still open
    os.write(w, b"3,c\n")
    os.close(w)
    th.join(10)
    assert sorted(x["id"] for x in t.read().to_pylist()) == [1, 2, 3]
