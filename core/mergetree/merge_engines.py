"""Merge engines of primary-key tables, vectorised over Arrow.

Input: the records of one bucket (key columns are among the value columns, plus
``_SEQUENCE_NUMBER`` and ``_VALUE_KIND``). Output: one record per key, the merge of all its
records in sequence order, keeping ``_SEQUENCE_NUMBER`` (the highest merged) and the kind of
the result: a retraction (-D) survives so that it can still delete older data in other runs;
readers drop retractions at the end.

Engines (``merge-engine``): ``deduplicate`` (the newest record wins), ``first-row`` (the
oldest insert wins, retractions ignored), ``partial-update`` (non-null fields of newer records
overwrite), ``aggregation`` (per-field functions, ``fields.F.aggregate-function``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from paimon_core.errors import InvalidInput, PaimonError

SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = 0, 1, 2, 3
KIND_NAMES = {"+I": INSERT, "-U": UPDATE_BEFORE, "+U": UPDATE_AFTER, "-D": DELETE}
ENGINES = ("deduplicate", "first-row", "partial-update", "aggregation")

_AGG = {  # Paimon aggregate function -> (pyarrow hash aggregation, skip nulls)
    "sum": ("sum", True), "product": ("product", True), "min": ("min", True), "max": ("max", True),
    "count": ("count", True), "last_value": ("last", False), "last_non_null_value": ("last", True),
    "first_value": ("first", False), "first_non_null_value": ("first", True),
    "bool_and": ("all", True), "bool_or": ("any", True), "listagg": ("list", True),
}


def sort_by_key_and_sequence(data: pa.Table, keys: list[str], sequence_fields=(), descending=False) -> pa.Table:
    """Sort by key, then by the user sequence fields (``sequence.field``), then by arrival."""
    seq_order = "descending" if descending else "ascending"
    order = [(k, "ascending", "at_start") for k in keys] + [(f, seq_order, "at_start") for f in sequence_fields]
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


def is_retract(kind_col) -> pa.Array:
    return pc.is_in(kind_col, pa.array([UPDATE_BEFORE, DELETE], pa.int8()))


def _key_then_sequence_order(keys: list, seq) -> np.ndarray:
    """Row order by key, then sequence number. Runs arrive concatenated oldest first, each sorted
    by key, so a stable sort on a single key usually already orders each key's records by
    sequence (timsort merges the sorted runs); that is checked, with a full lexsort otherwise."""
    if len(keys) == 1:
        order = np.argsort(keys[0], kind="stable")
        k, s = keys[0][order], seq[order]
        same = k[1:] == k[:-1]
        if np.all(s[1:][same] > s[:-1][same]):
            return order
    return np.lexsort([seq] + list(reversed(keys)))


def sequence_groups(options: dict) -> list[tuple[list[str], list[str]]]:
    """``fields.<s1>[,<s2>].sequence-group = f1,f2`` -> [([s1, s2], [f1, f2]), ...]."""
    out = []
    for k, v in options.items():
        if k.startswith("fields.") and k.endswith(".sequence-group"):
            seqs = [s.strip() for s in k[len("fields."):-len(".sequence-group")].split(",") if s.strip()]
            out.append((seqs, [f.strip() for f in str(v).split(",") if f.strip()]))
    return out


def sequence_fields(options: dict) -> list[str]:
    raw = options.get("sequence.field")
    return [f.strip() for f in raw.split(",") if f.strip()] if raw else []


class MergeEngine:
    """Merges records per key; built from table options."""

    def __init__(self, options: dict, keys: list[str], value_columns: list[str]):
        self.options = options
        self.engine = options.get("merge-engine", "deduplicate")
        if self.engine not in ENGINES:
            raise InvalidInput(f"unknown merge-engine '{self.engine}' (one of {', '.join(ENGINES)})")
        self.keys = keys
        self.values = [c for c in value_columns if c not in keys]
        self.sequence_fields = sequence_fields(options)
        self.sequence_descending = options.get("sequence.field.sort-order", "ascending").lower() == "descending"
        self.ignore_delete = options.get("ignore-delete", options.get(f"{self.engine}.ignore-delete", "false")) == "true"
        self.remove_on_delete = options.get("partial-update.remove-record-on-delete", "false") == "true"
        self.sequence_groups = sequence_groups(options)
        if self.sequence_groups and self.engine != "partial-update":
            raise InvalidInput("fields.*.sequence-group needs merge-engine=partial-update")
        grouped = [f for seqs, fields in self.sequence_groups for f in seqs + fields]
        for f in grouped:
            if f in keys:
                raise InvalidInput(f"sequence-group field '{f}' must not be a primary-key column")
        if len(set(grouped)) != len(grouped):
            raise InvalidInput("a field belongs to two sequence groups")
        if self.engine == "aggregation":
            default = options.get("fields.default-aggregate-function", "last_non_null_value")
            self.funcs = {c: options.get(f"fields.{c}.aggregate-function", default) for c in self.values}
            for c, f in self.funcs.items():
                if f == "count":  # refused by name: no engine could read such a table
                    raise InvalidInput(
                        f"aggregate function 'count' of field '{c}' is not supported: Java Paimon 0.9 has no "
                        "'count' and later Paimon versions removed it, so no other engine could read the table")
                if f not in _AGG:
                    raise InvalidInput(f"aggregate function '{f}' of field '{c}' is not supported")

    def merge(self, data: pa.Table, drop_retracts: bool = False) -> pa.Table:
        """``data``: records of one bucket in any order. Returns one record per key, sorted by key;
        with ``drop_retracts`` keys whose result is a retraction are left out (what readers want)."""
        if data.num_rows == 0:
            return data
        fast = self._merge_numeric_keys(data, drop_retracts)
        if fast is not None:
            return fast
        merged = self._merge(data)
        if drop_retracts:
            merged = merged.filter(pc.invert(is_retract(merged.column(KIND))))
        return merged

    def _merge_numeric_keys(self, data: pa.Table, drop_retracts: bool) -> pa.Table | None:
        """deduplicate / first-row on numeric keys: one numpy lexsort and a single ``take``
        (the general path sorts with Arrow, takes every column, then filters)."""
        if self.engine not in ("deduplicate", "first-row") or self.sequence_fields or self.ignore_delete:
            return None
        cols = []
        for k in self.keys:
            col = data.column(k)
            t = col.type
            if not (pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t)) or col.null_count:
                return None
            cols.append(col.cast(pa.int64()).to_numpy() if not pa.types.is_integer(t) else col.to_numpy())
        seq = data.column(SEQ).to_numpy()
        kind = data.column(KIND).to_numpy()
        retract = (kind == UPDATE_BEFORE) | (kind == DELETE)
        rows = np.flatnonzero(~retract) if self.engine == "first-row" else np.arange(len(seq))
        order = rows[_key_then_sequence_order([c[rows] for c in cols], seq[rows])]
        n = len(order)
        if n == 0:
            return data.slice(0, 0)
        differs = np.zeros(n - 1, dtype=bool)
        for c in cols:
            sc = c[order]
            differs |= sc[1:] != sc[:-1]
        if self.engine == "first-row":
            sel = order[np.r_[True, differs]]
        else:
            sel = order[np.r_[differs, True]]
            if drop_retracts:
                sel = sel[~retract[sel]]
        return data.take(pa.array(sel))

    def _merge(self, data: pa.Table) -> pa.Table:
        if self.ignore_delete:
            data = data.filter(pc.invert(is_retract(data.column(KIND))))
        data = sort_by_key_and_sequence(data, self.keys, self.sequence_fields, self.sequence_descending)
        if self.engine == "deduplicate":
            _, last = key_boundaries(data, self.keys)
            return data.filter(last)
        if self.engine == "first-row":
            data = data.filter(pc.invert(is_retract(data.column(KIND))))
            first, _ = key_boundaries(data, self.keys)
            return data.filter(first)
        if self.engine == "partial-update":
            return self._partial_update(data)
        return self._aggregate(data)

    # ---- partial-update and aggregation: per-column hash aggregations in sequence order
    def _grouped(self, data: pa.Table, aggs: list[tuple]) -> pa.Table:
        grouped = data.group_by(self.keys, use_threads=False).aggregate(aggs)
        return grouped

    def _partial_update(self, data: pa.Table) -> pa.Table:
        retract = is_retract(data.column(KIND))
        if pc.any(retract).as_py():
            if not self.remove_on_delete:
                raise PaimonError(
                    "partial-update got a delete (-U/-D) record: set ignore-delete=true or "
                    "partial-update.remove-record-on-delete=true")
            # a -D clears everything before it: keep only records after the last delete of each key
            data = _after_last_delete(data, self.keys)
            # and a -U is ignored (Java 0.9): it neither removes nor updates the record
            data = data.filter(pc.not_equal(data.column(KIND), UPDATE_BEFORE))
        aggs = [(c, "last", pc.ScalarAggregateOptions(skip_nulls=True)) for c in self.values]
        aggs += [(SEQ, "max"), (KIND, "last")]
        grouped = self._grouped(data, aggs)
        for seqs, fields in self.sequence_groups:
            grouped = self._apply_sequence_group(data, grouped, seqs, fields)
        return self._finish(data, grouped, {c: f"{c}_last" for c in self.values})

    def _apply_sequence_group(self, data: pa.Table, grouped: pa.Table, seqs: list[str], fields: list[str]) -> pa.Table:
        """A sequence group takes all its fields (nulls included) from the key's record with the
        greatest sequence tuple (nulls first; a later record wins a tie). A record whose sequence
        fields are all null never updates the group, except that a key's only record passes
        through unchanged (Paimon merges only keys with two or more records; checked on Java
        0.9's reads)."""
        present = [c for c in seqs + fields if c in data.column_names]
        if not present:
            return grouped
        first, _ = key_boundaries(data, self.keys)
        gid = np.cumsum(first.to_numpy(zero_copy_only=False)) - 1
        if any(s not in data.column_names for s in seqs):
            return grouped  # the projection lacks the sequence field (reads always include it)
        eligible = np.zeros(data.num_rows, dtype=bool)
        for s in seqs:
            eligible |= pc.is_valid(data.column(s)).to_numpy(zero_copy_only=False)
        counts = np.bincount(gid, minlength=grouped.num_rows)
        eligible |= counts[gid] == 1
        rows = np.flatnonzero(eligible)
        winner = np.full(grouped.num_rows, -1, dtype=np.int64)
        if len(rows):
            sub = pa.table({"__g": pa.array(gid[rows]), **{s: data.column(s).take(pa.array(rows)) for s in seqs},
                            "__seq": data.column(SEQ).take(pa.array(rows))})
            order = pc.sort_indices(sub, sort_keys=[("__g", "ascending", "at_start")]
                                    + [(s, "ascending", "at_start") for s in seqs] + [("__seq", "ascending", "at_start")])
            o = order.to_numpy()
            g_sorted = gid[rows][o]
            last = np.r_[g_sorted[1:] != g_sorted[:-1], True]
            winner[g_sorted[last]] = rows[o][last]
        idx = pa.array(np.where(winner < 0, 0, winner))
        missing = pa.array(winner < 0)
        for c in present:
            col = data.column(c).take(idx)
            col = pc.if_else(missing, pa.scalar(None, col.type), col)
            name = f"{c}_last"
            grouped = grouped.set_column(grouped.column_names.index(name), name, col)
        return grouped

    def _aggregate(self, data: pa.Table) -> pa.Table:
        """Per-field aggregation in sequence order. -U/-D records retract (Java 0.9): sum
        subtracts, last_value clears, last_non_null_value clears when the retracted value is
        not null; other functions refuse retraction unless ``fields.F.ignore-retract``. A key
        with a single record passes through unchanged, as Paimon merges only 2+ records."""
        retract = is_retract(data.column(KIND))
        has_retract = pc.any(retract).as_py()
        first, _ = key_boundaries(data, self.keys)
        gid = np.cumsum(first.to_numpy(zero_copy_only=False)) - 1
        groups = int(gid[-1]) + 1 if len(gid) else 0
        r = retract.to_numpy(zero_copy_only=False) if has_retract else None
        aggs, names, work = [], {}, data
        for c in self.values:
            func = self.funcs[c]
            fn, skip = _AGG[func]
            names[c] = f"{c}_{fn}"
            if has_retract:
                ignore = self.options.get(f"fields.{c}.ignore-retract", "false") == "true"
                col = work.column(c)
                if ignore or func in ("sum",):
                    values = pc.negate(col) if func == "sum" and not ignore else pa.nulls(len(col), col.type)
                    col = pc.if_else(pa.array(r), values, col)
                elif func not in ("last_value", "last_non_null_value"):
                    raise PaimonError(f"aggregate function '{func}' of field '{c}' does not support retraction "
                                      f"(-U/-D); set fields.{c}.ignore-retract=true")
                work = work.set_column(work.column_names.index(c), c, col)
            aggs.append((c, fn, pc.ScalarAggregateOptions(skip_nulls=skip)
                         if fn in ("first", "last", "sum", "product", "min", "max", "all", "any")
                         else pc.CountOptions(mode="only_valid") if fn == "count" else None))
        aggs += [(SEQ, "max"), (KIND, "last")]
        grouped = self._grouped(work, [a if len(a) == 3 and a[2] is not None else a[:2] for a in aggs])
        for c in self.values:
            func = self.funcs[c]
            if func == "listagg":
                delim = self.options.get(f"fields.{c}.list-agg-delimiter", ",")
                grouped = grouped.set_column(grouped.column_names.index(names[c]), names[c],
                                             self._listagg(work, c, delim, grouped.num_rows))
            elif has_retract and func in ("last_value", "last_non_null_value") and \
                    self.options.get(f"fields.{c}.ignore-retract", "false") != "true":
                col = data.column(c)
                touches = np.ones(len(gid), bool) if func == "last_value" else \
                    pc.is_valid(col).to_numpy(zero_copy_only=False)
                winner = np.full(groups, -1, np.int64)
                rows = np.flatnonzero(touches)
                winner[gid[rows]] = rows  # rows ascend, so the last touching row of each key wins
                cleared = (winner < 0) | r[np.where(winner < 0, 0, winner)]
                value = pc.take(col, pa.array(np.where(winner < 0, 0, winner)))
                grouped = grouped.set_column(grouped.column_names.index(names[c]), names[c],
                                             pc.if_else(pa.array(cleared), pa.scalar(None, col.type), value))
        out = self._finish(data, grouped, names, keep_delete=False)
        counts = np.bincount(gid, minlength=groups)
        if (counts == 1).any():  # single records pass through as stored (kind included)
            single = np.flatnonzero(first.to_numpy(zero_copy_only=False))[counts == 1]
            keep = pa.array(counts != 1)
            merged_rows = out.filter(keep)
            out = sort_by_key_and_sequence(pa.concat_tables([merged_rows, data.take(pa.array(single))]), self.keys)
        return out

    def _listagg(self, data: pa.Table, column: str, delim: str, groups: int) -> pa.Array:
        """Non-null values of each key joined in sequence order (null when there are none)."""
        first, _ = key_boundaries(data, self.keys)
        gid = np.cumsum(first.to_numpy(zero_copy_only=False)) - 1
        col = data.column(column)
        valid = pc.is_valid(col).to_numpy(zero_copy_only=False)
        part = pa.table({"g": pa.array(gid[valid]), "v": col.filter(pa.array(valid))})
        agg = part.group_by("g", use_threads=False).aggregate([("v", "list")])
        joined = pc.binary_join(agg.column("v_list"), delim)
        where = np.full(groups, -1, dtype=np.int64)
        where[agg.column("g").to_numpy()] = np.arange(agg.num_rows)
        idx = pa.array(np.where(where < 0, 0, where))
        out = pc.take(joined, idx) if agg.num_rows else pa.nulls(groups, pa.string())
        return pc.if_else(pa.array(where < 0), pa.scalar(None, pa.string()), out)

    def _finish(self, data: pa.Table, grouped: pa.Table, names: dict, keep_delete: bool = True) -> pa.Table:
        cols, fields = [], []
        for f in data.schema:
            if f.name == SEQ:
                arr = grouped.column(f"{SEQ}_max")
            elif f.name == KIND:
                arr = grouped.column(f"{KIND}_last")
            elif f.name in names:
                arr = grouped.column(names[f.name]).cast(f.type)
            else:
                arr = grouped.column(f.name)
            cols.append(arr)
            fields.append(f)
        out = pa.Table.from_arrays(cols, schema=pa.schema(fields))
        kinds = out.column(KIND)
        # a merged record is an insert; partial-update's remove-record-on-delete keeps a final -D
        # (aggregation merges retractions into the values: its result is always +I, as Java's)
        merged_kind = pc.if_else(pc.equal(kinds, DELETE), kinds, pa.scalar(INSERT, pa.int8())) if keep_delete \
            else pa.array(np.full(out.num_rows, INSERT, np.int8))
        out = out.set_column(out.column_names.index(KIND), KIND, pa.array(merged_kind).cast(pa.int8())
                             if not isinstance(merged_kind, pa.ChunkedArray) else merged_kind.cast(pa.int8()))
        return sort_by_key_and_sequence(out, self.keys)


def _after_last_delete(data: pa.Table, keys: list[str], only_delete: bool = False) -> pa.Table:
    """Rows of each key after its last -D (the -D itself kept when it is the key's last record).
    ``data`` must be sorted by key and sequence."""
    n = data.num_rows
    import numpy as np

    first, _ = key_boundaries(data, keys)
    group = np.cumsum(first.to_numpy(zero_copy_only=False)) - 1
    kind = data.column(KIND).to_numpy()
    is_del = kind == DELETE if only_delete else (kind == DELETE)
    idx = np.arange(n)
    last_del = np.full(group[-1] + 1 if n else 0, -1)
    np.maximum.at(last_del, group[is_del], idx[is_del])
    group_end = np.zeros_like(last_del)
    np.maximum.at(group_end, group, idx)
    cut = last_del[group]
    keep = (idx > cut) | ((idx == cut) & (idx == group_end[group]))
    return data.filter(pa.array(keep))
