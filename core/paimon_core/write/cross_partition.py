"""Cross-partition upsert (a primary key without every partition key, ``bucket = -1``).

A key lives in one (partition, bucket) of the whole table, found in the global key index
(write/key_index.py, bootstrapped from the snapshot the write starts from). Records are routed
as Java 0.9's ``GlobalIndexAssigner`` routes them, one record after another:

* a new key gets a bucket of its record's partition (``dynamic-bucket.target-row-num`` keys per
  bucket: the lowest bucket with room, else the lowest unused number);
* a key whose record is in the partition it lives in goes to its bucket;
* a key whose record names another partition, per merge engine:
  - ``deduplicate``: a -D of the record in the old (partition, bucket), then the record in
    the new partition as for a new key (the key moves);
  - ``partial-update``, ``aggregation``: the record goes to the old (partition, bucket) with
    its partition columns set to the old partition (the row is updated where it is);
  - ``first-row``: the record is dropped (the first row stays).

Keys whose records of a batch are all in one partition are routed column-wise; only the
records of keys that arrive in several partitions within a batch are walked one by one.

What a commit checks, and the refusals of paths that do not keep the index, are in
write/cross_partition_guard.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.system_columns import KIND
from paimon_core.data.types import to_arrow_type
from paimon_core.data.values import internal_to_python, internal_values
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import DYNAMIC_BUCKET_TARGET_ROW_NUM
from paimon_core.write.cross_partition_guard import check_writable
from paimon_core.write.key_index import BUCKET, PART, bootstrap

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

DELETE = 3  # row kind byte of -D


def _partition_scalars(table: TableContext, partition: tuple) -> list[pa.Scalar]:
    """A partition's values (internal form) as Arrow scalars of the columns' types."""
    out = []
    for k, v in zip(table.schema.partition_keys, partition):
        t = table.schema.field(k).type
        target = to_arrow_type(t)
        if v is not None and pa.types.is_timestamp(target):
            arr = pa.array([v], pa.int64()).cast(pa.timestamp("ns", target.tz)).cast(target)
        else:
            arr = pa.array([internal_to_python(v, t)], target)
        out.append(arr[0])
    return out


def _key_ids(keys: pa.Table) -> np.ndarray:
    """A dense id per row, equal for rows with equal keys."""
    codes = [pc.dictionary_encode(c.combine_chunks()).indices.to_numpy() for c in keys.columns]
    if len(codes) == 1:
        return codes[0].astype(np.int64)
    _, inv = np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)
    return inv.reshape(-1).astype(np.int64)


class CrossPartitionAssigner:
    """Routes the records of a write (see the module docstring), with the key index of the
    latest snapshot when it is made (``base``: its id, 0 for none)."""

    def __init__(self, table: TableContext):
        check_writable(table)
        self.table = table
        snapshot = table.snapshots.latest()
        self.base = snapshot.id if snapshot is not None else 0  # CommitOptions.index_base
        self.index = bootstrap(table, snapshot)
        self.engine = table.schema.core_options.merge_engine
        self.target = max(1, table.schema.core_options.get(DYNAMIC_BUCKET_TARGET_ROW_NUM))
        self.partition_keys = list(table.schema.partition_keys)
        self.partition_types = table.schema.types_of(self.partition_keys)

    def _row_partitions(self, batch: pa.Table) -> np.ndarray:
        from paimon_core.write.append_writer import split_by

        out = np.empty(batch.num_rows, np.int32)
        rows = batch.select(self.partition_keys).append_column("__pos", pa.array(np.arange(batch.num_rows)))
        for key, part in split_by(rows, self.partition_keys):
            partition = tuple(internal_values(s, t)[0] for s, t in zip(key, self.partition_types))
            out[part.column("__pos").to_numpy()] = self.index.part_id(partition)
        return out

    def assign(self, batch: pa.Table) -> tuple[pa.Table, np.ndarray]:
        """``batch`` (table columns + the row kind column) -> (records to write, in order per key,
        with partition columns and kinds as routed; their buckets)."""
        n = batch.num_rows
        part = self._row_partitions(batch)
        keys = batch.select(self.index.keys)
        old_part, old_bucket = self.index.lookup(keys)
        kid = _key_ids(keys)
        nk = int(kid.max()) + 1 if n else 0
        first = np.full(nk, n, np.int64)
        np.minimum.at(first, kid, np.arange(n))
        lo = np.full(nk, np.iinfo(np.int32).max, np.int32)
        hi = np.full(nk, -1, np.int32)
        np.minimum.at(lo, kid, part)
        np.maximum.at(hi, kid, part)
        k_old, k_old_bucket = old_part[first], old_bucket[first]
        one = lo == hi  # every record of the key in one partition
        new = one & (k_old < 0)
        move = one & (k_old >= 0) & (k_old != lo)  # the key moves to that partition
        k_part = k_old.copy()
        k_bucket = k_old_bucket.copy()
        dedup = self.engine is MergeEngineKind.DEDUPLICATE
        if dedup:  # the key leaves its bucket, then is placed as a new key
            pb, c = np.unique(k_old[move].astype(np.int64) << 32 | k_old_bucket[move], return_counts=True)
            for v, m in zip(pb.tolist(), c.tolist()):
                self.index.add_count(v >> 32, v & 0xFFFFFFFF, -m)
        self._place(np.flatnonzero(new | move) if dedup else np.flatnonzero(new), first, lo, k_part, k_bucket)
        pieces = []
        kept = one & ~move | (move if dedup else False)  # records written where they are
        if kept.all():
            pieces.append((batch, k_bucket[kid]))
        else:
            rows = np.flatnonzero(kept[kid])
            pieces.append((batch.take(pa.array(rows)), k_bucket[kid[rows]]))
        if move.any() and dedup:  # a -D of the key in its old (partition, bucket)
            keys_moved = np.flatnonzero(move)
            retract = self._relocate(batch.take(pa.array(first[keys_moved])), k_old[keys_moved], DELETE)
            pieces.append((retract, k_old_bucket[keys_moved]))
        elif move.any() and self.engine in (MergeEngineKind.PARTIAL_UPDATE, MergeEngineKind.AGGREGATION):
            rows = np.flatnonzero(move[kid])
            pieces.append(
                (self._relocate(batch.take(pa.array(rows)), k_old[kid[rows]]), k_old_bucket[kid[rows]])
            )
        # first-row: the records of a key living in another partition are dropped
        multi = np.flatnonzero(~one)
        if len(multi):
            rows_multi = np.isin(kid, multi)
            pieces.append(
                self._route_multi(batch, part, kid, old_part, old_bucket, rows_multi, k_part, k_bucket)
            )
        out = pa.concat_tables([t.cast(batch.schema) for t, _ in pieces])
        buckets = np.concatenate([b for _, b in pieces]).astype(np.int32)
        changed = np.flatnonzero(new | (move if dedup else False) | ~one)
        self._record(keys, first, changed, k_part, k_bucket)
        return out, buckets

    def _place(self, fresh: np.ndarray, first, lo, k_part, k_bucket) -> None:
        """Buckets for keys placed as new ones in partition ``lo``, in order of first appearance."""
        fresh = fresh[np.argsort(first[fresh], kind="stable")]
        parts = lo[fresh]
        for pid in np.unique(parts).tolist():
            sel = fresh[parts == pid]
            k_bucket[sel] = self.index.new_buckets(pid, len(sel), self.target)
            k_part[sel] = pid

    def _relocate(self, records: pa.Table, dst: np.ndarray, kind: int | None = None) -> pa.Table:
        """``records`` with their partition columns set to partitions ``dst`` (and row kind)."""
        records = self._set_partitions(records, dst, np.ones(len(dst), bool))
        if kind is not None:
            kinds = pa.array(np.full(records.num_rows, kind, np.int8))
            records = records.set_column(records.schema.get_field_index(KIND), KIND, kinds)
        return records

    def _route_multi(self, batch, part, kid, old_part, old_bucket, rows_multi, k_part, k_bucket):
        """Records of keys that arrive in several partitions, one after another: (the records to
        write, their buckets)."""
        state: dict[int, tuple[int, int]] = {}
        src, dst_part, dst_bucket, kinds = [], [], [], []

        def emit(row: int, partition, bucket: int, kind: int) -> None:
            """Route input ``row`` to (``partition``, ``bucket``) as ``kind`` (-1: as given)."""
            src.append(row)
            dst_part.append(partition)
            dst_bucket.append(bucket)
            kinds.append(kind)

        for i in np.flatnonzero(rows_multi).tolist():
            k, q = int(kid[i]), int(part[i])
            cur = state.get(k)
            if cur is None and old_part[i] >= 0:
                cur = (int(old_part[i]), int(old_bucket[i]))
            if cur is None or cur[0] == q:
                if cur is None:
                    cur = (q, int(self.index.new_buckets(q, 1, self.target)[0]))
                emit(i, q, cur[1], -1)
            elif self.engine is MergeEngineKind.DEDUPLICATE:
                p, b = cur
                emit(i, p, b, DELETE)
                self.index.add_count(p, b, -1)
                cur = (q, int(self.index.new_buckets(q, 1, self.target)[0]))
                emit(i, q, cur[1], -1)
            elif self.engine in (MergeEngineKind.PARTIAL_UPDATE, MergeEngineKind.AGGREGATION):
                emit(i, cur[0], cur[1], -1)
            # first-row: a record for a key living in another partition is dropped
            state[k] = cur
        for k, (p, b) in state.items():
            k_part[k], k_bucket[k] = p, b
        src_a = np.array(src, np.int64)
        moved = batch.take(pa.array(src_a))
        dst_a = np.array(dst_part, np.int32)
        relocated = dst_a != part[src_a]
        if relocated.any():
            moved = self._set_partitions(moved, dst_a, relocated)
        kinds_a = np.array(kinds, np.int8)
        if (kinds_a >= 0).any():
            col = moved.column(KIND).to_numpy().astype(np.int8)
            col = np.where(kinds_a >= 0, kinds_a, col)
            moved = moved.set_column(moved.schema.get_field_index(KIND), KIND, pa.array(col, pa.int8()))
        return moved, np.array(dst_bucket, np.int32)

    def _set_partitions(self, moved: pa.Table, dst: np.ndarray, relocated: np.ndarray) -> pa.Table:
        """Partition columns of the relocated records set to their destination partition."""
        pids = np.unique(dst[relocated])
        values = [_partition_scalars(self.table, self.index.partitions[p]) for p in pids.tolist()]
        at = pa.array(np.minimum(np.searchsorted(pids, dst), len(pids) - 1))
        mask = pa.array(relocated)
        for i, k in enumerate(self.partition_keys):
            col = moved.column(k).combine_chunks()
            new = pa.array([v[i] for v in values], col.type).take(at)
            moved = moved.set_column(
                moved.schema.get_field_index(k), moved.schema.field(k), pc.if_else(mask, new, col)
            )
        return moved

    def _record(self, keys: pa.Table, first: np.ndarray, changed: np.ndarray, k_part, k_bucket) -> None:
        """The index after this batch: the keys in ``changed`` live at (k_part, k_bucket)."""
        live = changed[k_part[changed] >= 0]
        if not len(live):
            return
        rows = keys.take(pa.array(first[live]))
        rows = rows.append_column(PART, pa.array(k_part[live].astype(np.int32)))
        rows = rows.append_column(BUCKET, pa.array(k_bucket[live].astype(np.int32)))
        self.index.replace(rows)
