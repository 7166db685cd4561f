"""The global key index of a cross-partition upsert table: key -> (partition, bucket).

Java Paimon 0.9 persists no such index: every write job bootstraps it from the table (its
``IndexBootstrap``), and so does :func:`bootstrap`. It reads the trimmed primary-key columns of
the live (merged) rows of every (partition, bucket) of a snapshot; level-0 files are read too,
also for first-row and deletion-vector tables whose batch reads skip them (Java's bootstrap
skips them, which can let a key written there appear again in another partition).

Options, as Java defines them:

* ``cross-partition-upsert.index-ttl``: a (partition, bucket) none of whose files was created
  within the TTL is left out of the index (its keys are then treated as new: the user accepts
  duplicates for a smaller index);
* ``cross-partition-upsert.bootstrap-parallelism``: how many buckets are read at once.

Invariant: the index holds each key once. A table that already holds a key in two places (two
partitions or two buckets) is refused with the key named, as Java's bootstrap fails on it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.clock import now_ms
from paimon_core.data.no_rows import no_rows
from paimon_core.errors import PaimonError
from paimon_core.options.registry import (
    CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM,
    CROSS_PARTITION_UPSERT_INDEX_TTL,
)

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

PART = "_PART"
BUCKET = "_BUCKET"


class DuplicateKeyInTable(PaimonError):
    """The table already holds a key in two places; nothing was written."""


def _created_ms(f) -> int:
    t = f.creation_time
    if t is None:
        return 0
    if isinstance(t, int):
        return t
    return int(t.timestamp() * 1000)  # a naive time is the writer's local time, as Java's


def _fresh(split, ttl_ms: int, now_ms: int) -> bool:
    """Java's rule: a bucket is kept when any of its files was created within the TTL."""
    return any(now_ms <= _created_ms(f) + ttl_ms for f in split.files)


class KeyIndex:
    """Keys (the trimmed primary-key columns) with a partition id and a bucket each; partitions
    are numbered in :attr:`partitions` (internal-value tuples)."""

    def __init__(self, table: TableContext):
        schema = table.schema
        self.keys = list(schema.trimmed_primary_keys)
        self.table = table
        self.partitions: list[tuple] = []
        self._ids: dict[tuple, int] = {}
        fields = [pa.field(k, schema.arrow_schema().field(k).type) for k in self.keys]
        self.rows = no_rows(pa.schema(fields + [pa.field(PART, pa.int32()), pa.field(BUCKET, pa.int32())]))
        self.counts: dict[int, dict[int, int]] = {}  # partition id -> bucket -> keys
        self._sorted: tuple | None = None  # one integer key column: (sorted keys, their rows)

    def _int_keys(self) -> tuple[np.ndarray, np.ndarray] | None:
        """For a single integer key column, the index's keys sorted and their row numbers (a
        binary search instead of a hash join); None for other keys."""
        if len(self.keys) != 1 or not pa.types.is_integer(self.rows.schema.field(0).type):
            return None
        if self._sorted is None:
            keys = self.rows.column(0).to_numpy()
            order = np.argsort(keys, kind="stable")
            self._sorted = (keys[order], order)
        return self._sorted

    def part_id(self, partition: tuple) -> int:
        pid = self._ids.get(partition)
        if pid is None:
            pid = self._ids[partition] = len(self.partitions)
            self.partitions.append(partition)
        return pid

    def lookup(self, keys: pa.Table) -> tuple[np.ndarray, np.ndarray]:
        """(partition id, bucket) of each row of ``keys``; -1 where the key is not indexed."""
        n = keys.num_rows
        probe = keys.select(self.keys).append_column("_POS", pa.array(np.arange(n, dtype=np.int64)))
        part = np.full(n, -1, np.int32)
        bucket = np.full(n, -1, np.int32)
        ints = self._int_keys() if self.rows.num_rows and n else None
        if ints is not None:
            sk, order = ints
            q = keys.column(self.keys[0]).to_numpy()
            at = np.minimum(np.searchsorted(sk, q), len(sk) - 1)
            found = sk[at] == q
            rows = order[at[found]]
            part[found] = self.rows.column(PART).to_numpy()[rows]
            bucket[found] = self.rows.column(BUCKET).to_numpy()[rows]
        elif self.rows.num_rows and n:
            hit = probe.join(self.rows, self.keys, join_type="inner", use_threads=False)
            pos = hit.column("_POS").to_numpy()
            part[pos] = hit.column(PART).to_numpy()
            bucket[pos] = hit.column(BUCKET).to_numpy()
        return part, bucket

    def replace(self, updates: pa.Table) -> None:
        """Set the (partition, bucket) of the keys in ``updates`` (each key once)."""
        if not updates.num_rows:
            return
        updates = updates.select(self.rows.schema.names).cast(self.rows.schema)
        kept = self.rows
        if kept.num_rows:
            kept = kept.join(updates.select(self.keys), self.keys, join_type="left anti", use_threads=False)
            kept = kept.select(self.rows.schema.names)
        self.rows = pa.concat_tables([kept, updates]).combine_chunks()
        self._sorted = None

    def add_count(self, pid: int, bucket: int, delta: int) -> None:
        per = self.counts.setdefault(pid, {})
        per[bucket] = per.get(bucket, 0) + delta

    def new_buckets(self, pid: int, m: int, target: int) -> np.ndarray:
        """Buckets for ``m`` new keys of a partition, as Java's cross-partition assigner gives
        them one by one: the lowest existing bucket below ``target`` keys, else the lowest bucket
        number not in use."""
        per = self.counts.setdefault(pid, {})
        out = np.empty(m, np.int32)
        pos = 0
        for b in sorted(per):
            room = target - per[b]
            if room > 0 and pos < m:
                take = min(room, m - pos)
                out[pos : pos + take] = b
                per[b] += take
                pos += take
        b = 0
        while pos < m:
            if b not in per:
                take = min(target, m - pos)
                out[pos : pos + take] = b
                per[b] = take
                pos += take
            b += 1
        return out


