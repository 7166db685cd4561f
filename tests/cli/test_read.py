"""read: time travel, projection, filters, pruning, limits, output formats, --out."""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from .conftest import events, write_parquet

T = "demo.events"


@pytest.fixture
def two_snapshots(cli, events_table):
    """Snapshot 1: ids 0..9; snapshot 2 adds ids 10..14 (committed a little later)."""
    time.sleep(0.02)
    cli("ingest", write_parquet(Path("in/e2.parquet"), events(5, 10)), "-t", T)
    return cli.json("snapshots", "-t", T)


def ids(cli, *args) -> list[int]:
    return sorted(r["id"] for r in cli.json("read", "-t", T, *args))


def test_read_latest_and_snapshot(cli, two_snapshots):
    assert ids(cli) == list(range(15))
    assert ids(cli, "--snapshot", "1") == list(range(10))
    assert ids(cli, "-s", "2") == list(range(15))


def test_read_as_of(cli, two_snapshots):
    s1, s2 = two_snapshots
    t1 = dt.datetime.fromisoformat(s1["time"].replace("Z", "+00:00"))
    t2 = dt.datetime.fromisoformat(s2["time"].replace("Z", "+00:00"))
    assert t1 < t2
    millis1 = int(t1.timestamp() * 1000)
    assert ids(cli, "--as-of", str(millis1)) == list(range(10))
    assert ids(cli, "--as-of", s1["time"]) == list(range(10))  # ISO with Z
    naive_utc = t1.replace(tzinfo=None).isoformat(timespec="milliseconds")
    assert ids(cli, "--as-of", naive_utc) == list(range(10))  # no offset: UTC
    plus2 = t2.astimezone(dt.timezone(dt.timedelta(hours=2))).isoformat(timespec="milliseconds")
    assert ids(cli, "--as-of", plus2) == list(range(15))  # explicit offset
    tomorrow = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1)).date().isoformat()
    assert ids(cli, "--as-of", tomorrow) == list(range(15))  # a date: midnight UTC


def test_read_as_of_bad_time_is_a_usage_error(cli, events_table):
    r = cli("read", "-t", T, "--as-of", "yesterday-ish", code=2)
    assert "not a time" in r.stderr


def test_snapshot_and_as_of_together_is_a_usage_error(cli, events_table):
    cli("read", "-t", T, "--snapshot", "1", "--as-of", "0", code=2)


def test_select(cli, events_table):
    rows = cli.json("read", "-t", T, "--select", "value, id", "--limit", "2")
    assert [list(r) for r in rows] == [["value", "id"], ["value", "id"]]


@pytest.mark.parametrize(
    "where, expected",
    [
        ("id = 3", [3]),
        ("id >= 7", [7, 8, 9]),
        ("id < 2 OR id > 8", [0, 1, 9]),
        ("id > 2 AND id <= 5", [3, 4, 5]),
        ("id != 0 AND (id < 3 OR name = 'n9')", [1, 2, 9]),
        ("id IN (1, 4, 42)", [1, 4]),
        ("id NOT IN (0, 1, 2, 3, 4, 5, 6)", [7, 8, 9]),
        ("value BETWEEN 1 AND 2", [2, 3, 4]),
        ("NOT id > 1", [0, 1]),
        ("dt = '2024-01-02' AND id < 5", [1, 3]),
    ],
)
def test_where(cli, events_table, where, expected):
    assert ids(cli, "--where", where) == expected


def test_where_is_null(cli):
    cli("create-table", "db.n", "--schema", "id BIGINT, name STRING")
    Path("n.csv").write_text("id,name\n1,a\n2,\n3,c\n")
    cli("ingest", "n.csv", "-t", "db.n")
    assert [r["id"] for r in cli.json("read", "-t", "db.n", "--where", "name IS NULL")] == [2]
    assert sorted(r["id"] for r in cli.json("read", "-t", "db.n", "--where", "name IS NOT NULL")) == [1, 3]


def test_partition_pruning_skips_other_partitions(cli, wh, events_table):
    """Delete the files of one partition: a read filtered to the other still works, so the
    deleted files were never opened."""
    part = wh / "demo.db" / "events" / "dt=2024-01-02"
    assert part.is_dir()
    for f in part.rglob("*.parquet"):
        os.remove(f)
    assert ids(cli, "--where", "dt = '2024-01-01'") == [0, 2, 4, 6, 8]
    assert ids(cli, "--where", "dt IN ('2024-01-01')") == [0, 2, 4, 6, 8]
    r = cli("read", "-t", T, code=1)  # an unfiltered read does need them
    assert "missing" in r.stderr


