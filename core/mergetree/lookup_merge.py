"""Merging records of ``changelog-producer = lookup`` tables the way Java Paimon 0.9 does.

Java's lookup compactions write a key's *whole* merged value above level 0: when the records
they merge hold no record of the key from above level 0, they look its newest value up in the
older levels and fold it in. Readers and compactions of these tables therefore take, per key,
only the newest record among the files above level 0 and merge the level-0 records on top of it
(Java's LookupMergeFunction); older records above level 0 are stale copies that merging would
count again (aggregation) or bring back (partial-update fields a newer value overwrote).

Invariant (kept by ``compaction.compact_pk_files``): every record above level 0 of such a table
holds the key's full merged value as of its sequence number. First-row tables are left out:
their records above level 0 never share a key.
"""

from __future__ import annotations

import pyarrow as pa
from paimon_core.mergetree.merge_engines import key_boundaries, sequence_fields, sort_by_key_and_sequence


def uses_lookup_merge(schema) -> bool:
    opts = schema.core_options
    return bool(schema.primary_keys) and opts.changelog_producer == "lookup" and opts.merge_engine != "first-row"


def newest_records(data: pa.Table, keys: list[str], options: dict) -> pa.Table:
    """One record per key: the last in sequence order (sequence fields, then sequence number)."""
    if data.num_rows == 0:
        return data
    descending = options.get("sequence.field.sort-order", "ascending").lower() == "descending"
    data = sort_by_key_and_sequence(data, keys, sequence_fields(options), descending)
    _, last = key_boundaries(data, keys)
    return data.filter(last)


def lookup_merge(engine, options: dict, upper: list[pa.Table], level0: list[pa.Table],
                 drop_retracts: bool = False) -> pa.Table:
    """``engine`` (a MergeEngine) over the newest ``upper`` record of each key (records from
    files above level 0) and every ``level0`` record."""
    parts = ([newest_records(pa.concat_tables(upper), engine.keys, options)] if upper else []) + list(level0)
    return engine.merge(pa.concat_tables(parts), drop_retracts=drop_retracts)
