"""Merge engines of primary-key tables, vectorised over Arrow.

Input: the records of one bucket (key columns are among the value columns, plus
``_SEQUENCE_NUMBER`` and ``_VALUE_KIND``). Output: one record per key, the merge of all its
records in sequence order, keeping ``_SEQUENCE_NUMBER`` (the highest merged) and the kind of
the result: a retraction (-D) survives so that it can still delete older data in other runs;
readers drop retractions at the end.

Engines (``merge-engine``): ``deduplicate`` (the newest record wins), ``first-row`` (the
oldest insert wins, retractions ignored), ``partial-update`` (non-null fields of newer records
overwrite; sequence groups; aggregate functions inside groups), ``aggregation`` (per-field
functions, ``fields.F.aggregate-function``, see ``aggregators``).

Every engine works on any column type: a merged value is either one row's value, picked per key
and fetched with ``take`` (``merge_kernels``), or an aggregate computed by ``aggregators``. As in
Java Paimon, a key with a single record passes through as stored (its kind included); only keys
with two or more records are merged. Tables with ``changelog-producer=lookup`` merge as Java's
``LookupMergeFunction`` (see ``MergeEngine.merge``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.system_columns import KIND, SEQ
from paimon_core.errors import InvalidInput, PaimonError
from paimon_core.merge import aggregators
from paimon_core.merge.aggregators import AggInput
from paimon_core.merge.merge_kernels import Groups, choose, take_rows
from paimon_core.metadata.merge_options import (
    MergeOptions,
    check_merge_rules,
    sequence_fields,
    sequence_groups,
)
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.merge_engine import MergeEngineKind

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema

_LEVEL = "__level"  # a record's LSM level while a lookup table merges (never stored)
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = 0, 1, 2, 3
KIND_NAMES = {"+I": INSERT, "-U": UPDATE_BEFORE, "+U": UPDATE_AFTER, "-D": DELETE}


def sort_by_key_and_sequence(
    data: pa.Table, keys: list[str], sequence_fields=(), descending=False
) -> pa.Table:
    """Sort by key, then by the user sequence fields (``sequence.field``), then by arrival."""
    seq_order = "descending" if descending else "ascending"
    order = [(k, "ascending", "at_start") for k in keys] + [
        (f, seq_order, "at_start") for f in sequence_fields
    ]
    order += [(SEQ, "ascending", "at_start")]
    return data.take(pc.sort_indices(data, sort_keys=order))


def key_boundaries(data: pa.Table, keys: list[str]) -> tuple[pa.Array, pa.Array]:
    """For rows sorted by key: (is_first, is_last) of each row within its key group."""
    n = data.num_rows
    if n == 0:
        empty = pa.array([], pa.bool_())
        return empty, empty
    differs = None
    for k in keys:
        col = data.column(k)
        d = pc.not_equal(col.slice(1), col.slice(0, n - 1))
        differs = d if differs is None else pc.or_(differs, d)
    if differs is None:  # no key columns: one group
        differs = pa.chunked_array([pa.nulls(n - 1, pa.bool_()).fill_null(False)])
    chunks = differs.chunks if isinstance(differs, pa.ChunkedArray) else [differs]
    first = pa.concat_arrays([pa.array([True])] + chunks)
    last = pa.concat_arrays(chunks + [pa.array([True])])
    return first, last


def is_retract(kind_col: pa.Array | pa.ChunkedArray) -> pa.Array:
    return pc.is_in(kind_col, pa.array([UPDATE_BEFORE, DELETE], pa.int8()))


def _scratch(n: int, dtype) -> np.ndarray:
    """An uninitialised numpy array in Arrow's memory pool. The pool keeps freed pages for reuse,
    while numpy's large temporaries are fresh mappings whose pages fault on first touch (~30% of
    a merge-on-read's merge time)."""
    dtype = np.dtype(dtype)
    if n == 0:
        return np.empty(0, dtype)
    return np.frombuffer(pa.allocate_buffer(n * dtype.itemsize), dtype=dtype)


