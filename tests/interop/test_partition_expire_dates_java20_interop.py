"""Partition expiry of a DATE-partitioned table: with ``partition.legacy-name`` (the default) the
folder holds the day number (``dt=19845``), but the partition's value is a date, and expiry goes
by that date. Java Paimon (1.4.2 and 2.0.0 alike) expires none of them: it reads the day number
as the time text, fails to parse it and skips the partition. ``paimon partition expire`` expires
the old dates of the twin, and Java reads what is left."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app

pytestmark = [pytest.mark.interop]

NAME = "db.t"
DAYS = [dt.date(2020, 1, 1), dt.date(2020, 6, 1), dt.date.today() + dt.timedelta(days=1)]


def _paimon(wh: str, *args: str):
    r = CliRunner().invoke(app, ["-w", wh, *args])
    assert r.exit_code == 0, (args, r.stdout, r.stderr)
    return r.stdout


def test_date_partitions_expire_by_their_date(java20, tmp_path):
    javas = str(tmp_path / "java")
    options = {"bucket": "1", "partition.expiration-time": "30 d"}
    java20.run(
        [
            {
                "op": "create_table",
                "warehouse": javas,
                "table": NAME,
                "schema": [
                    {"name": "id", "type": "INT NOT NULL"},
                    {"name": "dt", "type": "DATE NOT NULL"},
                ],
                "partition_keys": ["dt"],
                "primary_keys": ["id", "dt"],
                "options": options,
            },
            {
                "op": "write",
                "warehouse": javas,
                "table": NAME,
                "rows": [{"id": i, "dt": d.isoformat()} for i, d in enumerate(DAYS)],
            },
        ]
    )
    ours = str(tmp_path / "ours")
    shutil.copytree(javas, ours)
    expired = java20.call("expire_partitions", warehouse=javas, table=NAME)["expired"]
    _paimon(ours, "partition", "expire", "-t", NAME)
    assert expired == []  # Java's limitation, pinned: it skips every DATE partition
    our_rows = [json.loads(x) for x in _paimon(ours, "-o", "json", "read", "-t", NAME).splitlines() if x]
    assert [r["dt"] for r in our_rows] == [DAYS[2].isoformat()]
    java_rows = java20.call("read", warehouse=ours, table=NAME)["rows"]
    assert [(r["id"], r["dt"]) for r in java_rows] == [(2, DAYS[2].isoformat())]
