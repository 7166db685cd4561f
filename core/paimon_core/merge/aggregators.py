"""Aggregate functions of the ``aggregation`` merge engine (and of partial-update sequence
groups), as Java Paimon 0.9 defines them, vectorised over the rows of a bucket.

Which function takes which types is ``metadata/aggregate_rules.py``; this module is
``aggregate(function, AggInput)``: the merged value of every key group. Rows are sorted by
  key then sequence; the result of a group is the left fold of Java's ``agg`` (``retract`` for
  -U/-D rows) over its rows in that order, starting from NULL. Functions that keep one row's
  value pick that row per group and ``take`` it (any type); ``sum``/``product`` use numpy;
  ``collect``/``merge_map``/``nested_update`` rebuild list/map arrays from the flattened
  elements, de-duplicating with ``value_keys.equality_keys``.

Exactness: integer sums and products wrap around like Java's (two's complement); FLOAT and
DOUBLE sums and products are folded in order in their own precision; a DECIMAL product is
rounded HALF_UP to the column's scale after every step and becomes NULL on overflow, as Java's.
A DECIMAL sum that leaves the column's precision is refused with an error (Java 0.9 then writes
a value that does not fit its type, or NULL, depending on the order it merged in).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.value_keys import equality_keys
from paimon_core.errors import PaimonError
from paimon_core.merge.merge_kernels import Groups, fold_groups, take_rows
from paimon_core.metadata.aggregate_rules import RETRACTABLE, canonical_name, nested_keys
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import FIELD_DISTINCT, FIELD_LIST_AGG_DELIMITER


@dataclass
class AggInput:
    """One column of one bucket's records, sorted by key then sequence.

    ``rows``: the rows that take part (a retraction ignored by ``ignore-retract`` does not);
    ``retract``: which of them are -U/-D. ``column``/``options`` give per-field options."""

    values: pa.Array
    groups: Groups
    rows: np.ndarray
    retract: np.ndarray
    column: str
    options: dict

    @property
    def valid(self) -> np.ndarray:
        v = self.values
        if v.null_count == 0:
            return np.ones(len(v), dtype=bool)
        return pc.is_valid(v).to_numpy(zero_copy_only=False)

    def part(self) -> np.ndarray:
        """Rows that take part and hold a value."""
        return self.rows & self.valid


def aggregate(func: str, inp: AggInput) -> pa.Array:
    """The merged value of each key group (length ``groups.count``, the column's type)."""
    func = canonical_name(func)
    if inp.retract.any() and func not in RETRACTABLE:
        raise PaimonError(
            f"aggregate function '{func}' of column '{inp.column}' does not support retraction "
            f"(-U/-D records); set fields.{inp.column}.ignore-retract=true to ignore them"
        )
    return _IMPL[func](inp)


# ---- functions that keep one row's value


def _keep_row(inp: AggInput, idx: np.ndarray) -> pa.Array:
    """The value of row idx[g] for every group; NULL where there is none or it is a retraction
    (a retracted value clears the accumulator in Java's last_value/last_non_null_value)."""
    has = idx >= 0
    idx = np.where(has & inp.retract[np.where(has, idx, 0)], -1, idx)
    return take_rows(inp.values, idx)


def _last_value(inp: AggInput) -> pa.Array:
    return _keep_row(inp, inp.groups.last_where(inp.rows))


def _last_non_null_value(inp: AggInput) -> pa.Array:
    return _keep_row(inp, inp.groups.last_where(inp.part()))


def _first_value(inp: AggInput) -> pa.Array:
    return _keep_row(inp, inp.groups.first_where(inp.rows))


def _first_non_null_value(inp: AggInput) -> pa.Array:
    return _keep_row(inp, inp.groups.first_where(inp.part()))


def _order_key(values: pa.Array) -> pa.Array:
    """A sort key ordering values as Java's ``InternalRowUtils.compare``: for FLOAT/DOUBLE the
    total order of ``Float.compare`` (-0.0 < 0.0 < ... < NaN), else the values themselves
    (Arrow orders strings and binaries bytewise, unsigned, as Java does)."""
    if not pa.types.is_floating(values.type):
        return values
    bits = values.to_numpy(zero_copy_only=False).copy()
    bits[np.isnan(bits)] = np.nan
    ints = bits.view(np.int32 if bits.dtype == np.float32 else np.int64).astype(np.int64)
    flip = np.int64(0x7FFFFFFF if bits.dtype == np.float32 else 0x7FFFFFFFFFFFFFFF)
    return pa.array(np.where(ints < 0, ints ^ flip, ints))


def _extreme(inp: AggInput, largest: bool) -> pa.Array:
    rows = np.flatnonzero(inp.part())
    idx = np.full(inp.groups.count, -1, dtype=np.int64)
    if len(rows):
        sub = take_rows(inp.values, rows)
        g = inp.groups.gid[rows]
        t = pa.table({"g": pa.array(g), "k": _order_key(sub)})
        order = pc.sort_indices(t, sort_keys=[("g", "ascending"), ("k", "ascending")]).to_numpy()
        gs = g[order]
        edge = np.r_[gs[1:] != gs[:-1], True] if largest else np.r_[True, gs[1:] != gs[:-1]]
        idx[gs[edge]] = rows[order[edge]]
    return take_rows(inp.values, idx)


# ---- numeric folds


def _with_mask(values: np.ndarray, has: np.ndarray, t: pa.DataType) -> pa.Array:
    return pa.array(values, type=t, mask=~has) if not has.all() else pa.array(values, type=t)


def _numeric_sum_or_product(inp: AggInput, product: bool) -> pa.Array:
    t = inp.values.type
    rows = np.flatnonzero(inp.part())
    g = inp.groups.gid[rows]
    count = inp.groups.count
    if pa.types.is_decimal(t):
        return _decimal_product(inp, rows, g) if product else _decimal_sum(inp, rows, g)
    x = take_rows(inp.values, rows).to_numpy(zero_copy_only=False)
    if pa.types.is_integer(t):
        x = x.astype(np.int64)
        if not product:
            x = np.where(inp.retract[rows], -x, x)  # two's complement, as Java's negation
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if len(g) else np.zeros(0, np.int64)
        out = np.zeros(count, dtype=np.int64)
        has = np.zeros(count, dtype=bool)
        if len(g):
            ufunc = np.multiply if product else np.add  # modular arithmetic: order does not matter
            out[g[starts]] = ufunc.reduceat(x, starts)
            has[g[starts]] = True
        return _with_mask(out.astype(t.to_pandas_dtype()), has, t)
    # FLOAT/DOUBLE: fold in order, in the column's precision
    x = x.astype(t.to_pandas_dtype())
    if not product:
        x = np.where(inp.retract[rows], -x, x)
    ufunc = np.multiply if product else np.add
    with np.errstate(over="ignore", invalid="ignore"):  # inf/NaN results are values, as in Java
        acc, has = fold_groups(g, x, count, lambda a, b: (ufunc(a, b), True), accumulate=ufunc)
    return _with_mask(acc, has, t)


def _sum(inp: AggInput) -> pa.Array:
    return _numeric_sum_or_product(inp, product=False)


def _product(inp: AggInput) -> pa.Array:
    return _numeric_sum_or_product(inp, product=True)


def _decimal_sum(inp: AggInput, rows: np.ndarray, g: np.ndarray) -> pa.Array:
    t = inp.values.type
    wide = pa.decimal256(76, t.scale)
    x = take_rows(inp.values, rows).cast(wide)
    signed = pc.if_else(pa.array(inp.retract[rows]), pc.negate(x), x) if inp.retract[rows].any() else x
    part = pa.table({"g": pa.array(g, pa.int64()), "v": signed, "a": pc.abs(x)})
    agg = part.group_by("g", use_threads=False).aggregate([("v", "sum"), ("a", "sum")])
    limit = pa.scalar(10 ** (t.precision - t.scale), wide)
    total, spread = agg.column("v_sum"), agg.column("a_sum")
    over = pc.greater_equal(pc.abs(total), limit)
    if t.precision > 18:  # Java checks the precision at every step: an intermediate overflow counts
        over = pc.or_(over, pc.greater_equal(spread, limit))
    else:  # compact decimals add as 64-bit integers: fine until the unscaled sum passes 2^63
        over = pc.or_(over, pc.greater_equal(spread, pa.scalar(2**63 // 10**t.scale, wide)))
    if pc.any(over).as_py():
        raise PaimonError(
            f"the sum of column '{inp.column}' leaves its type DECIMAL({t.precision}, {t.scale}) "
            "for some key: widen the column (alter-table alter-column) to merge it"
        )
    where = np.full(inp.groups.count, -1, dtype=np.int64)
    where[agg.column("g").to_numpy()] = np.arange(agg.num_rows)
    return take_rows(total.cast(t), where)


def _unscaled(arr: pa.Array) -> np.ndarray:
    """Unscaled integers of a decimal128 array (object array of Python ints; nulls as 0)."""
    raw = np.frombuffer(arr.buffers()[1], dtype=np.uint64)[2 * arr.offset : 2 * (arr.offset + len(arr))]
    low = raw[0::2].astype(object)
    high = raw[1::2].view(np.int64).astype(object)
    return high * (1 << 64) + low


def _from_unscaled(values: np.ndarray, has: np.ndarray, t: pa.DataType) -> pa.Array:
    v = np.where(has, values, 0)
    low = np.array([0], dtype=np.uint64) if len(v) == 0 else (v & ((1 << 64) - 1)).astype(np.uint64)
    high = np.zeros(0, np.int64) if len(v) == 0 else (v >> 64).astype(np.int64)
    words = np.empty(2 * len(v), dtype=np.uint64)
    words[0::2], words[1::2] = low[: len(v)], high.view(np.uint64)
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(16), len(v), [None, pa.py_buffer(words.tobytes())])
    out = fixed.view(t)
    return pc.if_else(pa.array(has), out, pa.scalar(None, t)) if not has.all() else out


def _decimal_product(inp: AggInput, rows: np.ndarray, g: np.ndarray) -> pa.Array:
    """Java: ``fromBigDecimal(a * b, p, s)``: rounded HALF_UP to scale s at every step, NULL
    when the result has more than p digits (the next value then starts afresh)."""
    t = inp.values.type
    if pa.types.is_decimal256(t):
        raise PaimonError(
            f"product of column '{inp.column}': DECIMAL with more than 38 digits is not supported"
        )
    x = _unscaled(take_rows(inp.values, rows))
    scale, limit = 10**t.scale, 10**t.precision

    def step(a, b):
        prod = a * b
        neg = prod < 0
        magnitude = np.abs(prod)
        q, r = magnitude // scale, magnitude % scale
        q = q + (2 * r >= scale).astype(object)
        q = np.where(neg, -q, q)
        return q, (np.abs(q) < limit).astype(bool)

    acc, has = fold_groups(g, x, inp.groups.count, step)
    return _from_unscaled(acc, has, t)


# ---- booleans, strings


def _bool(inp: AggInput, all_: bool) -> pa.Array:
    part = inp.part()
    true = part & pc.fill_null(inp.values, False).to_numpy(zero_copy_only=False)
    n_valid = inp.groups.count_where(part)
    n_true = inp.groups.count_where(true)
    out = (n_true == n_valid) if all_ else (n_true > 0)
    return _with_mask(out, n_valid > 0, pa.bool_())


def _group_offsets(
    inp: AggInput, rows: np.ndarray, elem_group: np.ndarray
) -> tuple[pa.Array, pa.Array | None]:
    """List offsets and null mask for one list per group built from elements (in group order)
    whose groups are ``elem_group``; a group is NULL when none of ``rows`` is in it."""
    count = inp.groups.count
    offsets = np.r_[0, np.cumsum(np.bincount(elem_group, minlength=count))].astype(np.int32)
    has = np.zeros(count, dtype=bool)
    has[inp.groups.gid[rows]] = True
    mask = pa.array(~has) if not has.all() else None
    return pa.array(offsets), mask


def _listagg(inp: AggInput) -> pa.Array:
    """Java 1.4's fold of the non-null values of each key in order (``fields.F.list-agg-delimiter``,
    default ','): an empty string adds nothing, so a key whose values are all empty keeps "" (Java
    0.9 joined empty strings too). With ``fields.F.distinct=true`` a value adds only its tokens
    (split at the delimiter) that are neither empty nor already in the result; the first value is
    kept whole."""
    rows = np.flatnonzero(inp.part())
    opts = CoreOptions(inp.options)
    delim = opts.field(inp.column, FIELD_LIST_AGG_DELIMITER)
    texts = take_rows(inp.values, rows).cast(pa.string())
    if opts.field(inp.column, FIELD_DISTINCT):
        return pa.array(_listagg_distinct(inp, rows, texts, delim), pa.string()).cast(inp.values.type)
    nonempty = pc.greater(pc.binary_length(texts), 0).to_numpy(zero_copy_only=False).astype(bool)
    keep = rows[nonempty]
    offsets, mask = _group_offsets(inp, rows, inp.groups.gid[keep])
    lists = pa.ListArray.from_arrays(offsets, texts.filter(pa.array(nonempty)), mask=mask)
    return pc.binary_join(lists, delim).cast(inp.values.type)


def _listagg_distinct(inp: AggInput, rows: np.ndarray, texts: pa.Array, delim: str) -> list:
    """The distinct fold per key, value by value (a rarely used option: plain Python)."""
    out: list = [None] * inp.groups.count
    for g, s in zip(inp.groups.gid[rows].tolist(), texts.to_pylist()):
        acc = out[g]
        if acc is None or not acc:
            out[g] = s if acc is None or s else acc
            continue
        if not s:
            continue
        seen = set(acc.split(delim) if delim else acc.split())
        added = []
        for tok in s.split(delim) if delim else s.split():
            if tok and tok not in seen:
                seen.add(tok)
                added.append(tok)
        out[g] = acc + "".join(delim + t for t in added)
    return out


def _count(inp: AggInput) -> pa.Array:
    counts = inp.groups.count_where(inp.part())
    return pa.array(counts).cast(inp.values.type)


# ---- nested: collect, merge_map, nested_update


def _elements(inp: AggInput) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """(rows taking part, their list elements flattened in order, each element's group)."""
    rows = np.flatnonzero(inp.part())
    lists = take_rows(inp.values, rows)
    lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    return rows, lists.flatten(), np.repeat(inp.groups.gid[rows], lengths)


def _keep_first_or_last(
    keys: pa.Array, groups: np.ndarray, last: bool, raw: np.ndarray | None = None
) -> np.ndarray:
    """Indices (ascending) of the first (last) occurrence of each (group, key); elements whose
    group is in ``raw`` (bool per group) are all kept."""
    t = pa.table({"g": pa.array(groups, pa.int64()), "k": keys, "i": pa.array(np.arange(len(groups)))})
    agg = t.group_by(["g", "k"], use_threads=False).aggregate([("i", "max" if last else "min")])
    keep = agg.column(2).to_numpy()
    if raw is not None and raw.any():
        keep = np.union1d(keep, np.flatnonzero(raw[groups]))
    return np.sort(keep)


def _single_value(inp: AggInput, rows: np.ndarray) -> np.ndarray:
    """Groups with exactly one value taking part: Java returns that value as it is
    (``accumulator == null ? input``), merging only when a second one comes."""
    return np.bincount(inp.groups.gid[rows], minlength=inp.groups.count) == 1


def _collect(inp: AggInput) -> pa.Array:
    """Concatenation of the arrays of each key in order; ``fields.F.distinct=true`` keeps the
    first occurrence of each element (Java's order there is a hash set's: unspecified)."""
    rows, child, eg = _elements(inp)
    if CoreOptions(inp.options).field(inp.column, FIELD_DISTINCT) and len(child):
        keep = _keep_first_or_last(equality_keys(child), eg, last=False)
        child, eg = take_rows(child, keep), eg[keep]
    offsets, mask = _group_offsets(inp, rows, eg)
    return pa.ListArray.from_arrays(offsets, child, type=inp.values.type, mask=mask)


def _merge_map(inp: AggInput) -> pa.Array:
    """Union of the maps of each key; for a key present in several, the latest value (even NULL).
    A lone map is kept as it is."""
    t = inp.values.type
    rows = np.flatnonzero(inp.part())
    maps = take_rows(inp.values, rows)
    entries = maps.cast(
        pa.list_(pa.struct([pa.field("key", t.key_type, nullable=False), pa.field("value", t.item_type)]))
    )
    lengths = pc.fill_null(pc.list_value_length(entries), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = entries.flatten()
    eg = np.repeat(inp.groups.gid[rows], lengths)
    keys, items = flat.field("key"), flat.field("value")
    if len(flat):
        keep = _keep_first_or_last(equality_keys(keys), eg, last=True, raw=_single_value(inp, rows))
        keys, items, eg = take_rows(keys, keep), take_rows(items, keep), eg[keep]
    offsets, mask = _group_offsets(inp, rows, eg)
    return pa.MapArray.from_arrays(offsets, keys, items, type=t, mask=mask)


def _nested_update(inp: AggInput) -> pa.Array:
    """Concatenation of the ARRAY<ROW> values of each key; with ``fields.F.nested-key`` the
    latest row of each nested key replaces earlier ones (once a second value comes: a lone
    value is kept as it is, duplicates included, as Java does)."""
    rows, child, eg = _elements(inp)
    nested = nested_keys(inp.options, inp.column)
    if nested and len(child):
        key = pa.StructArray.from_arrays([child.field(k) for k in nested], names=nested)
        keep = _keep_first_or_last(equality_keys(key), eg, last=True, raw=_single_value(inp, rows))
        child, eg = take_rows(child, keep), eg[keep]
    offsets, mask = _group_offsets(inp, rows, eg)
    return pa.ListArray.from_arrays(offsets, child, type=inp.values.type, mask=mask)


_IMPL = {
    "sum": _sum,
    "product": _product,
    "max": lambda inp: _extreme(inp, largest=True),
    "min": lambda inp: _extreme(inp, largest=False),
    "bool_and": lambda inp: _bool(inp, all_=True),
    "bool_or": lambda inp: _bool(inp, all_=False),
    "listagg": _listagg,
    "last_value": _last_value,
    "last_non_null_value": _last_non_null_value,
    "first_value": _first_value,
    "first_non_null_value": _first_non_null_value,
    "count": _count,
    "collect": _collect,
    "merge_map": _merge_map,
    "nested_update": _nested_update,
}

__all__ = ["AggInput", "aggregate"]
