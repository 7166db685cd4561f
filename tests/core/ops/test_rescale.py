"""Rescale: partitions rewritten into another bucket count in one OVERWRITE snapshot; commits
never mix bucket counts in a partition; refusals change nothing."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.commit.file_store_commit import CommitOptions, FileStoreCommit
from paimon_core.compaction.compaction import compact
from paimon_core.errors import CommitConflict, InvalidInput
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import SetOption
from paimon_core.ops.alter import alter_table
from paimon_core.ops.rescale import rescale


def _rows(ids, v: str, dt: str) -> pa.Table:
    ids = list(ids)
    return pa.table({"id": pa.array(ids, pa.int64()), "v": [f"{v}{i}" for i in ids], "dt": [dt] * len(ids)})


def _table(tmp_path, options: dict, pk=("id", "dt")):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    schema = Schema(
        Schema.parse_columns("id BIGINT NOT NULL, v STRING, dt STRING NOT NULL"), ("dt",), pk, options
    )
    return cat.create_table("db.t", schema)


def _counts(t) -> dict:
    out: dict = {}
    for e in live_entries(t.manifests, t.snapshots.latest()):
        out.setdefault(t.partition_codec.from_bytes(e.partition)[0], set()).add(
            (e.total_buckets, e.bucket < e.total_buckets)
        )
    return out


def _state(t) -> dict:
    return {(r["id"], r["dt"]): r["v"] for r in t.read().to_pylist()}


@pytest.fixture
def pk(tmp_path):
    t = _table(tmp_path, {"bucket": "2"})
    t.write_arrow(pa.concat_tables([_rows(range(50), "a", "d1"), _rows(range(30), "a", "d2")]))
    t.write_arrow(_rows(range(20, 70), "b", "d1"))
    return t


def test_rescale_one_partition(pk):
    before = _state(pk)
    latest = pk.snapshots.latest_id()
    res = rescale(pk, 4, ["dt=d1"])
    assert (res.partitions, res.rows, res.buckets_before) == (1, 70, {"dt=d1": 2})
    snap = pk.snapshots.latest()
    assert snap.id == latest + 1 and snap.commit_kind == "OVERWRITE"
    assert _counts(pk) == {"d1": {(4, True)}, "d2": {(2, True)}}
    assert _state(pk) == before
    d1 = pk.partition_codec.to_bytes(("d1",))
    assert {e.bucket for e in live_entries(pk.manifests, snap) if e.partition == d1} == {0, 1, 2, 3}


def test_dry_run_changes_nothing(pk):
    latest = pk.snapshots.latest_id()
    res = rescale(pk, 4, dry_run=True)
    assert (res.partitions, res.rows, res.snapshot) == (2, 100, None)
    assert pk.snapshots.latest_id() == latest


@pytest.mark.parametrize("options", [{}, {"deletion-vectors.enabled": "true"}], ids=["pk", "dv"])
def test_dry_run_counts_from_metadata_where_exact(tmp_path, options):
    """Compacted (one top-level run per bucket): the count comes from the files' metas, so it
    is answered with every data file gone; level-0 files to merge: counted by reading them."""
    import glob
    import os

    t = _table(tmp_path, {"bucket": "2"} | options)
    t.write_arrow(pa.concat_tables([_rows(range(50), "a", "d1"), _rows(range(30), "a", "d2")]))
    t.write_arrow(_rows(range(20, 70), "b", "d1"))
    if not options:
        assert rescale(t, 4, dry_run=True).rows == 100  # overlapping level-0 runs: from data
    compact(t, full=True)
    for f in glob.glob(f"{t.path}/dt=*/bucket-*/data-*"):
        os.remove(f)
    assert rescale(t, 4, ["dt=d1"], dry_run=True).rows == 70
    assert rescale(t, 4, dry_run=True).rows == 100


def test_writes_keep_a_partitions_bucket_count(pk):
    """After the rescale, a write hashing d1's keys over 2 buckets is refused (nothing committed);
    once the table's bucket option says 4, writes to d1 merge with its rows and d2 is refused."""
    rescale(pk, 4, ["dt=d1"])
    latest = pk.snapshots.latest_id()
    with pytest.raises(CommitConflict, match=r"partition dt=d1 holds files of 4 buckets, this write has 2"):
        pk.write_arrow(_rows(range(5), "c", "d1"))
    assert pk.snapshots.latest_id() == latest
    pk.write_arrow(_rows(range(5), "c", "d3"))  # a new partition takes the table's count
    t4 = alter_table(pk, [SetOption("bucket", "4")])
    t4.write_arrow(_rows(range(5), "c", "d1"))
    state = _state(t4)
    assert [state[(i, "d1")] for i in range(5)] == [f"c{i}" for i in range(5)]
    assert len([k for k in state if k[1] == "d1"]) == 70
    with pytest.raises(CommitConflict, match=r"partition dt=d2 holds files of 2 buckets, this write has 4"):
        t4.write_arrow(_rows(range(3), "c", "d2"))
    rescale(t4, None, ["dt=d2"])  # to the table's bucket option
    t4.write_arrow(_rows(range(3), "c", "d2"))
    assert _counts(t4) == {"d1": {(4, True)}, "d2": {(4, True)}, "d3": {(2, True)}}


