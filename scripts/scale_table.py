"""Builds the scale probe's table fast (issue 26): an append table ``p INT, id BIGINT, v STRING``
partitioned by ``p``, ``partitions`` x ``commits`` data files, one file per partition per commit.

    .venv/bin/python scripts/scale_table.py WAREHOUSE --partitions 2000 --commits 20 [--table s.probe]

It is a real table: the first commit writes one real Parquet file per partition through the
normal write path; each later commit hard-links those files under new names (one per partition,
so every name is a distinct directory entry holding real rows of that partition) and commits
their metas through ``FileStoreCommit``, one APPEND snapshot per commit, as a writer of small
files would. ``manifest.merge-min-count`` is set high so the base list keeps one manifest per
commit (the shape Java gets from many small commits before a manifest compaction), and
``write-only`` skips housekeeping. Java and pypaimon read the result.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TABLE = "s.probe"
COLUMNS = "p INT, id BIGINT, v STRING"
OPTIONS = {"bucket": "-1", "write-only": "true", "manifest.merge-min-count": "100000000"}


def build(warehouse: str, partitions: int, commits: int, table: str = TABLE, quiet: bool = False) -> str:
    """Create ``table`` in ``warehouse`` and give it ``commits`` snapshots; returns the table path."""
    import pyarrow as pa

    from paimon_core.catalog import FileSystemCatalog
    from paimon_core.commit.file_store_commit import CommitOptions
    from paimon_core.metadata.commit_message import CommitMessage
    from paimon_core.metadata.schema import Schema

    cat = FileSystemCatalog(warehouse)
    t = cat.create_table(table, Schema(Schema.parse_columns(COLUMNS), ("p",), (), dict(OPTIONS)))
    rows = pa.table(
        {
            "p": pa.array(range(partitions), pa.int32()),
            "id": pa.array(range(partitions), pa.int64()),
            "v": pa.array([f"row-{i}" for i in range(partitions)]),
        }
    )
    t0 = time.perf_counter()
    t.write_arrow(rows)
    templates = []  # (partition, bucket dir, DataFileMeta) of the first commit's files
    for e in t.new_scan(t.snapshots.latest()).entries():
        (p,) = t.partition_codec.from_bytes(e.partition)
        templates.append((p, os.path.join(t.path, f"p={p}", "bucket-0"), e.file))
    templates.sort(key=lambda x: x[0])
    for c in range(1, commits):
        messages = []
        for p, bdir, f in templates:
            name = f"data-{uuid.uuid4()}-0.parquet"
            os.link(os.path.join(bdir, f.file_name), os.path.join(bdir, name))
            messages.append(CommitMessage((p,), 0, 0, new_files=(f._replace(file_name=name),)))
        t.new_commit(CommitOptions(commit_user="scale-probe")).commit(messages)
        if not quiet and (c % 50 == 0 or c == commits - 1):
            print(f"  commit {c + 1}/{commits} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return t.path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("warehouse")
    ap.add_argument("--partitions", type=int, default=2000)
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--table", default=TABLE)
    a = ap.parse_args()
    print(build(a.warehouse, a.partitions, a.commits, a.table))


if __name__ == "__main__":
    main()
