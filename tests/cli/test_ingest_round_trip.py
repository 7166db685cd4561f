"""Ingest reads what the tool writes: every column type, through every text and file output
(``read -o json|csv`` piped into ``ingest -``, ``--out x.jsonl|x.csv|x.parquet``, ``stream -o json``),
lands in a twin table equal to the original. Before, a DATE, TIMESTAMP or DECIMAL string, a JSON
object for a MAP, hex bytes and nested CSV text were refused, and CSV turned "" into NULL."""

from __future__ import annotations

import datetime as dt
import decimal
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog

SCHEMA = (
    "id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, db DOUBLE, "
    "dc DECIMAL(10, 2), dcl DECIMAL(30, 4), s STRING, c CHAR(3), by BYTES, bn BINARY(2), d DATE, "
    "tm TIME, ts0 TIMESTAMP(0), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), "
    "ltz TIMESTAMP(6) WITH LOCAL TIME ZONE, arr ARRAY<INT>, m MAP<STRING, INT>, "
    "r ROW<x INT, y STRING, z DATE>, ms MULTISET<STRING>, deep ARRAY<ROW<k MAP<STRING, DECIMAL(5, 1)>>>"
)
UTC = dt.timezone.utc


def _rows() -> list[dict]:
    full = dict(
        id=1,
        b=True,
        ti=-1,
        si=2,
        bi=-(2**62),
        f=1.5,
        db=-2.25e-300,
        dc=decimal.Decimal("-1.25"),
        dcl=decimal.Decimal("12345678901234567890123456.1234"),
        s='a\nb,"c"',
        c="abc",
        by=b"\x00\xff,",
        bn=b"ab",
        d=dt.date(1, 1, 1),
        tm=dt.time(23, 59, 59, 999000),
        ts0=dt.datetime(1900, 1, 1, 1, 2, 3),
        ts3=dt.datetime(2024, 2, 29, 1, 2, 3, 123000),
        ts6=dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
        ts9=pa.scalar(1_700_000_000_123_456_789, pa.timestamp("ns")).as_py(),
        ltz=dt.datetime(2024, 1, 1, 1, 2, 3, 123456, tzinfo=UTC),
        arr=[1, None, -3],
        m=[("k", 1), ("with space", None)],
        r=dict(x=1, y="z", z=dt.date(2024, 1, 2)),
        ms=[("q", 2), ("", 1)],
        deep=[dict(k=[("x", decimal.Decimal("1.5"))]), None, dict(k=None)],
    )
    empty = dict(id=2, s="", by=b"", arr=[], m=[], r=dict(x=None, y="", z=None), ms=[], deep=[])
    nulls = dict(id=3)
    text = dict(id=4, s="NULL", c="NA")  # words some CSV readers take for NULL
    wide = dict(  # unicode, CR/LF, tabs, control characters, quotes and commas, nested too
        id=5,
        s='ünïcødé ✓ 🎉\n\t\x01\x1f\\ "q", ',
        c="ß,\n",
        arr=[],
        m=[('ké,y"\n', 1), ("\x7f", None)],
        r=dict(x=None, y='ü\r\n,"', z=None),
        ms=[("🎉", 3)],
        deep=[dict(k=[("ü\t", decimal.Decimal("-0.5"))])],
    )
    return [full, empty, nulls, text, wide]


@pytest.fixture
def source(cli, wh):
    cli("create-table", "d.t", "--schema", SCHEMA, "-k", "id")
    table = FileSystemCatalog(str(wh)).get_table("d.t")
    pq.write_table(pa.Table.from_pylist(_rows(), schema=table.schema.arrow_schema()), "in.parquet")
    cli("ingest", "-t", "d.t", "in.parquet")
    return cli.json("read", "-t", "d.t")


def _twin(cli, name: str) -> str:
    cli("create-table", name, "--schema", SCHEMA, "-k", "id")
    return name


