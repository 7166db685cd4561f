"""Dynamic bucket mode (``bucket = -1`` on a primary-key table): keys are assigned to buckets
through HASH index files, one per (partition, bucket), each the 4-byte big-endian key hashes
of that bucket. A key stays in the bucket it was first given; a new key goes to the first
bucket holding fewer than ``dynamic-bucket.target-row-num`` keys, else to a new bucket.
Hash collisions only put two keys in the same bucket, which is harmless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paimon_core.metadata.index_manifest import HASH_INDEX, IndexEntry, IndexStore

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


class _PartitionIndex:
    def __init__(self, hashes: np.ndarray, buckets: np.ndarray):
        order = np.argsort(hashes, kind="stable")
        self.hashes = hashes[order]
        self.buckets = buckets[order]
        self.touched: set[int] = set()

    def counts(self) -> dict[int, int]:
        b, c = np.unique(self.buckets, return_counts=True)
        return dict(zip(b.tolist(), c.tolist()))

    def lookup(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        idx = np.searchsorted(self.hashes, hashes)
        idx_c = np.minimum(idx, max(len(self.hashes) - 1, 0))
        found = (
            (idx < len(self.hashes)) & (self.hashes[idx_c] == hashes)
            if len(self.hashes)
            else np.zeros(len(hashes), bool)
        )
        out = np.full(len(hashes), -1, dtype=np.int32)
        out[found] = self.buckets[idx_c[found]]
        return out, found

    def add(self, hashes: np.ndarray, buckets: np.ndarray) -> None:
        self.touched.update(np.unique(buckets).tolist())
        h = np.concatenate([self.hashes, hashes])
        b = np.concatenate([self.buckets, buckets])
        order = np.argsort(h, kind="stable")
        self.hashes, self.buckets = h[order], b[order]


class DynamicBucketAssigner:
    def __init__(self, table: TableContext, snapshot: Snapshot | None, target_rows: int):
        self.table = table
        self.store = IndexStore(table.io, table.path)
        self.target = max(1, target_rows)
        entries = self.store.read_manifest(snapshot.index_manifest if snapshot else None)
        self.base: dict[tuple, IndexEntry] = {
            (e.partition, e.bucket): e for e in entries if e.index_type == HASH_INDEX
        }
        self.partitions: dict[bytes, _PartitionIndex] = {}

    def _partition(self, pbytes: bytes) -> _PartitionIndex:
        idx = self.partitions.get(pbytes)
        if idx is None:
            hs, bs = [np.zeros(0, np.int32)], [np.zeros(0, np.int32)]
            for (p, b), e in self.base.items():
                if p == pbytes:
                    h = self.store.read_hashes(e)
                    hs.append(h)
                    bs.append(np.full(len(h), b, np.int32))
            idx = _PartitionIndex(np.concatenate(hs), np.concatenate(bs))
            self.partitions[pbytes] = idx
        return idx

    def assign(self, pbytes: bytes, hashes: np.ndarray) -> np.ndarray:
        """Bucket of each key hash; new keys are recorded for the index."""
        idx = self._partition(pbytes)
        out, found = idx.lookup(hashes)
        if found.all():
            return out
        new = hashes[~found]
        uniq, first = np.unique(new, return_index=True)
        uniq = uniq[np.argsort(first, kind="stable")]  # in order of first appearance
        counts = idx.counts()
        assigned = np.empty(len(uniq), np.int32)
        pos, bucket = 0, 0
        while pos < len(uniq):
            room = self.target - counts.get(bucket, 0)
            if room > 0:
                take = min(room, len(uniq) - pos)
                assigned[pos : pos + take] = bucket
                counts[bucket] = counts.get(bucket, 0) + take
                pos += take
            bucket += 1
        idx.add(uniq.astype(np.int32), assigned)
        out, _ = idx.lookup(hashes)
        return out

    def index_changes(self) -> tuple[list[IndexEntry], list[IndexEntry]]:
        """Write one new index file per touched bucket; returns (added, deleted) entries."""
        added, deleted = [], []
        for pbytes, idx in self.partitions.items():
            for b in sorted(idx.touched):
                added.append(self.store.write_hashes(pbytes, b, idx.hashes[idx.buckets == b]))
                old = self.base.get((pbytes, b))
                if old is not None:
                    deleted.append(old.as_delete())
            idx.touched.clear()
        return added, deleted
