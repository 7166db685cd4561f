"""Compaction of one bucket: primary-key buckets (LSM sorted runs merged into an output level, with
the full-compaction changelog and deletion vectors kept in step) and append buckets (small files
rewritten). Everything here computes CommitMessages; ``mergetree.compaction`` commits them.

Changelog of compactions: with ``changelog-producer = full-compaction`` a full compaction writes
the changelog between the previous and the new top level; with ``lookup`` a compaction that
moves level-0 files up writes the changelog of their keys (the bucket's levels above 0 before,
the whole bucket after), as Java 0.9's writers do at prepareCommit. Both travel in the
compaction's COMPACT snapshot (Java streams these producers from COMPACT snapshots only), filed
at the compaction's output level with file source APPEND.

``plan_bucket`` picks what Paimon's universal strategy picks (``universal_compaction.pick``) or, with
``full``, every run into the top level. Merged records are written to the output level;
retractions are dropped when nothing older remains below the output.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.commit.file_store_commit import discard_files
from paimon_core.data.system_columns import KIND, TRACKING_COLUMNS
from paimon_core.errors import UnsupportedFeature
from paimon_core.fileformat.blob import is_blob_file
from paimon_core.merge.changelog import rows_with_keys
from paimon_core.merge.levels import forces_level0_compaction, max_level
from paimon_core.merge.merge_engines import MergeEngine, is_retract
from paimon_core.merge.universal_compaction import Run, force_pick_level0, pick, sorted_runs
from paimon_core.metadata.commit_message import CommitMessage
from paimon_core.metadata.features import blob_columns
from paimon_core.metadata.manifest import FILE_SOURCE_COMPACT
from paimon_core.metadata.row_ids import data_evolution, row_tracking
from paimon_core.options.bucket_mode import BucketMode
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import (
    CHANGELOG_PRODUCER_ROW_DEDUPLICATE,
    COMPACTION_MAX_FILE_NUM,
    COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT,
    COMPACTION_MIN_FILE_NUM,
    COMPACTION_SIZE_RATIO,
    DATA_FILE_PREFIX,
    NUM_SORTED_RUN_COMPACTION_TRIGGER,
)
from paimon_core.read.row_tracking import row_groups
from paimon_core.read.scan import DataSplit
from paimon_core.read.table_read import TableRead, file_levels

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.table_context import TableContext


@dataclass(frozen=True)
class CompactResult:
    snapshot: object
    buckets: int
    files_before: int
    files_after: int


def _merge_files(table: TableContext, split: DataSplit, files, output_level: int | None = None) -> pa.Table:
    """The merged records of ``files``. A compaction of a lookup table (changelog-producer
    lookup) that takes level-0 files to ``output_level`` > 0 merges as Java's lookup rewrite:
    every key of the inputs goes through the merge function (single records too), together with
    its latest record above level 0, looked up in the levels above the output when the inputs
    have none. Java upgrades a lone level-0 file to the top level unchanged instead (and any
    file above its compaction file size, which this always rewrites)."""
    reader = TableRead(table)
    engine = MergeEngine.for_schema(table.schema)
    lookup = bool(engine.lookup and output_level and any(f.level == 0 for f in files))
    if lookup and len(files) == 1 and output_level == max_level(table) and not files[0].delete_row_count:
        lookup = False  # Java upgrades a lone level-0 file to the top level without rewriting it
    chosen = {f.file_name for f in files}
    above = (
        [f for f in split.files if f.level > output_level and f.file_name not in chosen]
        if lookup and output_level is not None  # lookup implies an output level above 0
        else []
    )
    parts = [reader.read_file(split, f, True) for f in files]
    data = pa.concat_tables(parts)
    if above:
        keys = table.schema.trimmed_primary_keys
        older = [rows_with_keys(reader.read_file(split, f, True), data, keys) for f in above]
        parts += older
        data = pa.concat_tables([data] + older)
    return engine.merge(data, levels=file_levels(list(files) + above, parts), merge_singles=lookup)


def _drop_keys_in_other_files(table: TableContext, split: DataSplit, files, merged: pa.Table) -> pa.Table:
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


def compact_pk_files(
    table: TableContext,
    split: DataSplit,
    files: Sequence[DataFileMeta],
    output_level: int,
    drop_delete: bool,
    changelog: bool = False,
    lookup_changelog: bool = False,
) -> CommitMessage:
    from paimon_core.metadata.deletion_vectors import dv_enabled
    from paimon_core.write.kv_writer import KeyValueFileWriter

    if dv_enabled(table):
        from paimon_core.compaction.dv_compaction import compact_pk_files_dv

        if not lookup_changelog:
            return compact_pk_files_dv(table, split, files, output_level, drop_delete)
        writer = KeyValueFileWriter(table, split.partition, split.bucket)
        try:  # the changelog reads the bucket as it is before this compaction
            log_files = _lookup_changelog(table, split, writer, files, output_level)
            message = compact_pk_files_dv(table, split, files, output_level, drop_delete)
        except BaseException:
            writer.abort()
            raise
        return replace(message, changelog_files=tuple(log_files))

    merged = _merge_files(table, split, files, output_level)
    if drop_delete:
        merged = _drop_retracts(merged)
    if table.schema.core_options.merge_engine is MergeEngineKind.FIRST_ROW:
        merged = _drop_keys_in_other_files(table, split, files, merged)
    writer = KeyValueFileWriter(table, split.partition, split.bucket)
    try:
        after = (
            writer.write_run(merged, level=output_level, file_source=FILE_SOURCE_COMPACT)
            if merged.num_rows
            else []
        )
        log_files = []
        if changelog:
            log_files = _full_compaction_changelog(table, split, writer, merged, output_level)
        elif lookup_changelog:
            log_files = _lookup_changelog(table, split, writer, files, output_level)
        added, deleted = drop_vectors(table, split, files, writer.written)
    except BaseException:
        writer.abort()
        raise
    return CommitMessage(
        split.partition,
        split.bucket,
        split.total_buckets,
        compact_before=tuple(files),
        compact_after=tuple(after),
        changelog_files=tuple(log_files),
        new_index=added,
        deleted_index=deleted,
    )


def drop_vectors(
    table: TableContext, split: DataSplit, rewritten: Iterable[DataFileMeta], written: list
) -> tuple[tuple, tuple]:
    """Index changes when ``rewritten`` files (read without their deleted rows) are replaced:
    their deletion vectors go, the bucket's other vectors stay."""
    gone = {f.file_name for f in rewritten}
    if not any(name in gone for name, _ in split.deletion_files):
        return (), ()
    from paimon_core.compaction.dv_compaction import bucket_vectors, index_changes

    vectors = {k: v for k, v in bucket_vectors(table, split).items() if k not in gone}
    return index_changes(table, split, vectors, written)


