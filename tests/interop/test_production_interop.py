"""Production tables against Java Paimon 0.9: twin tables (Java writes one, we write the other with
the same rows and options, on the same wall clock) have the same partitions, tags and snapshots
after every commit, and each side reads the other's; a mixed history (Java, then our ingest and
compaction, then Java again) reads as a model at every step.

Java's writes go through its BatchTableCommit, so its TableCommitImpl runs partition expiry,
automatic tags and tag expiry after each of them, as our ``after_commit`` does after ours.
Automatic tags here follow the real clock (Java's cannot be injected): tag names are the period
before the commit's own; a test that starts in the last minute of an hour waits for the next one.
"""

from __future__ import annotations

import time
from datetime import datetime

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.maintain.partitions import java_strings, partition_stats
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.tags import tag_manager
from tests.interop.data import schema_json
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow

pytestmark = [pytest.mark.interop, pytest.mark.slow]

COLUMNS = [("id", "BIGINT"), ("dt", "STRING")]
T = "db.t"


def _away_from_an_hour_boundary() -> None:
    now = datetime.now()
    if now.minute == 59:
        time.sleep(61 - now.second)


def _java_create(java, wh: str, options: dict) -> None:
    java.call(
        "create_table",
        warehouse=wh,
        table=T,
        schema=schema_json(COLUMNS),
        partition_keys=["dt"],
        options=options,
    )


def _rows(pairs) -> list[dict]:
    return [{"id": i, "dt": d} for i, d in pairs]


def _arrow(rows: list[dict]) -> pa.Table:
    return pa.table({"id": pa.array([r["id"] for r in rows], pa.int64()), "dt": [r["dt"] for r in rows]})


def _our_state(wh: str) -> dict:
    t = FileSystemCatalog(wh).get_table(T)
    sm = t.snapshots
    return {
        "partitions": sorted(
            (tuple(java_strings(t, s.values)), s.record_count, s.file_count) for s in partition_stats(t)
        ),
        "snapshots": [(i, sm.snapshot(i).commit_kind) for i in sm.list_ids()],
        "tags": {n: s.id for n, s in tag_manager(t).tagged().items()},
    }


def _java_state_requests(wh: str) -> list[dict]:
    return [{"op": op, "warehouse": wh, "table": T} for op in ("partitions", "snapshots", "tags")]


def _java_state(results: list[dict]) -> dict:
    parts, snaps, tags = results
    return {
        "partitions": sorted(
            ((p["partition"]["dt"],), p["recordCount"], p["fileCount"]) for p in parts["partitions"]
        ),
        "snapshots": [(s["id"], s["commitKind"]) for s in snaps["snapshots"]],
        "tags": tags["tags"],
    }


def _twins(tmp_path, java, options: dict, commits: list[list[dict]], pause_s: float = 0.0) -> list[tuple]:
    """Write ``commits`` to a Java table and to ours; returns (ours, java's) state after each."""
    jwh, owh = str(tmp_path / "java"), str(tmp_path / "ours")
    _java_create(java, jwh, options)
    ours = FileSystemCatalog(owh).create_table(
        T, Schema(Schema.parse_columns("id BIGINT, dt STRING"), ("dt",), (), dict(options))
    )
    states = []
    for k, rows in enumerate(commits):
        if k and pause_s:
            time.sleep(pause_s)
        res = java.run(
            [{"op": "write", "warehouse": jwh, "table": T, "rows": rows}, *_java_state_requests(jwh)]
        )
        ours.write_arrow(_arrow(rows))
        states.append((_our_state(owh), _java_state(res[1:])))
    # each side reads the other's table; Java's $partitions of our table shows our figures
    jread, jparts = java.run([{"op": op, "warehouse": owh, "table": T} for op in ("read", "partitions")])
    assert_same_rows(
        jread["rows"], rows_from_arrow(FileSystemCatalog(jwh).get_table(T).read()), label_a="java reads ours"
    )
    ot = FileSystemCatalog(owh).get_table(T)
    figures = [
        (
            {"dt": java_strings(ot, s.values)[0]},
            s.record_count,
            s.file_size_in_bytes,
            s.file_count,
            s.last_file_creation_time,
        )
        for s in partition_stats(ot)
    ]
    theirs = [
        (p["partition"], p["recordCount"], p["fileSizeInBytes"], p["fileCount"], p["lastFileCreationTime"])
        for p in jparts["partitions"]
    ]
    assert sorted(figures, key=str) == sorted(theirs, key=str)
    return states


def test_twins_partition_expiry_by_value(tmp_path, java):
    options = {
        "partition.expiration-time": "1 d",
        "partition.expiration-check-interval": "0",
        "partition.timestamp-formatter": "yyyyMMdd",
    }
    commits = [
        _rows([(1, "20200101"), (2, "20991231"), (3, "bad")]),  # 'bad' does not parse: both keep it
        _rows([(4, "20200102"), (5, "20991230"), (6, "20991231")]),
    ]
    states = _twins(tmp_path, java, options, commits)
    for ours, theirs in states:
        assert ours == theirs
    assert [p[0] for p in states[-1][0]["partitions"]] == [("20991230",), ("20991231",), ("bad",)]
    assert [k for _, k in states[-1][0]["snapshots"]] == ["APPEND", "OVERWRITE", "APPEND", "OVERWRITE"]


