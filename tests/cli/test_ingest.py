"""ingest: Parquet, CSV, JSON lines, folders, globs; append and overwrite."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from .conftest import SCHEMA, events, write_parquet

T = "demo.events"


def ids(cli, *extra) -> list[int]:
    return sorted(r["id"] for r in cli.json("read", "-t", T, *extra))


def make_table(cli):
    cli("create-table", T, "--schema", SCHEMA, "--partition", "dt")


def test_ingest_parquet_summary(cli):
    make_table(cli)
    r = cli("ingest", write_parquet(Path("a.parquet"), events(10)), "-t", T)
    assert r.stdout.strip() == f"ingested 10 rows in 2 files into {T}: snapshot 1"
    assert ids(cli) == list(range(10))
    [rec] = cli.json("ingest", write_parquet(Path("b.parquet"), events(5, 10)), "-t", T)
    assert rec == {"table": T, "snapshot": 2, "rows": 5, "input_rows": 5, "files": 2}
    assert ids(cli) == list(range(15))


def test_ingest_csv_and_json(cli):
    make_table(cli)
    Path("a.csv").write_text("id,name,value,dt\n1,x,0.5,2024-01-01\n2,,1.5,2024-01-02\n")
    Path("b.json").write_text('{"id": 3, "name": "z", "dt": "2024-01-01"}\n{"id": 4, "value": 2}\n')
    cli("ingest", "a.csv", "b.json", "-t", T)
    rows = {r["id"]: r for r in cli.json("read", "-t", T)}
    assert rows[1] == {"id": 1, "name": "x", "value": 0.5, "dt": "2024-01-01"}
    assert rows[2]["name"] is None
    assert rows[3]["value"] is None and rows[4]["dt"] is None
    assert cli.snapshot_ids(T) == [1]  # several files, one commit


def test_ingest_json_dates_and_times_in_text_form(cli):
    """DATE and TIME columns in JSON lines as text (found by the Flink lane: pyarrow's JSON
    reader refused "2024-01-02" for a DATE column), a DATE as days still taken, a bad value refused."""
    cli("create-table", "db.d", "--schema", "k BIGINT NOT NULL, d DATE, t TIME(3)")
    Path("d.jsonl").write_text('{"k": 1, "d": "2024-01-02", "t": "10:11:12.5"}\n{"k": 2, "d": null}\n')
    Path("n.jsonl").write_text('{"k": 3, "d": 19000, "t": "00:00:05"}\n')
    cli("ingest", "d.jsonl", "n.jsonl", "-t", "db.d")
    rows = {r["k"]: r for r in cli.json("read", "-t", "db.d")}
    assert (rows[1]["d"], rows[2]["d"], rows[3]["d"]) == ("2024-01-02", None, "2022-01-08")
    assert rows[1]["t"].startswith("10:11:12.5") and rows[3]["t"] == "00:00:05"
    Path("bad.jsonl").write_text('{"k": 4, "d": "2024-13-02"}\n')
    r = cli("ingest", "bad.jsonl", "-t", "db.d", code=1)
    assert r.stderr == "error: bad.jsonl: line 1: column 'd' has '2024-13-02', not a valid DATE\n"


def test_ingest_folder_and_glob(cli):
    make_table(cli)
    write_parquet(Path("in/a.parquet"), events(3))
    write_parquet(Path("in/sub/b.parquet"), events(3, 3))
    write_parquet(Path("in/_skip.parquet"), events(3, 100))  # _-prefixed files are skipped
    Path("in/notes.txt").write_text("ignored: not a data file")
    r = cli("ingest", "in", "-t", T)
    assert r.stderr == "note: skipped 1 file that is not Parquet, CSV or JSON (by extension): in/notes.txt\n"
    assert ids(cli) == list(range(6))
    write_parquet(Path("g/x1.parquet"), events(2, 10))
    write_parquet(Path("g/x2.parquet"), events(2, 20))
    write_parquet(Path("g/y.parquet"), events(2, 30))
    cli("ingest", "g/x*.parquet", "-t", T)
    assert ids(cli) == [0, 1, 2, 3, 4, 5, 10, 11, 20, 21]


def test_ingest_casts_to_the_table_types(cli):
    cli("create-table", "db.c", "--schema", "a BIGINT, b DOUBLE, c DECIMAL(10, 2)")
    data = pa.table(
        {"a": pa.array([1], pa.int8()), "b": pa.array([2], pa.int32()), "c": pa.array([3], pa.int16())}
    )
    cli("ingest", write_parquet(Path("c.parquet"), data), "-t", "db.c")
    assert cli.json("read", "-t", "db.c") == [{"a": 1, "b": 2.0, "c": "3.00"}]


def test_overwrite_whole_unpartitioned_table(cli):
    cli("create-table", "db.u", "--schema", "id BIGINT, name STRING")
    cli(
        "ingest", write_parquet(Path("a.parquet"), pa.table({"id": [1, 2], "name": ["a", "b"]})), "-t", "db.u"
    )
    r = cli(
        "ingest",
        write_parquet(Path("b.parquet"), pa.table({"id": [9], "name": ["z"]})),
        "-t",
        "db.u",
        "--overwrite",
    )
    assert r.stdout.startswith("overwrote 1 row in 1 file into db.u: snapshot 2")
    assert cli.json("read", "-t", "db.u") == [{"id": 9, "name": "z"}]
    kinds = [s["kind"] for s in cli.json("snapshots", "-t", "db.u")]
    assert kinds == ["APPEND", "OVERWRITE"]


def test_overwrite_partitions_written_to(cli):
    make_table(cli)
    cli("ingest", write_parquet(Path("a.parquet"), events(10)), "-t", T)  # days 01 and 02
    day2 = events(2, 100, days=("2024-01-02",))
    cli("ingest", write_parquet(Path("b.parquet"), day2), "-t", T, "--overwrite")
    assert ids(cli, "--where", "dt = '2024-01-02'") == [100, 101]
    assert ids(cli, "--where", "dt = '2024-01-01'") == [0, 2, 4, 6, 8]


def test_overwrite_one_partition(cli):
    make_table(cli)
    cli("ingest", write_parquet(Path("a.parquet"), events(10)), "-t", T)
    day1 = events(3, 200, days=("2024-01-01",))
    cli(
        "ingest",
        write_parquet(Path("b.parquet"), day1),
        "-t",
        T,
        "--overwrite",
        "--partition",
        "dt=2024-01-01",
    )
    assert ids(cli) == [1, 3, 5, 7, 9, 200, 201, 202]


def all_files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def test_overwrite_partition_rejects_rows_of_other_partitions(cli, wh):
    """The refusal comes after the data files were written: every one of them is deleted."""
    make_table(cli)
    cli("ingest", write_parquet(Path("a.parquet"), events(10)), "-t", T)
    before = all_files(wh)
    r = cli(
        "ingest",
        write_parquet(Path("b.parquet"), events(4, 50)),
        "-t",
        T,
        "--overwrite",
        "-p",
        "dt=2024-01-01",
        code=1,
    )
    assert r.stderr == (
        "error: --overwrite --partition dt=2024-01-01: the input has rows of partition "
        "dt=2024-01-02; nothing was written\n"
    )
    assert cli.snapshot_ids(T) == [1]
    assert ids(cli) == list(range(10))
    assert all_files(wh) == before


def test_ingest_uses_the_default_table(cli, monkeypatch):
    make_table(cli)
    monkeypatch.setenv("PAIMON_TABLE", T)
    cli("ingest", write_parquet(Path("a.parquet"), events(2)))
    assert len(cli.json("read")) == 2


def test_ingest_progress_callbacks_reach_the_bar(cli, monkeypatch):
    """The progress bar is fed by the core's callbacks (forced on: stderr is not a terminal here)."""
    from paimon_cli import progress

    seen = {}
    real = progress.byte_progress

    def spy(description, enabled=None):
        cm = real(description, enabled=False)

        class Wrap:
            def __enter__(self):
                cm.__enter__()

                def on_plan(total):
                    seen["total"] = total

                def advance(n):
                    seen["done"] = seen.get("done", 0) + n

                return on_plan, advance

            def __exit__(self, *exc):
                return cm.__exit__(*exc)

        return Wrap()

    monkeypatch.setattr("paimon_cli.commands.ingest.byte_progress", spy)
    make_table(cli)
    f = write_parquet(Path("a.parquet"), events(10))
    cli("ingest", f, "-t", T)
    assert seen["total"] == f.stat().st_size == seen["done"]
    json.dumps(seen)