def _stdin(cli, text: str, *args: str) -> None:
    r = cli.runner.invoke(app, ["-w", str(cli.wh), "ingest", "-", *args], input=text)
    assert r.exit_code == 0, r.stderr


def test_the_source_holds_every_value(source):
    assert [r["s"] for r in source][:4] == ['a\nb,"c"', "", None, "NULL"]
    assert source[4]["s"].startswith("ünïcødé ✓ 🎉\n")
    assert source[0]["ltz"] == "2024-01-01T01:02:03.123456+00:00"


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_out_files_ingest_back(cli, source, fmt):
    cli("read", "-t", "d.t", "--out", f"x.{fmt}")
    cli("ingest", "-t", _twin(cli, f"d.{fmt}"), f"x.{fmt}")
    assert cli.json("read", "-t", f"d.{fmt}") == source


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_printed_rows_ingest_back_from_stdin(cli, source, fmt):
    printed = cli("-o", fmt, "read", "-t", "d.t").stdout
    _stdin(cli, printed, "-t", _twin(cli, f"d.p_{fmt}"), "--format", fmt)
    assert cli.json("read", "-t", f"d.p_{fmt}") == source


def test_streamed_changes_ingest_back(cli, source):
    printed = cli("-o", "json", "stream", "-t", "d.t", "--until", "1").stdout
    _stdin(cli, printed, "-t", _twin(cli, "d.s"), "--format", "json", "--row-kind-column", "_row_kind")
    assert cli.json("read", "-t", "d.s") == source


def test_csv_keeps_empty_strings_and_nulls_apart(cli, wh):
    cli("create-table", "d.c", "--schema", "id INT NOT NULL, s STRING, n INT", "-k", "id")
    with open("e.csv", "w") as fh:
        fh.write('id,s,n\n1,"",\n2,,3\n3,NULL,\n4,NA,4\n')
    cli("ingest", "-t", "d.c", "e.csv")
    rows = cli.json("read", "-t", "d.c")
    assert [(r["s"], r["n"]) for r in rows] == [("", None), (None, 3), ("NULL", None), ("NA", 4)]
    assert cli("-o", "csv", "read", "-t", "d.c").stdout == 'id,s,n\n1,"",\n2,,3\n3,NULL,\n4,NA,4\n'


def test_csv_quoted_newlines_across_read_blocks(cli, monkeypatch):
    # Arrow reads CSV in blocks (16 MB in production): a value whose quoted newline falls on a
    # block boundary used to fail the read ("Expected 3 columns, got 1") from about 1M rows on
    import paimon_core.write.text_input as text_input

    monkeypatch.setattr(text_input, "CSV_BLOCK_BYTES", 1 << 10)
    cli("create-table", "d.q", "--schema", "id INT NOT NULL, s STRING, v STRING", "-k", "id")
    lines = ["id,s,v"] + [f'{i},"line one\nline ""two""\n",v{i}' for i in range(2000)]
    with open("q.csv", "w") as fh:
        fh.write("\n".join(lines) + "\n")
    cli("ingest", "-t", "d.q", "q.csv")
    rows = cli.json("read", "-t", "d.q")
    assert len(rows) == 2000
    assert all(r["s"] == 'line one\nline "two"\n' and r["v"] == f"v{r['id']}" for r in rows)


@pytest.mark.parametrize(
    "column, text, message",
    [
        ("ltz", '"2024-01-01T00:00:00"', "(a TIMESTAMP WITH LOCAL TIME ZONE needs a zone"),
        ("ts3", '"2024-01-01T00:00:00.1234"', "(more than 3 fraction digits)"),
        ("dc", '"1.255"', "has '1.255', not a valid DECIMAL(10, 2)"),
        ("d", '"2024-02-30"', "has '2024-02-30', not a valid DATE"),
        ("by", '"xyz"', "not hex for a BYTES"),
        ("m", "[1]", "has [1], not a MAP<STRING, INT>"),
        ("arr", '["x"]', "column 'arr[]' has 'x', not a valid INT"),
        ("r", '{"nope": 1}', "field 'nope' is not in ROW"),
    ],
)
def test_a_bad_value_names_line_column_and_value(cli, column, text, message):
    cli("create-table", "d.b", "--schema", SCHEMA, "-k", "id")
    with open("bad.jsonl", "w") as fh:
        fh.write('{"id": 1}\n\n' + json.dumps({"id": 2})[:-1] + f', "{column}": {text}}}\n')
    r = cli("ingest", "-t", "d.b", "bad.jsonl", code=1)
    assert r.stderr.startswith("error: bad.jsonl: line 3: "), r.stderr
    assert message in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert cli.snapshot_ids("d.b") == []