def _key_numpy(col) -> np.ndarray:
    """An integer Arrow column (chunked or not) as one numpy array, copied at most once."""
    if isinstance(col, pa.ChunkedArray):
        col = col.chunk(0) if col.num_chunks == 1 else pa.concat_arrays(col.chunks)
    return col.to_numpy()


# Timsort (numpy's "stable" for 64-bit integers) merges presorted runs: on a merge-on-read's
# concatenated sorted runs it is 10x faster than quicksort; on shuffled input it is slower.
RUNS_PER_ROW_FOR_TIMSORT = 1 / 64


def _sort_kind(c: np.ndarray) -> Literal["stable", "quicksort"]:
    """``"stable"`` when ``c`` is a concatenation of few ascending runs (at most one per 64
    values: sorted runs, files read one after another), else ``"quicksort"``. Either sorts ``c``
    exactly; this picks the faster."""
    descents = np.count_nonzero(c[1:] < c[:-1])
    return "stable" if descents <= len(c) * RUNS_PER_ROW_FOR_TIMSORT else "quicksort"


def _sort_positions(k: np.ndarray, bounds: np.ndarray) -> np.ndarray | None:
    """The stable sort order of integer keys ``k``, and their key boundaries into ``bounds[1:n]``
    (see ``_key_then_sequence_order``), by sorting in place the unique int64 values
    ``(k - min) << b | position``; None when the key span does not fit beside the positions."""
    n = len(k)
    if n < 2:
        return np.arange(n)
    lo, hi = int(k.min()), int(k.max())
    bits = (n - 1).bit_length()
    if (hi - lo) >> (62 - bits):
        return None
    c = _scratch(n, np.int64)
    np.subtract(k, lo, out=c, dtype=np.int64)  # k - lo (may exceed the range of k's own type)
    np.left_shift(c, bits, out=c)
    np.bitwise_or(c, np.arange(n, dtype=np.int64), out=c)
    c.sort(kind=_sort_kind(c))  # unique values: any sort is stable
    order = np.bitwise_and(c, (1 << bits) - 1, out=_scratch(n, np.int64))
    np.right_shift(c, bits, out=c)
    np.not_equal(c[1:], c[:-1], out=bounds[1:n])
    return order


def _key_then_sequence_order(keys: list, seq) -> tuple[np.ndarray, np.ndarray]:
    """Row order by key, then sequence number, and the key boundaries of the sorted rows:
    ``bounds[i]`` (i = 1..n-1) is True where sorted row i has another key than row i-1, and
    ``bounds[0] = bounds[n] = True``; so ``bounds[:n]`` marks each key's first row and
    ``bounds[1:]`` its last. One integer key: (key, position) packed into one int64 and sorted
    (``_sort_positions``), else a stable sort of the key; runs arrive concatenated oldest first,
    each sorted by key, so that usually orders each key's records by sequence already, which is
    checked, with a full lexsort otherwise. ``seq`` None: the rows are in sequence order (a
    stable sort by key is exact)."""
    n = len(keys[0]) if keys else len(seq)
    bounds = _scratch(n + 1, bool)
    bounds[0] = bounds[n] = True
    differs = bounds[1:n]
    if len(keys) == 1 and (seq is None or (seq[1:] > seq[:-1]).all()):
        order = _sort_positions(keys[0], bounds)
        if order is not None:
            return order, bounds
    if len(keys) == 1:
        k = keys[0]
        order = np.argsort(k, kind="stable")
        ks = np.take(k, order, out=_scratch(n, k.dtype))
        np.not_equal(ks[1:], ks[:-1], out=differs)
        if seq is None or (seq[1:] > seq[:-1]).all():  # rows in sequence order: the stable sort is exact
            return order, bounds
        s = seq[order]
        older = s[1:] <= s[:-1]
        if not (older & ~differs).any():
            return order, bounds
    order = np.lexsort(([] if seq is None else [seq]) + list(reversed(keys)))  # lexsort is stable
    differs[:] = False
    for c in keys:
        sc = c[order]
        differs |= sc[1:] != sc[:-1]
    return order, bounds


