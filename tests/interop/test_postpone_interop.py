"""Postpone-bucket tables (``bucket = -2``) that pypaimon 2.1.0 writes, read, compacted and written
by us, checked against a plain-Python model and against pypaimon's own reads.

pypaimon writes commit 1 straight into real buckets (its fixed-bucket batch write, two buckets
from ``postpone.default-bucket-num``) and commits 2 and 3 into ``bucket-postpone`` (Avro files;
pypaimon's plain batch writer always writes there). Batch reads (ours and pypaimon's) show only commit 1 until our ``compact`` replays
the waiting rows into the real buckets (partition ``b`` exists only in bucket-postpone, so it
gets ``postpone.default-bucket-num`` buckets). After the compaction both read every row merged
per key, last write wins. Java Paimon 0.9 has no postpone bucket (Paimon 1.1+), so it is not
part of these tests.
"""

from __future__ import annotations

import io
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from paimon_core.metadata.live_files import live_entries
from tests.interop.harness import assert_same_rows, rows_from_arrow

pytestmark = pytest.mark.interop

SCHEMA = [
    {"name": "dt", "type": "STRING NOT NULL"},
    {"name": "id", "type": "BIGINT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "n", "type": "INT"},
    {"name": "amount", "type": "DECIMAL(10, 2)"},
    {"name": "day", "type": "DATE"},
    {"name": "ts", "type": "TIMESTAMP(3)"},
    {"name": "ts6", "type": "TIMESTAMP(6)"},
]
TYPES = {c["name"]: c["type"].replace(" NOT NULL", "") for c in SCHEMA}
OPTIONS = {"bucket": "-2", "postpone.default-bucket-num": "2"}


def _row(dt: str, i: int, gen: int) -> dict:
    return {
        "dt": dt,
        "id": i,
        "v": f"v{i}-{gen}",
        "n": i * 10 + gen,
        "amount": f"{i}.{gen:02d}",
        "day": f"2024-01-{gen + 1:02d}",
        "ts": f"2024-02-0{gen + 1}T10:00:00.{i:03d}",
        "ts6": f"2024-03-0{gen + 1}T11:00:00.{i:06d}",
    }


COMMITS = [  # (rows, fixed buckets?)
    ([_row("a", i, 0) for i in range(10)], True),
    ([_row("a", i, 1) for i in range(5, 15)] + [_row("b", i, 1) for i in range(4)], False),
    ([_row("a", i, 2) for i in (0, 14)] + [_row("b", i, 2) for i in (3, 7)], False),
]


def model(commits) -> list[dict]:
    """Deduplicate: the last row per (dt, id), in commit order."""
    state: dict = {}
    for rows, _ in commits:
        for r in rows:
            state[(r["dt"], r["id"])] = r
    return list(state.values())


@pytest.fixture(scope="module")
def written(tmp_path_factory, pypaimon) -> str:
    wh = str(tmp_path_factory.mktemp("postpone"))
    reqs = [
        {
            "op": "create_table",
            "warehouse": wh,
            "table": "db.pb",
            "schema": SCHEMA,
            "partition_keys": ["dt"],
            "primary_keys": ["dt", "id"],
            "options": OPTIONS,
        }
    ]
    for rows, fixed in COMMITS:
        reqs.append(
            {"op": "write", "warehouse": wh, "table": "db.pb", "rows": rows, "postpone_fixed_bucket": fixed}
        )
    reqs.append({"op": "read", "warehouse": wh, "table": "db.pb"})
    res = pypaimon.run(reqs)
    assert_same_rows(res[-1]["rows"], model(COMMITS[:1]), label_a="pypaimon before compaction")
    return wh


def _ours(wh: str) -> list[dict]:
    t = FileSystemCatalog(wh).get_table("db.pb")
    return rows_from_arrow(t.read(), TYPES)


def test_read_shows_only_bucketed_rows_and_counts_the_waiting(written, tmp_path):
    t = FileSystemCatalog(written).get_table("db.pb")
    assert_same_rows(_ours(written), model(COMMITS[:1]), label_a="ours")
    waiting = sum(len(rows) for rows, fixed in COMMITS if not fixed)
    assert t.postpone_rows(t.snapshots.latest()) == waiting
    result = CliRunner().invoke(app, ["-w", written, "read", "-t", "db.pb", "--count"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "10"
    assert f"{waiting} row(s) wait in bucket-postpone" in result.stderr


def test_compact_merges_waiting_rows_and_pypaimon_agrees(written, pypaimon, tmp_path):
    wh = str(tmp_path / "wh")
    import shutil

    shutil.copytree(written, wh)
    t = FileSystemCatalog(wh).get_table("db.pb")
    before = t.snapshots.latest().id
    res = compact(t)
    assert res.snapshot.commit_kind == "COMPACT" and res.snapshot.id == before + 1
    t = FileSystemCatalog(wh).get_table("db.pb")
    snap = t.snapshots.latest()
    assert t.postpone_rows(snap) == 0
    entries = live_entries(t.manifests, snap)
    codec = t.partition_codec
    assert {e.bucket for e in entries} <= {0, 1}
    assert {codec.from_bytes(e.partition)[0]: e.total_buckets for e in entries} == {"a": 2, "b": 2}
    expected = model(COMMITS)
    assert_same_rows(_ours(wh), expected, label_a="ours after compact")
    theirs = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.pb"}])[0]["rows"]
    assert_same_rows(theirs, expected, label_a="pypaimon after our compact")
    # a full compaction leaves one sorted run per bucket and the same rows
    compact(t, full=True)
    t = FileSystemCatalog(wh).get_table("db.pb")
    assert_same_rows(_ours(wh), expected, label_a="ours after full compact")
    from paimon_core.compaction.compaction import max_level

    assert {e.file.level for e in live_entries(t.manifests, t.snapshots.latest())} == {max_level(t)}


def _avro_fields(path: Path) -> list:
    r = fastavro.reader(io.BytesIO(path.read_bytes()))
    schema = r.writer_schema
    if isinstance(schema, list):  # Java's Avro data files make the top record nullable: ["null", record]
        schema = next(s for s in schema if s != "null")
    return [(f["name"], f["type"]) for f in schema["fields"]], r.metadata.get("avro.codec")


def test_our_writes_go_where_the_option_says(written, pypaimon, tmp_path):
    wh = str(tmp_path / "wh")
    import shutil

    shutil.copytree(written, wh)
    cat = FileSystemCatalog(wh)
    t = cat.get_table("db.pb")
    ours = [_row("a", i, 3) for i in (1, 20)] + [_row("c", 1, 3)]
    arrow = _arrow(t, ours)
    t.write_arrow(arrow)  # default: fixed buckets (2 known for a, default 2 for the new c)
    t = cat.get_table("db.pb")
    expected = model(COMMITS[:1] + [(ours, True)])
    assert_same_rows(_ours(wh), expected, label_a="ours after fixed-bucket write")
    theirs = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.pb"}])[0]["rows"]
    assert_same_rows(theirs, expected, label_a="pypaimon after our fixed-bucket write")

    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    t = alter_table(t, [SetOption("postpone.batch-write-fixed-bucket", "false")])
    more = [_row("a", 2, 4), _row("c", 9, 4)]
    t.write_arrow(_arrow(t, more))
    t = cat.get_table("db.pb")
    assert_same_rows(_ours(wh), expected, label_a="ours: postpone write invisible")
    mine = [
        e
        for e in live_entries(t.manifests, t.snapshots.latest())
        if e.bucket == -2 and "-u-" in e.file.file_name and e.file.schema_id == t.schema.id
    ]
    assert mine and all(
        e.total_buckets == -2 and e.file.level == 0 and e.file.min_sequence_number == 0 for e in mine
    )
    theirs_file = next(Path(wh).glob("db.db/pb/dt=a/bucket-postpone/*.avro"))
    our_file = (
        Path(wh)
        / "db.db/pb/dt=a/bucket-postpone"
        / next(e.file.file_name for e in mine if t.partition_codec.from_bytes(e.partition) == ("a",))
    )
    assert our_file.name.startswith("data--u-") and our_file.suffix == ".avro"
    assert _avro_fields(our_file) == _avro_fields(theirs_file)
    compact(t)
    # replay order: waiting rows get sequence numbers after everything already in the buckets
    final = model([COMMITS[0], (ours, True), COMMITS[1], COMMITS[2], (more, False)])
    assert_same_rows(_ours(wh), final, label_a="ours after compacting everything")
    theirs = pypaimon.run([{"op": "read", "warehouse": wh, "table": "db.pb"}])[0]["rows"]
    assert_same_rows(theirs, final, label_a="pypaimon after compacting everything")


def _arrow(t, rows: list[dict]) -> pa.Table:
    from tests.interop.harness import arrow_from_rows

    return arrow_from_rows(rows, t.schema.arrow_schema())