def test_a_file_that_exists_is_not_a_glob(cli):
    """`data[1].parquet` names a file: it is ingested, not read as a pattern matching data1.parquet."""
    make_table(cli)
    write_parquet(Path("data[1].parquet"), events(2))
    write_parquet(Path("data1.parquet"), events(2, 50))
    cli("ingest", "data[1].parquet", "-t", T)
    assert ids(cli) == [0, 1]
    cli("ingest", "data[0-9].parquet", "-t", T)  # no such file: a glob
    assert ids(cli) == [0, 1, 50, 51]


def test_folder_ingest_lists_what_it_skipped(cli):
    make_table(cli)
    write_parquet(Path("in/a.parquet"), events(2))
    for name in ("b.txt", "c.log", "d.xlsx", "e.tsv", "f.avro", "g.orc"):
        Path("in", name).write_text("x")
    Path("in/.hidden.txt").write_text("x")
    Path("in/_SUCCESS").write_text("")
    r = cli("ingest", "in", "-t", T)
    assert r.stderr == (
        "note: skipped 6 files that are not Parquet, CSV or JSON (by extension): in/b.txt, "
        "in/c.log, in/d.xlsx, in/e.tsv, in/f.avro and 1 more\n"
    )
    assert ids(cli) == [0, 1]


