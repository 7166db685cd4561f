"""Java Paimon 0.9 and we take turns writing the same primary-key tables: upserts and deletes
(+I/+U/-U/-D) into deduplicate (fixed and dynamic bucket), first-row, partial-update and
aggregation tables, with compactions by either side in between. After every turn both Java and
we read the latest snapshot, and both reads must equal a plain-Python model of the merge engine
(tests/reference/merge_model.py), not our reader.

A Java turn is one JVM call for all tables: read (our last turn), write, maybe compact, read.
"""

from __future__ import annotations

import os
import random

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact
from tests.interop.harness.canonical import arrow_from_rows, assert_same_rows, rows_from_arrow
from tests.reference.merge_model import PkModel

pytestmark = pytest.mark.interop

COLUMNS = [("k", "INT NOT NULL"), ("a", "STRING"), ("b", "BIGINT"), ("g", "INT")]
NAMES = [n for n, _ in COLUMNS]
TURNS = 8  # Java writes on even turns, we on odd ones
# Java compacts after its writes on turns 2 (full) and 6 (minor; full for partial-update);
# after our writes on turns 1, 3, 5, 7 we compact like this:
OUR_COMPACTIONS = ["minor", "full", None, "minor"]
KEYS = 16

# table -> (options, row kinds the generator may use)
TABLES = {
    "dedup_fixed": ({"bucket": "2"}, ("+I", "+U", "-U", "-D")),
    "dedup_dynamic": ({"bucket": "-1", "dynamic-bucket.target-row-num": "5"}, ("+I", "+U", "-D")),
    "first_row": ({"bucket": "2", "merge-engine": "first-row", "ignore-delete": "true"}, ("+I", "-D")),
    # Java 0.9 writes nothing for a key whose merge ends in a -D under remove-record-on-delete:
    # the delete survives only while it is merged together with every older record of the key.
    # So Java's compactions of this table are full ones, its writers never compact on their own,
    # and a -D is alone for its key in a commit (README of the harness: reference quirks)
    "partial": (
        {
            "bucket": "2",
            "merge-engine": "partial-update",
            "partial-update.remove-record-on-delete": "true",
            "num-sorted-run.compaction-trigger": "50",
        },
        ("+I", "+U", "-U", "-D"),
    ),
    "agg": (
        {
            "bucket": "2",
            "merge-engine": "aggregation",
            "fields.b.aggregate-function": "sum",
            "fields.a.aggregate-function": "last_non_null_value",
            "fields.g.aggregate-function": "max",
            "fields.g.ignore-retract": "true",
        },
        ("+I", "+U", "-U", "-D"),
    ),
}


def _commit(rng: random.Random, name: str, model: PkModel, retired: set[int]) -> list[dict]:
    """Rows of one commit: upserts of random keys with random (partly null) values, deletes.

    Aggregation retracts only keys that hold a row (a lone retraction depends on compactions),
    at most once per commit and never after an upsert of the key in the same commit, and always
    writes a non-null last_non_null_value field (else a commit's merged record could carry a
    null there after a retraction, whose result depends on compactions); partial-update never writes a
    deleted key again (merging a -D with later records but not earlier ones, as a compaction of
    newer runs does, would make the result depend on which runs were merged)."""
    kinds = TABLES[name][1]
    live = sorted(k for (k,) in model.state)
    touched: set[int] = set()
    out = []
    for _ in range(rng.randint(3, 8)):
        kind = rng.choice(kinds)
        if kind in ("-U", "-D"):
            if name in ("agg", "partial") and not live:
                continue
            k = (
                rng.choice(live)
                if name in ("agg", "partial") or rng.random() < 0.8 and live
                else rng.randrange(KEYS)
            )
        else:
            k = rng.choice([x for x in range(KEYS) if x not in retired])
        row = {
            "k": k,
            "a": rng.choice([None, "x", "y", f"s{rng.randrange(50)}"]),
            "b": rng.choice([None, rng.randrange(-100, 100)]),
            "g": rng.choice([None, rng.randrange(10)]),
            "_row_kind": kind,
        }
        if name == "agg":
            row["a"] = row["a"] or "z"
            if k in live:
                live.remove(k)  # retract each key at most once per commit, never after its upsert
        if name == "partial":
            if kind == "-D":
                if k in touched:
                    continue
                retired.add(k)
            if k in live:
                live.remove(k)
        touched.add(k)
        out.append(row)
    return out or [
        {
            "k": 0 if 0 not in retired else max(set(range(KEYS)) - retired),
            "a": "w",
            "b": 1,
            "g": 1,
            "_row_kind": "+I",
        }
    ]