def test_a_data_commit_after_the_read_fails_the_rescale(pk):
    """CommitOptions.read_base: an APPEND after the snapshot read would be overwritten unseen."""
    base = pk.snapshots.latest_id()
    pk.write_arrow(_rows(range(3), "z", "d1"))
    with pytest.raises(CommitConflict, match=rf"changed data after snapshot {base}"):
        FileStoreCommit(pk, CommitOptions(overwrite=True, read_base=base)).commit([])
    compact(pk, full=True)  # a compaction after the read is fine
    FileStoreCommit(
        pk, CommitOptions(overwrite=True, overwrite_filter=lambda p: False, read_base=base + 1)
    ).commit([])


def test_deletion_vector_table_with_level0_files_is_refused(tmp_path):
    t = _table(tmp_path, {"bucket": "2", "deletion-vectors.enabled": "true", "write-only": "true"})
    t.write_arrow(_rows(range(10), "a", "d1"))
    latest = t.snapshots.latest_id()
    with pytest.raises(InvalidInput, match="uncompacted level-0 files, which reads do not show yet"):
        rescale(t, 3)
    assert t.snapshots.latest_id() == latest
    compact(t, full=True)
    rescale(t, 3)
    assert _counts(t) == {"d1": {(3, True)}}
    assert len(t.read()) == 10


@pytest.mark.parametrize(
    "options",
    [{"deletion-vectors.enabled": "true"}, {"merge-engine": "first-row"}],
    ids=["dv", "first-row"],
)
def test_tables_whose_reads_skip_level0_get_one_top_level_run_per_bucket(tmp_path, options):
    """The OVERWRITE is the only snapshot: its files are on the top level, one sorted run per
    bucket (the rows read are merged), so there is no moment where the partitions read empty
    (before, a full compaction followed: killed between the two, the rows were unread)."""
    t = _table(tmp_path, {"bucket": "2", "write-buffer-size": "1kb", "target-file-size": "2kb"} | options)
    t.write_arrow(_rows(range(200), "a", "d1"))
    t.write_arrow(_rows(range(100, 300), "b", "d1"))
    before, latest = _state(t), t.snapshots.latest_id()
    rescale(t, 3)
    assert t.snapshots.latest_id() == latest + 1 and t.snapshots.latest().commit_kind == "OVERWRITE"
    assert _state(t) == before
    entries = live_entries(t.manifests, t.snapshots.latest())
    assert {e.file.level for e in entries} == {t.schema.core_options.num_levels - 1}
    from paimon_core.data.binary_row import deserialize_row

    key_types = t.schema.types_of(t.schema.trimmed_primary_keys)
    for b in range(3):
        ranges = sorted(
            (deserialize_row(e.file.min_key, key_types), deserialize_row(e.file.max_key, key_types))
            for e in entries
            if e.bucket == b
        )
        assert all(prev[1] < nxt[0] for prev, nxt in zip(ranges, ranges[1:])), ranges
    assert sum(e.file.row_count for e in entries) == len(before)


def test_append_table_and_refusals(tmp_path):
    t = _table(tmp_path, {"bucket": "2", "bucket-key": "id"}, pk=())
    t.write_arrow(_rows(range(10), "a", "d1"))
    t.write_arrow(_rows(range(10), "b", "d1"))
    rescale(t, 5)
    assert _counts(t) == {"d1": {(5, True)}} and len(t.read()) == 20
    with pytest.raises(InvalidInput, match="bucket number must be positive"):
        rescale(t, 0)
    u = FileSystemCatalog(str(tmp_path / "wh")).create_table(
        "db.u", Schema(Schema.parse_columns("id BIGINT, dt STRING"), (), (), {})
    )
    with pytest.raises(InvalidInput, match="only tables with a fixed bucket number"):
        rescale(u, 2)
    with pytest.raises(InvalidInput, match="has no snapshot"):
        rescale(
            FileSystemCatalog(str(tmp_path / "wh")).create_table(
                "db.e", Schema(Schema.parse_columns("id BIGINT"), (), (), {"bucket": "2", "bucket-key": "id"})
            ),
            3,
        )
