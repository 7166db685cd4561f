"""Arrow values -> plain values every output format can print.

Plain values are JSON-native: ``None``, ``bool``, ``int``, ``float``, ``str``, lists and
dicts. Dates, times and timestamps become ISO strings, decimals exact strings, binary hex,
maps JSON objects (keys as strings). Conversion is one function per column type, built once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal

import pyarrow as pa

Converter = Callable[[object], object]


def _identity(v):
    return v


def _iso(v):
    return None if v is None else v.isoformat()


def _decimal(v):
    return None if v is None else format(v, "f") if isinstance(v, Decimal) else str(v)


def _hex(v):
    return None if v is None else bytes(v).hex()


def converter(t: pa.DataType) -> Converter:
    """The converter for values (``as_py()`` form) of Arrow type ``t``."""
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        return _iso
    if pa.types.is_decimal(t):
        return _decimal
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return _hex
    if pa.types.is_map(t):
        kc, vc = converter(t.key_type), converter(t.item_type)
        return lambda v: None if v is None else {str(kc(k)): vc(x) for k, x in v}
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        ec = converter(t.value_type)
        return lambda v: None if v is None else [ec(x) for x in v]
    if pa.types.is_struct(t):
        fcs = [(t.field(i).name, converter(t.field(i).type)) for i in range(t.num_fields)]
        return lambda v: None if v is None else {n: c(v.get(n)) for n, c in fcs}
    if pa.types.is_duration(t) or pa.types.is_interval(t):
        return lambda v: None if v is None else str(v)
    return _identity


def _column_values(col: pa.ChunkedArray | pa.Array) -> list:
    t = col.type
    if pa.types.is_timestamp(t) and t.unit == "ns":
        # as_py() cannot hold nanoseconds in a datetime: let Arrow format them
        text = col.cast(pa.string()).to_pylist()
        return [None if s is None else s.replace(" ", "T", 1) for s in text]
    conv = converter(t)
    values = col.to_pylist()
    return values if conv is _identity else [conv(v) for v in values]


def arrow_rows(table: pa.Table) -> Iterator[list]:
    """Rows of plain values, column by column converted."""
    columns = [_column_values(table.column(i)) for i in range(table.num_columns)]
    return (list(r) for r in zip(*columns, strict=True)) if columns else iter(())


def is_numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
