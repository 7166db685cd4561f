"""Random sequences of write/overwrite/compact/tag/expire/rollback/delete-tag: after every
expire every retained snapshot and every tag reads exactly as it did when it was made, and the
files left are exactly the files some snapshot or tag uses."""

import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paimon_core.catalog import FileSystemCatalog
from paimon_core.errors import SnapshotNotFound
from paimon_core.maintain import create_tag, delete_tag, expire_snapshots, list_tags, rollback
from paimon_core.mergetree.compaction import full_compact

from tests.core.maintain.helpers import FAR_FUTURE, assert_files_equal_referenced, batch, make_table, rows

ops = st.lists(st.one_of(
    st.tuples(st.just("write"), st.integers(0, 20), st.integers(1, 4)),
    st.tuples(st.just("overwrite"), st.integers(0, 20), st.integers(1, 3)),
    st.tuples(st.just("compact"), st.just(0), st.just(0)),
    st.tuples(st.just("tag"), st.integers(0, 5), st.just(0)),
    st.tuples(st.just("untag"), st.integers(0, 5), st.just(0)),
    st.tuples(st.just("expire"), st.integers(1, 4), st.integers(1, 6)),
    st.tuples(st.just("rollback"), st.integers(0, 5), st.booleans()),
), min_size=3, max_size=14)


def check(t, seen):
    """Every existing snapshot and every tag reads as recorded; nothing unreferenced is left."""
    for i in t.snapshots.list_ids():
        assert rows(t.read(snapshot_id=i)) == seen[i], f"snapshot {i}"
    for tag in list_tags(t):
        assert rows(t.read(tag=tag.name)) == seen[tag.snapshot_id], f"tag {tag.name}"
    assert_files_equal_referenced(t)


@pytest.mark.slow
@pytest.mark.parametrize("pk", [False, True])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seq=ops)
def test_random_lifecycle(pk, seq):
    root = tempfile.mkdtemp()
    try:
        t = make_table(FileSystemCatalog(root), "db.p", pk)
        seen: dict[int, list] = {}  # snapshot id -> rows; reset for ids dropped by a rollback

        def record():
            for i in t.snapshots.list_ids():
                if i not in seen:
                    seen[i] = rows(t.read(snapshot_id=i))

        for op, a, b in seq:
            if op in ("write", "overwrite"):
                if op == "overwrite" and pk:
                    continue
                t.write_arrow(batch(t, range(a, a + b), f"{op}{a}"), overwrite=(op == "overwrite"))
            elif op == "compact":
                full_compact(t)
            elif op == "tag" and t.snapshots.list_ids():
                name = f"tag{a}"
                if name not in {x.name for x in list_tags(t)}:
                    create_tag(t, name)
            elif op == "untag" and f"tag{a}" in {x.name for x in list_tags(t)}:
                delete_tag(t, f"tag{a}")
            elif op == "expire":
                expire_snapshots(t, retain_min=a, max_deletes=b, now_ms=FAR_FUTURE)
                for i in seen:
                    if i < (t.snapshots.earliest_id() or 0):
                        with pytest.raises(SnapshotNotFound):
                            t.read(snapshot_id=i)
                check(t, seen)
            elif op == "rollback":
                tags = list_tags(t)
                ids = t.snapshots.list_ids()
                if b and tags:
                    target = tags[a % len(tags)]
                    rollback(t, to_tag=target.name)
                    tid = target.snapshot_id
                elif ids:
                    tid = ids[a % len(ids)]
                    rollback(t, to_snapshot=tid)
                else:
                    continue
                for i in [i for i in seen if i > tid]:
                    del seen[i]
                assert t.snapshots.latest_id() == tid
                check(t, seen)
            record()
        expire_snapshots(t, retain_min=1, now_ms=FAR_FUTURE)
        check(t, seen)
    finally:
        shutil.rmtree(root, ignore_errors=True)
