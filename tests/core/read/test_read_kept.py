"""Reading a data file without the rows its deletion vector marks (``read_data_file(...,
deleted=...)``): the kept rows in file order and the keep mask, for Parquet (row groups with every
row deleted not decoded) and for ORC and Avro, filtered column by column on the filter pool or on
the calling thread, checked against a plain Python model of the rows."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from paimon_core.data.types import parse_type
from paimon_core.fileformat import formats, parquet
from paimon_core.storage.file_io import FileIO

TYPES = {
    "i": parse_type("BIGINT"),
    "s": parse_type("STRING"),
    "r": parse_type("ROW<x INT, y STRING>"),
    "t": parse_type("TIMESTAMP(9)"),  # Parquet: INT96
}
GROUPS = (5, 7, 1, 30)  # rows per write: one Parquet row group each


def _part(base: int, n: int) -> pa.Table:
    ids = list(range(base, base + n))
    return pa.table(
        {
            "i": pa.array(ids, pa.int64()),
            "s": pa.array([None if i % 7 == 3 else f"s{i}" for i in ids], pa.string()),
            "r": pa.array(
                [{"x": i, "y": str(i)} for i in ids], pa.struct([("x", pa.int32()), ("y", pa.string())])
            ),
            "t": pa.array([1_700_000_000_000_000_000 + i for i in ids], pa.timestamp("ns")),
        }
    )


def _columns(fmt: str) -> list[str]:
    return ["s", "r", "i"] if fmt == "avro" else ["s", "r", "i", "t"]  # Avro: no TIMESTAMP(9)


def _write(tmp_path, fmt: str) -> tuple[FileIO, str, int]:
    io = FileIO(str(tmp_path))
    path = str(tmp_path / f"data-x-0.{fmt}")
    cols = ["i", *_columns(fmt)[:2], *_columns(fmt)[3:]]
    w = formats.open_writer(fmt, io, path, _part(0, 0).select(cols).schema)
    base = 0
    for n in GROUPS:
        w.write(_part(base, n).select(cols))
        base += n
    w.close()
    return io, path, base


CASES = {
    "none": [],
    "first": [0],
    "last": [42],
    "scattered": [1, 4, 9, 12, 13, 20, 41],
    "whole first group": [0, 1, 2, 3, 4],
    "whole one-row group": [12],
    "whole inner groups": list(range(5, 13)),
    "all but one": [i for i in range(43) if i != 17],
    "all": list(range(43)),
    "past the end": [2, 43, 100],
    "unsorted, repeated": [12, 9, 12, 0, 9],
}


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
@pytest.mark.parametrize("parallel_from", [4, 65536])
@pytest.mark.parametrize("case", list(CASES))
def test_kept_rows_in_file_order(tmp_path, monkeypatch, fmt, parallel_from, case):
    monkeypatch.setattr(parquet, "PARALLEL_FILTER_ROWS", parallel_from)  # 4: columns on the pool
    io, path, n = _write(tmp_path, fmt)
    deleted = np.array(CASES[case], dtype=np.int64)
    got, keep = formats.read_data_file(io, path, _columns(fmt), TYPES, deleted=deleted)
    want = [i for i in range(n) if i not in set(CASES[case])]
    assert keep.tolist() == [i not in set(CASES[case]) for i in range(n)]
    assert got.column_names == _columns(fmt)
    assert got.column("i").to_pylist() == want
    assert got.column("s").to_pylist() == [None if i % 7 == 3 else f"s{i}" for i in want]
    assert got.column("r").to_pylist() == [{"x": i, "y": str(i)} for i in want]
    if "t" in got.column_names:
        assert got.column("t").cast(pa.int64()).to_pylist() == [1_700_000_000_000_000_000 + i for i in want]
    plain = formats.read_data_file(io, path, _columns(fmt), TYPES)
    assert got.schema == plain.schema


def test_parquet_row_groups_wholly_deleted_are_not_decoded(tmp_path, monkeypatch):
    io, path, n = _write(tmp_path, "parquet")
    read = []
    real = parquet.pq.ParquetFile

    class Spy(real):
        def read(self, *a, **kw):
            read.append("all")
            return super().read(*a, **kw)

        def read_row_groups(self, row_groups, *a, **kw):
            read.append(row_groups)
            return super().read_row_groups(row_groups, *a, **kw)

    monkeypatch.setattr(parquet.pq, "ParquetFile", Spy)
    got, _ = formats.read_data_file(io, path, ["i"], TYPES, deleted=np.arange(5, 13, dtype=np.int64))
    assert read == [[0, 3]] and got.column("i").to_pylist() == [*range(5), *range(13, n)]
    read.clear()
    got, _ = formats.read_data_file(io, path, ["i"], TYPES, deleted=np.arange(n, dtype=np.int64))
    assert read == [] and got.num_rows == 0 and got.schema.field("i").type == pa.int64()
    got, _ = formats.read_data_file(io, path, ["i"], TYPES, deleted=np.array([3, 40], dtype=np.int64))
    assert read == ["all"] and got.num_rows == n - 2


def test_keep_bits_match_pyarrow():
    rng = np.random.default_rng(1)
    for n in (0, 1, 7, 8, 9, 64, 1000):
        keep = rng.random(n) < 0.7
        assert parquet.keep_bits(keep).equals(pa.array(keep, pa.bool_()))
        assert parquet.keep_bits(keep[3:]).equals(pa.array(keep[3:], pa.bool_()))


_FORKED_FILTER = """
import os, signal, sys
import numpy as np, pyarrow as pa
from paimon_core.fileformat import parquet
t = pa.table({"a": np.arange(100_000), "b": np.arange(100_000)})
bits = parquet.keep_bits(np.arange(100_000) % 3 != 0)
assert parquet.filter_columns(t, bits).num_rows == 66_666  # the parent's pool exists now
pid = os.fork()
if pid == 0:
    signal.alarm(30)  # a child waiting on the parent's threads would hang: die instead
    os._exit(0 if parquet.filter_columns(t, bits).num_rows == 66_666 else 1)
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_filter_pool_works_in_a_forked_child():
    """The child of a fork has the pool object but none of its threads: it starts a new pool.
    The fork happens in a fresh interpreter: forking this pytest worker would also run the
    at-fork hooks of whatever other tests left behind (fsspec's hook, clearing its cached
    filesystems, once hung a child here before its first line)."""
    proc = subprocess.run([sys.executable, "-c", _FORKED_FILTER], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
