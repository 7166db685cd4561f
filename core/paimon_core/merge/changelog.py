"""Changelog between two states of a primary-key table, key by key (vectorised).

``changes(old, new, keys)``: both tables hold one row per key (merged, retractions removed).
A key only in ``new`` gives +I; only in ``old`` gives -D (with the old values); in both with
different values gives -U (old) then +U (new); identical values give nothing when
``drop_unchanged`` (``changelog-producer.row-deduplicate``), else -U/+U as well.
The result has the table columns plus ``_VALUE_KIND``, sorted by key, -U before its +U.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.system_columns import KIND
from paimon_core.data.value_keys import equality_keys, length_prefixed
from paimon_core.merge.merge_engines import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE

_OLD, _NEW = "__old", "__new"


def _nullable(t: pa.Table) -> pa.Table:
    return t.cast(pa.schema([f.with_nullable(True) for f in t.schema]))


def _tag(t: pa.Table, name: str) -> pa.Table:
    return t.append_column(name, pa.array(np.arange(t.num_rows, dtype=np.int64)))


def changes(old: pa.Table, new: pa.Table, keys: list[str], drop_unchanged: bool = True) -> pa.Table:
    columns = [c for c in new.column_names if c != KIND]
    old = _nullable(old.select(columns))
    new = _nullable(new.select(columns))
    if keys:
        joined = (
            _tag(old, _OLD)
            .select(keys + [_OLD])
            .join(_tag(new, _NEW).select(keys + [_NEW]), keys=keys, join_type="full outer")
        )
        o = joined.column(_OLD)
        n = joined.column(_NEW)
    else:  # append table: multiset difference, rows matched by value
        return _multiset_changes(old, new)
    only_new = pc.and_(pc.is_null(o), pc.is_valid(n))
    only_old = pc.and_(pc.is_valid(o), pc.is_null(n))
    both = pc.and_(pc.is_valid(o), pc.is_valid(n))
    both_o = pc.filter(o, both)
    both_n = pc.filter(n, both)
    old_rows = old.take(both_o)
    new_rows = new.take(both_n)
    values = [c for c in columns if c not in keys]
    if drop_unchanged and values:
        same = None
        for c in values:
            eq = values_equal(old_rows.column(c), new_rows.column(c))  # NaN = NaN, as Java's equals
            same = eq if same is None else pc.and_(same, eq)
        keep = pc.invert(same)
        old_rows, new_rows = old_rows.filter(keep), new_rows.filter(keep)
    elif drop_unchanged:
        old_rows, new_rows = old_rows.slice(0, 0), new_rows.slice(0, 0)
    parts = [
        _with_kind(new.take(pc.filter(n, only_new)), INSERT, 0),
        _with_kind(old.take(pc.filter(o, only_old)), DELETE, 0),
        _with_kind(old_rows, UPDATE_BEFORE, 0),
        _with_kind(new_rows, UPDATE_AFTER, 1),
    ]
    out = pa.concat_tables(parts)
    order = [(k, "ascending") for k in keys] + [("__order", "ascending")]
    out = out.take(pc.sort_indices(out, sort_keys=order))
    return out.drop_columns(["__order"])


def values_equal(a, b) -> pa.BooleanArray:
    """Row by row: are ``a`` and ``b`` the same value? Null equals null, NaN equals NaN, and
    nested values (lists, maps in entry order, structs) compare element by element; never null."""
    a = a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a
    b = b.combine_chunks() if isinstance(b, pa.ChunkedArray) else b
    t = a.type
    valid = pc.and_(pc.is_valid(a), pc.is_valid(b))
    if pa.types.is_map(t):
        as_list = pa.list_(pa.struct([t.key_field, t.item_field]))
        return values_equal(a.cast(as_list), b.cast(as_list))
    if pa.types.is_struct(t):
        eq = pa.array(np.ones(len(a), bool))
        for i in range(t.num_fields):
            eq = pc.and_(eq, values_equal(pc.struct_field(a, [i]), pc.struct_field(b, [i])))
    elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        same_len = pc.fill_null(pc.equal(pc.list_value_length(a), pc.list_value_length(b)), False)
        rows = pc.and_(same_len, valid)
        la, lb = a.filter(rows), b.filter(rows)  # same lengths: flattened elements line up
        elem_eq = values_equal(pc.list_flatten(la), pc.list_flatten(lb)).to_numpy(zero_copy_only=False)
        parents = pc.list_parent_indices(la).to_numpy()
        bad = np.bincount(parents[~elem_eq], minlength=len(la)) if len(la) else np.zeros(0, np.int64)
        eq = np.zeros(len(a), bool)
        eq[np.flatnonzero(rows.to_numpy(zero_copy_only=False))] = bad == 0
        eq = pa.array(eq)
    else:
        eq = pc.fill_null(pc.equal(a, b), False)
        if pa.types.is_floating(t):
            eq = pc.or_(eq, pc.fill_null(pc.and_(pc.is_nan(a), pc.is_nan(b)), False))
    both_null = pc.and_(pc.is_null(a), pc.is_null(b))
    return pc.or_(pc.and_(valid, eq), both_null)


def _with_kind(t: pa.Table, kind: int, order: int) -> pa.Table:
    t = t.append_column(KIND, pa.array(np.full(t.num_rows, kind, np.int8)))
    return t.append_column("__order", pa.array(np.full(t.num_rows, order, np.int8)))


def _row_key(t: pa.Table) -> pa.Array:
    """One binary key per row that equals another row's exactly when all values are equal (nulls
    and nested values included): the columns' ``equality_keys``, each length-prefixed, so no two
    different rows share a key whatever bytes their values hold."""
    if not t.num_columns:
        return pa.array([b""] * t.num_rows, pa.binary())
    return pc.binary_join_element_wise(*(length_prefixed(equality_keys(c)) for c in t.columns), b"")


def _multiset_changes(old: pa.Table, new: pa.Table) -> pa.Table:
    """Rows added (+I) and removed (-D) between two multisets of rows."""
    if not old.column_names:
        return old.append_column(KIND, pa.array([], pa.int8()))
    ko, kn = _row_key(old), _row_key(new)

    def counted(keys, name):
        t = pa.table({"__k": keys, "__pos": pa.array(np.arange(len(keys), dtype=np.int64))})
        return (
            t.group_by("__k", use_threads=False)
            .aggregate([("__pos", "count"), ("__pos", "min")])
            .rename_columns(["__k", name, name + "_pos"])
        )

    j = counted(ko, "__a").join(counted(kn, "__b"), keys="__k", join_type="full outer")
    diff = pc.subtract(pc.fill_null(j.column("__b"), 0), pc.fill_null(j.column("__a"), 0)).to_numpy()
    add_pos = j.column("__b_pos").to_numpy(zero_copy_only=False)
    del_pos = j.column("__a_pos").to_numpy(zero_copy_only=False)
    idx_add = np.repeat(np.nan_to_num(add_pos).astype(np.int64), np.maximum(diff, 0))
    idx_del = np.repeat(np.nan_to_num(del_pos).astype(np.int64), np.maximum(-diff, 0))
    added = new.take(pa.array(idx_add, pa.int64()))
    removed = old.take(pa.array(idx_del, pa.int64()))
    added = added.append_column(KIND, pa.array(np.full(len(idx_add), INSERT, np.int8)))
    removed = removed.append_column(KIND, pa.array(np.full(len(idx_del), DELETE, np.int8)))
    return pa.concat_tables([removed, added])


def rows_with_keys(table: pa.Table, other: pa.Table, keys: list[str], anti: bool = False) -> pa.Table:
    """Rows of ``table`` whose key is (``anti``: is not) among ``other``'s keys, in their order.
    Joins only the key columns: Arrow cannot carry nested columns through a join."""
    probe = table.select(keys).append_column("__pos", pa.array(np.arange(table.num_rows, dtype=np.int64)))
    distinct = other.select(keys).group_by(keys).aggregate([])
    hit = probe.join(distinct, keys=keys, join_type="left anti" if anti else "left semi").column("__pos")
    return table.take(pc.take(hit, pc.sort_indices(hit)))
