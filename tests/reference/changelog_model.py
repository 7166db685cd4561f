"""A plain-Python model of the changelog Paimon's ``lookup`` and ``full-compaction`` producers
write, key by key, from the states of a primary-key table before and after, with no reference
to paimon_core.

``expected_changelog(before, records, after, options)``: ``before`` and ``after`` map a key to
its row (what a batch read returns) before the changes and after them; ``records`` are the
records written in between as ``(row_kind, key, ...)`` tuples; ``options`` the table options.
The result is the changelog, a ``Counter`` of ``(row_kind, key, row)``: Paimon writes no order
a reader could rely on across keys, so a multiset.

What "in between" means depends on the producer:

* ``lookup``: the records of the level-0 files one compaction takes up. Java's writers compact
  level 0 at every commit (the lookup compaction at prepareCommit), so these are one commit's
  records, ``before`` is the table before the commit and ``after`` after it.
* ``full-compaction``: the records written since the last full compaction of the bucket
  (``full-compaction.delta-commits`` commits), ``before`` the table at that full compaction.

Paimon 0.9's sources, and why the model is a function of the two states:

* Which keys get changelog. Lookup (``LookupChangelogMergeFunctionWrapper.getResult``): a key
  with a record in a level-0 file of the compaction (``containLevel0``), nothing for the others.
  Full compaction (``FullChangelogMergeFunctionWrapper``): a key with a record outside the top
  level; a key whose only record is its top-level one is not merged and gives nothing. A key
  has a record in level 0 when a record of it survives the writer: ``TableWriteImpl`` drops
  retractions (-U/-D) under ``ignore-delete`` (and its fallback keys ``deduplicate.``,
  ``first-row.``, ``partial-update.ignore-delete``) before they reach the write buffer, so a
  key whose records were all ignored retractions has none. The write buffer then merges a
  key's records into one (``SortBufferWriteBuffer``), which keeps the key: deduplicate and
  aggregation always give a record, and so does partial-update under
  ``remove-record-on-delete`` in this project (a key with only -U records keeps a -U, which
  changes nothing, a -D stays a -D; master merges several -U records of a key in one commit
  into a DELETE record, which then deletes the row: a quirk the model does not follow; for 0.9
  see the last point).
* Before and after. Lookup: ``before`` is the key's latest record above level 0 (in the
  compaction or looked up in the levels above its output). Lookup tables merge with
  ``LookupMergeFunction``, which keeps only a key's latest record above level 0 because every
  compaction of level-0 records merged the older state into it, so that record is the key's
  row as a batch read returns it. Full compaction: ``before`` is the key's top-level record,
  the table at the last full compaction. ``after`` is the merge of all of it: the table after.
  A retraction as before (a -D a non-top level keeps) counts as no row.
* What is emitted (``setChangelog`` / ``getResult``, identical in both wrappers and in master):
  no row before and a row after: +I(after); a row before and none after: -D(before); a row
  before and after: -U(before), +U(after), also when the two are equal unless
  ``changelog-producer.row-deduplicate`` (then nothing when the values are equal; Java's
  ``RecordEqualiser`` compares the stored values, so maps compare in entry order). No row
  before and none after (a key inserted and deleted between two compactions, a -D of an absent
  key): nothing.
* Partial-update and aggregation: the changelog carries the merged values (before: the
  previous merged row, after: the new merged row), never the records as written.
* First-row (lookup only; ``FirstRowMergeFunctionWrapper``): a key already stored above level 0
  gives nothing, a new key gives +I of its first row: +I for the keys of ``after`` missing from
  ``before``. Retractions never change a first-row table (Java 0.9 refuses them without
  ``ignore-delete``; this project ignores them), so nothing else.
* ``partial-update.remove-record-on-delete``: a -U leaves the row as it is (-U/+U of equal
  rows for a stored key, nothing for an absent one) and a -D removes it, so a stored key gives
  -D(before). This is master's behaviour for a -D and for a lone -U (its merge function
  returns a DELETE record for a -D, the stored row for a -U after it). Java 0.9 fails there, checked with the interop harness: its merge
  function returns null for a -D, which the lookup and full-compaction wrappers dereference
  (a NullPointerException, the commit fails) and the write buffer drops (+U then -D of a key in
  one commit: the delete is lost); -U records of an absent key become a row of nulls that 0.9
  cannot read back (ParquetDecodingException). The model, like this project, follows master.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

RETRACT = ("-U", "-D")
_IGNORE_DELETE_KEYS = (
    "ignore-delete",
    "deduplicate.ignore-delete",
    "first-row.ignore-delete",
    "partial-update.ignore-delete",
)


def _true(options: dict, key: str) -> bool:
    return str(options.get(key, "false")).lower() == "true"


def ignores_delete(options: dict) -> bool:
    """Does the writer drop retractions before they reach a file (``TableWriteImpl``)?"""
    return any(_true(options, k) for k in _IGNORE_DELETE_KEYS)


def keys_with_records(records: Iterable[tuple], options: dict) -> set:
    """The keys that have a record in the files a changelog-producing compaction merges:
    every key written, except those whose records were all retractions the writer ignored.
    First-row: retractions never count (Java 0.9 refuses them without ``ignore-delete``; this
    project drops them, as ``ignore-delete`` would)."""
    drop = ignores_delete(options) or options.get("merge-engine") == "first-row"
    return {r[1] for r in records if not (drop and r[0] in RETRACT)}


def expected_changelog(
    before: dict,
    records: Iterable[tuple],
    after: dict,
    options: dict,
    same: Callable[[Any, Any], bool] | None = None,
) -> Counter:
    """The changelog rows ``(row_kind, key, row)`` of the ``lookup`` or ``full-compaction``
    producer for ``records`` taking the table from ``before`` to ``after`` (see the module
    docstring). ``same(a, b)``: value equality for ``changelog-producer.row-deduplicate``
    (default ``==``)."""
    producer = options.get("changelog-producer", "none")
    if producer not in ("lookup", "full-compaction"):
        raise ValueError(f"not a compaction changelog producer: {producer!r}")
    engine = options.get("merge-engine", "deduplicate")
    if engine == "first-row" and producer != "lookup":
        raise ValueError("first-row takes changelog-producer none or lookup only")
    dedupe = _true(options, "changelog-producer.row-deduplicate")
    same = same or (lambda a, b: a == b)
    out: Counter = Counter()
    for key in keys_with_records(records, options):
        old, new = before.get(key), after.get(key)
        if engine == "first-row":
            if old is None and new is not None:
                out["+I", key, new] += 1
            continue
        if old is None:
            if new is not None:
                out["+I", key, new] += 1
        elif new is None:
            out["-D", key, old] += 1
        elif not (dedupe and same(old, new)):
            out["-U", key, old] += 1
            out["+U", key, new] += 1
    return out
