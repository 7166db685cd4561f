"""Renumbering a commit's new primary-key files above the files a concurrent commit added.

A writer numbers its records from the highest sequence number its bucket held when it started
(``write/sequence.py``). When another commit adds files to the same bucket before this one
lands, both numbered from the same base, and the commit that lands last would not win every key
it shares with the other. So before each attempt to commit, ``commit.py`` calls
:func:`renumber_above`: in each bucket where a live file of the latest snapshot holds a sequence
number at or above the lowest of this commit's new files, those files (and the commit's
changelog files of that bucket) are rewritten with every sequence number shifted above the other
commit's. The numbers are stored in the files, so every reader (Java's too) then lets the last
commit win. Rows, kinds and file order within the commit are unchanged; the files replaced are
deleted (no snapshot names them).

Invariant: after it, every new file of the commit numbers above every live file of its bucket in
``latest``, or nothing was rewritten because that already held.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.system_columns import SEQ
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.manifest import FILE_SOURCE_APPEND
from paimon_core.options.bucket_mode import BucketMode

if TYPE_CHECKING:
    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.manifest import DataFileMeta
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext


def applies(table: TableContext, kind: str, overwrite: bool) -> bool:
    """Whether a commit of ``kind`` into ``table`` adds level-0 key files that must win: plain
    writes (APPEND) of a primary-key table in fixed or dynamic buckets."""
    return (
        kind == "APPEND"
        and not overwrite
        and table.is_primary_key_table
        and table.schema.bucket_mode is not BucketMode.POSTPONE
    )


def renumber_above(
    table: TableContext, messages: list[CommitMessage], latest: Snapshot | None
) -> tuple[list[CommitMessage], list[str]]:
    """(the messages to commit, the paths of the files they no longer name). See the module doc."""
    codec = table.partition_codec
    lowest: dict[tuple[bytes, int], int] = {}
    for m in messages:
        files = [*m.new_files, *m.changelog_files]
        if m.bucket >= 0 and files:
            key = (codec.to_bytes(m.partition), m.bucket)
            low = min(f.min_sequence_number for f in files)
            lowest[key] = min(lowest.get(key, low), low)
    if latest is None or not lowest:
        return messages, []
    highest: dict[tuple[bytes, int], int] = {}
    for e in live_entries(table.manifests, latest):
        key = (e.partition, e.bucket)
        if key in lowest and e.file.max_sequence_number >= lowest[key]:
            highest[key] = max(highest.get(key, -1), e.file.max_sequence_number)
    if not highest:
        return messages, []
    out, replaced = [], []
    for m in messages:
        key = (codec.to_bytes(m.partition), m.bucket)
        if key not in highest:
            out.append(m)
            continue
        shift = highest[key] - lowest[key] + 1
        new_files = _shifted(table, m, m.new_files, shift, changelog=False, replaced=replaced)
        logs = _shifted(table, m, m.changelog_files, shift, changelog=True, replaced=replaced)
        out.append(replace(m, new_files=new_files, changelog_files=logs))
    for path in replaced:
        table.io.delete(path)
    return out, replaced


def _shifted(
    table: TableContext,
    m: CommitMessage,
    files: tuple[DataFileMeta, ...],
    shift: int,
    changelog: bool,
    replaced: list[str],
) -> tuple[DataFileMeta, ...]:
    """``files`` rewritten with their sequence numbers plus ``shift`` (same rows, kinds, order)."""
    if not files:
        return files
    from paimon_core.read.scan import DataSplit
    from paimon_core.read.table_read import TableRead
    from paimon_core.write.kv_writer import KeyValueFileWriter

    codec = table.partition_codec
    split = DataSplit(m.partition, codec.to_bytes(m.partition), m.bucket, m.total_buckets, tuple(files))
    reader = TableRead(table)
    writer = KeyValueFileWriter(table, m.partition, m.bucket)
    out: list[DataFileMeta] = []
    try:
        for f in files:
            records = reader.read_file(split, f, True)
            seq = pc.add(records.column(SEQ), pa.scalar(shift, pa.int64()))
            records = records.set_column(records.schema.get_field_index(SEQ), SEQ, seq)
            source = FILE_SOURCE_APPEND if f.file_source is None else f.file_source
            out += writer.write_run(records, level=f.level, file_source=source, changelog=changelog)
    except BaseException:
        writer.abort()
        raise
    replaced += [
        f.external_path or table.io.join(table.bucket_path(m.partition, m.bucket), f.file_name) for f in files
    ]
    return tuple(out)


__all__ = ["applies", "renumber_above"]