@pytest.mark.parametrize(
    "header, line, message",
    [
        ("id,d", "2,2024-1-2", "column 'd' has '2024-1-2', not a valid DATE"),
        ("id,tm", "2,25:00:00", "column 'tm' has '25:00:00', not a valid TIME"),
        ("id,tm", "2,10:00:00.0001", "(TIME keeps milliseconds)"),
        ("id,by", "2,0g", "column 'by' has '0g', not hex for a BYTES"),
        ("id,b", "2,yes", "column 'b' has 'yes', not a valid BOOLEAN"),
        ("id,arr", '2,"[1,"', "column 'arr' has '[1,', not the JSON text of a ARRAY<INT>"),
        ("id,m", '2,"{""k"": ""x""}"', "column 'm value' has 'x', not a valid INT"),
        ("id,ms", '2,"{""q"": null}"', "a MULTISET count is null"),
        ("id,r", '2,"{""x"": 1.5}"', "column 'r.x' has '1.5', not a valid INT"),
        ("id,ltz", "2,2024-01-01 00:00:00", "needs a zone"),
        ("id,ts9", "2,2024-01-01T00:00:00.1234567891", "not a valid TIMESTAMP(9)"),
        ("id,dcl", "2,1e400", "not a valid DECIMAL(30, 4)"),
        ("id,ti", "2,300", "column 'ti' has '300', not a valid TINYINT"),
    ],
)
def test_a_bad_csv_value_names_line_column_and_value(cli, header, line, message):
    cli("create-table", "d.b", "--schema", SCHEMA, "-k", "id")
    with open("bad.csv", "w") as fh:
        fh.write(f"{header}\n1,\n{line}\n")
    r = cli("ingest", "-t", "d.b", "bad.csv", code=1)
    assert r.stderr.startswith("error: bad.csv") and "line 3" in r.stderr, r.stderr
    assert message in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert cli.snapshot_ids("d.b") == []


@pytest.mark.slow
def test_a_million_csv_rows_with_quoted_newlines(cli, tmp_path):
    """At scale (the report: 300k rows read, 1M and 3M failed with misleading parse errors), with
    quotes, quoted newlines, "" and NULL in the text column: every row equals a pyarrow model."""

    n = 1_000_000
    ids = pa.array(range(n), pa.int64())
    texts = pa.array(
        [None if i % 7 == 0 else "" if i % 7 == 1 else f'line {i}\n"quoted", and more' for i in range(n)]
    )
    path = tmp_path / "big.csv"
    with open(path, "w") as fh:
        fh.write("id,s\n")
        for i, s in zip(ids.to_pylist(), texts.to_pylist(), strict=True):
            fh.write(f"{i},{'' if s is None else chr(34) + s.replace(chr(34), chr(34) * 2) + chr(34)}\n")
    assert path.stat().st_size > 16 << 20  # more than one of the reader's 16 MB blocks
    cli("create-table", "d.big", "--schema", "id BIGINT NOT NULL, s STRING")
    cli("ingest", "-t", "d.big", str(path))
    cli("read", "-t", "d.big", "--out", str(tmp_path / "back.parquet"))
    import pyarrow.parquet as pq

    back = pq.read_table(tmp_path / "back.parquet").sort_by("id")
    assert (
        back.column("id").combine_chunks().equals(ids) and back.column("s").to_pylist() == texts.to_pylist()
    )
