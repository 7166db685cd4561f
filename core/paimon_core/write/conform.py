"""Fitting input data to a table schema: columns matched by name, cast with Paimon's implicit
widening (and, where every value fits, Arrow's checked casts), missing nullable columns filled
with nulls. Anything else is a SchemaMismatch naming the column; nothing is written."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.types import (
    ArrayType,
    AtomicType,
    DataType,
    MapType,
    MultisetType,
    RowType,
    from_arrow_type,
    implicitly_castable,
    to_arrow_type,
)
from paimon_core.errors import SchemaMismatch
from paimon_core.metadata.schema import TableSchema
from paimon_core.metadata.schema_evolution import check_shares_a_column
from paimon_core.write.input_errors import InputRowError
from paimon_core.write.input_notes import NUMBERS_AS_TEXT, ZONED_TO_UTC, converted
from paimon_core.write.text_values import decode_text

_FAMILY = {
    "TINYINT": "num",
    "SMALLINT": "num",
    "INT": "num",
    "BIGINT": "num",
    "FLOAT": "num",
    "DOUBLE": "num",
    "DECIMAL": "num",
    "CHAR": "str",
    "VARCHAR": "str",
    "BINARY": "bin",
    "VARBINARY": "bin",
    "BLOB": "bin",
    "BOOLEAN": "bool",
    "DATE": "time",
    "TIMESTAMP": "time",
    "TIMESTAMP_LTZ": "time",
    "TIME": "tod",
}


def _checked_cast_allowed(src: DataType, dst: DataType) -> bool:
    """Casts beyond widening that we accept when every value survives (e.g. BIGINT -> INT)."""
    if not (isinstance(src, AtomicType) and isinstance(dst, AtomicType)):
        return False
    fs, fd = _FAMILY.get(src.root), _FAMILY.get(dst.root)
    if fs == fd:
        return not (src.root == "TIMESTAMP_LTZ") ^ (dst.root == "TIMESTAMP_LTZ") or src.root == "DATE"
    return False


def conform_column(arr: pa.Array | pa.ChunkedArray, name: str, dst: DataType) -> pa.Array | pa.ChunkedArray:
    src = from_arrow_type(arr.type)
    target = to_arrow_type(dst)
    if arr.type == target:
        return arr
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), target)
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
        src = from_arrow_type(arr.type)
    if _is_text(src) and not _is_text(dst):
        return decode_text(arr, name, dst)  # ISO times, decimal strings, hex, JSON text (text_values)
    if _is_text(dst) and (
        pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type) or pa.types.is_decimal(arr.type)
    ):
        if arr.null_count < len(arr):
            converted(name, NUMBERS_AS_TEXT)  # as CSV and JSON numbers go into text columns
        return arr.cast(target)
    if (
        pa.types.is_timestamp(arr.type)
        and arr.type.tz is not None
        and isinstance(dst, AtomicType)
        and dst.root == "TIMESTAMP"
        and arr.null_count < len(arr)
    ):
        converted(name, ZONED_TO_UTC)  # as for zoned text
        naive = pa.timestamp(arr.type.unit)  # the stored numbers are UTC: read them as wall clocks
        arr = (
            pa.chunked_array([c.view(naive) for c in _chunks(arr)], naive)
            if isinstance(arr, pa.ChunkedArray)
            else arr.view(naive)
        )
        if arr.type == target:
            return arr
    if isinstance(src, RowType) and isinstance(dst, RowType) and arr.type != target:
        return _conform_struct(arr, name, src, dst)
    if isinstance(src, ArrayType) and isinstance(dst, ArrayType) and arr.type != target:
        return _conform_list(arr, name, dst)
    if isinstance(dst, AtomicType) and dst.root == "DATE" and pa.types.is_integer(arr.type):
        return pc.cast(pc.cast(arr, pa.int32()), pa.date32())  # days since 1970, as Paimon stores a DATE
    if (
        isinstance(dst, MultisetType)
        and isinstance(src, MapType)
        and isinstance(src.value, AtomicType)
        and src.value.root in ("TINYINT", "SMALLINT", "INT", "BIGINT")
        and implicitly_castable(src.key, dst.element)
    ):
        # Arrow has no multiset: a map from element to count is one
        chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
        if any(c.items.null_count for c in chunks):
            raise SchemaMismatch(f"column '{name}': a MULTISET count is NULL")
        try:
            return arr.cast(target, safe=True)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise SchemaMismatch(
                f"column '{name}': cannot cast {src} to {dst.with_nullable(True)}: {str(e).splitlines()[0]}"
            ) from None
    if (
        isinstance(src, AtomicType)
        and isinstance(dst, AtomicType)
        and src.root == dst.root
        and src.root in ("CHAR", "VARCHAR", "BINARY", "VARBINARY", "BLOB")
    ):
        return arr.cast(target)  # length limits are not enforced (Paimon does not either on write)
    if implicitly_castable(src, dst) or _checked_cast_allowed(src, dst):
        try:
            if pa.types.is_decimal(target) and (
                pa.types.is_integer(arr.type) or pa.types.is_decimal(arr.type)
            ):
                # Arrow checks decimal precision per type, not per value: go through the widest decimal
                arr = arr.cast(pa.decimal128(38, max(target.scale, getattr(arr.type, "scale", 0))))
            return arr.cast(target, safe=True)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            detail = str(e).splitlines()[0]
            raise SchemaMismatch(
                f"column '{name}': cannot cast {src} to {dst.with_nullable(True)}: {detail}"
            ) from None
    raise SchemaMismatch(
        f"column '{name}': cannot cast {src.with_nullable(True)} to {dst.with_nullable(True)}"
    )


def _is_text(t: DataType) -> bool:
    return isinstance(t, AtomicType) and t.root in ("CHAR", "VARCHAR")


def _chunks(arr: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    return arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]


def _conform_struct(arr: pa.Array | pa.ChunkedArray, name: str, src: RowType, dst: RowType):
    """A ROW by field names (JSON objects arrive with their keys' order); fields the input lacks
    are null, fields the table lacks are refused."""
    known = {f.name for f in dst.fields}
    extra = [f.name for f in src.fields if f.name not in known]
    if extra:
        raise SchemaMismatch(f"column '{name}': field '{extra[0]}' is not in {dst.with_nullable(True)}")
    out = []
    for chunk in _chunks(arr):
        names = [chunk.type.field(i).name for i in range(chunk.type.num_fields)]
        children = [
            conform_column(chunk.field(f.name), f"{name}.{f.name}", f.type)
            if f.name in names
            else pa.nulls(len(chunk), to_arrow_type(f.type))
            for f in dst.fields
        ]
        mask = pc.is_null(chunk) if chunk.null_count else None
        out.append(pa.StructArray.from_arrays(children, fields=list(to_arrow_type(dst)), mask=mask))
    return out[0] if len(out) == 1 else pa.chunked_array(out, to_arrow_type(dst))


def _conform_list(arr: pa.Array | pa.ChunkedArray, name: str, dst: ArrayType):
    target = to_arrow_type(dst)
    out = []
    for chunk in _chunks(arr):
        items = conform_column(chunk.values, f"{name}[]", dst.element)
        mask = pc.is_null(chunk) if chunk.null_count else None
        out.append(pa.ListArray.from_arrays(chunk.offsets, items, type=target, mask=mask))
    return out[0] if len(out) == 1 else pa.chunked_array(out, target)


def check_columns(input_names: list[str], schema: TableSchema) -> None:
    check_shares_a_column(input_names, schema)
    known = set(schema.field_names)
    unknown = [n for n in input_names if n not in known]
    if unknown:
        raise SchemaMismatch(
            f"unknown column '{unknown[0]}' in the input (table columns: {', '.join(schema.field_names)})"
        ).with_hint("evolve")
    present = set(input_names)
    for f in schema.fields:
        if f.name not in present and not f.type.nullable:
            raise SchemaMismatch(f"column '{f.name}' is NOT NULL but missing from the input")


def conform_table(data: pa.Table | pa.RecordBatch, schema: TableSchema) -> pa.Table:
    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    check_columns(data.column_names, schema)
    arrays = []
    for f in schema.fields:
        if f.name in data.column_names:
            arr = conform_column(data.column(f.name), f.name, f.type)
            if not f.type.nullable and arr.null_count:
                first = pc.index(pc.is_null(arr), True).as_py()
                raise InputRowError(f"column '{f.name}' is NOT NULL but the value is null", first)
        else:
            arr = pa.nulls(data.num_rows, to_arrow_type(f.type))
        arrays.append(arr)
    return pa.Table.from_arrays(arrays, schema=schema.arrow_schema())


_KIND_CODES = {"+I": 0, "-U": 1, "+U": 2, "-D": 3, "I": 0, "UB": 1, "UA": 2, "D": 3}


def split_row_kinds(data: pa.Table, column: str | None) -> tuple[pa.Table, pa.Array | None]:
    """Take the row-kind column (+I/-U/+U/-D) out of ``data``; returns (data, int8 kinds or None)."""
    if column is None:
        return data, None
    if column not in data.column_names:
        raise SchemaMismatch(f"row kind column '{column}' is not in the input")
    raw = data.column(column)
    if pa.types.is_integer(raw.type):
        codes = raw.cast(pa.int8())
        bad = pc.invert(pc.is_in(codes, pa.array([0, 1, 2, 3], pa.int8())))
    else:
        text = pc.utf8_upper(pc.utf8_trim_whitespace(raw.cast(pa.string())))
        keys = pa.array(list(_KIND_CODES))
        idx = pc.index_in(text, keys)
        codes = pc.take(pa.array(list(_KIND_CODES.values()), pa.int8()), idx)
        bad = pc.is_null(idx)
    if pc.any(bad).as_py() or codes.null_count:
        first = pc.index(pc.fill_null(bad, True), True).as_py()
        raise InputRowError(
            f"row kind column '{column}' has '{raw[first].as_py()}', expected +I, -U, +U or -D", first
        )
    return data.drop_columns([column]), codes
