"""Per-file column statistics (min, max, null count) as Paimon stores them in SimpleStats.

Mode ``truncate(N)`` (Java's default) cuts strings and binaries to N units: the min becomes a
prefix, the max a prefix whose last unit is raised so it still bounds every value. Columns
whose bounds cannot be stated exactly (nested types, floats with NaN) get a null min/max,
which readers treat as "unknown" and never use to skip a file.
"""

from __future__ import annotations

import math
import re

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.binary_row import serialize_row
from paimon_core.data.types import AtomicType, DataType
from paimon_core.data.values import internal_from_scalar
from paimon_core.metadata.manifest import SimpleStats


def parse_mode(mode: str) -> tuple[str, int | None]:
    m = re.fullmatch(r"\s*truncate\((\d+)\)\s*", mode.lower())
    if m:
        return "truncate", int(m.group(1))
    if mode.lower() in ("none", "counts", "full"):
        return mode.lower(), None
    return "truncate", 16


def _truncate_max(v, n: int):
    if isinstance(v, str):
        if len(v) <= n:
            return v
        head = v[:n]
        for i in range(len(head) - 1, -1, -1):
            cp = ord(head[i]) + 1
            if cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF:
                return head[:i] + chr(cp)
        return None
    if len(v) <= n:
        return v
    head = bytearray(v[:n])
    for i in range(len(head) - 1, -1, -1):
        if head[i] < 0xFF:
            head[i] += 1
            return bytes(head[: i + 1])
    return None


class ColumnStats:
    """Running min/max/null count of one column across the batches written to a file."""

    __slots__ = ("type", "mode", "length", "min", "max", "nulls", "unknown")

    def __init__(self, t: DataType, mode: str, length: int | None):
        self.type, self.mode, self.length = t, mode, length
        self.min = self.max = None
        self.nulls = 0
        self.unknown = not isinstance(t, AtomicType) or mode in ("none", "counts")

    def update(self, arr: pa.Array | pa.ChunkedArray) -> None:
        self.nulls += arr.null_count
        t = self.type
        if self.unknown or not isinstance(t, AtomicType) or arr.null_count == len(arr):
            return  # (a type that is not atomic is always unknown)
        if t.root in ("FLOAT", "DOUBLE") and pc.any(pc.is_nan(arr)).as_py():
            self.unknown = True
            return
        mm = pc.min_max(arr)
        lo = internal_from_scalar(mm["min"], t)
        hi = internal_from_scalar(mm["max"], t)
        if t.root in ("FLOAT", "DOUBLE") and (math.isinf(lo) or math.isinf(hi)):
            pass
        if self.min is None or lo < self.min:
            self.min = lo
        if self.max is None or hi > self.max:
            self.max = hi

    def result(self):
        if self.mode == "none":  # no stats at all, null count included (as Java writes it)
            return None, None, None
        if self.unknown or self.min is None:
            return None, None, self.nulls
        lo, hi, t, n = self.min, self.max, self.type, self.length
        # known stats have an atomic type; truncate(N) always has its N (parse_mode)
        if (
            self.mode == "truncate"
            and n is not None
            and isinstance(t, AtomicType)
            and (t.is_string or t.is_binary)
        ):
            lo = lo[:n]
            hi = _truncate_max(hi, n)
            if hi is None:
                lo = None
        return lo, hi, self.nulls


class StatsCollector:
    """Stats over a fixed list of columns; ``to_simple_stats`` gives the manifest record."""

    def __init__(
        self,
        names: list[str],
        types: list[DataType],
        mode: str = "truncate(16)",
        per_column: dict[str, str] | None = None,
    ):
        """``mode`` applies to every column but those ``per_column`` names (a table's
        ``fields.<column>.stats-mode`` options)."""
        per_column = per_column or {}
        self.names = list(names)
        self.types = list(types)
        self.cols = [
            ColumnStats(t, *parse_mode(per_column.get(n, mode))) for n, t in zip(self.names, self.types)
        ]

    def update(self, batch: pa.Table | pa.RecordBatch) -> None:
        for name, col in zip(self.names, self.cols):
            col.update(batch.column(name))

    def to_simple_stats(self) -> SimpleStats:
        res = [c.result() for c in self.cols]
        return SimpleStats(
            serialize_row([r[0] for r in res], self.types),
            serialize_row([r[1] for r in res], self.types),
            tuple(r[2] for r in res),
        )
