import os
import time

import pytest

from paimon_core.maintain import create_tag, expire_snapshots, remove_orphans
from paimon_core.write.conform import conform_table
from tests.core.maintain.helpers import (
    FAR_FUTURE,
    assert_files_equal_referenced,
    batch,
    data_and_meta_files,
    make_table,
    rows,
)

DAY = 86_400_000


def crashed_writer(t):
    """A writer that wrote its data files and died before committing."""
    w = t.new_writer()
    w.write(conform_table(batch(t, range(50, 60), "crash"), t.schema))
    msgs = w.prepare_commit()
    return {
        os.path.join(t.bucket_path(m.partition, m.bucket), f.file_name) for m in msgs for f in m.new_files
    }


@pytest.mark.parametrize("pk", [False, True])
def test_crashed_writer_files_removed_only_when_old(catalog, pk):
    t = make_table(catalog, "db.o", pk)
    for i in range(3):
        t.write_arrow(batch(t, range(i, i + 3), f"w{i}"))
    create_tag(t, "t1", 1)
    expire_snapshots(t, retain_min=1, now_ms=FAR_FUTURE)
    before = rows(t.read())
    stray = crashed_writer(t)
    # stale temp files of an atomic write, and an unreferenced manifest
    tmp = os.path.join(t.snapshots.dir, ".snapshot-9.1234.tmp")
    open(tmp, "w").write("x")
    junk = os.path.join(t.path, "manifest", "manifest-dead-0")
    open(junk, "wb").write(b"x")
    assert stray and stray <= data_and_meta_files(t)
    now = int(time.time() * 1000)

    young = remove_orphans(t, now_ms=now)  # everything is younger than a day
    assert young.deleted == 0 and young.plan.too_young >= len(stray) + 2
    dry = remove_orphans(t, now_ms=now + 2 * DAY, dry_run=True)
    assert {f.path for f in dry.plan.files} == stray | {tmp, junk}
    assert stray <= data_and_meta_files(t)
    res = remove_orphans(t, now_ms=now + 2 * DAY)
    assert res.deleted == len(stray) + 2 and not os.path.exists(tmp)
    assert rows(t.read()) == before
    assert_files_equal_referenced(t)
    assert os.listdir(os.path.join(t.path, "schema")) == ["schema-0"]
    # nothing left to do; snapshot and tag files untouched
    assert remove_orphans(t, older_than_ms=0, now_ms=now + 3 * DAY).deleted == 0
    assert t.snapshots.list_ids() and rows(t.read(tag="t1"))


def test_cutoff_protects_in_flight_commit(catalog):
    t = make_table(catalog, "db.f", False)
    t.write_arrow(batch(t, [1], "a"))
    stray = crashed_writer(t)
    now = int(time.time() * 1000)
    assert remove_orphans(t, older_than_ms=60_000, now_ms=now).deleted == 0
    assert remove_orphans(t, older_than_ms=60_000, now_ms=now + 120_000).deleted == len(stray)
