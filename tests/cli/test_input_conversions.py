"""One rule for every input format, with a note whenever a value is converted: a timestamp with
a time zone goes into a TIMESTAMP as its UTC time (Parquet's zoned type and JSON/CSV text with an
offset alike), and numbers go into a text column as their text (Parquet numbers as JSON's)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

ZONED = "column 'ts': timestamps with a time zone stored as their UTC time"
AS_TEXT = "column 's': numbers written as text"


def _notes(r) -> list[str]:
    return [line for line in r.stderr.splitlines() if line.startswith("note: ")]


def test_zoned_timestamps_go_in_as_utc_from_every_format(cli, tmp_path):
    cli("create-table", "d.t", "--schema", "id INT NOT NULL, ts TIMESTAMP(6), s STRING", "-k", "id")
    berlin = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    pq.write_table(
        pa.table(
            {
                "id": pa.array([1], pa.int32()),
                # from the epoch number, not the datetime: a Spark session of this worker sets
                # PYARROW_IGNORE_TIMEZONE, under which pyarrow drops a datetime's tzinfo
                "ts": pa.array([int(berlin.timestamp() * 1_000_000)], pa.int64()).view(
                    pa.timestamp("us", tz="Europe/Berlin")
                ),
                "s": pa.array([42], pa.int64()),
            }
        ),
        tmp_path / "a.parquet",
    )
    r = cli("ingest", str(tmp_path / "a.parquet"), "-t", "d.t")
    assert any(ZONED in n for n in _notes(r)) and any(AS_TEXT in n for n in _notes(r)), r.stderr
    (tmp_path / "b.jsonl").write_text(
        json.dumps({"id": 2, "ts": "2024-05-01T12:00:00+02:00", "s": 42}) + "\n"
    )
    r = cli("ingest", str(tmp_path / "b.jsonl"), "-t", "d.t")
    assert any(ZONED in n for n in _notes(r)) and any(AS_TEXT in n for n in _notes(r)), r.stderr
    (tmp_path / "c.csv").write_text("id,ts,s\n3,2024-05-01T12:00:00+02:00,42\n")
    r = cli("ingest", str(tmp_path / "c.csv"), "-t", "d.t")
    assert any(ZONED in n for n in _notes(r)), r.stderr
    rows = sorted(cli.json("read", "-t", "d.t"), key=lambda x: x["id"])
    assert [(x["ts"], x["s"]) for x in rows] == [("2024-05-01T10:00:00", "42")] * 3
    # nothing converted, nothing said
    (tmp_path / "d.jsonl").write_text(json.dumps({"id": 4, "ts": "2024-05-01T12:00:00", "s": "x"}) + "\n")
    assert _notes(cli("ingest", str(tmp_path / "d.jsonl"), "-t", "d.t")) == []
    assert Path(tmp_path / "d.jsonl").exists()
