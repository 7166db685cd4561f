"""The Spark driver's planning: input files into read pieces (Parquet split at row groups)
with global row offsets, each bucket's highest sequence number, the job's file-name prefix, and
the sweep that deletes a failed job's files (files with the job prefix were never committed)."""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING

from paimon_core.engines.spark import tasks as T
from paimon_core.options.registry import DATA_FILE_PREFIX

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

PIECE_BYTES = 128 * 1024 * 1024  # input bytes per read task (Parquet is split at row groups)


def plan_pieces(inputs, piece_bytes: int = PIECE_BYTES) -> list:
    """Input files -> read tasks: Parquet split into runs of row groups of about ``piece_bytes``;
    CSV and JSON one task per file. Pieces keep the input order (it decides sequence numbers).
    A local path is made absolute: executors run in working directories of their own."""
    import pyarrow.parquet as pq

    pieces = []
    for f in inputs:
        path = f.path if "://" in f.path else os.path.abspath(f.path)
        if f.format != "parquet":
            pieces.append(T.Piece(len(pieces), path, f.format, f.size))
            continue
        md = pq.ParquetFile(path).metadata
        if md.num_row_groups <= 1:
            pieces.append(
                T.Piece(len(pieces), path, f.format, f.size, tuple(range(md.num_row_groups)), md.num_rows)
            )
            continue
        total = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups)) or 1
        run, acc, nrows = [], 0, 0
        for i in range(md.num_row_groups):
            run.append(i)
            acc += md.row_group(i).total_byte_size
            nrows += md.row_group(i).num_rows
            if acc >= piece_bytes:
                pieces.append(T.Piece(len(pieces), path, f.format, f.size * acc // total, tuple(run), nrows))
                run, acc, nrows = [], 0, 0
        if run:
            pieces.append(T.Piece(len(pieces), path, f.format, f.size * acc // total, tuple(run), nrows))
    return pieces


def with_offsets(pieces: list) -> list:
    """The pieces (all with row counts) with their global row offsets: the rows of all earlier
    pieces, in input order."""
    from dataclasses import replace

    out, offset = [], 0
    for p in pieces:
        out.append(replace(p, offset=offset))
        offset += p.rows
    return out


def max_sequence_numbers(table: TableContext) -> dict:
    """(partition bytes, bucket) -> highest sequence number in the latest snapshot."""
    from paimon_core.metadata.live_files import live_entries

    out: dict = {}
    for e in live_entries(table.manifests, table.snapshots.latest()):
        k = (e.partition, e.bucket)
        out[k] = max(out.get(k, -1), e.file.max_sequence_number)
    return out


def job_prefix(table: TableContext) -> str:
    """The file-name prefix of one job's data files: the table's prefix plus a job id."""
    return f"{table.schema.core_options.get(DATA_FILE_PREFIX)}{uuid.uuid4().hex[:12]}-"


_META_DIRS = {"snapshot", "manifest", "schema", "index", "changelog", "tag", "branch", "statistics"}


def sweep_job_files(table: TableContext, prefix: str, keep: set, dirs=None) -> int:
    """Delete data files named ``<prefix>...`` not in ``keep``, in ``dirs`` or the whole table
    tree (bucket folders). Files with the job prefix belong to this job only and, when not
    kept, were never committed, so deleting them is always safe."""
    io = table.io
    removed = 0
    if dirs is None:
        dirs, stack = [], [table.path]
        while stack:
            d = stack.pop()
            for name in io.list_names(d):
                if d == table.path and name in _META_DIRS:
                    continue
                full = io.join(d, name)
                if name.startswith("bucket-"):
                    dirs.append(full)
                elif "=" in name and io.is_dir(full):
                    stack.append(full)
    for d in dirs:
        for name in io.list_names(d):
            if name.startswith(prefix) and name not in keep:
                io.delete(io.join(d, name))
                removed += 1
    return removed