def test_twins_partition_expiry_by_update_time(tmp_path, java):
    options = {
        "partition.expiration-time": "2 s",
        "partition.expiration-check-interval": "0",
        "partition.expiration-strategy": "update-time",
    }
    commits = [_rows([(1, "a")]), _rows([(2, "b")])]
    states = _twins(tmp_path, java, options, commits, pause_s=3.0)
    for ours, theirs in states:
        assert ours == theirs
    assert [p[0] for p in states[-1][0]["partitions"]] == [("b",)]


def test_twins_automatic_tags_and_their_time_to_live(tmp_path, java):
    _away_from_an_hour_boundary()
    options = {
        "tag.automatic-creation": "process-time",
        "tag.creation-period": "hourly",
        "tag.period-formatter": "without_dashes",
        "tag.default-time-retained": "1 s",
    }
    commits = [_rows([(1, "a")]), _rows([(2, "a")]), _rows([(3, "b")])]
    states = _twins(tmp_path, java, options, commits, pause_s=2.0)
    for ours, theirs in states:
        assert ours == theirs
    # made on snapshot 1, expired by its time-to-live, then made again on snapshot 1: with no
    # automatic tag left, a writer starts over at the earliest snapshot (Java does the same)
    first = states[0][0]["tags"]
    assert len(first) == 1 and list(first.values()) == [1]
    assert states[1][0]["tags"] == {} and states[2][0]["tags"] == first


def test_mixed_history_reads_as_the_model(tmp_path, java):
    """Java commits with partition expiry and automatic tags, we ingest and compact (each running
    the same housekeeping), Java again: every step reads as the model, on both sides."""
    _away_from_an_hour_boundary()
    wh = str(tmp_path / "wh")
    options = {
        "partition.expiration-time": "1 d",
        "partition.expiration-check-interval": "0",
        "partition.timestamp-formatter": "yyyyMMdd",
        "tag.automatic-creation": "process-time",
        "tag.creation-period": "daily",
        "compaction.min.file-num": "2",
    }
    _java_create(java, wh, options)
    model: list[dict] = []

    def expect(rows):
        model.extend(rows)
        model[:] = [r for r in model if not r["dt"].startswith("2020")]  # old partitions expire
        t = FileSystemCatalog(wh).get_table(T)
        assert_same_rows(rows_from_arrow(t.read()), model, label_a="ours", label_b="model")
        assert_same_rows(
            java.call("read", warehouse=wh, table=T)["rows"], model, label_a="java", label_b="model"
        )

    step = _rows([(1, "20200101"), (2, "20990101")])
    java.call("write", warehouse=wh, table=T, rows=step)
    expect(step)
    step = _rows([(3, "20200105"), (4, "20990101")])
    FileSystemCatalog(wh).get_table(T).write_arrow(_arrow(step))
    expect(step)
    compact(FileSystemCatalog(wh).get_table(T), full=True)
    expect([])
    step = _rows([(5, "20990102"), (6, "20200107")])
    java.call("write", warehouse=wh, table=T, rows=step)
    expect(step)
    t = FileSystemCatalog(wh).get_table(T)
    day_tags = [n for n in tag_manager(t).names() if len(n) == 10]
    assert len(day_tags) == 1  # one automatic daily tag, made by whichever writer came first
    kinds = [s["commitKind"] for s in java.call("snapshots", warehouse=wh, table=T)["snapshots"]]
    assert kinds.count("OVERWRITE") == 3 and "COMPACT" in kinds


def test_java_parses_our_success_file_and_housekeeping_options_never_block_reads(tmp_path, java):
    """mark-done's _SUCCESS is Java's; a Java table with housekeeping options (changelog.time-retained)
    is read, planned (expire --dry-run), checked (doctor), listed (partition list) and written."""
    from typer.testing import CliRunner

    from paimon_cli.app import app

    wh = str(tmp_path / "wh")
    _java_create(java, wh, {"changelog.time-retained": "1 d", "partition.mark-done-action": "success-file"})
    java.call("write", warehouse=wh, table=T, rows=_rows([(1, "x")]))
    runner = CliRunner()

    def paimon(*args):
        r = runner.invoke(app, ["-w", wh, *args])
        assert r.exit_code == 0, (args, r.stdout, r.stderr)
        return r

    paimon("partition", "mark-done", "-t", T, "-p", "dt=x")
    got = java.call("success_file", path=str(tmp_path / "wh" / "db.db" / "t" / "dt=x"))
    assert got["creationTime"] > 0 and got["modificationTime"] >= got["creationTime"]
    paimon("read", "-t", T)
    paimon("expire", "-t", T, "--dry-run")
    paimon("doctor", "-t", T)
    assert "dt=x" in paimon("partition", "list", "-t", T).stdout
    r = runner.invoke(app, ["-w", wh, "ingest", "-", "-t", T], input='{"id": 2, "dt": "y"}\n')
    assert r.exit_code == 0, r.stderr  # the changelog retention is implemented (#21): writes too
    assert sorted(row["id"] for row in java.call("read", warehouse=wh, table=T)["rows"]) == [1, 2]
