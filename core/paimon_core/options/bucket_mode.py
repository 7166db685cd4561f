"""How a table spreads rows over buckets (Paimon's ``BucketMode``), decided in one place from the
``bucket`` option and the keys, and the bucket numbers with a meaning of their own.

Invariant: every decision that depends on the bucket mode asks ``TableSchema.bucket_mode``
(``mode_of`` here); no code compares the ``bucket`` option with -1 or -2 itself."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

DYNAMIC_BUCKET = -1  # the ``bucket`` option of dynamic-bucket and bucket-unaware tables
POSTPONE_BUCKET = -2  # the ``bucket`` option of postpone tables, and the bucket their rows wait in


class BucketMode(Enum):
    HASH_FIXED = "hash-fixed"  # bucket = N > 0: hash of the bucket key modulo N
    HASH_DYNAMIC = "hash-dynamic"  # primary key, bucket = -1, key holds the partition: hash index
    KEY_DYNAMIC = "key-dynamic"  # primary key, bucket = -1, key leaves out partition keys: global index
    BUCKET_UNAWARE = "bucket-unaware"  # append table, bucket = -1: no buckets (bucket 0)
    POSTPONE = "postpone"  # primary key, bucket = -2: rows wait in bucket-postpone for a compaction

    @property
    def is_dynamic(self) -> bool:
        return self in (BucketMode.HASH_DYNAMIC, BucketMode.KEY_DYNAMIC)


def mode_of(bucket: int, primary_keys: Sequence[str], partition_keys: Sequence[str]) -> BucketMode:
    """The mode of a table with the ``bucket`` option and these keys."""
    if bucket == POSTPONE_BUCKET:
        return BucketMode.POSTPONE
    if bucket > 0:
        return BucketMode.HASH_FIXED
    if not primary_keys:
        return BucketMode.BUCKET_UNAWARE
    if set(partition_keys) <= set(primary_keys):
        return BucketMode.HASH_DYNAMIC
    return BucketMode.KEY_DYNAMIC
