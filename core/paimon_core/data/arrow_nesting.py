"""Walking the nesting of an Arrow type: its leaf (non-nested) types in the order of their
columns, and the same type with each leaf replaced.

Nesting is LIST (and LARGE_LIST), MAP (key, then item) and STRUCT (fields in order); every other
type is a leaf. The leaf order is depth first, which is the order of a Parquet file's leaf
columns and of an ORC file's column ids below the column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pyarrow as pa


def leaf_types(t: pa.DataType) -> Iterator[pa.DataType]:
    """The leaf types of ``t``, depth first (``t`` itself when it is not nested)."""
    if pa.types.is_map(t):
        yield from leaf_types(t.key_type)
        yield from leaf_types(t.item_type)
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        yield from leaf_types(t.value_type)
    elif pa.types.is_struct(t):
        for i in range(t.num_fields):
            yield from leaf_types(t.field(i).type)
    else:
        yield t


def with_leaf_types(t: pa.DataType, leaf: Callable[[pa.DataType], pa.DataType]) -> pa.DataType:
    """``t`` with each leaf type ``x`` replaced by ``leaf(x)``; nested fields keep their names,
    nullability and metadata (Parquet field ids), maps their key order flag."""
    if pa.types.is_map(t):
        key, item = t.key_field, t.item_field
        return pa.map_(
            key.with_type(with_leaf_types(key.type, leaf)),
            item.with_type(with_leaf_types(item.type, leaf)),
            keys_sorted=t.keys_sorted,
        )
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(with_leaf_types(t.value_type, leaf)))
    if pa.types.is_large_list(t):
        return pa.large_list(t.value_field.with_type(with_leaf_types(t.value_type, leaf)))
    if pa.types.is_struct(t):
        return pa.struct(
            [t.field(i).with_type(with_leaf_types(t.field(i).type, leaf)) for i in range(t.num_fields)]
        )
    return leaf(t)
