"""Parquet field ids of data-file columns, as Java Paimon 1.x writes them (``PARQUET:field_id``).

Every column of a data file carries the id of the Paimon field it stores (Java 0.9 wrote none;
Java 1.x writes these, and Iceberg readers find columns by them):

* a table column: its field id; a ``_KEY_<k>`` copy of key column ``k``: ``2^30 - 1 + id(k)``
  (``Integer.MAX_VALUE / 2``); ``_SEQUENCE_NUMBER``: ``2^31 - 2``; ``_VALUE_KIND``: ``2^31 - 3``;
  ``_ROW_ID``: ``2^31 - 6`` (Java's ``SpecialFields``);
* inside a column of id ``f`` at nesting depth ``d`` (the top level is 0): a ROW's sub-fields their
  own ids; an ARRAY's element ``2^29 - 1 + f * 1024 + d + 1``; a MAP's (or MULTISET's) key
  ``2^29 - 1 - f * 1024 - (d + 1)`` and value ``2^29 - 1 + f * 1024 + d + 1``. The repeated
  groups Parquet puts between (``list``, ``key_value``) have none.

Invariant: :func:`with_field_ids` changes only field metadata, never names, types or order, so a
file's Arrow schema compares equal (without metadata) to what it was before; a column whose name
is none of the above keeps no id.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from paimon_core.data.system_columns import KEY_PREFIX, KIND, ROW_ID, SEQ
from paimon_core.data.types import ArrayType, DataField, DataType, MapType, MultisetType, RowType

_INT_MAX = 2**31 - 1
KEY_FIELD_ID_START = _INT_MAX // 2
SYSTEM_IDS = {SEQ: _INT_MAX - 1, KIND: _INT_MAX - 2, ROW_ID: _INT_MAX - 5}
_NESTED_BASE = _INT_MAX // 4
_DEPTH_LIMIT = 1 << 10
_KEY = b"PARQUET:field_id"


def element_id(field_id: int, depth: int) -> int:
    """The id of the element (or map value) of the ARRAY/MAP of ``field_id`` at ``depth`` (>= 1)."""
    return _NESTED_BASE + field_id * _DEPTH_LIMIT + depth


def map_key_id(field_id: int, depth: int) -> int:
    """The id of the key of the MAP of ``field_id`` at ``depth`` (>= 1)."""
    return _NESTED_BASE - field_id * _DEPTH_LIMIT - depth


def column_ids(fields: Iterable[DataField]) -> dict[str, tuple[int, DataType | None]]:
    """Each column name a data file of a table with ``fields`` can hold, with its id and type."""
    out: dict[str, tuple[int, DataType | None]] = {n: (i, None) for n, i in SYSTEM_IDS.items()}
    for f in fields:
        out[f.name] = (f.id, f.type)
        out[KEY_PREFIX + f.name] = (KEY_FIELD_ID_START + f.id, f.type)
    return out


def _tag(field: pa.Field, fid: int) -> pa.Field:
    meta = dict(field.metadata or {})
    meta[_KEY] = str(fid).encode()
    return field.with_metadata(meta)


def _nested(t: pa.DataType, paimon: DataType | None, fid: int, depth: int) -> pa.DataType:
    """``t`` with the ids of its children (see the module doc)."""
    if paimon is None:
        return t
    if isinstance(paimon, RowType) and pa.types.is_struct(t):
        subs = {f.name: f for f in paimon.fields}
        children = []
        for i in range(t.num_fields):
            child = t.field(i)
            sub = subs.get(child.name)
            if sub is not None:
                child = _tag(child.with_type(_nested(child.type, sub.type, sub.id, 0)), sub.id)
            children.append(child)
        return pa.struct(children)
    if isinstance(paimon, ArrayType) and pa.types.is_list(t):
        el = t.value_field
        el = el.with_type(_nested(el.type, paimon.element, fid, depth + 1))
        return pa.list_(_tag(el, element_id(fid, depth + 1)))
    if isinstance(paimon, (MapType, MultisetType)) and pa.types.is_map(t):
        key_t = paimon.element if isinstance(paimon, MultisetType) else paimon.key
        value_t = None if isinstance(paimon, MultisetType) else paimon.value
        k, v = t.key_field, t.item_field
        k = _tag(k.with_type(_nested(k.type, key_t, fid, depth + 1)), map_key_id(fid, depth + 1))
        v = _tag(v.with_type(_nested(v.type, value_t, fid, depth + 1)), element_id(fid, depth + 1))
        return pa.map_(k, v, keys_sorted=t.keys_sorted)
    return t


def with_field_ids(schema: pa.Schema, fields: Iterable[DataField]) -> pa.Schema:
    """``schema`` (a data file's columns) with the Parquet field id of each column and nested field."""
    ids = column_ids(fields)
    out = []
    for f in schema:
        known = ids.get(f.name)
        if known is None:
            out.append(f)
            continue
        fid, paimon = known
        out.append(_tag(f.with_type(_nested(f.type, paimon, fid, 0)), fid))
    return pa.schema(out, metadata=schema.metadata)


__all__ = ["KEY_FIELD_ID_START", "SYSTEM_IDS", "column_ids", "element_id", "map_key_id", "with_field_ids"]
