"""Tables with Paimon 1.3/2.0 indexes from the command line: a primary-key index table takes
ingest, compact and expire (its index kept true); a table with a global index over row ids
refuses writes in one line naming the index, and stays at its snapshot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Cli
from tests.java1x import fixture_copy


@pytest.mark.slow
def test_primary_key_index_table_takes_ingest_compact_expire(tmp_path):
    wh, ident = fixture_copy("pk-global-index-golden-parquet-2.0dev", tmp_path)
    cli = Cli(Path(wh))
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"id": 4, "name": "name-40", "category": "odd"}\n{"id": 7, "name": "name-4", "category": "even"}\n'
    )
    cli("ingest", str(rows), "-t", ident)
    cli("compact", "-t", ident, "--full")
    cli("expire", "-t", ident, "--retain-max", "1", "--retain-min", "1", "--older-than", "0s")
    got = cli.json("read", "-t", ident, "--where", "name = 'name-4' OR category = 'odd'")
    assert sorted(r["id"] for r in got) == [1, 3, 4, 5, 7]


def test_global_index_over_row_ids_refuses_writes_in_one_line(tmp_path):
    wh, ident = fixture_copy("global-bitmap-index-orc-1.3", tmp_path)
    cli = Cli(Path(wh))
    before = cli.snapshot_ids(ident)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"f0": "Zed", "f1": 1, "f2": 1, "f3": 1.5}) + "\n")
    result = cli("ingest", str(rows), "-t", ident, code=1)
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and "global index over row ids" in err and "Traceback" not in err, err
    assert cli.snapshot_ids(ident) == before
    assert len(cli.json("read", "-t", ident, "--where", "f0 = 'Bob'")) == 2