def test_limit(cli, events_table):
    assert len(cli.json("read", "-t", T, "--limit", "3")) == 3
    assert cli.json("read", "-t", T, "--limit", "0") == []
    assert len(cli.json("read", "-t", T, "-n", "100")) == 10


def test_count(cli, two_snapshots):
    assert cli("read", "-t", T, "--count").stdout.strip() == "15"
    assert cli("read", "-t", T, "--count", "--snapshot", "1").stdout.strip() == "10"
    assert cli.json("read", "-t", T, "--count", "--where", "id < 4") == [{"rows": 4}]


def test_count_from_metadata_reads_no_data_file(cli, two_snapshots, monkeypatch):
    """An append table's count (whole, and with a --where on partition columns only) comes
    from the manifests' row counts; a --where on another column still reads data (#26)."""
    expected = {
        w: len(cli.json("read", "-t", T, "--where", w)) for w in ("dt = '2024-01-02'", "dt != '2024-01-01'")
    }
    from paimon_core.read.table_read import TableRead

    def refuse(*a, **k):
        raise AssertionError("a data file was read")

    with monkeypatch.context() as m:
        m.setattr(TableRead, "read_file", refuse)
        assert cli("read", "-t", T, "--count").stdout.strip() == "15"
        assert cli("read", "-t", T, "--count", "--limit", "4").stdout.strip() == "4"
        for where, n in expected.items():
            assert cli.json("read", "-t", T, "--count", "--where", where) == [{"rows": n}], where
        r = cli("read", "-t", T, "--count", "--where", "id < 4", code=None)
        assert r.exit_code != 0  # a value column: counted from data
    assert cli.json("read", "-t", T, "--count", "--where", "id < 4") == [{"rows": 4}]


def test_csv_output(cli, events_table):
    out = cli("-o", "csv", "read", "-t", T, "--where", "id < 2").stdout
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["id", "name", "value", "dt"]
    assert sorted(rows[1:]) == [["0", "n0", "0.0", "2024-01-01"], ["1", "n1", "0.5", "2024-01-02"]]


def test_table_output_off_a_terminal_is_a_plain_table(cli, events_table):
    out = cli("read", "-t", T, "--where", "id = 3").stdout
    lines = out.splitlines()
    assert lines[0].split() == ["id", "name", "value", "dt"]
    assert set(lines[1].replace(" ", "")) == {"-"}
    assert lines[2].split() == ["3", "n3", "1.5", "2024-01-02"]
    assert "\x1b[" not in out


def test_out_parquet(cli, events_table, tmp_path):
    r = cli("read", "-t", T, "--where", "id < 4", "--select", "id,name", "--out", "x.parquet")
    assert r.stdout.strip() == "wrote 4 rows to x.parquet"
    t = pq.read_table(tmp_path / "x.parquet")
    assert t.column_names == ["id", "name"]
    assert sorted(t.column("id").to_pylist()) == [0, 1, 2, 3]
    cli("read", "-t", T, "--where", "id > 100", "--out", "empty.parquet")
    empty = pq.read_table(tmp_path / "empty.parquet")
    assert empty.num_rows == 0 and empty.column_names == ["id", "name", "value", "dt"]
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


def test_read_empty_table(cli):
    cli("create-table", "db.e", "--schema", "id INT")
    assert cli.json("read", "-t", "db.e") == []
    assert cli("read", "-t", "db.e", "--count").stdout.strip() == "0"
    assert cli("read", "-t", "db.e").stdout.split() == ["id", "--"]


def test_table_output_is_capped_without_limit(cli, monkeypatch):
    from paimon_cli.commands import read

    monkeypatch.setattr(read, "DISPLAY_ROWS", 4)
    cli("create-table", "db.big", "--schema", "id BIGINT")
    import pyarrow as pa

    cli("ingest", write_parquet(Path("big.parquet"), pa.table({"id": list(range(10))})), "-t", "db.big")
    r = cli("read", "-t", "db.big")
    assert len(r.stdout.splitlines()) == 2 + 4
    assert "showing the first 4 rows" in r.stderr
    assert len(cli.json("read", "-t", "db.big")) == 10  # json/csv are never capped


