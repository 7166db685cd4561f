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
# the Avro (and ORC) record field of each file field
_AVRO = {name: "_" + name.upper() for name, _ in _FILE} | {"embedded_index": "_EMBEDDED_FILE_INDEX"}
_REQUIRED = {n for n, _ in _FILE[:11]}  # file_name .. level: in every writer's records
# every stored column, stats split in three, in row order
_COLUMNS = (
    *_ENTRY,
    *(
        col
        for n, k in _FILE
        for col in ([(f"{n}.{sub}", sub_kind) for sub, sub_kind in _STATS] if k == "stats" else [(n, k)])
    ),
)
_ARROW = {"int": pa.int64(), "bytes": pa.binary(), "str": pa.string(), "name": pa.string()}
_NONE = type(None)
_TYPES = {"int": {int, _NONE}, "bytes": {bytes, _NONE}, "str": {str, _NONE}, "name": {str, _NONE}}
_CODE_ITEMS = {int, str}


class Unkeepable(Exception):
    """A value the columns cannot give back exactly."""


Columns = dict  # column name -> list of final Python values, one per entry in file order


class EntryColumns:
    """The codec between a manifest's entries, their columns (``Columns``: each field's values,
    stats fields as three columns ``name.min_values``...) and an Arrow table, for the entry,
    file and stats tuple types given (``ManifestEntry``, ``DataFileMeta``, ``SimpleStats``:
    NamedTuples whose fields are ``_ENTRY``, ``_FILE``, ``_STATS`` in order)."""

    def __init__(self, entry_type: type, file_type: type, stats_type: type):
        for cls, layout in ((entry_type, _ENTRY + (("file", ""),)), (file_type, _FILE), (stats_type, _STATS)):
            fields = getattr(cls, "_fields", ())
            if tuple(fields) != tuple(n for n, _ in layout):
                raise TypeError(f"{cls.__name__}'s fields are not the cached columns: {fields}")
        self.entry_type, self.file_type, self.stats_type = entry_type, file_type, stats_type

    # ---- Avro records -> columns
    @staticmethod
    def columns_of(records: Sequence[dict]) -> Columns:
        """The columns of decoded manifest entry records (Avro or ORC), each value as the
        entry holds it (lists as tuples); a field an older writer did not write is None (the
        total buckets -1). A missing required field is a KeyError."""
        cols: Columns = {
            "kind": [r["_KIND"] for r in records],
            "partition": [r["_PARTITION"] for r in records],
            "bucket": [r["_BUCKET"] for r in records],
            "total_buckets": [r.get("_TOTAL_BUCKETS", -1) for r in records],
        }
        files = [r["_FILE"] for r in records]
        for name, kind in _FILE:
            key = _AVRO[name]
            if kind == "stats":
                stats = [f[key] for f in files]
                cols[f"{name}.min_values"] = [d["_MIN_VALUES"] for d in stats]
                cols[f"{name}.max_values"] = [d["_MAX_VALUES"] for d in stats]
                cols[f"{name}.null_counts"] = [_tuple_or_none(d.get("_NULL_COUNTS")) for d in stats]
            elif name == "extra_files":
                cols[name] = [tuple(f.get(key) or ()) for f in files]
            elif kind == "codes":
                cols[name] = [_tuple_or_none(f.get(key)) for f in files]
            elif name in _REQUIRED:
                cols[name] = [f[key] for f in files]
            else:
                cols[name] = [f.get(key) for f in files]
        return cols

    @staticmethod
    def extend(into: Columns, more: Columns) -> Columns:
        """``into`` with ``more``'s values after its own (``into`` may be empty)."""
        if not into:
            return more
        for name, values in more.items():
            into[name].extend(values)
        return into

    # ---- entries <-> columns
    def entries_of(self, cols: Columns) -> list:
        """The entries of ``cols``, in order; equal stats are one shared object."""
        new, file_type = _new_tuple, self.file_type
        file_cols = []
        for name, kind in _FILE:
            if kind == "stats":
                file_cols.append(self._stats(cols, name))
            else:
                file_cols.append(cols[name])
        files = [new(file_type, v) for v in zip(*file_cols)]
        entry_type = self.entry_type
        return [new(entry_type, v) for v in zip(*(cols[name] for name, _ in _ENTRY), files)]

    def _stats(self, cols: Columns, name: str) -> list:
        parts = [cols[f"{name}.{sub}"] for sub, _ in _STATS]
        stats_type = self.stats_type
        if all(type(p) is _Same for p in parts):  # one stats value for every file
            return _Same(_new_tuple(stats_type, tuple(p[0] for p in parts)), len(parts[0]))
        shared: dict = {}
        return [shared.get(v) or shared.setdefault(v, _new_tuple(stats_type, v)) for v in zip(*parts)]

    @staticmethod
    def columns_from_entries(entries: Sequence[tuple]) -> Columns:
        by_field = list(zip(*entries))
        cols: Columns = {name: list(values) for (name, _), values in zip(_ENTRY, by_field)}
        for (name, kind), values in zip(_FILE, zip(*by_field[4])):
            if kind == "stats":
                for (sub, _), sub_values in zip(_STATS, zip(*values)):
                    cols[f"{name}.{sub}"] = list(sub_values)
            else:
                cols[name] = list(values)
        return cols

    # ---- columns <-> table
    def table_of(self, entries: Sequence[tuple]) -> pa.Table | None:
        """The Arrow table of ``entries`` (tuples of the entry type); None when a value would
        not come back exactly."""
        return self.table_of_columns(self.columns_from_entries(entries)) if entries else None

    @staticmethod
    def table_of_columns(cols: Columns) -> pa.Table | None:
        """The Arrow table of ``cols``; None when a value would not come back exactly."""
        if not cols or not cols["kind"]:
            return None
        try:
            arrays: dict[str, pa.Array] = {}
            meta: dict[bytes, bytes] = {}
            for name, kind in _COLUMNS:
                _encode(name, kind, cols[name], arrays, meta)
        except (Unkeepable, TypeError, ValueError, OverflowError, pa.ArrowException):
            return None
        return pa.table(arrays).replace_schema_metadata(meta)

    def entries(self, table: pa.Table) -> list:
        """The entries of a table ``table_of`` made (or rows of one), in its order."""
        meta = table.schema.metadata or {}
        cols = {
            name: _decode(table.column(name), kind, meta.get(f"codes:{name}".encode()))
            for name, kind in _COLUMNS
        }
        return self.entries_of(cols)

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
            if not rows:
                return []
        return self.entries(table.take(pa.array(rows, pa.int64())))


def _encode(name: str, kind: str, values: Sequence, arrays: dict, meta: dict) -> None:
    n = len(values)
    one = values.count(values[0]) == n  # one value throughout (most columns of most manifests)
    if kind == "codes":
        index: dict = {values[0]: 0} if one else {}
        codes = np.zeros(n, np.int32) if one else [index.setdefault(v, len(index)) for v in values]
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
    if not set(map(type, values[:1] if one else values)) <= _TYPES[kind]:  # pyarrow: 1.5 -> 1, str -> bytes
        raise Unkeepable(name)
    if one and kind != "name":
        dictionary = pa.array(values[:1], _ARROW[kind])
        arrays[name] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), dictionary)
        return
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


def _tuple_or_none(v: list | None) -> tuple | None:
    return None if v is None else tuple(v)


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
