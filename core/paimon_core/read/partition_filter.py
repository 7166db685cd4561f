"""What a predicate says about partitions, in the forms planning applies it: a manifest
filter (on a manifest's ``_PARTITION_STATS``), and an ``EntryFilter`` applied while manifest
entries are decoded (on the raw partition bytes, memoised per distinct partition).

Pruning is conservative: a partition is dropped only when ``may_match`` on its exact values
proves no row of it can match. ``needles`` (the serialized partitions an entry must have)
are derived only from top-level ``AND``-ed ``=`` / ``IN`` on every partition key of a type
whose serialization is canonical (integers, DATE, BOOLEAN, STRING/VARCHAR), so a block
skipped for holding none of them holds no matching entry.
"""

from __future__ import annotations

from itertools import product
from typing import TYPE_CHECKING

from paimon_core.data.binary_row import deserialize_row
from paimon_core.metadata.manifest_reader import EntryFilter
from paimon_core.read.predicate import And, ColumnRange, Compare, In, Or, Predicate, may_match

if TYPE_CHECKING:
    from paimon_core.data.partition import PartitionCodec
    from paimon_core.metadata.manifest import ManifestFileMeta

# partition key types whose BinaryRow bytes are one per value, written alike by every writer
_CANONICAL = {"TINYINT", "SMALLINT", "INT", "BIGINT", "DATE", "BOOLEAN", "STRING", "VARCHAR"}
_MAX_NEEDLES = 64


def partition_may_match(predicate: Predicate, codec: PartitionCodec, values: tuple) -> bool:
    ranges = {k: ColumnRange(v, v, 1 if v is None else 0, 1) for k, v in zip(codec.keys, values)}
    return may_match(predicate, ranges)


def manifest_may_match(predicate: Predicate | None, codec: PartitionCodec, meta: ManifestFileMeta) -> bool:
    """False when the manifest's partition statistics prove none of its entries (ADD or
    DELETE) is in a partition ``predicate`` can match."""
    if not codec.keys or predicate is None:
        return True
    try:
        lo = deserialize_row(meta.partition_stats.min_values, codec.types)
        hi = deserialize_row(meta.partition_stats.max_values, codec.types)
    except (ValueError, IndexError, UnicodeDecodeError):
        return True
    nulls = meta.partition_stats.null_counts or [None] * len(codec.keys)
    n = meta.num_added_files + meta.num_deleted_files
    ranges = {k: ColumnRange(a, b, c, n) for k, a, b, c in zip(codec.keys, lo, hi, nulls)}
    return may_match(predicate, ranges)


def entry_filter(predicate: Predicate | None, codec: PartitionCodec) -> EntryFilter | None:
    """The decode-time filter of ``predicate`` on partitions; None when it filters nothing
    (no predicate, an unpartitioned table, or no partition column in the predicate)."""
    if predicate is None or not codec.keys or not (predicate.columns() & set(codec.keys)):
        return None
    memo: dict[bytes, bool] = {}

    def keep(pbytes: bytes) -> bool:
        hit = memo.get(pbytes)
        if hit is None:
            try:
                hit = partition_may_match(predicate, codec, codec.from_bytes(pbytes))
            except (ValueError, IndexError, UnicodeDecodeError):
                hit = True
            memo[pbytes] = hit
        return hit

    return EntryFilter(keep, needles(predicate, codec))


def needles(predicate: Predicate, codec: PartitionCodec) -> tuple[bytes, ...] | None:
    """The serialized partitions every matching entry has, when the predicate pins each
    partition key to a few values; None otherwise."""
    if any(getattr(t, "root", None) not in _CANONICAL for t in codec.types):
        return None
    allowed = _pins(predicate, set(codec.keys))
    if set(allowed) != set(codec.keys):
        return None
    choices = [sorted(allowed[k], key=repr) for k in codec.keys]
    count = 1
    for c in choices:
        count *= len(c)
    if count > _MAX_NEEDLES:
        return None
    return tuple(codec.to_bytes(combo) for combo in product(*choices))


def _pins(p: Predicate, keys: set[str]) -> dict[str, set]:
    """For each partition key, a set its value must be in for ``p`` to hold (keys ``p``
    does not pin are absent)."""
    if isinstance(p, And):
        left, right = _pins(p.left, keys), _pins(p.right, keys)
        return {
            k: left[k] & right[k] if k in left and k in right else left.get(k, right.get(k, set()))
            for k in left.keys() | right.keys()
        }
    if isinstance(p, Or):
        left, right = _pins(p.left, keys), _pins(p.right, keys)
        return {k: left[k] | right[k] for k in left.keys() & right.keys()}
    if isinstance(p, (Compare, In)) and not p.nested and p.column in keys:
        values = _pinned(p)
        return {} if values is None else {p.column: values}
    return {}


def _pinned(p: Compare | In) -> set | None:
    if isinstance(p, Compare) and p.op == "=" and p.internal is not None:
        return {p.internal}
    if isinstance(p, In) and not p.negated and p.internals is not None:
        return {v for v in p.internals if v is not None}
    return None
