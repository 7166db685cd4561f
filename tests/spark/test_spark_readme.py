"""The README's Spark block runs as written (tests/cli/readme_story.py) on the local[2] lane's
session: each command's session request is recorded and served by that session, so the
cluster addresses of the examples (spark://10.0.0.5:7077, sc://10.0.0.5:15002), which no test
can reach, are checked as what the command asked for."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.cli.readme_blocks import blocks
from tests.cli.readme_story import Story
from tests.spark.test_spark_cli import events

pytestmark = pytest.mark.parametrize("engine", ["local"], indirect=True)

KEY = "Spark: heavy work on a local or remote cluster"


def test_the_readme_spark_block_runs(engine, tmp_path, monkeypatch):
    import paimon_core.engines.spark.engine as S

    asked = []

    def create_session(master=None, remote=None, conf=None):
        asked.append((master, remote, dict(conf or {})))
        return engine.spark

    monkeypatch.setattr(S, "create_session", create_session)
    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in blocks() if b.key == KEY]
    s = Story(tmp_path, block)
    (tmp_path / "big").mkdir()
    s.create("demo.events", "id BIGINT NOT NULL, name STRING, value DOUBLE, dt STRING", "-p", "dt")
    pq.write_table(events(30), tmp_path / "big" / "part-0.parquet")
    pq.write_table(events(30, 30), tmp_path / "big" / "part-1.parquet")
    pq.write_table(events(20, 60), tmp_path / "big.parquet")
    for cmd in block.commands:
        s.run(cmd)
        if cmd.argv[0] == "sql":
            assert {"dt": "2024-01-01", "n": 50} in [
                json.loads(x) for x in s.paimon(*cmd.argv, "-o", "json").stdout.splitlines()
            ]
    assert [(m, r) for m, r, _ in asked] == [
        ("local[2]", None),
        ("local[2]", None),
        ("spark://10.0.0.5:7077", None),
        (None, "sc://10.0.0.5:15002"),
        (None, None),
        (None, None),
        (None, None),
    ]
    assert asked[4][2].get("spark.executor.memory") == "4g"
    assert pq.read_table(tmp_path / "events_dir").num_rows == 80  # before big.parquet came again
    assert s.paimon("read", "-t", "demo.events", "--count").stdout.strip() == "100"
