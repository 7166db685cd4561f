"""The CLI names its flags in errors whose core message speaks in library terms (the core error
carries a hint; ``paimon_cli/errors.py`` renders it). Each case runs the real command."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_core.errors import PaimonError

from .conftest import events, write_parquet


def _one_line_error(r) -> str:
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    return r.stderr[len("error: ") : -1]


CREATE_CASES = [
    (
        ["-k", "id", "-p", "dt", "--bucket", "-2"],
        "a primary key without the partition keys (dt missing) is a cross-partition upsert table, which needs "
        "dynamic buckets (bucket = -1), not bucket = -2; use --primary-key dt,id",
    ),
    (
        ["-O", "bucket-key=id"],
        "bucket-key needs a fixed number of buckets (bucket option > 0); use --bucket N",
    ),
    (
        ["--bucket", "2"],
        "an append table with fixed buckets needs a bucket key (option bucket-key); use --option bucket-key=COL",
    ),
    (["-O", "merge-engine=first-row"], "merge-engine and sequence.field need a primary key (--primary-key)"),
    (
        ["-k", "id", "-O", "rowkind.field=name"],
        "the table cannot be written here: it uses row kinds from a column (rowkind.field=name), which this "
        "project does not implement (use --row-kind-column)",
    ),
]


@pytest.mark.parametrize("args, message", CREATE_CASES, ids=[" ".join(c[0]) for c in CREATE_CASES])
def test_create_table_errors_name_flags(cli, wh, args, message):
    r = cli("create-table", "db.t", "--schema", "dt STRING, id BIGINT NOT NULL, name STRING", *args, code=1)
    assert _one_line_error(r) == message
    assert not (wh / "db.db" / "t").exists()


def test_diff_range_names_from_and_to(cli, events_table):
    cli("ingest", write_parquet(Path("in/e2.parquet"), events(5, start=10)), "-t", events_table)
    r = cli("diff", "-t", events_table, "--from", "2", "--to", "1", "--mode", "diff", code=1)
    assert _one_line_error(r) == "--from 2 is after --to 1"


def test_diff_changelog_mode_without_producer_names_modes(cli, events_table):
    r = cli("diff", "-t", events_table, "--from", "0", "--mode", "changelog", code=1)
    assert _one_line_error(r).endswith("(changelog-producer=none); use --mode diff or --mode delta")


def test_ingest_unknown_column_names_evolve(cli, events_table):
    extra = events(2).append_column("country", pa.array(["x", "y"]))
    r = cli("ingest", write_parquet(Path("in/extra.parquet"), extra), "-t", events_table, code=1)
    assert _one_line_error(r) == (
        "in/extra.parquet: unknown column 'country' in the input (table columns: id, name, "
        "value, dt); --evolve adds new columns"
    )


@pytest.mark.parametrize("evolve", [False, True])
def test_a_csv_without_header_is_refused_even_with_evolve(cli, events_table, evolve):
    """Its first data row would be the column names: no column in common with the table.
    --evolve must not add columns named 1, a, 1.5 and write every real column as NULL."""
    before = cli.json("schema", "-t", events_table)
    Path("in").mkdir(exist_ok=True)
    Path("in/nohead.csv").write_text("1,a,1.5,2024-05-01\n2,b,2.5,2024-05-02\n")
    r = cli("ingest", "in/nohead.csv", "-t", events_table, *(["--evolve"] if evolve else []), code=1)
    assert _one_line_error(r) == (
        "in/nohead.csv: the input shares no column with the table (input columns: '1', 'a', '1.5', "
        "'2024-05-01'; table columns: id, name, value, dt): if it is a CSV file, its first line must "
        "name the columns"
    )
    assert cli.json("schema", "-t", events_table) == before


def test_delete_without_where_names_flags(cli, events_table):
    r = cli("delete", "-t", events_table, code=1)
    assert (
        _one_line_error(r)
        == 'delete needs --where EXPR (to empty a table: paimon sql "TRUNCATE TABLE DB.TABLE")'
    )


def test_overwrite_partition_with_stray_rows_names_flags(cli, events_table):
    r = cli("ingest", "in/e1.parquet", "-t", events_table, "--overwrite", "-p", "dt=2024-01-01", code=1)
    assert _one_line_error(r) == (
        "--overwrite --partition dt=2024-01-01: the input has rows of partition "
        "dt=2024-01-02; nothing was written"
    )


def test_the_core_says_it_without_flags(wh, events_table):
    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.ops.delete import delete_where

    table = FileSystemCatalog(str(wh)).get_table(events_table)
    with pytest.raises(PaimonError) as info:
        delete_where(table, "")
    assert str(info.value) == "delete needs a filter (to empty a table, truncate it)"
    assert info.value.hint_key == "delete_where"


SEMICOLON = b"id;name;value;dt\n1;a;1.5;2024-05-01\n"
LATIN1 = b"id,name,value,dt\n1,caf\xe9,1.5,2024-05-01\n"


def _ingest_input(cli, table: str, data: bytes, via: str):
    """`ingest` of `data` as a file (in/x.csv) or on stdin; the one-line error."""
    from paimon_cli.app import app

    if via == "file":
        Path("in").mkdir(exist_ok=True)
        Path("in/x.csv").write_bytes(data)
        return _one_line_error(cli("ingest", "in/x.csv", "-t", table, code=1))
    r = cli.runner.invoke(app, ["-w", str(cli.wh), "ingest", "-", "-t", table], input=data)
    assert r.exit_code == 1, r.stderr
    return _one_line_error(r)


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_input_that_is_not_comma_separated_utf8_text_is_named(cli, events_table, via):
    where = "in/x.csv: " if via == "file" else ""
    assert _ingest_input(cli, events_table, SEMICOLON, via) == (
        f"{where}the input looks ';'-separated (its first line: 'id;name;value;dt'): CSV input must be "
        "comma-separated"
    )
    utf8 = (
        "not UTF-8 text (byte 0xe9 at column 6); CSV and JSON-lines input must be UTF-8: convert it "
        "first (e.g. iconv -f latin1 -t utf-8)"
    )
    if via == "file":
        assert (
            _ingest_input(cli, events_table, LATIN1, via) == f"in/x.csv: cannot read as CSV: line 2 is {utf8}"
        )
    else:
        assert _ingest_input(cli, events_table, LATIN1, via).startswith(
            f"stdin line 2: cannot read as CSV: {utf8}"
        )
    assert cli.snapshot_ids(events_table) == [1]  # nothing written


def test_a_parquet_file_on_stdin_is_named(cli, events_table, tmp_path):
    import pyarrow.parquet as pq

    pq.write_table(events(3), tmp_path / "e.parquet")
    error = _ingest_input(cli, events_table, (tmp_path / "e.parquet").read_bytes(), "stdin")
    assert error == (
        "stdin holds a Parquet file: `ingest -` reads JSON lines or CSV text; give the file's path instead "
        "(paimon ingest FILE -t TABLE)"
    )
