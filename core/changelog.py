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
from paimon_core.merge_function import DELETE, INSERT, KIND, UPDATE_AFTER, UPDATE_BEFORE

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
        joined = _tag(old, _OLD).select(keys + [_OLD]).join(
            _tag(new, _NEW).select(keys + [_NEW]), keys=keys, join_type="full outer")
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
            a, b = old_rows.column(c), new_rows.column(c)
            eq = pc.or_kleene(pc.equal(a, b), pc.and_(pc.is_null(a), pc.is_null(b)))
            eq = pc.fill_null(eq, False)
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


def _with_kind(t: pa.Table, kind: int, order: int) -> pa.Table:
    t = t.append_column(KIND, pa.array(np.full(t.num_rows, kind, np.int8)))
    return t.append_column("__order", pa.array(np.full(t.num_rows, order, np.int8)))


def _multiset_changes(old: pa.Table, new: pa.Table) -> pa.Table:
    """Rows added (+I) and removed (-D) between two multisets of rows."""
    cols = old.column_names
    if not cols:
        return old.append_column(KIND, pa.array([], pa.int8()))
    # count occurrences of each distinct row on both sides
    def counted(t, name):
        return t.group_by(cols, use_threads=False).aggregate([([], "count_all")]).rename_columns(cols + [name])

    try:
        a, b = counted(old, "__a"), counted(new, "__b")
        j = a.join(b, keys=cols, join_type="full outer")
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # nested columns cannot be grouped on
        return _multiset_changes_python(old, new)
    ca = pc.fill_null(j.column("__a"), 0)
    cb = pc.fill_null(j.column("__b"), 0)
    diff = pc.subtract(cb, ca).to_numpy()
    rows = j.select(cols)
    idx_add = np.repeat(np.arange(len(diff)), np.maximum(diff, 0))
    idx_del = np.repeat(np.arange(len(diff)), np.maximum(-diff, 0))
    added = rows.take(pa.array(idx_add, pa.int64())).append_column(KIND, pa.array(np.full(len(idx_add), INSERT, np.int8)))
    removed = rows.take(pa.array(idx_del, pa.int64())).append_column(KIND, pa.array(np.full(len(idx_del), DELETE, np.int8)))
    return pa.concat_tables([removed, added])


def _multiset_changes_python(old: pa.Table, new: pa.Table) -> pa.Table:
    import json
    from collections import Counter

    def key(r):
        return json.dumps(r, sort_keys=True, default=str)

    ro, rn = old.to_pylist(), new.to_pylist()
    co, cn = Counter(key(r) for r in ro), Counter(key(r) for r in rn)
    removed, added = [], []
    for r in ro:
        k = key(r)
        if co[k] > cn.get(k, 0):
            removed.append(r)
            co[k] -= 1
    for r in rn:
        k = key(r)
        if cn[k] > co.get(k, 0) and cn[k] > 0:
            added.append(r)
            cn[k] -= 1
    out_r = pa.Table.from_pylist(removed, schema=old.schema)
    out_a = pa.Table.from_pylist(added, schema=new.schema)
    out_r = out_r.append_column(KIND, pa.array(np.full(out_r.num_rows, DELETE, np.int8)))
    out_a = out_a.append_column(KIND, pa.array(np.full(out_a.num_rows, INSERT, np.int8)))
    return pa.concat_tables([out_r, out_a])