def _schema() -> pa.Schema:
    from paimon_core.data.types import parse_type, to_arrow_type

    return pa.schema(
        [pa.field(n, to_arrow_type(parse_type(t)), nullable="NOT NULL" not in t) for n, t in COLUMNS]
    )


def _write_ours(t, rows: list[dict]) -> None:
    data = arrow_from_rows([{k: v for k, v in r.items() if k != "_row_kind"} for r in rows], _schema())
    t.write_arrow(
        data.append_column("kind", pa.array([r["_row_kind"] for r in rows])), row_kind_column="kind"
    )


def test_java_and_we_take_turns_on_pk_tables(tmp_path, java):
    wh = str(tmp_path / "wh")
    seed = int(os.environ.get("PAIMON_TEST_SEED", "16"))
    rng = random.Random(seed)
    print(f"\nmixed writers: seed {seed} (replay: PAIMON_TEST_SEED={seed}), {TURNS} turns")
    models = {n: PkModel(NAMES, ("k",), opts) for n, (opts, _) in TABLES.items()}
    retired = {n: set() for n in TABLES}
    create = [
        {
            "op": "create_table",
            "warehouse": wh,
            "table": f"m.{n}",
            "schema": [{"name": c, "type": t} for c, t in COLUMNS],
            "primary_keys": ["k"],
            "options": opts,
        }
        for n, (opts, _) in TABLES.items()
    ]
    java.run(create)
    cat = FileSystemCatalog(wh)
    expected_before: dict[str, list[dict]] = {n: [] for n in TABLES}  # state after the last turn
    history: list[str] = []
    for turn in range(TURNS + 1):
        final = turn == TURNS
        java_turn = turn % 2 == 0 and not final
        if java_turn or final:
            reqs, slots = [], []
            for n in TABLES:
                base = {"warehouse": wh, "table": f"m.{n}"}
                reqs.append({**base, "op": "read"})
                slots.append((n, "before"))
                if final:
                    continue
                rows = _commit(rng, n, models[n], retired[n])
                models[n].apply(rows)
                reqs.append({**base, "op": "write", "rows": rows})
                slots.append((n, "write"))
                if turn % 4 == 2:
                    reqs.append({**base, "op": "compact", "full": turn % 8 == 2 or n == "partial"})
                    slots.append((n, "compact"))
                reqs.append({**base, "op": "read"})
                slots.append((n, "after"))
            results = java.run(reqs)
            for (n, what), res in zip(slots, results, strict=True):
                if what == "before":
                    assert_same_rows(
                        res["rows"],
                        expected_before[n],
                        label_a=f"java reading {n} after turn {turn - 1}",
                        label_b="model",
                    )
                elif what == "after":
                    assert_same_rows(
                        res["rows"],
                        models[n].rows(),
                        label_a=f"java reading {n} after its turn {turn}",
                        label_b="model",
                    )
            if final:
                break
            history.append(f"turn {turn}: java writes" + (" and compacts" if turn % 4 == 2 else ""))
        else:
            how = OUR_COMPACTIONS[turn // 2 % len(OUR_COMPACTIONS)]
            for n in TABLES:
                t = cat.get_table(f"m.{n}")
                rows = _commit(rng, n, models[n], retired[n])
                models[n].apply(rows)
                _write_ours(t, rows)
                if how is not None:
                    compact(cat.get_table(f"m.{n}"), full=how == "full")
            history.append(f"turn {turn}: we write" + (f" and compact ({how})" if how else ""))
        for n in TABLES:
            ours = rows_from_arrow(cat.get_table(f"m.{n}").read())
            assert_same_rows(
                ours,
                models[n].rows(),
                label_a=f"paimon-cli reading {n} after turn {turn}",
                label_b=f"model ({'; '.join(history)})",
            )
            expected_before[n] = models[n].rows()
    for n in TABLES:
        snaps = cat.get_table(f"m.{n}").snapshots
        users = {snaps.snapshot(i).commit_user for i in snaps.list_ids()}
        assert len(users) >= 2, f"{n}: both writers committed"