def bootstrap(table: TableContext, snapshot: Snapshot | None) -> KeyIndex:
    """The key index of ``snapshot`` (None: an empty table)."""
    index = KeyIndex(table)
    if snapshot is None:
        return index
    opts = table.schema.core_options
    from paimon_core.read.scan import plan
    from paimon_core.read.table_read import TableRead

    splits = plan(table.for_snapshot(snapshot), snapshot, all_levels=True)
    ttl = opts.get(CROSS_PARTITION_UPSERT_INDEX_TTL)
    if ttl is not None:
        now = now_ms()
        splits = [s for s in splits if _fresh(s, ttl, now)]
    reader = TableRead(table, index.keys)
    threads = max(1, min(opts.get(CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM), len(splits) or 1))
    with ThreadPoolExecutor(threads) as pool:
        tables = list(pool.map(reader.read_split, splits))
    parts = []
    for split, t in zip(splits, tables):
        if not t.num_rows:
            continue
        pid = index.part_id(split.partition)
        index.add_count(pid, split.bucket, t.num_rows)
        n = t.num_rows
        parts.append(
            t.select(index.keys)
            .append_column(PART, pa.array(np.full(n, pid, np.int32)))
            .append_column(BUCKET, pa.array(np.full(n, split.bucket, np.int32)))
        )
    if parts:
        rows = pa.concat_tables(parts).cast(index.rows.schema).combine_chunks()
        _check_unique(table, index, rows)
        index.rows = rows
    return index


def _check_unique(table: TableContext, index: KeyIndex, rows: pa.Table) -> None:
    counts = rows.select(index.keys).group_by(index.keys, use_threads=False).aggregate([([], "count_all")])
    dup = counts.filter(pc.greater(counts.column("count_all"), 1))
    if not dup.num_rows:
        return
    first = dup.slice(0, 1).select(index.keys)
    where = rows.join(first, index.keys, join_type="inner", use_threads=False)
    codec = table.partition_codec
    places = [
        f"{codec.display(codec.spec(index.partitions[p]))} bucket {b}"
        for p, b in zip(where.column(PART).to_pylist(), where.column(BUCKET).to_pylist())
    ]
    key = ", ".join(f"{k}={first.column(k)[0].as_py()}" for k in index.keys)
    raise DuplicateKeyInTable(
        f"table {table.identifier} already holds key ({key}) in {len(places)} places ({'; '.join(places)}) "
        f"and {dup.num_rows} key(s) in all: a cross-partition upsert table must hold each key once; nothing "
        "was written"
    )
