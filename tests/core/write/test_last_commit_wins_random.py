"""#38 item 2, randomized against a model: writers of a primary-key table that start from the same
snapshots and upsert overlapping keys in random orders and amounts commit in a random order; every
key holds the value of the commit that landed last (within one commit, its last row), before and
after a full compaction. Each seed draws the bucket mode, the changelog producer, the writers'
batches, when each writer starts (after which commits) and the commit order. The Java side of the
same rule is tests/interop/test_last_commit_wins_java20_interop.py."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.metadata.schema import Schema
from paimon_core.write.table_write import write_tables

KEY_SPACE = 120


def _batch(rng: random.Random, tag: str) -> pa.Table:
    keys = [rng.randrange(KEY_SPACE) for _ in range(rng.randint(1, 3 * KEY_SPACE))]  # repeats too
    return pa.table({"id": pa.array(keys, pa.int64()), "v": [f"{tag}-{i}" for i in range(len(keys))]})


@pytest.mark.parametrize("seed", range(12))
def test_the_last_commit_wins_every_key_it_wrote(tmp_path, seed):
    rng = random.Random(seed)
    options = {"bucket": rng.choice(["1", "2", "4", "-1"])}
    if rng.random() < 0.3:
        options["changelog-producer"] = "input"
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table(
        "db.t", Schema(Schema.parse_columns("id BIGINT NOT NULL, v STRING"), (), ("id",), options)
    )
    model: dict[int, str] = {}

    def land(messages, batch: pa.Table) -> None:
        cat.get_table("db.t").commit(messages)
        model.update(zip(batch.column("id").to_pylist(), batch.column("v").to_pylist(), strict=True))

    pending = []  # (messages, batch) written but not committed yet
    for w in range(rng.randint(2, 5)):
        if pending and rng.random() < 0.4:  # some writers start after some commits landed
            land(*pending.pop(rng.randrange(len(pending))))
        batch = _batch(rng, f"w{w}")
        pending.append((write_tables(cat.get_table("db.t"), [batch]), batch))
    rng.shuffle(pending)
    for messages, batch in pending:
        land(messages, batch)

    def state() -> dict[int, str]:
        return {r["id"]: r["v"] for r in cat.get_table("db.t").read().to_pylist()}

    assert state() == model, f"seed {seed}, {options}"
    full_compact(cat.get_table("db.t"))
    assert state() == model, f"seed {seed}, {options}, after a full compaction"
