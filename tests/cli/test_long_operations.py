"""Long operations show progress on stderr (on a terminal only), and exports go through the
engines' ``export_rows`` / ``export_changes`` (local: one file, Spark: refused text formats before
any Spark work, auto: by size)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.engines import ChangesExport, ExportResult, ExportTarget, RowsExport, get_engine
from paimon_core.errors import UnsupportedFeature

from .conftest import events, write_parquet

T = "demo.events"


@pytest.fixture
def history(cli, events_table):
    """demo.events: snapshots 1..3 append ids 0..29; a stray data file three days old."""
    for k in (1, 2):
        cli("ingest", write_parquet(Path(f"in/h{k}.parquet"), events(10, 10 * k)), "-t", T)
    bucket = next(p for p in (cli.wh / "demo.db" / "events").rglob("bucket-*") if p.is_dir())
    stray = bucket / "data-orphan-0.parquet"
    stray.write_bytes(b"x" * 100)
    old = time.time() - 3 * 86400
    os.utime(stray, (old, old))
    return stray


@pytest.fixture
def terminal(monkeypatch):
    """stderr counts as a terminal (progress on), and Rich renders into the captured stream."""
    monkeypatch.setattr("paimon_cli.progress.stderr_is_terminal", lambda: True)
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")


LONG = [
    (["read", "-t", T, "--out", "rows.parquet"], "read demo.events"),
    (["read", "-t", T, "--out", "rows.csv"], "read demo.events"),
    (["diff", "-t", T, "--from", "0"], "diff demo.events"),
    (["diff", "-t", T, "--from", "1", "--out", "d.json"], "diff demo.events"),
    (["expire", "-t", T, "--older-than", "0s", "--retain-min", "1"], "expire demo.events"),
    (["remove-orphans", "-t", T], "remove orphans of demo.events"),
]


@pytest.mark.parametrize("args, label", LONG, ids=[" ".join(a[:1] + a[-2:]) for a, _ in LONG])
def test_long_operations_show_progress_on_a_terminal(cli, history, terminal, args, label):
    r = cli(*args)
    assert label in r.stderr, r.stderr
    assert label not in r.stdout  # the result stays on stdout, the progress on stderr only


@pytest.mark.parametrize("args, label", LONG, ids=[" ".join(a[:1] + a[-2:]) for a, _ in LONG])
def test_piped_output_has_no_progress(cli, history, args, label):
    r = cli(*args)
    assert r.stderr == "" and "\x1b" not in r.stdout


def test_deletion_progress_counts_the_planned_files(cli, history, terminal):
    """The remove-orphans bar ends at the number of files planned (1 of 1 here)."""
    r = cli("remove-orphans", "-t", T)
    assert "1/1" in r.stderr and "files" in r.stderr, r.stderr
    assert not history.exists()


def test_spinner_renders_only_when_enabled(capsys, monkeypatch):
    from paimon_cli.progress import spinner

    monkeypatch.setenv("FORCE_COLOR", "1")
    with spinner("starting Spark...", enabled=True):
        pass
    assert "starting Spark..." in capsys.readouterr().err
    with spinner("starting Spark...", enabled=False):
        pass
    assert capsys.readouterr() == ("", "")


# ---------------------------------------------------------------- the engines' exports
def _table(cli, history):
    from paimon_core.catalog import FileSystemCatalog

    return FileSystemCatalog(str(cli.wh)).get_table(T)


def test_local_export_rows_matches_the_input(cli, history, tmp_path):
    tbl = _table(cli, history)
    splits = tbl.plan(tbl.snapshots.latest())
    on_plan, done = [], []
    target = ExportTarget(tmp_path / "x.parquet", "parquet", on_plan=on_plan.append, progress=done.append)
    res = get_engine("local").export_rows(RowsExport(tbl, splits, target, ["id", "name"]))
    assert res == ExportResult(str(tmp_path / "x.parquet"), 30, "file")
    got = pq.read_table(tmp_path / "x.parquet").sort_by("id")
    expected = pa.concat_tables([events(10), events(10, 10), events(10, 20)]).select(["id", "name"])
    assert got.to_pylist() == expected.to_pylist()
    total = sum(f.file_size for s in splits for f in s.files)
    assert on_plan == [total] and sum(done) == total > 0


def test_local_export_limit_and_changes(cli, history, tmp_path):
    tbl = _table(cli, history)
    eng = get_engine("local")
    res = eng.export_rows(
        RowsExport(tbl, tbl.plan(tbl.snapshots.latest()), ExportTarget(tmp_path / "l.parquet"), limit=7)
    )
    assert res.rows == 7 == pq.read_table(tmp_path / "l.parquet").num_rows
    res = eng.export_changes(
        ChangesExport(tbl, 1, 3, ExportTarget(tmp_path / "c.parquet"), "delta", False, ["id"])
    )
    got = pq.read_table(tmp_path / "c.parquet")
    assert res.rows == 20 and sorted(got.column("id").to_pylist()) == list(range(10, 30))
    assert set(got.column("_row_kind").to_pylist()) == {"+I"}


def test_text_export_needs_a_renderer_and_leaves_no_file(cli, history, tmp_path):
    tbl = _table(cli, history)
    with pytest.raises(UnsupportedFeature, match="text renderer"):
        get_engine("local").export_rows(
            RowsExport(tbl, tbl.plan(tbl.snapshots.latest()), ExportTarget(tmp_path / "x.csv", "csv"))
        )
    assert list(tmp_path.glob("x.csv*")) == [] and list(tmp_path.glob(".x.csv*")) == []


def test_spark_refuses_text_formats_before_starting_spark(cli, history, tmp_path):
    tbl = _table(cli, history)
    splits = tbl.plan(tbl.snapshots.latest())
    spark = get_engine("spark")
    for fmt in ("csv", "json"):
        with pytest.raises(UnsupportedFeature, match="folder of Parquet part files"):
            spark.export_rows(RowsExport(tbl, splits, ExportTarget(tmp_path / f"x.{fmt}", fmt)))
        with pytest.raises(UnsupportedFeature, match="folder of Parquet part files"):
            spark.export_changes(ChangesExport(tbl, 0, 3, ExportTarget(tmp_path / f"x.{fmt}", fmt)))
    assert spark._spark is None  # no session was started


def test_auto_export_picks_the_engine_by_size(cli, history, tmp_path):
    """Above the threshold auto hands the export to Spark (which refuses CSV without starting);
    below it, the local engine writes the CSV."""
    from paimon_cli.outfile import text_renderer

    tbl = _table(cli, history)
    splits = tbl.plan(tbl.snapshots.latest())
    big = get_engine("auto", spark_threshold=0, master="spark://127.0.0.1:7")  # a cluster: never started
    with pytest.raises(UnsupportedFeature):
        big.export_rows(RowsExport(tbl, splits, ExportTarget(tmp_path / "x.csv", "csv", text_renderer)))
    assert big.chosen == "spark"
    small = get_engine("auto", spark_threshold="1gb")
    res = small.export_changes(
        ChangesExport(tbl, 0, 3, ExportTarget(tmp_path / "x.csv", "csv", text_renderer), "diff")
    )
    assert small.chosen == "local" and res.rows == 30
    heard = []
    alone = get_engine("auto", spark_threshold=0, master="local[2]", notice=heard.append)
    alone.export_rows(RowsExport(tbl, splits, ExportTarget(tmp_path / "y.csv", "csv", text_renderer)))
    assert alone.chosen == "local"  # local[N] Spark only shares this machine's cores: in-process wins
    assert heard == [f"engine: local ({alone.reason})"] and "no Spark cluster is configured" in heard[0]
    assert (tmp_path / "x.csv").read_text().splitlines()[0] == "_row_kind,id,name,value,dt"


def test_a_limited_read_shows_no_table_total(cli, history, terminal):
    """read --limit stops early: its progress counts bytes with a spinner, never the whole
    table's bytes as a total it will not reach."""
    import re

    r = cli("read", "-t", T, "--limit", "5", "--out", "few.parquet")
    assert "read demo.events" in r.stderr, r.stderr
    assert not re.search(r"\d/\d", r.stderr), r.stderr
    r = cli("read", "-t", T, "--out", "all.parquet")
    assert re.search(r"\d/\d", r.stderr), r.stderr  # without --limit the total is known