def test_ingest_says_when_rows_merged_by_key(cli):
    cli("create-table", "db.pk", "--schema", "id BIGINT NOT NULL, v STRING", "-k", "id", "--bucket", "1")
    Path("dup.csv").write_text("id,v\n1,a\n1,b\n1,c\n2,x\n")
    r = cli("ingest", "dup.csv", "-t", "db.pk")
    assert r.stdout == (
        "ingested 2 rows (4 input rows; rows with the same key were merged) in 1 file into db.pk: "
        "snapshot 1\n"
    )
    assert cli.json("read", "-t", "db.pk") == [{"id": 1, "v": "c"}, {"id": 2, "v": "x"}]
    [rec] = cli.json("ingest", "dup.csv", "-t", "db.pk")
    assert rec["rows"] == 2 and rec["input_rows"] == 4
    r = cli(
        "ingest",
        write_parquet(Path("one.parquet"), pa.table({"id": pa.array([3], pa.int64()), "v": ["y"]})),
        "-t",
        "db.pk",
    )
    assert r.stdout == "ingested 1 row in 1 file into db.pk: snapshot 3\n"


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "id,name,value,dt\n1,a,0.5,d\n\n2,b,1.5,d\nzz,c,2.5,d\n",
            "line 5: column 'id' has 'zz', not a valid BIGINT",
        ),  # a blank line counts
        (
            'id,name,value,dt\n1,"two\nlines",0.5,d\n2,b,x,d\n',
            "line 4: column 'value' has 'x', not a valid DOUBLE",
        ),  # so does a value over two lines
        ("id,name,value,dt\n1,a,0.5,d\n2,b,1.5\n", "line 3 has 3 fields, the header has 4"),
    ],
)
def test_csv_errors_name_the_line(cli, text, message):
    make_table(cli)
    Path("bad.csv").write_text(text)
    r = cli("ingest", "bad.csv", "-t", T, code=1)
    assert r.stderr == f"error: bad.csv: cannot read as CSV: {message}\n"


def test_null_in_a_not_null_column_names_the_line(cli):
    make_table(cli)
    rows = "".join(f"{i},n{i},0.5,d\n" for i in range(1, 200_001))  # beyond the first batch
    Path("big.csv").write_text("id,name,value,dt\n" + rows + ",late,0.5,d\n")
    r = cli("ingest", "big.csv", "-t", T, code=1)
    assert r.stderr == "error: big.csv: line 200002: column 'id' is NOT NULL but the value is null\n"
    Path("n.jsonl").write_text('{"id": 1}\n\n{"id": null}\n')
    r = cli("ingest", "n.jsonl", "-t", T, code=1)
    assert r.stderr == "error: n.jsonl: line 3: column 'id' is NOT NULL but the value is null\n"
