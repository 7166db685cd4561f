"""The rulebook of table schemas: every rule a table's columns, keys and options must meet, stated
once. ``Schema.to_table_schema`` runs it, so every creator of a table schema does: the filesystem
and metastore catalogs at create-table, the REST client before it sends one, the schema evolution
on the result of every alter-table. Rules that depend on options alone live in
``options/table_rules.py`` (also checked when an option is set, and by readers and writers);
``merge_options.validate_merge_options`` holds the merge engine's.

``check_schema`` raises ``InvalidInput`` or ``UnsupportedFeature`` naming the rule, and returns
the table's bucket number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from paimon_core.data.system_columns import is_system_name
from paimon_core.data.types import AtomicType, DataType, to_arrow_type
from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.fileformat.formats import check_options as check_format_options
from paimon_core.metadata.merge_options import validate_merge_options
from paimon_core.options.bucket_mode import POSTPONE_BUCKET, BucketMode, mode_of
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import DATA_EVOLUTION_ENABLED, ROW_TRACKING_ENABLED
from paimon_core.options.table_rules import (
    check_blob_descriptors,
    check_dv_options,
    check_feature_options,
    check_pk_index_options,
)
from paimon_core.options.validation import validate_options


@dataclass(frozen=True)
class _Draft:
    columns: Sequence[tuple[str, DataType, str | None]]
    partition_keys: tuple[str, ...]
    primary_keys: tuple[str, ...]


def check_schema(
    columns: Sequence[tuple[str, DataType, str | None]],
    partition_keys: Sequence[str],
    primary_keys: Sequence[str],
    options: dict[str, str],
) -> int:
    """Every rule on a table's ``columns`` ((name, type, description)), keys and ``options``
    (strings); returns its bucket number."""
    s = _Draft(columns, tuple(partition_keys), tuple(primary_keys))
    names = [c[0] for c in columns]
    types = {c[0]: c[1] for c in columns}
    _check_columns(s, names)
    _check_keys(s, names, types)
    return _check_options(s, options, names, types)


def _check_columns(s: _Draft, names: list[str]) -> None:
    if not names:
        raise InvalidInput("a table needs at least one column")
    seen = set()
    for n in names:
        if not n or n != n.strip():
            raise InvalidInput(f"bad column name '{n}'")
        if n.lower() in seen:
            raise InvalidInput(f"column '{n}' is defined twice")
        if is_system_name(n):
            raise InvalidInput(f"column name '{n}' is reserved by Paimon")
        seen.add(n.lower())


def _check_keys(s: _Draft, names: list[str], types: dict) -> None:
    """Partition and primary keys: existing atomic columns; the primary key holds the
    partition keys and at least one other column."""
    for label, keys in (("partition", s.partition_keys), ("primary", s.primary_keys)):
        for k in keys:
            if k not in names:
                raise InvalidInput(f"{label} key '{k}' is not a column (columns: {', '.join(names)})")
        if len(set(keys)) != len(keys):
            raise InvalidInput(f"{label} keys repeat a column: {', '.join(keys)}")
    for k in s.partition_keys:
        if not isinstance(types[k], AtomicType):
            raise InvalidInput(f"partition key '{k}' must have an atomic type, not {types[k]}")
    for k in s.primary_keys:
        if not isinstance(types[k], AtomicType):
            raise InvalidInput(f"primary key '{k}' must have an atomic type, not {types[k]}")
    if s.primary_keys and s.partition_keys:
        if not [k for k in s.primary_keys if k not in s.partition_keys]:
            raise InvalidInput("the primary key must have a column that is not a partition key")


def _check_options(s: _Draft, options: dict[str, str], names: list[str], types: dict) -> int:
    """The options against the registry, the file formats, bucketing, newer features, merge
    engines and deletion vectors; returns the table's bucket number."""
    validate_options(options, names)
    opts = CoreOptions(options, s.primary_keys)
    bucket = opts.bucket
    if bucket == 0 or bucket < POSTPONE_BUCKET:
        raise InvalidInput(
            f"bucket must be a positive number of buckets, -1 (dynamic) or -2 (postpone), not {bucket}"
        )
    check_format_options(options, pa.schema([pa.field(n, to_arrow_type(t)) for n, t, _ in s.columns]))
    _check_bucket_key(s, opts.bucket_key, bucket, names, types)
    if bucket == POSTPONE_BUCKET and not s.primary_keys:
        raise InvalidInput("postpone buckets (bucket = -2) need a primary key")
    _check_cross_partition(s, opts, bucket)
    check_feature_options(options, writing=True, what="a table")
    blobs = [n for n, t, _ in s.columns if getattr(t, "root", None) == "BLOB"]
    if blobs and not opts.get(DATA_EVOLUTION_ENABLED):
        raise UnsupportedFeature(
            f"BLOB columns ({', '.join(blobs)}) need data-evolution.enabled = true and "
            "row-tracking.enabled = true, as in Paimon"
        )
    if blobs:
        check_blob_descriptors(options, "a table")
    if blobs and len(blobs) == len(s.columns):
        raise InvalidInput("a table with BLOB columns needs other columns too, as in Paimon")
    if set(blobs) & set(s.partition_keys):
        raise InvalidInput("a BLOB column cannot be a partition key, as in Paimon")
    for option, feature in (
        (DATA_EVOLUTION_ENABLED, "data evolution"),
        (ROW_TRACKING_ENABLED, "row tracking"),
    ):
        mode = mode_of(bucket, s.primary_keys, s.partition_keys)
        if opts.get(option) and mode is not BucketMode.BUCKET_UNAWARE:
            raise UnsupportedFeature(
                f"{feature} ({option.key}) needs an append table without fixed buckets (bucket = -1), as in Paimon"
            )
    if s.primary_keys:
        validate_merge_options(options, types, s.primary_keys, s.partition_keys)
    elif any(k in options for k in ("merge-engine", "sequence.field")):
        raise InvalidInput("merge-engine and sequence.field need a primary key").with_hint("primary_key")
    check_dv_options(options, bool(s.primary_keys))
    check_pk_index_options(options, names, s.primary_keys, bucket)
    return bucket


