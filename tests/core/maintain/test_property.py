"""Random sequences of write/overwrite/compact/tag/expire/rollback/delete-tag: after every
expire and rollback every retained snapshot and every tag reads as a plain model of the table
says it should (the model replays the writes; it never looks at our reads), and the files left
are exactly the files some snapshot or tag uses."""

import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.errors import SnapshotNotFound
from paimon_core.maintain import create_tag, delete_tag, expire_snapshots, list_tags, rollback
from tests.core.maintain.helpers import FAR_FUTURE, assert_files_equal_referenced, batch, make_table, rows

ops = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.integers(0, 20), st.integers(1, 4)),
        st.tuples(st.just("overwrite"), st.integers(0, 20), st.integers(1, 3)),
        st.tuples(st.just("compact"), st.just(0), st.just(0)),
        st.tuples(st.just("tag"), st.integers(0, 5), st.just(0)),
        st.tuples(st.just("untag"), st.integers(0, 5), st.just(0)),
        st.tuples(st.just("expire"), st.integers(1, 4), st.integers(1, 6)),
        st.tuples(st.just("rollback"), st.integers(0, 5), st.booleans()),
    ),
    min_size=3,
    max_size=14,
)


class LifecycleModel:
    """The rows of the table after each operation: a PK table keeps the last value of each id,
    an append table keeps every row; an overwrite replaces the partitions its rows fall in."""

    def __init__(self, pk: bool):
        self.pk = pk
        self.rows: dict = {}  # PK: id -> row; append: (write number, id) -> row
        self.writes = 0

    def write(self, ids, tag: str, overwrite: bool) -> None:
        self.writes += 1
        new = {}
        for i in ids:
            row = (
                {"id": i, "v": f"{tag}-{i}"}
                if self.pk
                else {"id": i, "p": "a" if i % 2 else "b", "v": f"{tag}-{i}"}
            )
            new[i if self.pk else (self.writes, i)] = row
        if overwrite:
            parts = {r["p"] for r in new.values()}
            self.rows = {k: r for k, r in self.rows.items() if r["p"] not in parts}
        self.rows.update(new)

    def read(self) -> list:
        return sorted(self.rows.values(), key=lambda r: tuple(str(v) for v in r.values()))


def check(t, seen):
    """Every existing snapshot and every tag reads as modelled; nothing unreferenced is left."""
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
        model = LifecycleModel(pk)
        seen: dict[int, list] = {}  # snapshot id -> modelled rows; reset for ids dropped by a rollback
        states: dict[int, dict] = {}  # snapshot id -> the model's rows then (a rollback returns to them)

        def record():
            """Snapshots made by the last operation (a write and its compaction, a compaction)
            hold the model's current rows."""
            for i in t.snapshots.list_ids():
                if i not in seen:
                    seen[i] = model.read()
                    states[i] = dict(model.rows)

        for op, a, b in seq:
            if op in ("write", "overwrite"):
                if op == "overwrite" and pk:
                    continue
                t.write_arrow(batch(t, range(a, a + b), f"{op}{a}"), overwrite=(op == "overwrite"))
                model.write(range(a, a + b), f"{op}{a}", op == "overwrite")
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
                model.rows = dict(states[tid])
                assert t.snapshots.latest_id() == tid
                check(t, seen)
            record()
        assert rows(t.read()) == model.read()
        expire_snapshots(t, retain_min=1, now_ms=FAR_FUTURE)
        check(t, seen)
    finally:
        shutil.rmtree(root, ignore_errors=True)