def _full_compaction_changelog(table: TableContext, split, writer, merged: pa.Table, top: int) -> list:
    """Changelog between the previous top level and the new one (full-compaction producer), for
    the keys with records outside the top level, as Java's FullChangelogMergeFunctionWrapper: a
    key whose only record is its top-level one is not merged and gives nothing, so a full
    compaction of top-level files alone (several files, or files with deleted rows) gives none."""
    from paimon_core.data.system_columns import SEQ
    from paimon_core.merge.changelog import changes

    keys = table.schema.trimmed_primary_keys
    fresh = [f for f in split.files if f.level != top]
    if not fresh:  # every key has just its top-level record: Java's wrapper emits nothing for it
        return []
    old_top = [f for f in split.files if f.level == top]
    old = _drop_retracts(_merge_files(table, split, old_top)) if old_top else merged.slice(0, 0)
    new = _drop_retracts(merged)
    dedupe = table.schema.core_options.get(CHANGELOG_PRODUCER_ROW_DEDUPLICATE)
    # only the keys with records above the old top level get changelog (-U/+U even when unchanged)
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


def _lookup_changelog(table: TableContext, split: DataSplit, writer, files, output_level: int) -> list:
    """Changelog of the keys in the level-0 ``files`` (lookup producer): each key's merged value
    in the bucket's files above level 0 (the state before these writes; deletion vectors
    applied) against its merged value with the level-0 records on top (after). First-row: a
    stored key never changes, so only new keys give changelog (+I), as in Java. Level-0 files a
    failed or skipped compaction left behind are caught up by the next one: no change is lost,
    only grouped."""
    from paimon_core.data.system_columns import SEQ
    from paimon_core.merge.changelog import changes
    from paimon_core.merge.merge_engines import INSERT

    fresh = [f for f in files if f.level == 0]
    if not fresh or output_level == 0:
        return []
    keys = table.schema.trimmed_primary_keys
    reader = TableRead(table)
    fresh_parts = [reader.read_file(split, f, True) for f in fresh]
    written = pa.concat_tables(fresh_parts)
    upper = [f for f in split.files if f.level > 0]
    # only the records of the keys written: the merge is per key
    upper_parts = [rows_with_keys(reader.read_file(split, f, True), written, keys) for f in upper]
    engine = MergeEngine.for_schema(table.schema)
    new = _drop_retracts(
        engine.merge(
            pa.concat_tables(upper_parts + fresh_parts),
            levels=file_levels(upper + fresh, upper_parts + fresh_parts),
            merge_singles=True,
        )
    )
    if upper:
        old = _drop_retracts(
            engine.merge(pa.concat_tables(upper_parts), levels=file_levels(upper, upper_parts))
        )
    else:
        old = new.slice(0, 0)
    dedupe = table.schema.core_options.get(CHANGELOG_PRODUCER_ROW_DEDUPLICATE)
    log = changes(old.drop_columns([SEQ]), new.drop_columns([SEQ]), keys, drop_unchanged=dedupe)
    if table.schema.core_options.merge_engine is MergeEngineKind.FIRST_ROW:
        log = log.filter(pc.equal(log.column(KIND), INSERT))
    if log.num_rows == 0:
        return []
    seq_max = max(f.max_sequence_number for f in fresh)
    log = log.append_column(SEQ, pa.array(range(seq_max - log.num_rows + 1, seq_max + 1), pa.int64()))
    return writer.write_run(log, level=output_level, changelog=True)


