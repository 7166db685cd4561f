"""Decoupled changelog lifecycle (``changelog.num-retained.*``, ``changelog.time-retained``): expiry
leaves ``changelog/changelog-N`` and the files a stream of it reads, streams and changelog diffs read
them, consumers pin them, orphan cleanup keeps them, and the changelog expiry deletes exactly what
no snapshot, changelog or tag uses. Checked against a plain-Python model of the writes."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import InvalidInput
from paimon_core.maintain import create_tag, delete_tag, remove_orphans, rollback
from paimon_core.maintain.changelog_expire import ChangelogRetention, decide_changelog_range
from paimon_core.maintain.expire import ChangelogFlags, expire_snapshots, plan_expire
from paimon_core.metadata.changelog import changelog_manager
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff
from paimon_core.read.stream import StreamGap, StreamRead
from tests.core.maintain.helpers import FAR_FUTURE

# write-only: no expiry after the commits, so that each test runs the expiry it checks
RET = {"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "2", "write-only": "true"}


def table(catalog, producer: str, pk: bool = True, **opts):
    options = {"changelog.num-retained.max": "5", **RET, **opts}
    if pk:
        options |= {"bucket": "1", "changelog-producer": producer}
        schema = Schema(Schema.parse_columns("id INT NOT NULL, v STRING"), (), ("id",), options)
    else:
        schema = Schema(Schema.parse_columns("id INT, v STRING"), (), (), options)
    return catalog.create_table(f"db.t_{producer}_{pk}", schema)


def write(t, ids, tag):
    t.write_arrow(pa.table({"id": pa.array(ids, pa.int32()), "v": [f"{tag}{i}" for i in ids]}))


def stream_rows(t, start=1) -> list[tuple]:
    r = StreamRead(t, mode="from-snapshot", start=start)
    out = []
    for b in r.follow(poll_interval_s=0, until_snapshot=t.snapshots.latest_id()):
        out += [(b.snapshot_id, x["_row_kind"], x["id"], x["v"]) for x in b.rows.to_pylist()]
        r.ack(b)
    return out


def all_files(t) -> set[str]:
    return {os.path.relpath(os.path.join(d, n), t.path) for d, _, ns in os.walk(t.path) for n in ns}


def young(t) -> int:
    """A clock at which every commit is younger than the time retention (1 h): only counts decide."""
    return t.snapshots.latest().time_millis + 1000


def build(catalog, producer, pk=True):
    t = table(catalog, producer, pk)
    for i in range(6):
        write(t, [i, i + 1], f"w{i}-")
        if pk and i == 3:
            full_compact(t)
    return t


@pytest.mark.parametrize(("producer", "pk"), [("input", True), ("none", True), ("none", False)])
def test_expired_snapshots_stay_streamable_until_changelog_retention(catalog, producer, pk):
    t = build(catalog, producer, pk)
    latest = t.snapshots.latest_id()
    before = stream_rows(t)
    assert before
    res = expire_snapshots(t, now_ms=young(t))
    cm = changelog_manager(t)
    assert t.snapshots.list_ids() == [latest - 1, latest]
    # changelog retention max 5 counts from the latest snapshot: latest-4 .. latest-2 are changelogs
    assert cm.list_ids() == list(range(latest - 4, latest - 1))
    assert res.expired_changelogs == list(range(1, latest - 4))
    assert cm.latest_id() == latest - 2 and cm.earliest_id() == latest - 4
    assert stream_rows(t, latest - 4) == [r for r in before if r[0] >= latest - 4]
    with pytest.raises(StreamGap):
        stream_rows(t, 1)
    # every file a changelog stream or a snapshot reads is still there; orphan cleanup agrees
    assert remove_orphans(t, older_than_ms=FAR_FUTURE).plan.files == ()
    # a later expiry with the coupled retention deletes the changelogs and their files
    t2 = t.with_schema(t.schema)
    files_before = all_files(t2)
    for i in range(3):
        write(t, [100 + i], "x")
    expire_snapshots(t, now_ms=FAR_FUTURE)  # all old: down to the latest changelog (Java's rule)
    assert cm.list_ids() == [t.snapshots.latest_id() - 2]
    assert remove_orphans(t, older_than_ms=FAR_FUTURE).plan.files == ()
    assert files_before - all_files(t)  # something was deleted


def test_changelog_diff_reads_expired_snapshots(catalog):
    t = build(catalog, "input")
    latest = t.snapshots.latest_id()
    before = diff(t, 0, latest, mode="changelog", per_snapshot=True).to_pylist()
    expire_snapshots(t, now_ms=young(t))
    first = changelog_manager(t).earliest_id()
    got = diff(t, first - 1, latest, mode="changelog", per_snapshot=True).to_pylist()
    assert got == [r for r in before if r["_snapshot"] >= first]


def test_dry_run_plans_both_and_writes_nothing(catalog):
    t = build(catalog, "input")
    files = all_files(t)
    plan = expire_snapshots(t, now_ms=young(t), dry_run=True).plan
    assert all_files(t) == files
    assert plan.snapshot_ids and plan.changelog_writes
    assert plan.changelog is not None and plan.changelog.changelog_ids == [1, 2]
    assert "changelog" in plan.protection()
    res = expire_snapshots(t, now_ms=young(t))
    assert {f.path for f in res.files} == {f.path for f in plan.files + plan.changelog.files}


def test_consumer_pins_changelogs(catalog):
    t = build(catalog, "input")
    expire_snapshots(t, now_ms=young(t))
    assert changelog_manager(t).list_ids() == [3, 4, 5]
    consumer_manager(t).reset("c1", 3)
    expire_snapshots(t, now_ms=FAR_FUTURE)  # all old; without the consumer only 5 would stay
    assert changelog_manager(t).list_ids() == [3, 4, 5]
    got = StreamRead(t, consumer_id="c1")
    assert got.start_batch() is None and got.poll().snapshot_id == 3
    consumer_manager(t).reset("c1", 4)
    expire_snapshots(t, now_ms=FAR_FUTURE)
    assert changelog_manager(t).list_ids() == [4, 5]


def test_time_retention_keeps_young_changelogs(catalog):
    t = table(catalog, "input", **{"changelog.time-retained": "1d", "snapshot.time-retained": "1h"})
    for i in range(6):
        write(t, [i], "w")
    now = t.snapshots.latest().time_millis + 2 * 3600_000  # snapshots old, changelogs young
    expire_snapshots(t, now_ms=now)
    assert changelog_manager(t).list_ids() == [2, 3, 4]  # 1 is beyond changelog.num-retained.max
    expire_snapshots(t, now_ms=now + 2 * 86400_000)  # all old: Java keeps the latest changelog
    assert changelog_manager(t).list_ids() == [4]


def test_tag_and_rollback_with_changelogs(catalog):
    t = build(catalog, "input")
    create_tag(t, "three", 3)
    expire_snapshots(t, now_ms=young(t))
    cm = changelog_manager(t)
    assert cm.list_ids() == [3, 4, 5]
    rollback(t, to_tag="three")  # changelogs newer than the target go with the snapshots
    assert t.snapshots.list_ids() == [3]
    assert cm.list_ids() == [3]
    assert remove_orphans(t, older_than_ms=FAR_FUTURE).plan.files == ()
    delete_tag(t, "three")
    assert remove_orphans(t, older_than_ms=FAR_FUTURE).plan.files == ()


def test_decide_changelog_range_is_javas():
    ret = ChangelogRetention(1, 4, 0, True)
    # snapshots 6..8, changelogs 2..5: keep changelogs from 8-4+1=5, the latest changelog stays
    rng = decide_changelog_range(
        8, [2, 3, 4, 5], dict.fromkeys(range(2, 6), 0), ret, max_deletes=50, now_ms=1
    )
    assert (rng.begin, rng.end) == (2, 5)
    rng = decide_changelog_range(8, [2, 3, 4, 5], {}, ret, max_deletes=1, now_ms=1)
    assert (rng.begin, rng.end, rng.reason) == (2, 3, "expire-limit")
    rng = decide_changelog_range(8, [2, 3, 4, 5], {}, ret, max_deletes=50, now_ms=1, consumer_next=3)
    assert (rng.begin, rng.end, rng.reason) == (2, 3, "consumer")
    assert not decide_changelog_range(8, [], {}, ret, max_deletes=50, now_ms=1)


def test_changelog_max_below_min_is_refused(catalog):
    with pytest.raises(InvalidInput, match="changelog.num-retained.min should not be larger"):
        table(catalog, "input", **{"changelog.num-retained.min": "6", "changelog.num-retained.max": "5"})
    opts = {"changelog.num-retained.min": "3", "changelog.num-retained.max": "3"}
    t = table(catalog, "input", **opts)
    write(t, [1], "a")
    plan_expire(t, retain_min=1, retain_max=3)  # fine: 3 <= 3
    # an unset changelog maximum follows the table's snapshot maximum, never a one-off override
    only_min = catalog.create_table(
        "db.only_min",
        Schema(Schema.parse_columns("id INT"), (), (), {"changelog.num-retained.min": "3"}),
    )
    plan = plan_expire(only_min, retain_min=1, retain_max=2)
    assert plan.changelog is not None and plan.changelog.retention.retain_max == 2**31 - 1
    with pytest.raises(InvalidInput, match="changelog.num-retained.max"):
        plan_expire(only_min, retain_min=1, retain_max=2, changelog_flags=ChangelogFlags(retain_max=2))


@pytest.mark.parametrize("producer", ["input", "none"])
def test_deleting_a_tag_keeps_what_changelogs_stream(catalog, producer):
    t = build(catalog, producer)
    create_tag(t, "four", 4)
    latest = t.snapshots.latest_id()
    before = stream_rows(t, 3)
    expire_snapshots(t, now_ms=young(t))
    assert changelog_manager(t).list_ids() == [3, 4, 5]
    delete_tag(t, "four")  # its snapshot is changelog-4 now: the changelog keeps its files
    assert stream_rows(t, 3) == before
    assert remove_orphans(t, older_than_ms=FAR_FUTURE).plan.files == ()
    assert t.snapshots.list_ids() == [latest - 1, latest]


def test_expiry_after_each_write_keeps_decoupled_changelogs(catalog):
    opts = {
        "snapshot.num-retained.min": "1",
        "snapshot.num-retained.max": "2",
        "changelog.num-retained.max": "4",
    }
    schema = Schema(
        Schema.parse_columns("id INT NOT NULL, v STRING"),
        (),
        ("id",),
        {"bucket": "1", "changelog-producer": "input", **opts},
    )
    t = catalog.create_table("db.after", schema)
    written = {}  # APPEND snapshot id -> the id it wrote (a write may add a COMPACT snapshot too)
    for i in range(6):
        before = t.snapshots.latest_id() or 0
        write(t, [i], "w")
        written[before + 1] = i
    latest = t.snapshots.latest_id()
    # retain-max 2 expires snapshots whatever their age; the young changelogs stay up to max 4
    assert t.snapshots.list_ids() == [latest - 1, latest]
    assert changelog_manager(t).list_ids() == [latest - 3, latest - 2]
    assert [r[2] for r in stream_rows(t, latest - 3)] == [
        v for k, v in sorted(written.items()) if k >= latest - 3
    ]
