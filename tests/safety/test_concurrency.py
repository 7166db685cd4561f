"""8 writer processes ingest into one table while a compactor and an expirer run in a loop
(local filesystem and S3); on primary-key tables the writers have keys of their own, or all
write the same keys. Afterwards: every committed batch is there exactly once (and every
retained snapshot reads exactly the batches committed up to it; with shared keys, every key
holds a value a committed batch wrote), snapshot ids are gapless, no snapshot id was created
twice and no snapshot file was replaced, the compactor landed compactions, and compactions that
lost a race aborted or retried without losing rows. A child that hangs is killed and fails its
test."""

from __future__ import annotations

import os
import time

import pytest

from paimon_core.catalog import FileSystemCatalog
from tests.safety.checks import (
    assert_commit_log,
    assert_exactly_once,
    assert_one_bucket_per_key,
    assert_shared_keys_state,
    assert_snapshot_chain,
    expected_rows,
    rows_of,
)
from tests.safety.conftest import join_all, make_table, read_lines, start
from tests.safety.worker import batch_rows

WRITERS = 8
BATCHES = 4  # per writer; 3 on S3, where each commit takes several round trips


DYNAMIC = {"bucket": "-1", "dynamic-bucket.target-row-num": "30"}


KINDS = {
    "append": (False, False, {}),
    "pk": (True, False, {}),
    "pk-shared-keys": (True, True, {}),
    "pk-dynamic": (True, False, DYNAMIC),
}
# every kind on the local file system; on S3 (each run 5x slower) the two kinds whose retries
# rewrite files, the dynamic-bucket index merge and the renumbering of shared keys: the S3
# commit itself (a create-if-absent PUT of snapshot-N) is the same code for every kind
CASES = [("local", k) for k in KINDS] + [("s3", "pk-shared-keys"), ("s3", "pk-dynamic")]