def check_compactable(table: TableContext, files: Iterable[DataFileMeta]) -> None:
    """Files of a data-evolution table that hold some columns only are merged on read by row id;
    a delete that rewrites them is not implemented: refused by name (compaction merges them)."""
    for f in files:
        if f.write_cols is not None and data_evolution(table.schema):
            raise UnsupportedFeature(
                f"table {table.identifier}: data file {f.file_name} holds some columns only (data "
                "evolution): deleting rows from such files is not supported (compact the table first)"
            )


def compact_append_files(
    table: TableContext, split: DataSplit, files: Iterable[DataFileMeta]
) -> CommitMessage:
    from paimon_core.write.append_writer import RollingFileWriter

    blobs = blob_columns(table.schema)
    # BLOB columns stay in their .blob files (Java's data-evolution compaction rewrites the other
    # columns only): the rewrite reads and writes the others, one file per run of row ids
    main = [n for n in table.schema.field_names if n not in blobs]
    reader = TableRead(table, columns=main if blobs else None)
    tracked = row_tracking(table.schema)  # rows keep their _ROW_ID (stored in the new files)
    groups: list[list[DataFileMeta]] = []
    if tracked:  # whole row groups, in row-id order; data-evolution groups merged into full rows
        chosen = {f.file_name for f in files}
        all_groups = row_groups(list(split.files) if data_evolution(table.schema) else list(files))
        groups = [g for g in all_groups if any(f.file_name in chosen for f in g)]
        files = [f for g in groups for f in g if not is_blob_file(f.file_name)]
    else:
        files = sorted(files, key=lambda f: f.min_sequence_number)
    writer = RollingFileWriter(
        table,
        split.partition,
        split.bucket,
        files[0].min_sequence_number,
        table.schema.core_options.get(DATA_FILE_PREFIX),
        tracked=tracked,
    )
    if blobs:  # a data file must cover whole runs of its .blob files' rows: no roll by size
        writer.target = 1 << 62
    try:
        for g in groups:
            writer.write(reader.read_group(split, g, TRACKING_COLUMNS))
        for f in [] if tracked else files:
            writer.write(reader.read_file(split, f, False))
        after = [a._replace(file_source=FILE_SOURCE_COMPACT) for a in writer.close()]
        index_written: list = []
        added, deleted = drop_vectors(table, split, files, index_written)
    except BaseException:
        writer.abort()
        raise
    return CommitMessage(
        split.partition,
        split.bucket,
        split.total_buckets,
        compact_before=tuple(files),
        compact_after=tuple(after),
        new_index=added,
        deleted_index=deleted,
    )