def _column(data: pa.Table, name: str) -> pa.Array:
    col = data.column(name)
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _valid(col: pa.Array) -> np.ndarray:
    if col.null_count == 0:
        return np.ones(len(col), dtype=bool)
    return pc.is_valid(col).to_numpy(zero_copy_only=False)


class MergeEngine:
    """Merges records per key; built from table options. ``MergeEngine(options, ...)`` is an
    instance of the strategy of the table's engine (``Deduplicate``, ``FirstRow``,
    ``PartialUpdate``, ``Aggregation``) over the shared kernels here: sorting by key and
    sequence, grouping, lookup levels, and assembling one record per key. With ``types`` (column
    -> Paimon type) the aggregate functions are checked against their columns' types first (a
    table another writer created with a misfit is refused with a clear error instead of failing
    mid-merge)."""

    # Java wraps the merge function of lookup tables (changelog-producer=lookup) in its
    # LookupMergeFunction: of a key's records above level 0 only the latest counts, since a
    # lookup compaction already merged the older ones into it (first-row is not wrapped)
    lookup_wrapped = True
    keeps_first = False  # the oldest insert of a key wins (retractions are ignored)

    def check_input(self, kinds: pa.Array) -> None:
        """Refuse, before anything is written, input row kinds (int8) this engine cannot take."""

    def __new__(cls, options: dict | None = None, *args, **kwargs):
        if cls is MergeEngine:  # (a subclass: also unpickling, which passes no options)
            if options is None:
                raise TypeError("MergeEngine(options): the table's options choose the merge engine")
            cls = _STRATEGIES[MergeOptions.of(options).engine]
        return super().__new__(cls)

    def __init__(
        self,
        options: dict,
        keys: list[str],
        value_columns: list[str],
        types: dict | None = None,
        partition_keys: tuple = (),
    ):
        self.options = options
        self.mo = mo = MergeOptions.of(options)
        self.engine = mo.engine
        self.keys = keys
        # partition columns are constant within a bucket: merged rows keep them (a partial-update
        # -D must not null them)
        self.values = [c for c in value_columns if c not in keys and c not in partition_keys]
        self.sequence_fields = mo.sequence_fields
        self.sequence_descending = mo.descending
        self.ignore_delete = mo.ignore_delete
        self.remove_on_delete = mo.remove_on_delete
        self.sequence_groups = mo.groups
        # the rules stated in ``merge_options`` (also checked when a schema is made): a schema
        # file written elsewhere may break them
        check_merge_rules(mo, keys, self.values, types or {})
        self.funcs: dict[str, str] = {}
        if self.engine.merges_fields:
            for c in self.values:
                f = mo.function(c)
                if f is not None:
                    self.funcs[c] = f
        self.lookup = CoreOptions(options).changelog_producer == "lookup" and self.lookup_wrapped

    @classmethod
    def for_schema(cls, schema: TableSchema, columns: list[str] | None = None) -> MergeEngine:
        """The engine of a table schema over ``columns`` (default: all), types checked."""
        names = list(columns) if columns is not None else list(schema.field_names)
        return cls(
            schema.options,
            schema.trimmed_primary_keys,
            names,
            {f.name: f.type for f in schema.fields},
            tuple(schema.partition_keys),
        )

    def merge(
        self,
        data: pa.Table,
        drop_retracts: bool = False,
        levels: np.ndarray | None = None,
        merge_singles: bool = False,
        drop: Sequence[str] = (),
        in_order: bool = False,
    ) -> pa.Table:
        """``data``: records of one bucket in any order. Returns one record per key, sorted by key;
        with ``drop_retracts`` keys whose result is a retraction are left out (what readers want).

        ``levels`` (the LSM level of each record) matters to lookup tables only, whose merge keeps
        just the latest record above level 0 of each key (Java's LookupMergeFunction).
        ``merge_singles``: merge keys with a single record too (Java's lookup compaction of
        level-0 files does); otherwise such a record passes through as stored.
        ``drop``: columns to leave out of the result (a reader's ``_SEQUENCE_NUMBER``, say).
        ``in_order``: the records arrive in sequence order and ``data`` may lack
        ``_SEQUENCE_NUMBER`` (their positions then stand in for it)."""
        drop = [c for c in drop if c in data.column_names]
        if data.num_rows == 0:
            return data.drop_columns(drop)
        if not (self.lookup and self.engine.merges_fields):
            levels, merge_singles = None, False  # neither changes what the other engines keep
        no_seq = in_order and SEQ not in data.column_names
        if levels is None:
            fast = self._merge_numeric_keys(data, drop_retracts, drop, no_seq)
            if fast is not None:
                return fast
        if no_seq:
            data = data.append_column(SEQ, pa.array(np.arange(data.num_rows, dtype=np.int64)))
        if levels is not None:
            data = data.append_column(_LEVEL, pa.array(np.asarray(levels, dtype=np.int32)))
        merged = self._merge(data, merge_singles)
        if drop_retracts:
            merged = merged.filter(pc.invert(is_retract(merged.column(KIND))))
        return merged.drop_columns([c for c in merged.column_names if c in drop or (no_seq and c == SEQ)])

    def _merge_numeric_keys(
        self, data: pa.Table, drop_retracts: bool, drop=(), no_seq: bool = False
    ) -> pa.Table | None:
        """deduplicate / first-row on numeric keys: one numpy (stable) sort on the keys and a
        single ``take`` (the general path sorts with Arrow, takes every column, then filters).
        ``no_seq``: the rows are in sequence order, without ``_SEQUENCE_NUMBER``."""
        if not self.engine.picks_rows or self.sequence_fields or self.ignore_delete:
            return None
        cols = []
        for k in self.keys:
            col = data.column(k)
            t = col.type
            if (
                not (pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t))
                or col.null_count
            ):
                return None
            if pa.types.is_date32(t):  # Arrow casts date32 to int32 only
                col = col.cast(pa.int32())
            cols.append(_key_numpy(col.cast(pa.int64()) if not pa.types.is_integer(col.type) else col))
        seq = None if no_seq else data.column(SEQ).to_numpy()
        kind = data.column(KIND).to_numpy()
        retract = None  # None: all records are inserts/updates (the common case, one cheap check)
        if kind.any():
            retract = (kind == UPDATE_BEFORE) | (kind == DELETE)
            if not retract.any():
                retract = None
        rows = None
        if self.keeps_first and retract is not None:
            rows = np.flatnonzero(~retract)
            cols, seq = [c[rows] for c in cols], None if seq is None else seq[rows]
        data = data.drop_columns(drop)
        n = data.num_rows if rows is None else len(rows)
        if n == 0:
            return data.slice(0, 0)
        if not cols and seq is None:  # no key columns (all are partition keys): one group
            order, bounds = np.arange(n), np.r_[True, np.zeros(n - 1, dtype=bool), True]
        else:
            order, bounds = _key_then_sequence_order(cols, seq)
        pick = bounds[:n] if self.keeps_first else bounds[1:]
        sel = np.compress(pick, order, out=_scratch(int(np.count_nonzero(pick)), np.int64))
        if rows is not None:
            sel = rows[sel]
        if drop_retracts and retract is not None and not self.keeps_first:
            sel = sel[~retract[sel]]
        return data.take(pa.array(sel))

    def _merge(self, data: pa.Table, merge_singles: bool = False) -> pa.Table:
        if self.ignore_delete:
            data = data.filter(pc.invert(is_retract(data.column(KIND))))
        data = sort_by_key_and_sequence(data, self.keys, self.sequence_fields, self.sequence_descending)
        if self.keeps_first:
            data = data.filter(pc.invert(is_retract(data.column(KIND))))
        groups = Groups.of_sorted(data, self.keys)
        if _LEVEL in data.column_names:
            high = data.column(_LEVEL).to_numpy() > 0
            latest = groups.last_where(high)
            keep = ~high | (np.arange(data.num_rows) == latest[groups.gid])
            data = data.drop_columns([_LEVEL])
            if not keep.all():
                data = data.filter(pa.array(keep))
                groups = Groups.of_sorted(data, self.keys)
        if data.num_rows == 0:
            return data
        return self._merge_groups(data, groups, merge_singles)

    def _merge_groups(self, data: pa.Table, groups: Groups, merge_singles: bool) -> pa.Table:
        """One record per group of ``data`` (sorted by key and sequence): the strategy's part."""
        raise NotImplementedError

    def _fields_to_merge(self, data: pa.Table, groups: Groups, merge_singles: bool) -> np.ndarray | None:
        """For field-merging engines: which groups to merge (None: every key has one record
        and passes through as stored)."""
        if groups.count == data.num_rows and not merge_singles:
            return None
        return np.ones(groups.count, dtype=bool) if merge_singles else groups.sizes > 1

    # ---- assembling one record per key
    def _assemble(
        self, data: pa.Table, groups: Groups, multi: np.ndarray, merged: dict, kinds: np.ndarray
    ) -> pa.Table:
        """One row per group: ``merged`` values (arrays per group) for the groups ``multi``
        marks; the others (keys with one record) keep their stored row, kind and sequence."""
        starts = groups.starts
        seq = data.column(SEQ).to_numpy()
        stored_kind = data.column(KIND).to_numpy()
        seq_max = np.maximum.reduceat(seq, starts)
        cols = []
        for f in data.schema:
            if f.name == SEQ:
                arr = pa.array(np.where(multi, seq_max, seq[starts]), pa.int64())
            elif f.name == KIND:
                arr = pa.array(np.where(multi, kinds, stored_kind[starts]).astype(np.int8))
            elif f.name in merged:
                arr = merged[f.name]
                if arr.type != f.type:
                    arr = arr.cast(f.type)
                if not multi.all():
                    arr = choose(multi, arr, take_rows(data.column(f.name), starts))
            else:
                arr = take_rows(data.column(f.name), starts)
            cols.append(arr)
        return pa.Table.from_arrays(cols, schema=data.schema)