@pytest.mark.parametrize(
    "warehouse, pk, shared, options",
    [(storage, *KINDS[kind]) for storage, kind in CASES],
    ids=[f"{storage}-{kind}" for storage, kind in CASES],
    indirect=["warehouse"],
)
def test_concurrent_writers_compactor_expirer(warehouse, tmp_path, pk, shared, options):
    uri, storage = warehouse
    batches_per_writer = 3 if uri.startswith("s3://") else BATCHES
    cat = FileSystemCatalog(uri, storage)
    cat.create_database("db")
    make_table(cat, "db.t", pk, {"commit.max-retries": "20", **options})
    logs = tmp_path / "logs"
    logs.mkdir()
    base = {
        "warehouse": uri,
        "storage": storage,
        "table": "db.t",
        "pk": pk,
        "stop": str(logs / "stop"),
        "shared": shared,
    }

    t0 = time.time()
    helpers = [
        start("compactor", {**base, "commits": str(logs / "c-compactor"), "out": str(logs / "compactor")}),
        start(
            "expirer",
            {**base, "commits": str(logs / "c-expirer"), "out": str(logs / "expirer"), "retain_min": 3},
        ),
    ]
    writers = [
        start(
            "writer",
            {
                **base,
                "writer": w,
                "batches": batches_per_writer,
                "commits": str(logs / f"c-w{w}"),
                "out": str(logs / f"w{w}"),
            },
        )
        for w in range(WRITERS)
    ]
    late = {**base, "writer": WRITERS, "batches": 1, "write_only": True}
    late.update(commits=str(logs / f"c-w{WRITERS}"), out=str(logs / f"w{WRITERS}"))
    try:
        join_all(writers, 180)
        # the compactor may have lost every race while 8 writers committed, or the writers' own
        # auto-compaction may have left nothing to do: a last write-only batch leaves level-0
        # runs, and the compactor gets up to 30 s on the quiet table to land a compaction
        writers.append(start("writer", late))
        join_all(writers[-1:], 60)
        until = time.time() + 30
        while not read_lines(str(logs / "c-compactor")) and time.time() < until:
            time.sleep(0.2)
    finally:
        (logs / "stop").touch()
        join_all(helpers, 60)
    elapsed = time.time() - t0
    assert all(p.exitcode == 0 for p in writers + helpers), [(p.name, p.exitcode) for p in writers + helpers]

    results = [r for w in range(WRITERS + 1) for r in read_lines(str(logs / f"w{w}"))]
    fatal = [r for r in results if r.get("fatal")]
    assert not fatal, "writers failed with errors other than a lost race:\n" + "\n".join(
        r["error"] + "\n" + r["tb"] for r in fatal
    )
    ok = [r for r in results if r["ok"]]
    gave_up = {(r["writer"], r["batch"]) for r in results if not r["ok"]} - {
        (r["writer"], r["batch"]) for r in ok
    }
    assert len(ok) + len(gave_up) == WRITERS * batches_per_writer + 1
    assert len(ok) >= WRITERS * batches_per_writer * 0.75, (
        f"too many batches gave up after retries: {sorted(gave_up)}"
    )
    if options is DYNAMIC:  # writers never share keys: a lost race always rebases the hash index
        conflicts = [r["error"] for r in results if not r["ok"]]
        assert not conflicts, "dynamic-bucket writers failed instead of retrying:\n" + "\n".join(
            conflicts[:5]
        )

    helper_stats = {r["who"]: r for name in ("compactor", "expirer") for r in read_lines(str(logs / name))}
    for who in ("compactor", "expirer"):
        assert not helper_stats[who]["errors"], f"{who} failed:\n" + "\n".join(
            helper_stats[who]["errors"][:3]
        )
    assert helper_stats["expirer"]["ok"] >= 1, "the expirer never expired anything"
    if helper_stats["compactor"]["ok"] < 1:
        from collections import Counter

        from paimon_core.metadata.live_files import live_entries

        t = cat.get_table("db.t")
        levels = Counter(e.file.level for e in live_entries(t.manifests, t.snapshots.latest()))
        late_batch = read_lines(str(logs / f"w{WRITERS}"))
        pytest.fail(
            f"the compactor never landed a compaction: {helper_stats['compactor']}; files per level "
            f"at the end {dict(levels)}; the late write-only batch: {late_batch}"
        )

    table = cat.get_table("db.t")
    ids = assert_snapshot_chain(table)
    if options is DYNAMIC:
        assert_one_bucket_per_key(table)
    commits = [c for f in os.listdir(logs) if f.startswith("c-") for c in read_lines(str(logs / f))]
    assert_commit_log(table, commits)
    assert len(ids) >= 3
    landed = [c for c in commits if c["who"] == "compactor"]
    assert landed and all(c["kind"] == "COMPACT" for c in landed), "no COMPACT snapshot from the compactor"

    if shared:
        done = [
            (r["writer"], r["batch"], r["snapshot"], batch_rows(r["writer"], r["batch"], pk, shared=True))
            for r in ok
        ]
        assert_shared_keys_state(rows_of(table.read()), done)
        for sid in ids:
            assert_shared_keys_state(rows_of(table.read(snapshot_id=sid)), [d for d in done if d[2] <= sid])
        print(
            f"\n{uri.split(':')[0]} pk, shared keys: {len(commits)} commits, {len(ok)} batches ok, "
            f"compactor {helper_stats['compactor']['ok']} ok, {time.time() - t0:.1f}s"
        )
        return

    # the latest snapshot holds every committed batch exactly once; every retained snapshot
    # holds exactly the batches committed up to it, in commit order
    committed = sorted(ok, key=lambda r: r["snapshot"])
    batches = [(r["snapshot"], batch_rows(r["writer"], r["batch"], pk)) for r in committed]
    assert_exactly_once(rows_of(table.read()), expected_rows([b for _, b in batches], pk))
    for sid in ids:
        want = expected_rows([b for s, b in batches if s <= sid], pk)
        assert_exactly_once(rows_of(table.read(snapshot_id=sid)), want)

    kinds = {c["kind"] for c in commits}
    print(
        f"\n{uri.split(':')[0]} {'pk' if pk else 'append'}: {len(commits)} commits {sorted(kinds)}, "
        f"{len(ok)} batches ok, {len(gave_up)} gave up, compactor {helper_stats['compactor']['ok']} ok / "
        f"{helper_stats['compactor']['conflict']} conflicts, expirer {helper_stats['expirer']['ok']} runs, "
        f"snapshots {ids[0]}..{ids[-1]}, {elapsed:.1f}s"
    )
