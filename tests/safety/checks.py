"""Checks shared by the safety tests: expected table states, snapshot-chain invariants, and the
'only reachable files remain' walk."""

from __future__ import annotations

import hashlib
from collections import Counter

import pyarrow as pa

from paimon_core.maintain import referenced_files
from paimon_core.maintain.files import walk_files

HINTS = ("LATEST", "EARLIEST")


def rows_of(t: pa.Table) -> list[tuple[int, str]]:
    return sorted(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))


def expected_rows(batches: list[dict[int, str]], pk: bool) -> list[tuple[int, str]]:
    """Rows after committing ``batches`` in order: PK tables keep the last value of a key,
    append tables keep every row."""
    if pk:
        state: dict[int, str] = {}
        for b in batches:
            state.update(b)
        return sorted(state.items())
    return sorted((i, v) for b in batches for i, v in b.items())


def assert_exactly_once(got: list[tuple[int, str]], want: list[tuple[int, str]]) -> None:
    """Compare row multisets with a readable difference (lost rows, duplicated or foreign rows)."""
    g, w = Counter(got), Counter(want)
    if g == w:
        return
    lost = w - g
    extra = g - w
    raise AssertionError(
        f"rows differ: {sum(lost.values())} lost (e.g. {sorted(lost)[:5]}), "
        f"{sum(extra.values())} unexpected or duplicated (e.g. {sorted(extra)[:5]}); "
        f"{len(got)} rows read, {len(want)} expected"
    )


def assert_snapshot_chain(table) -> list[int]:
    """Snapshot ids are gapless from EARLIEST to LATEST and the hints agree with the listing."""
    sm = table.snapshots
    ids = sm.list_ids()
    assert ids, "the table has no snapshots"
    assert ids == list(range(ids[0], ids[-1] + 1)), f"snapshot ids have gaps: {ids}"
    assert sm.latest_id() == ids[-1]
    assert sm.earliest_id() == ids[0]
    return ids


def snapshot_sha(table, sid: int) -> str:
    return hashlib.sha256(table.io.read_bytes(table.snapshots.path(sid))).hexdigest()


def assert_commit_log(table, commits: list[dict], first_id: int = 1) -> None:
    """Every snapshot id was created by exactly one logged commit, the logged ids are gapless
    from ``first_id``, and every retained snapshot file still holds the bytes its writer wrote."""
    claims = Counter(c["id"] for c in commits)
    double = [i for i, n in claims.items() if n > 1]
    assert not double, f"snapshot ids claimed by more than one commit: {double}"
    ids = table.snapshots.list_ids()
    assert sorted(claims) == list(range(first_id, ids[-1] + 1)), (
        f"logged commits {sorted(claims)} do not cover {first_id}..{ids[-1]} exactly"
    )
    by_id = {c["id"]: c for c in commits}
    for sid in ids:
        assert snapshot_sha(table, sid) == by_id[sid]["sha"], (
            f"snapshot-{sid} does not hold the bytes {by_id[sid]['who']} committed: it was overwritten"
        )


def table_files(table) -> set[str]:
    return {f.path for f in walk_files(table.io, table.path)}


def unreachable_files(table) -> list[str]:
    """Files under the table that no snapshot or tag reaches, besides the schema files, the
    snapshot files and the hints."""
    refs = referenced_files(table).all_paths()
    root = table.path.rstrip("/") + "/"
    out = []
    for p in sorted(table_files(table)):
        rel = p[len(root) :]
        top, name = rel.split("/", 1)[0], rel.rsplit("/", 1)[-1]
        if top == "schema" and name.startswith("schema-") and name[7:].isdigit():
            continue
        if top == "snapshot" and (name in HINTS or (name.startswith("snapshot-") and name[9:].isdigit())):
            continue
        if top == "tag" and name.startswith("tag-"):
            continue
        if p not in refs:
            out.append(rel)
    return out


def assert_shared_keys_state(
    got: list[tuple[int, str]], batches: list[tuple[int, int, int, dict[int, str]]]
) -> None:
    """A PK table whose writers share keys, read at a snapshot after ``batches`` (writer, batch,
    snapshot, rows) committed: every key committed is there exactly once, with the value of the
    batch committed last (the highest snapshot) among those that wrote it. Concurrent writers
    number from the same base; the one committing later renumbers above the other
    (write/renumber.py), so commit order decides, as a user expects."""
    keys = Counter(k for k, _ in got)
    dup = [k for k, n in keys.items() if n > 1]
    assert not dup, f"keys read more than once: {dup[:5]}"
    written: dict[int, set[tuple[int, int]]] = {}
    for w, b, _, rows in batches:
        for k in rows:
            written.setdefault(k, set()).add((w, b))
    assert set(keys) == set(written), (
        f"lost keys {sorted(set(written) - set(keys))[:5]}, "
        f"foreign keys {sorted(set(keys) - set(written))[:5]}"
    )
    last: dict[int, tuple[int, int, int]] = {}  # key -> (snapshot, writer, batch) of its last write
    for w, b, sid, rows in batches:
        for k in rows:
            if k not in last or sid > last[k][0]:
                last[k] = (sid, w, b)
    for k, v in got:
        w, b = (int(x) for x in v[1:].split("b"))
        assert (w, b) in written[k], f"key {k} holds {v!r}, which no committed batch wrote for it"
        sid, lw, lb = last[k]
        assert (w, b) == (lw, lb), (
            f"key {k} holds {v!r}, but w{lw}b{lb} wrote it last (snapshot {sid}): a later commit lost"
        )


def assert_one_bucket_per_key(table) -> None:
    """Every key of the latest snapshot sits in the files of exactly one bucket (dynamic bucket
    mode: two buckets holding one key would both be read, and the key would appear twice)."""
    import pyarrow.parquet as pq

    where: dict = {}
    for split in table.plan(table.snapshots.latest(), all_levels=True):
        for f in split.files:
            with table.io.fs.open(
                table.io.join(table.bucket_path(split.partition, split.bucket), f.file_name)
            ) as fh:
                keys = pq.read_table(fh, columns=["id"]).column("id").to_pylist()
            for k in keys:
                assert where.setdefault(k, split.bucket) == split.bucket, (
                    f"key {k} in buckets {where[k]} and {split.bucket}"
                )
