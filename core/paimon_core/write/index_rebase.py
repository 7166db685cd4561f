"""Rebasing a dynamic-bucket write's hash index onto a newer snapshot (a commit retry).

A dynamic-bucket writer assigns keys to buckets against the hash index of the snapshot it
started from, and its commit replaces the index files of the buckets it touched. When another
writer committed index changes for the same partition meanwhile, the loser's files no longer
extend the live index. The retry re-applies them: for every (partition, bucket) the loser
touched, the new index file is the live file's hashes plus the loser's.

Invariant kept: a key (its hash) is in exactly one bucket of its partition. The union keeps it
as long as no hash the loser placed in bucket b is in the live index under another bucket b'
(both writers gave the same new key different buckets): then the loser's rows for that key sit
in the wrong bucket's files, only redoing the write against the new index can fix that, and
``BucketAssignmentConflict`` says so. A bucket may end above ``dynamic-bucket.target-row-num``
after a union; the target only steers where new keys go.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from paimon_core.errors import CommitConflict
from paimon_core.metadata.index_manifest import HASH_INDEX, IndexEntry, IndexStore


class BucketAssignmentConflict(CommitConflict):
    """Another writer gave a key this write also added a different bucket; nothing was
    committed, and the write must be redone against the new index."""


def rebase_hash_index(
    store: IndexStore, live: list[IndexEntry], added: list[IndexEntry], new_files: list[IndexEntry]
) -> tuple[list[IndexEntry], list[IndexEntry]]:
    """This commit's HASH index files ``added`` re-applied on ``live`` (the newest snapshot's
    index entries). Returns (entries to add, live entries to delete); the files written are also
    appended to ``new_files`` (so a failed attempt can delete them)."""
    live_hash = defaultdict(dict)  # partition -> bucket -> live entry
    for e in live:
        if e.index_type == HASH_INDEX:
            live_hash[e.partition][e.bucket] = e
    out_add, out_delete = [], []
    by_partition = defaultdict(list)
    for a in added:
        if a.index_type != HASH_INDEX:
            raise CommitConflict(
                "another writer changed the index of the same bucket at the same time; "
                "nothing was committed, run the write again"
            )
        by_partition[a.partition].append(a)
    for partition, mine in by_partition.items():
        buckets = live_hash.get(partition, {})
        live_sets = {b: store.read_hashes(e) for b, e in buckets.items()}
        if live_sets:
            all_hashes = np.concatenate(list(live_sets.values()))
            all_buckets = np.concatenate([np.full(len(h), b, np.int32) for b, h in live_sets.items()])
        else:
            all_hashes = all_buckets = np.zeros(0, np.int32)
        for a in mine:
            hashes = store.read_hashes(a)
            elsewhere = all_hashes[(all_buckets != a.bucket) & np.isin(all_hashes, hashes)]
            if len(elsewhere):
                raise BucketAssignmentConflict(
                    f"another writer added {len(elsewhere)} of the same new key(s) to the same partition at the "
                    "same time and put them in another bucket; nothing was committed"
                )
            merged = np.union1d(live_sets.get(a.bucket, np.zeros(0, np.int32)), hashes).astype(np.int32)
            entry = store.write_hashes(partition, a.bucket, merged)
            new_files.append(entry)
            out_add.append(entry)
            if a.bucket in buckets:
                out_delete.append(buckets[a.bucket].as_delete())
    return out_add, out_delete
