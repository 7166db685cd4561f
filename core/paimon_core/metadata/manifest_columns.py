"""Manifest entries as an Arrow table and back: the form the disk cache of decoded manifests
keeps (``manifest_disk_cache``).

One row per entry, in file order, the entry's fields then its file's, each stats record as
three columns. Byte and string columns whose values repeat (partitions, keys, stats) are
dictionary-encoded; tuple-valued fields (null counts, extra files, stats columns, write
columns) are int32 codes into a JSON list kept in the schema's metadata; ``creation_time`` is
epoch milliseconds and comes back as the UTC datetime the Avro decode gives.

Invariant: ``EntryColumns.entries(table_of(entries))`` equals ``entries`` field by field, with
the same types. ``table_of`` returns None for entries it cannot keep exactly (a value of
another type than a decode gives); those are not cached.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

FORMAT_VERSION = 1  # bump when the columns change: the cache key holds it

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)
_new_tuple = tuple.__new__

# (column, kind) in row order; kinds: int (int64), bytes / str (dictionary-encoded when that
# halves the values), name (a file name: plain string), codes (a tuple-valued field), time
_ENTRY = (("kind", "int"), ("partition", "bytes"), ("bucket", "int"), ("total_buckets", "int"))
_FILE = (
    ("file_name", "name"),
    ("file_size", "int"),
    ("row_count", "int"),
    ("min_key", "bytes"),
    ("max_key", "bytes"),
    ("key_stats", "stats"),
    ("value_stats", "stats"),
    ("min_sequence_number", "int"),
    ("max_sequence_number", "int"),
    ("schema_id", "int"),
    ("level", "int"),
    ("extra_files", "codes"),
    ("creation_time", "time"),
    ("delete_row_count", "int"),
    ("embedded_index", "bytes"),
    ("file_source", "int"),
    ("value_stats_cols", "codes"),
    ("external_path", "str"),
    ("first_row_id", "int"),
    ("write_cols", "codes"),
)
_STATS = (("min_values", "bytes"), ("max_values", "bytes"), ("null_counts", "codes"))
_ARROW = {"int": pa.int64(), "bytes": pa.binary(), "str": pa.string(), "name": pa.string()}
_NONE = type(None)
_TYPES = {"int": {int, _NONE}, "bytes": {bytes, _NONE}, "str": {str, _NONE}, "name": {str, _NONE}}
_CODE_ITEMS = {int, str}


class Unkeepable(Exception):
    """A value the columns cannot give back exactly."""


class EntryColumns:
    """The codec between a manifest's entries and an Arrow table, for the entry, file and stats
    tuple types given (``ManifestEntry``, ``DataFileMeta``, ``SimpleStats``: NamedTuples whose
    fields are ``_ENTRY``, ``_FILE``, ``_STATS`` in order)."""

    def __init__(self, entry_type: type, file_type: type, stats_type: type):
        for cls, layout in ((entry_type, _ENTRY + (("file", ""),)), (file_type, _FILE), (stats_type, _STATS)):
            fields = getattr(cls, "_fields", ())
            if tuple(fields) != tuple(n for n, _ in layout):
                raise TypeError(f"{cls.__name__}'s fields are not the cached columns: {fields}")
        self.entry_type, self.file_type, self.stats_type = entry_type, file_type, stats_type

    # ---- entries -> table
    def table_of(self, entries: Sequence[tuple]) -> pa.Table | None:
        """The Arrow table of ``entries`` (tuples of the entry type); None when a value would
        not come back exactly."""
        if not entries:
            return None
        try:
            arrays: dict[str, pa.Array] = {}
            meta: dict[bytes, bytes] = {}
            by_field = list(zip(*entries))
            for (name, kind), values in zip(_ENTRY, by_field):
                _encode(name, kind, values, arrays, meta)
            for (name, kind), values in zip(_FILE, zip(*by_field[4])):
                if kind == "stats":
                    for (sub, sub_kind), sub_values in zip(_STATS, zip(*values)):
                        _encode(f"{name}.{sub}", sub_kind, sub_values, arrays, meta)
                else:
                    _encode(name, kind, values, arrays, meta)
        except (Unkeepable, TypeError, ValueError, OverflowError, pa.ArrowException):
            return None
        return pa.table(arrays).replace_schema_metadata(meta)

    # ---- table -> entries
    def entries(self, table: pa.Table) -> list:
        """The entries of a table ``table_of`` made (or rows of one), in its order."""
        meta = table.schema.metadata or {}

        def col(name: str, kind: str) -> list:
            return _decode(table.column(name), kind, meta.get(f"codes:{name}".encode()))

        new, file_type, stats_type = _new_tuple, self.file_type, self.stats_type
        files = []
        file_cols = []
        for name, kind in _FILE:
            if kind == "stats":
                parts = [col(f"{name}.{sub}", sub_kind) for sub, sub_kind in _STATS]
                if all(type(p) is _Same for p in parts):  # one stats value for every file
                    file_cols.append(_Same(new(stats_type, tuple(p[0] for p in parts)), table.num_rows))
                else:
                    file_cols.append([new(stats_type, v) for v in zip(*parts)])
            else:
                file_cols.append(col(name, kind))
        files = [new(file_type, v) for v in zip(*file_cols)]
        entry_cols = [col(name, kind) for name, kind in _ENTRY]
        entry_type = self.entry_type
        return [new(entry_type, v) for v in zip(*entry_cols, files)]

    def select(self, table: pa.Table, keep: Callable[[bytes], bool]) -> list:
        """The entries of ``table`` whose partition bytes ``keep`` accepts, in order; each
        distinct partition is asked once."""
        part = table.column("partition").combine_chunks()
        if isinstance(part, pa.DictionaryArray):
            wanted = [i for i, p in enumerate(part.dictionary.to_pylist()) if keep(p)]
            if len(wanted) == len(part.dictionary):
                return self.entries(table)
            if not wanted:
                return []
            rows = np.flatnonzero(np.isin(part.indices.to_numpy(zero_copy_only=False), wanted))
        else:
            rows = [i for i, p in enumerate(part.to_pylist()) if keep(p)]
        return self.entries(table.take(rows))


def _encode(name: str, kind: str, values: Sequence, arrays: dict, meta: dict) -> None:
    if kind == "codes":
        index: dict = {}
        codes = [index.setdefault(v, len(index)) for v in values]
        arrays[name] = pa.array(codes, pa.int32())
        meta[f"codes:{name}".encode()] = json.dumps([None if v is None else list(v) for v in index]).encode()
        for v in index:
            if v is not None and (type(v) is not tuple or not set(map(type, v)) <= _CODE_ITEMS):
                raise Unkeepable(name)
        return
    if kind == "time":
        distinct = set(values)
        for v in distinct:
            if v is not None and not (
                isinstance(v, datetime) and v.tzinfo is timezone.utc and v.microsecond % 1000 == 0
            ):
                raise Unkeepable(name)
        ms = {v: None if v is None else (v - _EPOCH) // _MS for v in distinct}
        arrays[name] = pa.array([ms[v] for v in values], pa.int64())
        return
    if not set(map(type, values)) <= _TYPES[kind]:  # pyarrow would turn 1.5 into 1, str into bytes
        raise Unkeepable(name)
    arr = pa.array(values, _ARROW[kind])
    if kind != "name":
        coded = arr.dictionary_encode()
        if len(coded.dictionary) * 2 <= len(arr):
            arr = coded
    arrays[name] = arr


def _decode(column: pa.ChunkedArray, kind: str, codes_json: bytes | None) -> list:
    arr = column.combine_chunks()
    if kind == "codes":
        distinct = [None if v is None else tuple(v) for v in json.loads(codes_json or b"[]")]
        if len(distinct) == 1 and not arr.null_count:
            return _Same(distinct[0], len(arr))
        return _taken(distinct, arr)
    if kind == "time":
        coded = arr.dictionary_encode()
        distinct = [None if v is None else _EPOCH + v * _MS for v in coded.dictionary.to_pylist()]
        return _mapped(coded, distinct)
    if isinstance(arr, pa.DictionaryArray):
        return _mapped(arr, arr.dictionary.to_pylist())
    return arr.to_pylist()


class _Same(list):
    """A column of one value (told apart so that stats of one value are built once)."""

    def __init__(self, value: object, n: int):
        super().__init__(repeat(value, n))


def _mapped(coded: pa.DictionaryArray, distinct: list) -> list:
    """The values of a dictionary array, each distinct value one shared object."""
    if len(distinct) == 1 and not coded.null_count:
        return _Same(distinct[0], len(coded))
    indices = coded.indices
    if indices.null_count:
        distinct = [*distinct, None]
        indices = indices.fill_null(len(distinct) - 1)
    return _taken(distinct, indices)


def _taken(distinct: list, indices: pa.Array) -> list:
    """``[distinct[i] for i in indices]``, taken in numpy (the values are the same objects)."""
    values = np.empty(len(distinct), dtype=object)
    for i, v in enumerate(distinct):
        values[i] = v  # one by one: a tuple value must not become a row of the array
    return values[indices.to_numpy(zero_copy_only=False)].tolist()
