"""The table rules that depend on options alone (with column names where a rule names columns):
checked when a table schema is made (``metadata/schema_rules.py``), when an option is set, and by
the readers and writers that refuse what they cannot honour.
"""

from __future__ import annotations

from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.options.bucket_mode import POSTPONE_BUCKET
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import BUCKET_FUNCTION_TYPE, DELETION_VECTORS_ENABLED, TYPE


def check_feature_options(
    options: dict, writing: bool, what: str = "table", assigns_buckets: bool = True
) -> None:
    """Raise UnsupportedFeature for option values we cannot honour (``writing``: also those
    that matter only to writers; ``assigns_buckets``: the write hashes rows to buckets, which a
    compaction inside a bucket does not, unless it moves postpone rows)."""
    kind = CoreOptions(options).get(TYPE).strip().lower()
    if kind != "table":
        raise UnsupportedFeature(
            f"{what} has type = {kind} (only Paimon tables with snapshots are supported)"
        )
    if not writing:
        return
    opts = CoreOptions(options)
    func = opts.get(BUCKET_FUNCTION_TYPE)
    if func != "default" and (assigns_buckets or opts.bucket == POSTPONE_BUCKET):
        raise UnsupportedFeature(
            f"{what} sets bucket-function.type = {func}: only the default bucket function "
            "is supported for writing"
        )


DESCRIPTOR_OPTIONS = ("blob-descriptor-field", "blob.stored-descriptor-fields", "blob-external-storage-field")


def check_blob_descriptors(options: dict, what: str = "table") -> None:
    """Refuse, by name, writing BLOB columns stored as descriptors of bytes kept elsewhere: a
    writer would have to put the bytes in that storage (reading them is supported,
    ``read/blob_descriptors.py``)."""
    for key in DESCRIPTOR_OPTIONS:
        raw = (options.get(key) or "").strip()
        if raw:
            raise UnsupportedFeature(
                f"{what} sets {key} = {raw}: writing those BLOB columns (descriptors pointing to "
                "bytes in other storage, not in the table) is not supported"
            )


def check_dv_options(options: dict, has_primary_key: bool) -> None:
    """Refuse what Paimon refuses with deletion vectors, and what is not implemented here."""
    opts = CoreOptions(options)
    if not opts.get(DELETION_VECTORS_ENABLED) or not has_primary_key:
        return
    if opts.merge_engine is MergeEngineKind.FIRST_ROW:
        raise InvalidInput("deletion vectors are not supported with merge-engine=first-row (as in Paimon)")
    producer = opts.changelog_producer
    if producer == "full-compaction":
        raise InvalidInput(
            "deletion vectors are not supported with changelog-producer=full-compaction (as in Paimon)"
        )


PK_INDEX_FAMILIES = ("pk-btree.index.columns", "pk-bitmap.index.columns")
OTHER_PK_INDEX_FAMILIES = (
    "pk-vector.index.columns",
    "pk-full-text.index.columns",
    "pk-multivalue.index.columns",
)


def index_columns(options: dict, key: str) -> list[str]:
    """The columns a primary-key index option lists."""
    raw = options.get(key)
    return [c.strip() for c in str(raw).split(",") if c.strip()] if raw else []


def check_pk_index_options(
    options: dict, columns: list[str], primary_keys: list[str] | tuple[str, ...], bucket: int
) -> None:
    """Java's ``SchemaValidation`` for BTree and Bitmap primary-key indexes at create/alter
    table: a primary-key table with deletion vectors (not merge-on-read) in fixed or postpone
    buckets, no column listed twice or by two index families, every column a column. Raises
    ``InvalidInput`` naming the rule."""
    seen: set[str] = set()
    for key in PK_INDEX_FAMILIES + OTHER_PK_INDEX_FAMILIES:
        cols = index_columns(options, key)
        if len(set(cols)) != len(cols):
            raise InvalidInput(f"{key} must not contain duplicate columns, but is {cols}")
        for c in cols:
            if c in seen:
                raise InvalidInput(f"column '{c}' can own at most one primary-key index")
            seen.add(c)
    if not any(index_columns(options, k) for k in PK_INDEX_FAMILIES):
        return
    what = "primary-key BTree and Bitmap indexes"
    opts = CoreOptions(options)
    if not opts.get(DELETION_VECTORS_ENABLED):
        raise InvalidInput(f"{what} require deletion-vectors.enabled = true (as in Paimon)")
    if not primary_keys:
        raise InvalidInput(f"{what} require a primary-key table (as in Paimon)")
    if not (bucket > 0 or bucket == POSTPONE_BUCKET):
        raise InvalidInput(
            f"{what} require fixed or postpone buckets (bucket > 0 or bucket = -2), but bucket is {bucket}"
        )
    if str(options.get("deletion-vectors.merge-on-read", "false")).strip().lower() != "false":
        raise InvalidInput(f"{what} require deletion-vectors.merge-on-read = false (as in Paimon)")
    for key in PK_INDEX_FAMILIES:
        for c in index_columns(options, key):
            if c not in columns:
                raise InvalidInput(f"{key} entry '{c}' must reference an existing column")