def _check_cross_partition(s: _Draft, opts: CoreOptions, bucket: int) -> None:
    """A primary key without every partition key: with ``bucket = -1`` Paimon's cross-partition
    upsert mode (without ``sequence.field``); with ``bucket = N`` plain fixed buckets, a key
    unique within its partition (Java 1.x; Java 0.9 refused it); never postponed buckets."""
    missing = [p for p in s.partition_keys if s.primary_keys and p not in s.primary_keys]
    if not missing:
        return
    mode = mode_of(bucket, s.primary_keys, s.partition_keys)
    if mode is BucketMode.HASH_FIXED:
        return
    if mode is not BucketMode.KEY_DYNAMIC:
        columns = ",".join(list(s.partition_keys) + list(s.primary_keys))
        raise InvalidInput(
            f"a primary key without the partition keys ({', '.join(missing)} missing) is a cross-partition "
            f"upsert table, which needs dynamic buckets (bucket = -1), not bucket = {bucket}"
        ).with_hint("primary_key_columns", columns=columns)
    if opts.sequence_fields:
        raise InvalidInput(
            "sequence.field cannot be used on a cross-partition upsert table (a primary key without "
            f"the partition keys: {', '.join(missing)} missing)"
        )


def _check_bucket_key(s: _Draft, bucket_key: list[str], bucket: int, names: list[str], types: dict) -> None:
    for k in bucket_key:
        if k not in names:
            raise InvalidInput(f"bucket-key column '{k}' is not a column")
        if k in s.partition_keys:
            raise InvalidInput(f"bucket-key column '{k}' must not be a partition key")
        if s.primary_keys and k not in s.primary_keys:
            raise InvalidInput(f"bucket-key column '{k}' must be part of the primary key")
        if not isinstance(types[k], AtomicType):
            raise InvalidInput(f"bucket-key column '{k}' must have an atomic type")
    if bucket_key and bucket <= 0:
        raise InvalidInput("bucket-key needs a fixed number of buckets (bucket option > 0)").with_hint(
            "bucket"
        )
    if not s.primary_keys and bucket > 0 and not bucket_key:
        raise InvalidInput(
            "an append table with fixed buckets needs a bucket key (option bucket-key)"
        ).with_hint("bucket_key")