class Deduplicate(MergeEngine):
    """The newest record of a key wins, whole."""

    def _merge_groups(self, data: pa.Table, groups: Groups, merge_singles: bool) -> pa.Table:
        return data.take(pa.array(groups.last_where()))


class FirstRow(MergeEngine):
    """The oldest insert of a key wins, whole; retractions are ignored when merging (a writer
    refuses them, see ``check_input``)."""

    lookup_wrapped = False
    keeps_first = True

    def check_input(self, kinds: pa.Array) -> None:
        """As Java's first-row merge function: -U/-D input is refused unless ``ignore-delete``
        (``first-row.ignore-delete``) says to drop it."""
        if not self.ignore_delete and pc.any(is_retract(kinds)).as_py():
            raise InvalidInput(
                "a first-row table takes no -U/-D rows (the first insert of a key stays): "
                "set first-row.ignore-delete=true to drop them"
            )

    def _merge_groups(self, data: pa.Table, groups: Groups, merge_singles: bool) -> pa.Table:
        return data.take(pa.array(groups.first_where()))


class Aggregation(MergeEngine):
    """Per-field aggregate functions over a key's records in sequence order."""

    def _merge_groups(self, data: pa.Table, groups: Groups, merge_singles: bool) -> pa.Table:
        multi = self._fields_to_merge(data, groups, merge_singles)
        return data if multi is None else self._aggregate(data, groups, multi)

    def _aggregate(self, data: pa.Table, groups: Groups, multi: np.ndarray) -> pa.Table:
        """Per-field aggregation in sequence order (``aggregators``). -U/-D records retract
        (sum subtracts, last_value clears, last_non_null_value clears when the retracted value
        is not null); other functions refuse retraction unless ``fields.F.ignore-retract``,
        which drops the retractions from that field. Merged records are inserts (Java 0.9)."""
        kind = data.column(KIND).to_numpy()
        retract = (kind == UPDATE_BEFORE) | (kind == DELETE)
        multi_rows = multi[groups.gid]
        merged = {}
        for c in self.values:
            rows = multi_rows & ~(retract & self.mo.ignore_retract(c))
            inp = AggInput(_column(data, c), groups, rows, retract & rows, c, self.options)
            merged[c] = aggregators.aggregate(self.funcs[c], inp)
        return self._assemble(data, groups, multi, merged, np.full(groups.count, INSERT, np.int8))