def pick_bucketed_append(
    files: Sequence[DataFileMeta], target: int, min_files: int, max_files: int
) -> list | None:
    """The files a writer of a fixed-bucket append table compacts, as Java's bucketed append
    writer picks them: a window over the bucket's files in sequence order that closes once it
    holds ``max_files`` files, or ``min_files`` files of at least ``target`` bytes together;
    while it is at least ``target`` bytes without enough files, its oldest file leaves it.
    None: nothing to compact (a window of one file is never rewritten here)."""
    window, total = [], 0
    for f in sorted(files, key=lambda f: f.min_sequence_number):
        window.append(f)
        total += f.file_size
        if (total >= target and len(window) >= min_files) or len(window) >= max_files:
            return window if len(window) > 1 else None
        if total >= target:
            total -= window.pop(0).file_size
    return None


def _purge_top_run(table: TableContext, split: DataSplit):
    """A bucket that is one top-level run, with files holding deleted rows (deletion vectors,
    stored retractions): the span of the run, in key order, from the first such file to the last
    is rewritten without them. The span's output covers only the span's keys, so the top level
    stays one run of disjoint files (Java validates that when it restores a bucket). None when
    no file holds deleted rows."""
    from paimon_core.data.binary_row import deserialize_row

    types = table.schema.types_of(table.schema.trimmed_primary_keys)
    in_order = sorted(split.files, key=lambda f: deserialize_row(f.min_key, types))
    with_vectors = {name for name, _ in split.deletion_files}
    dirty = [i for i, f in enumerate(in_order) if f.delete_row_count or f.file_name in with_vectors]
    if not dirty:
        return None
    return in_order[dirty[0] : dirty[-1] + 1], in_order[0].level, True


def plan_bucket(
    table: TableContext, split: DataSplit, full: bool
) -> tuple[list[DataFileMeta], int, bool] | None:
    """What to compact in one bucket: (files, output level, drop deletes) or None."""
    opts = table.schema.core_options
    if not table.is_primary_key_table:
        target = opts.target_file_size
        if not full and table.schema.bucket_mode is BucketMode.HASH_FIXED:
            picked = pick_bucketed_append(
                split.files,
                target,
                opts.get(COMPACTION_MIN_FILE_NUM),
                opts.get(COMPACTION_MAX_FILE_NUM) or 5,
            )
            return None if picked is None else (picked, 0, False)
        small = [f for f in split.files if f.file_size < target * 0.7]
        min_files = table.schema.core_options.get(COMPACTION_MIN_FILE_NUM)
        if len(small) > 1 and (full or len(small) >= min_files):
            return small, 0, False
        return None
    top = max_level(table)
    runs = sorted_runs(split.files)
    if full:
        if len(runs) == 1 and runs[0][0] == top:
            # one sorted run on the top level: nothing to merge (as Java's full compaction);
            # only files with deleted rows (deletion vectors, stored retractions) are rewritten
            return _purge_top_run(table, split)
        return list(split.files), top, True
    sized = [Run(level, sum(f.file_size for f in fs)) for level, fs in runs]
    if forces_level0_compaction(table):
        unit = force_pick_level0(top + 1, sized)
    else:
        unit = None
    unit = unit or pick(
        top + 1,
        sized,
        trigger=opts.get(NUM_SORTED_RUN_COMPACTION_TRIGGER),
        max_size_amp=table.schema.core_options.get(COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT),
        size_ratio=table.schema.core_options.get(COMPACTION_SIZE_RATIO),
    )
    if unit is None:
        return None
    chosen = [f for _, fs in runs[: unit.run_count] for f in fs]
    rest_levels = [level for level, _ in runs[unit.run_count :]]
    from paimon_core.metadata.deletion_vectors import dv_enabled

    # with deletion vectors, older rows are masked by vectors: retractions go at any level > 0
    drop_delete = unit.output_level != 0 and (
        unit.output_level >= max(rest_levels, default=0) or dv_enabled(table)
    )
    return chosen, unit.output_level, drop_delete


def compact_messages(
    table: TableContext,
    splits: Iterable[DataSplit],
    full: bool,
    progress: Callable[[int], None] | None = None,
) -> list[CommitMessage]:
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
                    messages.append(
                        compact_pk_files(
                            table,
                            s,
                            files,
                            level,
                            drop,
                            changelog=changelog_full and level == top and len(files) == len(s.files),
                            lookup_changelog=producer == "lookup",
                        )
                    )
                else:
                    messages.append(compact_append_files(table, s, files))
            if progress:
                progress(1)
    except BaseException:
        discard_files(table, messages)
        raise
    return messages
