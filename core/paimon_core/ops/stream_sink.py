"""An exactly-once sink for a table's change stream (``read.stream.StreamRead``): rolling
Parquet files in a folder, for ``paimon stream --out DIR`` and library users alike.

Invariants: a file is complete or absent (written under a hidden temporary name, fsynced, then
renamed); a file is named by the first and last snapshot ids it holds
(``part-<first>-<last>.parquet``); a batch is acknowledged (the consumer moved past it) only
after the file holding it is in place, and a restart skips every snapshot a file already holds,
so each change lands in exactly one file."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from paimon_core.read.stream import StreamBatch

PART = re.compile(r"^part-(\d{12})-(\d{12})\.parquet$")


class ParquetDirSink:
    """Rolling Parquet files in DIR: ``part-<first>-<last>.parquet`` (snapshot ids), written to a
    hidden temporary name and renamed, so a file is complete or absent. Rows are buffered until
    ``roll_rows`` or ``roll_ms`` is reached; only then are the buffered batches acknowledged."""

    def __init__(self, out: Path, roll_rows: int, roll_ms: int, ack: Callable):
        self.out = out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        self.roll_rows = roll_rows
        self.roll_ms = roll_ms
        self.ack = ack
        self.pending: list = []  # (batch, rows)
        self.since = time.monotonic()
        self.done_upto = max((int(m.group(2)) for n in os.listdir(out) if (m := PART.match(n))), default=0)

    def already_written(self, batch: StreamBatch) -> bool:
        return batch.snapshot_id <= self.done_upto

    def deliver(self, batch: StreamBatch, rows: pa.Table) -> None:
        if not self.pending:
            self.since = time.monotonic()
        self.pending.append((batch, rows))
        self.maybe_roll()

    def maybe_roll(self, force: bool = False) -> None:
        if not self.pending:
            return
        n = sum(r.num_rows for _, r in self.pending)
        if not force and n < self.roll_rows and (time.monotonic() - self.since) * 1000 < self.roll_ms:
            return
        first, last = self.pending[0][0].snapshot_id, self.pending[-1][0].snapshot_id
        tables = [r for _, r in self.pending if r.num_rows]
        if tables:
            name = f"part-{first:012d}-{last:012d}.parquet"
            tmp = self.out / f".{name}.tmp-{os.getpid()}"
            data = pa.concat_tables([t.cast(tables[0].schema) for t in tables])
            pq.write_table(data, tmp)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, self.out / name)
        self.done_upto = last
        batches = [b for b, _ in self.pending]
        self.pending = []
        for b in batches:
            self.ack(b)

    def close(self) -> None:
        self.maybe_roll(force=True)