class PartialUpdate(MergeEngine):
    """Non-null fields of newer records overwrite; sequence groups; aggregate functions."""

    def _merge_groups(self, data: pa.Table, groups: Groups, merge_singles: bool) -> pa.Table:
        multi = self._fields_to_merge(data, groups, merge_singles)
        return data if multi is None else self._partial_update(data, groups, multi)

    def _partial_update(self, data: pa.Table, groups: Groups, multi: np.ndarray) -> pa.Table:
        """Non-null fields of later records overwrite (fields with an aggregate function fold
        it instead); sequence groups decide their fields by their own sequence fields."""
        kind = data.column(KIND).to_numpy()
        retract = (kind == UPDATE_BEFORE) | (kind == DELETE)
        multi_rows = multi[groups.gid]
        active = ~retract  # records whose values update the fields outside sequence groups
        kinds = np.full(groups.count, INSERT, np.int8)
        if not self.sequence_groups and (retract & multi_rows).any():
            if not self.remove_on_delete:
                raise PaimonError(
                    "partial-update got a delete (-U/-D) record: set ignore-delete=true, "
                    "partial-update.remove-record-on-delete=true, or use sequence groups"
                )
            # -U records are ignored; a -D clears everything before it (and, when it is the
            # key's last record, stays a -D so that it still deletes older data in other runs)
            deletes = (kind == DELETE) & multi_rows
            last_del = groups.last_where(deletes)
            active = ~retract & (np.arange(len(kind)) > last_del[groups.gid])
            last_kept = groups.last_where(kind != UPDATE_BEFORE)
            # a key with only -U records stays a (ignored) retraction, not a row of NULLs
            only_updates_before = groups.last_where(~retract) < 0
            kinds = np.where(
                (last_del >= 0) & (last_kept == last_del),
                DELETE,
                np.where(only_updates_before, UPDATE_BEFORE, INSERT),
            ).astype(np.int8)
        group_of = self.mo.group_of()
        merged = {}
        for c in self.values:
            if c in group_of:
                continue
            col = _column(data, c)
            func = self.funcs.get(c)
            if func is not None:  # a field outside any group folds its function over all inserts
                inp = AggInput(col, groups, active & multi_rows, np.zeros(len(kind), bool), c, self.options)
                merged[c] = aggregators.aggregate(func, inp)
            else:
                merged[c] = take_rows(col, groups.last_where(active & _valid(col)))
        for seqs, fields in self.sequence_groups:
            self._sequence_group(data, groups, retract & multi_rows, multi_rows, seqs, fields, merged)
        return self._assemble(data, groups, multi, merged, kinds)

    def _sequence_group(
        self,
        data: pa.Table,
        groups: Groups,
        retract: np.ndarray,
        multi_rows: np.ndarray,
        seqs: list[str],
        fields: list[str],
        merged: dict,
    ) -> None:
        """Java 0.9's sequence groups, record by record in sequence order: a record whose
        sequence fields are all NULL leaves the group alone; otherwise, if its sequence tuple is
        >= the group's current one (NULLs first), it is "forward": it sets the sequence fields,
        and its values the group's fields (a retraction sets them NULL); an older record changes
        only aggregated fields. So plain fields come from the last record with the greatest
        tuple (the winner). Computed with a running maximum of the tuple's rank per key."""
        names = data.column_names
        if any(s not in names for s in seqs):
            return  # the projection lacks the sequence field (reads always include it)
        present = [c for c in fields if c in names and c not in seqs]
        n = data.num_rows
        eligible = np.zeros(n, dtype=bool)
        for s in seqs:
            eligible |= _valid(_column(data, s))
        eligible &= multi_rows
        rows = np.flatnonzero(eligible)
        forward = np.zeros(n, dtype=bool)
        if len(rows):
            rank = _dense_rank(data, seqs, rows)
            g = groups.gid[rows]
            scaled = g * (int(rank.max()) + 1) + rank
            running = np.maximum.accumulate(scaled)
            first = np.r_[True, g[1:] != g[:-1]]
            forward[rows] = first | (scaled >= np.r_[-1, running[:-1]])
        winner = groups.last_where(forward)
        for s in seqs:
            merged[s] = take_rows(_column(data, s), winner)
        inserts = eligible & ~retract
        position = np.arange(n)
        for c in present:
            col = _column(data, c)
            func = self.funcs.get(c)
            has = winner >= 0
            if func is None:
                merged[c] = take_rows(col, np.where(has & retract[np.where(has, winner, 0)], -1, winner))
                continue
            retracts = eligible & retract & ~self.mo.ignore_retract(c)
            if func in ("last_value", "last_non_null_value"):
                valid = _valid(col) if func == "last_non_null_value" else np.ones(n, dtype=bool)
                # the last record that set the field: a forward insert with a value, or a retraction
                setter = groups.last_where((inserts & forward & valid) | (retracts & valid))
                keep = np.where((setter >= 0) & ~retract[np.where(setter >= 0, setter, 0)], setter, -1)
                if func == "last_non_null_value":  # an older insert fills a NULL left after it
                    fill = groups.first_where(inserts & ~forward & valid & (position > setter[groups.gid]))
                    keep = np.where(keep >= 0, keep, fill)
                merged[c] = take_rows(col, keep)
                continue
            rows_c = eligible & ~(retract & ~retracts)
            inp = AggInput(col, groups, rows_c, retracts, c, self.options)
            merged[c] = aggregators.aggregate(func, inp)


