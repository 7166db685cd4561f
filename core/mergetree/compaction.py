"""Compaction of primary-key buckets (LSM sorted runs) and append buckets (small files).

``compact`` picks, per bucket, what Paimon's universal strategy picks (``universal_compaction.pick``)
or, with ``full=True``, every run into the top level. Merged records are written to the output
level; retractions are dropped when nothing older remains below the output. With
``changelog-producer = full-compaction`` a full compaction also writes the changelog between
the previous and the new top level; with ``lookup`` a compaction that moves level-0 files up
writes the changelog of their keys (state of the levels above 0 before, whole bucket after), as
Java's writers do at prepareCommit. Results commit as one COMPACT snapshot (DELETE of the
inputs, ADD of the outputs, and the changelog files: Java's streaming reads of lookup and
full-compaction tables take changelog from COMPACT snapshots only); if another commit removed
an input first, that is a conflict and nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pyarrow as pa
import pyarrow.compute as pc
from paimon_core.commit import CommitMessage
from paimon_core.errors import CorruptMetadata
from paimon_core.mergetree.changelog import rows_with_keys
from paimon_core.mergetree.merge_engines import KIND, MergeEngine, is_retract
from paimon_core.mergetree.universal_compaction import Run, force_pick_level0, pick, sorted_runs
from paimon_core.metadata.manifest import FILE_SOURCE_COMPACT
from paimon_core.read.scan import DataSplit, check_not_expired
from paimon_core.read.table_read import TableRead


@dataclass(frozen=True)
class CompactResult:
    snapshot: object
    buckets: int
    files_before: int
    files_after: int


def forces_level0_compaction(table) -> bool:
    """Paimon's writers move every write out of level 0 at once for first-row tables (whose
    batch reads skip level 0, docs/format.md section 10) and lookup-changelog tables."""
    opts = table.schema.core_options
    return table.is_primary_key_table and (
        opts.merge_engine == "first-row" or opts.changelog_producer == "lookup")


def max_level(table) -> int:
    return table.schema.core_options.num_levels - 1


def _merge_files(table, split: DataSplit, files) -> pa.Table:
    reader = TableRead(table)
    parts = [reader.read_file(split, f, True) for f in files]
    data = pa.concat_tables(parts)
    engine = MergeEngine(table.schema.options, table.schema.trimmed_primary_keys, table.schema.field_names)
    return engine.merge(data)


def _lookup_compaction_merge(table, split: DataSplit, files, output_level: int) -> pa.Table:
    """Lookup-merge tables (``mergetree/lookup_merge.py``): the merged records of ``files``; when
    they move level-0 records up, a key with no record above level 0 among ``files`` gets its
    newest record from the bucket's other files above level 0 folded in (Java's lookup), so the
    output holds whole values."""
    from paimon_core.mergetree.lookup_merge import lookup_merge

    reader = TableRead(table)
    keys = table.schema.trimmed_primary_keys
    engine = MergeEngine(table.schema.options, keys, table.schema.field_names)
    chosen = {f.file_name for f in files}
    upper = [reader.read_file(split, f, True) for f in files if f.level > 0]
    level0 = [reader.read_file(split, f, True) for f in files if f.level == 0]
    if level0 and output_level > 0:
        written = pa.concat_tables(level0)
        # older than every chosen record above level 0, so they only count where none is chosen
        upper += [rows_with_keys(reader.read_file(split, f, True), written, keys)
                  for f in split.files if f.level > 0 and f.file_name not in chosen]
    return lookup_merge(engine, table.schema.options, upper, level0)


def _drop_keys_in_other_files(table, split: DataSplit, files, merged: pa.Table) -> pa.Table:
    """First-row: a key already stored in an older run keeps that row, so the compaction output
    must not repeat it. Readers of first-row tables read levels above 0 without merging, as
    Java does (docs/format.md section 10), so runs there never share a key."""
    chosen = {f.file_name for f in files}
    others = [f for f in split.files if f.file_name not in chosen and f.level > 0]
    if not others or merged.num_rows == 0:
        return merged
    keys = table.schema.trimmed_primary_keys
    reader = TableRead(table, keys)
    existing = pa.concat_tables([reader.read_file(split, f, False).select(keys) for f in others])
    return rows_with_keys(merged, existing, keys, anti=True)


def _drop_retracts(t: pa.Table) -> pa.Table:
    return t.filter(pc.invert(is_retract(t.column(KIND))))


def compact_pk_files(table, split: DataSplit, files, output_level: int, drop_delete: bool,
                     changelog: bool = False, lookup_changelog: bool = False) -> CommitMessage:
    from paimon_core.mergetree.lookup_merge import uses_lookup_merge
    from paimon_core.write.kv_writer import KeyValueFileWriter

    if uses_lookup_merge(table.schema):
        merged = _lookup_compaction_merge(table, split, files, output_level)
    else:
        merged = _merge_files(table, split, files)
    if drop_delete:
        merged = _drop_retracts(merged)
    if table.schema.core_options.merge_engine == "first-row":
        merged = _drop_keys_in_other_files(table, split, files, merged)
    writer = KeyValueFileWriter(table, split.partition, split.bucket)
    try:
        after = writer.write_run(merged, level=output_level, file_source=FILE_SOURCE_COMPACT) if merged.num_rows else []
        log_files = []
        if changelog:
            log_files = _full_compaction_changelog(table, split, writer, merged, output_level)
        elif lookup_changelog:
            log_files = _lookup_changelog(table, split, writer, files, output_level)
    except BaseException:
        writer.abort()
        raise
    return CommitMessage(split.partition, split.bucket, split.total_buckets, compact_before=tuple(files),
                         compact_after=tuple(after), changelog_files=tuple(log_files))


def _full_compaction_changelog(table, split, writer, merged: pa.Table, top: int) -> list:
    """Changelog between the previous top level and the new one (full-compaction producer)."""
    from paimon_core.mergetree.changelog import changes
    from paimon_core.mergetree.merge_engines import SEQ

    keys = table.schema.trimmed_primary_keys
    old_top = [f for f in split.files if f.level == top]
    old = _drop_retracts(_merge_files(table, split, old_top)) if old_top else merged.slice(0, 0)
    new = _drop_retracts(merged)
    dedupe = table.schema.core_options.get("changelog-producer.row-deduplicate")
    fresh = [f for f in split.files if f.level != top]
    if fresh:  # only keys with records above the old top level changed
        reader = TableRead(table, keys)
        touched = pa.concat_tables([reader.read_file(split, f, False).select(keys) for f in fresh])
        old = rows_with_keys(old, touched, keys)
        new = rows_with_keys(new, touched, keys)
    log = changes(old.drop_columns([SEQ]), new.drop_columns([SEQ]), keys, drop_unchanged=dedupe)
    if log.num_rows == 0:
        return []
    seq_base = max(f.max_sequence_number for f in split.files)
    log = log.append_column(SEQ, pa.array(range(seq_base - log.num_rows + 1, seq_base + 1), pa.int64()))
    return writer.write_run(log, level=top, changelog=True)


def _lookup_changelog(table, split, writer, files, output_level: int) -> list:
    """Changelog of the keys in the level-0 ``files`` (lookup producer): each key's merged value
    in the bucket's files above level 0 (the state before these writes) against its merged value
    in all the bucket's files (after). Level-0 files a failed or skipped compaction left behind
    are caught up by the next one, so no change is lost, only grouped."""
    from paimon_core.mergetree.changelog import changes
    from paimon_core.mergetree.lookup_merge import lookup_merge, uses_lookup_merge
    from paimon_core.mergetree.merge_engines import SEQ

    fresh = [f for f in files if f.level == 0]
    if not fresh or output_level == 0:
        return []
    keys = table.schema.trimmed_primary_keys
    reader = TableRead(table)
    written = pa.concat_tables([reader.read_file(split, f, True) for f in fresh])
    # only the records of the keys written: the merge is per key
    before = [rows_with_keys(reader.read_file(split, f, True), written, keys) for f in split.files if f.level > 0]
    engine = MergeEngine(table.schema.options, keys, table.schema.field_names)
    if uses_lookup_merge(table.schema):  # the newest record above level 0 is the whole old value
        new = _drop_retracts(lookup_merge(engine, table.schema.options, before, [written]))
        old = _drop_retracts(lookup_merge(engine, table.schema.options, before, [])) if before else new.slice(0, 0)
    else:
        new = _drop_retracts(engine.merge(pa.concat_tables(before + [written])))
        old = _drop_retracts(engine.merge(pa.concat_tables(before))) if before else new.slice(0, 0)
    # first-row: a stored key never changes, so only new keys give changelog (+I), as in Java
    dedupe = (table.schema.core_options.get("changelog-producer.row-deduplicate")
              or table.schema.core_options.merge_engine == "first-row")
    log = changes(old.drop_columns([SEQ]), new.drop_columns([SEQ]), keys, drop_unchanged=dedupe)
    if log.num_rows == 0:
        return []
    seq_max = max(f.max_sequence_number for f in fresh)
    log = log.append_column(SEQ, pa.array(range(seq_max - log.num_rows + 1, seq_max + 1), pa.int64()))
    return writer.write_run(log, level=output_level, changelog=True)


def compact_append_files(table, split: DataSplit, files) -> CommitMessage:
    from paimon_core.write.append_writer import RollingFileWriter

    reader = TableRead(table)
    files = sorted(files, key=lambda f: f.min_sequence_number)
    writer = RollingFileWriter(table, split.partition, split.bucket, files[0].min_sequence_number,
                               table.schema.core_options.get("data-file.prefix"))
    try:
        for f in files:
            writer.write(reader.read_file(split, f, False))
        after = [replace(a, file_source=FILE_SOURCE_COMPACT) for a in writer.close()]
    except BaseException:
        writer.abort()
        raise
    return CommitMessage(split.partition, split.bucket, split.total_buckets,
                         compact_before=tuple(files), compact_after=tuple(after))


def plan_bucket(table, split: DataSplit, full: bool):
    """What to compact in one bucket: (files, output level, drop deletes) or None."""
    opts = table.schema.core_options
    if not table.is_primary_key_table:
        target = opts.target_file_size
        small = [f for f in split.files if f.file_size < target * 0.7]
        min_files = table.schema.core_options.get("compaction.min.file-num")
        if len(small) > 1 and (full or len(small) >= min_files):
            return small, 0, False
        return None
    top = max_level(table)
    runs = sorted_runs(split.files)
    if full:
        if len(split.files) == 1 and split.files[0].level == top and split.files[0].delete_row_count == 0:
            return None
        return list(split.files), top, True
    sized = [Run(level, sum(f.file_size for f in fs)) for level, fs in runs]
    if forces_level0_compaction(table):
        unit = force_pick_level0(top + 1, sized)
    else:
        unit = None
    unit = unit or pick(top + 1, sized,
                trigger=opts.get("num-sorted-run.compaction-trigger"),
                max_size_amp=table.schema.core_options.get("compaction.max-size-amplification-percent"),
                size_ratio=table.schema.core_options.get("compaction.size-ratio"))
    if unit is None:
        return None
    chosen = [f for _, fs in runs[: unit.run_count] for f in fs]
    rest_levels = [level for level, _ in runs[unit.run_count:]]
    drop_delete = unit.output_level != 0 and unit.output_level >= max(rest_levels, default=0)
    return chosen, unit.output_level, drop_delete


def compact_messages(table, splits, full: bool, progress=None) -> list[CommitMessage]:
    producer = table.schema.core_options.changelog_producer
    changelog_full = producer == "full-compaction"
    top = max_level(table)
    messages = []
    try:
        for s in splits:
            planned = plan_bucket(table, s, full)
            if planned is not None:
                files, level, drop = planned
                if table.is_primary_key_table:
                    messages.append(compact_pk_files(
                        table, s, files, level, drop,
                        changelog=changelog_full and level == top and len(files) == len(s.files),
                        lookup_changelog=producer == "lookup"))
                else:
                    messages.append(compact_append_files(table, s, files))
            if progress:
                progress(1)
    except BaseException:
        table.discard(messages)
        raise
    return messages


def compact(table, full: bool = False, partition_filter=None, progress=None, buckets=None,
            engine=None) -> CompactResult:
    """Compact the buckets (of the partitions ``partition_filter(values)`` accepts, and of the
    (partition, bucket) pairs in ``buckets`` if given) and commit once. ``engine`` (local by
    default) computes the new files; the commit happens here."""
    from paimon_core.metadata.features import check_writable

    check_writable(table.schema, compaction=True)
    if table.schema.core_options.bucket == -2:
        from paimon_core.mergetree.postpone_compaction import compact_postpone

        return compact_postpone(table, full, partition_filter, progress)
    snap = table.snapshots.latest()
    if snap is None:
        return CompactResult(None, 0, 0, 0)
    splits = [s for s in table.plan(snap, all_levels=True)
              if (partition_filter is None or partition_filter(s.partition))
              and (buckets is None or (s.partition, s.bucket) in buckets)]
    try:
        messages = (engine.compact(table, splits, full, progress) if engine is not None
                    else compact_messages(table, splits, full, progress))
    except CorruptMetadata as e:  # an input file went missing: if expiry removed `snap`, a lost race
        check_not_expired(table.manifests, snap, e)
        raise
    try:
        result = table.commit(messages, kind="COMPACT") if messages else None
    except BaseException:
        table.discard(messages)
        raise
    return CompactResult(result, len(messages), sum(len(m.compact_before) for m in messages),
                         sum(len(m.compact_after) for m in messages))


def full_compact(table, partition_filter=None, progress=None, engine=None) -> CompactResult:
    return compact(table, full=True, partition_filter=partition_filter, progress=progress, engine=engine)


def auto_compact(table, messages: list[CommitMessage]) -> CompactResult | None:
    """After a write: compact the written buckets the way Paimon's writers do, unless write-only.
    With ``changelog-producer = full-compaction`` a full compaction runs every
    ``full-compaction.delta-commits`` commits (default: every commit)."""
    opts = table.schema.core_options
    if opts.get("write-only") or not messages or opts.bucket == -2:
        return None  # postpone tables: batch writes are write-only, as Java's (PostponeUtils)
    touched = {(m.partition, m.bucket) for m in messages}
    if opts.changelog_producer == "full-compaction":
        every = opts.get("full-compaction.delta-commits") or 1
        latest = table.snapshots.latest_id() or 0
        if every <= 1 or latest % every == 0:
            return compact(table, full=True, buckets=touched)
    if table.is_primary_key_table:
        return compact(table, full=False, buckets=touched)
    return compact(table, full=False, buckets=touched) if opts.is_set("compaction.min.file-num") else None