@pytest.fixture
def orders(cli):
    """The README's shop.orders: an append table with a DECIMAL(10, 2) amount, two files."""
    from decimal import Decimal

    import pyarrow as pa

    cli(
        "create-table",
        "shop.orders",
        "--schema",
        "id BIGINT NOT NULL, amount DECIMAL(10, 2), dt STRING",
        "--partition",
        "dt",
    )
    batches = [{"id": [100], "amount": ["100.00"]}, {"id": [7, 8, 9], "amount": ["0.00", "37.01", "150.25"]}]
    for i, b in enumerate(batches):
        data = pa.table(
            {
                "id": pa.array(b["id"], pa.int64()),
                "amount": pa.array([Decimal(a) for a in b["amount"]], pa.decimal128(10, 2)),
                "dt": ["2024-01-02"] * len(b["id"]),
            }
        )
        cli("ingest", write_parquet(Path(f"in/o{i}.parquet"), data), "-t", "shop.orders")
    return "shop.orders"


@pytest.mark.parametrize(
    "where, expected",
    [
        ("dt = '2024-01-02' AND amount > 100", [9]),
        ("amount = 0", [7]),
        ("amount BETWEEN 10 AND 20", []),
        ("amount BETWEEN 10 AND 100", [8, 100]),
        ("amount IN (0, 37.01)", [7, 8]),
        ("id > 100.5", []),
        ("id < 100.5", [7, 8, 9, 100]),  # the file holding only id 100 must not be pruned
        ("amount > 99.995", [9, 100]),  # nor the file holding only 100.00
        ("id >= 8.5 AND id != 8.5", [9, 100]),
    ],
)
def test_where_compares_numbers_as_sql_does(cli, orders, where, expected):
    assert sorted(r["id"] for r in cli.json("read", "-t", orders, "--where", where)) == expected
    assert cli.json("read", "-t", orders, "--count", "--where", where) == [{"rows": len(expected)}]


def test_where_error_has_no_python_repr(cli, orders):
    r = cli("read", "-t", orders, "--where", "dt = 5.5 OR id = TRUE", code=1)
    assert r.stderr.strip() == "error: bad --where: TRUE is not a valid BIGINT for column 'id'"


@pytest.mark.parametrize("name, fmt", [("x.csv", "csv"), ("x.json", "json"), ("x.JSONL", "json")])
def test_out_writes_the_format_its_name_says(cli, events_table, tmp_path, name, fmt):
    r = cli("read", "-t", T, "--where", "id < 4", "--out", name)
    assert r.stdout.strip() == f"wrote 4 rows to {name}"
    printed = cli("-o", fmt, "read", "-t", T, "--where", "id < 4").stdout
    assert (tmp_path / name).read_text() == printed  # the same text -o prints
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(printed)))
        assert sorted(int(r["id"]) for r in rows) == [0, 1, 2, 3]
    else:
        import json

        assert sorted(json.loads(line)["id"] for line in printed.splitlines()) == [0, 1, 2, 3]
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("name", ["x.txt", "x.csv.gz", "x.xlsx"])
def test_out_refuses_other_file_types(cli, events_table, tmp_path, name):
    r = cli("read", "-t", T, "--out", name, code=1)
    suffix = Path(name).suffix
    assert r.stderr == (
        f"error: --out {name}: cannot write '{suffix}' files; name a .parquet, .csv, .json or .jsonl file\n"
    )
    r = cli("diff", "-t", T, "--from", "0", "--out", name, code=1)
    assert "cannot write" in r.stderr
    assert not (tmp_path / name).exists()


def test_diff_out_by_extension(cli, two_snapshots, tmp_path):
    cli("diff", "-t", T, "--from", "1", "--to", "2", "--out", "d.csv")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "d.csv").read_text())))
    assert [r["_row_kind"] for r in rows] == ["+I"] * 5
    assert sorted(int(r["id"]) for r in rows) == [10, 11, 12, 13, 14]
    cli("diff", "-t", T, "--from", "1", "--to", "2", "--out", "d.parquet")
    assert pq.read_table(tmp_path / "d.parquet").num_rows == 5