_STRATEGIES = {
    MergeEngineKind.DEDUPLICATE: Deduplicate,
    MergeEngineKind.FIRST_ROW: FirstRow,
    MergeEngineKind.PARTIAL_UPDATE: PartialUpdate,
    MergeEngineKind.AGGREGATION: Aggregation,
}


def _dense_rank(data: pa.Table, columns: list[str], rows: np.ndarray) -> np.ndarray:
    """Dense rank (0, 1, ...) of the tuples ``columns`` at ``rows``, NULLs first."""
    sub = pa.table({c: take_rows(_column(data, c), rows) for c in columns})
    order = pc.sort_indices(sub, sort_keys=[(c, "ascending", "at_start") for c in columns]).to_numpy()
    m = len(rows)
    differs = np.zeros(max(m - 1, 0), dtype=bool)
    for c in columns:
        col = take_rows(sub.column(c), order)
        a, b = col.slice(1), col.slice(0, m - 1)
        eq = pc.fill_null(pc.equal(a, b), False).to_numpy(zero_copy_only=False)
        both_null = pc.is_null(a).to_numpy(zero_copy_only=False) & pc.is_null(b).to_numpy(
            zero_copy_only=False
        )
        differs |= ~(eq | both_null)
    rank = np.empty(m, dtype=np.int64)
    rank[order] = np.r_[0, np.cumsum(differs)]
    return rank


__all__ = [
    "MergeEngine",
    "sequence_fields",
    "sequence_groups",
    "sort_by_key_and_sequence",
    "key_boundaries",
    "is_retract",
]
