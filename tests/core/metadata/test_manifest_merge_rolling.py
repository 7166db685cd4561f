"""A merged manifest is rolled at the target size of its written (compressed) bytes, as Java's
rolling writer checks its file's position, so the next commit's minor merge leaves it alone.

Rolled by an uncompressed estimate instead, merged manifests came out at a fraction of the
target; once the table's manifests passed the target size, every commit folded and rewrote all of
them again (a 1M-file table's commit rewrote about 256k entries each time)."""

from __future__ import annotations

import os

from paimon_core.catalog import FileSystemCatalog
from paimon_core.commit.file_store_commit import CommitOptions
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.manifest import DataFileMeta
from paimon_core.metadata.schema import Schema

TARGET = 64 * 1024
FILES_PER_COMMIT = 1000
COMMITS = 24


def test_merged_manifests_reach_the_target_size_on_disk_and_stay(tmp_path):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    options = {"bucket": "-1", "write-only": "true", "manifest.target-file-size": f"{TARGET}b"}
    t = cat.create_table("d.t", Schema(Schema.parse_columns("id BIGINT, v STRING"), (), (), options))
    for c in range(COMMITS):
        files = tuple(
            DataFileMeta(f"data-{c}-{i:05d}.parquet", 1000 + i, 10, schema_id=0)
            for i in range(FILES_PER_COMMIT)
        )
        t.new_commit(CommitOptions(commit_user="rolling")).commit([CommitMessage((), 0, 0, new_files=files)])

    store = t.manifests
    latest = t.snapshots.latest()
    assert latest is not None
    metas = store.read_list(latest.base_manifest_list) + store.read_list(latest.delta_manifest_list)
    assert sum(m.num_added_files for m in metas) == COMMITS * FILES_PER_COMMIT
    # nothing rewritten over and over: the manifests ever written are about one per commit plus the merges
    written = [
        n
        for n in os.listdir(os.path.join(t.path, "manifest"))
        if n.startswith("manifest-") and "list" not in n
    ]
    assert len(written) <= COMMITS + COMMITS * FILES_PER_COMMIT * 40 // TARGET + 2, len(written)
    merged = [m for m in metas if m.num_added_files > FILES_PER_COMMIT]
    assert merged, "the commits' manifests passed the target size several times: some were merged"
    # every merged manifest but the last one rolled is at least most of the target on disk
    assert all(m.file_size >= TARGET * 0.6 for m in merged[:-1]), [m.file_size for m in merged]
