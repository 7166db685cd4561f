"""Per-key building blocks of the merge engines, independent of the column types.

Records arrive sorted by key, then by sequence (``merge_function.sort_by_key_and_sequence``).
``Groups`` numbers the key groups of such a table and picks, per group, the row index of the
first or last row satisfying a mask; ``take_rows`` then fetches those rows from a column of any
type (nested ones included), NULL where a group has no such row. Merging is therefore "select
row indices per key, then ``take``": it needs no Arrow aggregation kernel for the column type.

``fold_groups`` is a left fold per group for the few aggregations whose result depends on the
order of evaluation (FLOAT sums, DECIMAL products: rounding at every step, as Java does). It is
vectorised across groups: step k combines the k-th values of all groups at once, so the
number of numpy calls grows with the largest group, not with the number of rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class Groups:
    """Key groups of rows sorted by key. ``gid[i]`` is the group of row i (0, 1, ... in row
    order), ``starts[g]``/``sizes[g]`` the first row and row count of group g."""

    def __init__(self, first: np.ndarray):
        first = np.asarray(first, dtype=bool)
        self.n = len(first)
        self.gid = np.cumsum(first, dtype=np.int64) - 1
        self.starts = np.flatnonzero(first)
        self.count = len(self.starts)
        self.sizes = np.diff(np.r_[self.starts, self.n]).astype(np.int64)

    @classmethod
    def of_sorted(cls, data: pa.Table, keys: list[str]) -> Groups:
        n = data.num_rows
        first = np.ones(n, dtype=bool)
        if n > 1:
            if keys:
                differs = np.zeros(n - 1, dtype=bool)
                for k in keys:
                    col = data.column(k)
                    ne = pc.not_equal(col.slice(1), col.slice(0, n - 1))
                    differs |= pc.fill_null(ne, True).to_numpy(zero_copy_only=False)
                first[1:] = differs
            else:
                first[1:] = False
        return cls(first)

    def last_where(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Per group, the index of its last row where ``mask`` holds (all rows: None); -1 if none."""
        return self._pick(mask, last=True)

    def first_where(self, mask: np.ndarray | None = None) -> np.ndarray:
        return self._pick(mask, last=False)

    def _pick(self, mask, last: bool) -> np.ndarray:
        out = np.full(self.count, -1, dtype=np.int64)
        rows = np.arange(self.n) if mask is None else np.flatnonzero(mask)
        if len(rows) == 0:
            return out
        g = self.gid[rows]
        edge = np.r_[g[1:] != g[:-1], True] if last else np.r_[True, g[1:] != g[:-1]]
        out[g[edge]] = rows[edge]
        return out

    def count_where(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.gid[np.asarray(mask, dtype=bool)], minlength=self.count)


def take_rows(col, idx: np.ndarray) -> pa.Array:
    """``col[idx]`` for a column of any type; NULL where ``idx`` is negative."""
    indices = (
        pa.array(idx, type=pa.int64(), mask=idx < 0) if (idx < 0).any() else pa.array(idx, type=pa.int64())
    )
    out = pc.take(col, indices)
    return out.combine_chunks() if isinstance(out, pa.ChunkedArray) else out


def choose(use_a: np.ndarray, a: pa.Array, b: pa.Array) -> pa.Array:
    """Element-wise ``a if use_a else b`` for arrays of any (equal) type."""
    both = pa.concat_arrays([a, b.cast(a.type)])
    idx = np.arange(len(a), dtype=np.int64)
    return take_rows(both, np.where(use_a, idx, idx + len(a)))


def runs_of(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a non-decreasing array of group ids: (start index of each run, position of each element
    within its run)."""
    if len(g) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first = np.r_[True, g[1:] != g[:-1]]
    starts = np.flatnonzero(first)
    run = np.cumsum(first) - 1
    return starts, np.arange(len(g)) - starts[run]


def fold_groups(
    g: np.ndarray, x: np.ndarray, n_groups: int, step, accumulate=None
) -> tuple[np.ndarray, np.ndarray]:
    """Left fold per group: acc = x0, then ``acc, ok = step(acc, x_k)`` for the group's next
    values in order. ``ok`` False makes the accumulator NULL (an overflow, say); the next value
    then starts it afresh (Java's ``acc == null ? input : ...``). ``g`` is non-decreasing (the
    group of each value); returns (value per group, has-value per group).

    ``accumulate`` (optional): a numpy ufunc whose ``accumulate`` is exactly this fold with
    ``ok`` always True (float32 ``np.add``, ...); very large groups then use it directly."""
    acc = np.zeros(n_groups, dtype=x.dtype)
    valid = np.zeros(n_groups, dtype=bool)
    if len(g) == 0:
        return acc, valid
    starts, pos = runs_of(g)
    sizes = np.diff(np.r_[starts, len(g)])
    big_limit = 64
    if accumulate is not None and sizes.max() > big_limit:
        for s, size in zip(starts[sizes > big_limit], sizes[sizes > big_limit]):
            acc[g[s]] = accumulate.accumulate(x[s : s + size])[-1]
            valid[g[s]] = True
        small = np.repeat(sizes <= big_limit, sizes)
        g, x, pos = g[small], x[small], pos[small]
        if len(g) == 0:
            return acc, valid
    order = np.argsort(pos, kind="stable")
    bounds = np.searchsorted(pos[order], np.arange(pos.max() + 2))
    for k in range(len(bounds) - 1):
        rows = order[bounds[k] : bounds[k + 1]]
        gk, xk = g[rows], x[rows]
        if k == 0:
            acc[gk], valid[gk] = xk, True
            continue
        had = valid[gk]
        new, ok = step(acc[gk], xk)
        acc[gk] = np.where(had, new, xk)
        valid[gk] = np.where(had, ok, True)
    return acc, valid
