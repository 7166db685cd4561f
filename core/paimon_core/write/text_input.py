"""Parsing CSV and JSON-lines input for a table: how each column is read before it is fitted to
the table (``conform``), so that every value the tool prints reads back as itself.

JSON: Arrow's parser, told to read each column as its JSON form (numbers, booleans and strings
as themselves; DATE, TIME, TIMESTAMP, DECIMAL and bytes as strings, decoded by ``text_values``;
ROW and ARRAY as structs and lists of those forms, converted to the table's types in Arrow). A
file Arrow cannot read that way (a MAP or MULTISET column, whose keys JSON spells as object keys;
a DATE as days since 1970; a number for a DECIMAL; a ROW object with a key its type lacks; any
value the table refuses) is parsed line by line instead, with the same result, or the same
error naming the line.
CSV: quoted newlines anywhere; an empty unquoted field is NULL and a quoted one (``""``) the empty
string, the only NULL spelling (so the text ``NULL`` or ``NA`` in a string column stays text).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable

import pyarrow as pa

from paimon_core.data.types import (
    ArrayType,
    AtomicType,
    DataType,
    MapType,
    MultisetType,
    RowType,
    to_arrow_type,
)
from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import TableSchema
from paimon_core.write.cdc_formats import ROW_KIND, decode_events
from paimon_core.write.input_errors import InputLineError, InputRowError, json_line
from paimon_core.write.text_values import from_json_values

# atomic types whose JSON (and CSV) text Arrow's own parser reads exactly
_NATIVE = ("BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "CHAR", "VARCHAR")
_CSV_NATIVE = (*_NATIVE, "DATE")
CSV_BLOCK_BYTES = 16 << 20  # Arrow parses CSV blocks of this size in parallel


def _has_row(t: DataType) -> bool:
    return isinstance(t, RowType) or isinstance(t, ArrayType) and _has_row(t.element)


def _json_form(t: DataType) -> pa.DataType | None:
    """The Arrow type Arrow's JSON parser reads a column of type ``t`` as (text where JSON has
    no native form, structs and lists of those); None for a MAP or MULTISET anywhere in ``t``
    (Arrow's parser reads a JSON object only as a struct of known keys)."""
    if isinstance(t, ArrayType):
        element = _json_form(t.element)
        return None if element is None else pa.list_(element)
    if isinstance(t, RowType):
        children = [(f.name, _json_form(f.type)) for f in t.fields]
        if any(form is None for _, form in children):
            return None
        return pa.struct([pa.field(name, form) for name, form in children])
    if isinstance(t, (MapType, MultisetType)):
        return None
    assert isinstance(t, AtomicType)
    return to_arrow_type(t) if t.root in _NATIVE else pa.string()


def csv_column_types(schema: TableSchema) -> dict:
    """Column name -> the Arrow type the CSV parser reads it as (text for what ``conform``
    decodes: TIME, TIMESTAMP, bytes as hex, nested values as JSON text)."""
    return {
        f.name: to_arrow_type(f.type)
        if isinstance(f.type, AtomicType) and f.type.root in _CSV_NATIVE
        else pa.string()
        for f in schema.fields
    }


def csv_options(schema: TableSchema, column_names: list[str] | None = None):
    """(read, parse, convert) options for Arrow's CSV reader on input for ``schema``."""
    import pyarrow.csv as pcsv

    return (
        pcsv.ReadOptions(block_size=CSV_BLOCK_BYTES, column_names=column_names),
        pcsv.ParseOptions(newlines_in_values=True),
        pcsv.ConvertOptions(
            column_types=csv_column_types(schema),
            null_values=[""],
            strings_can_be_null=True,
            quoted_strings_can_be_null=False,
        ),
    )


def read_json(
    data: bytes,
    schema: TableSchema,
    where: str,
    first_line: int = 1,
    every_column: bool = False,
    typed: bool = True,
) -> pa.Table:
    """JSON lines in ``data`` as an Arrow table: table columns in their JSON form (see the module
    docstring), other keys as Arrow infers them; only keys that appear are columns, unless
    ``every_column`` (a part of a stream: a key no record of this part names is NULL). ``where``
    names the source in errors (``file.jsonl``, ``stdin``), ``first_line`` is the line number of
    ``data``'s first line there. Not ``typed``: the columns Arrow reads, nested ones left in their
    JSON form (for the columns a file has, not its values)."""
    table = _read_json_in_arrow(data, schema, typed)
    if table is not None:
        return table if every_column else _without_absent(table, data, schema)
    return _read_json_lines(_lines(data, first_line), schema, where, every_column)


def _read_json_in_arrow(data: bytes, schema: TableSchema, typed: bool = True) -> pa.Table | None:
    """Arrow's parser over ``data`` with each table column in its JSON form, nested columns
    converted to the table's types; None when the line-by-line path must read it (a MAP
    column, a value in another JSON form, a ROW key the type lacks, a value the conversion
    refuses: that path words each such case, naming the line)."""
    import pyarrow.json as pjson

    from paimon_core.errors import PaimonError
    from paimon_core.write.conform import conform_column

    forms = {f.name: _json_form(f.type) for f in schema.fields}
    if any(form is None for form in forms.values()):
        return None
    try:
        table = pjson.read_json(
            io.BytesIO(data),
            # blocks of 8 MB parse on threads; a column whose JSON type changes between them fails
            # the read, and the line path reads it
            read_options=pjson.ReadOptions(block_size=8 << 20),
            parse_options=pjson.ParseOptions(
                explicit_schema=pa.schema([pa.field(name, form) for name, form in forms.items()]),
                unexpected_field_behavior="infer",  # other keys: new columns, as Arrow infers them
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    for f in schema.fields:
        if not _has_row(f.type):
            continue  # atomic values and their lists: fitted to the table later, as CSV columns are
        column = table.column(f.name)
        if column.type != forms[f.name]:
            return None  # a ROW object with a key its type lacks (Arrow inferred one more field)
        if not typed:
            continue
        try:
            converted = conform_column(column, f.name, f.type)
        except (PaimonError, pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
            return None
        table = table.set_column(table.schema.get_field_index(f.name), f.name, converted)
    return table


def _without_absent(table: pa.Table, data: bytes, schema: TableSchema) -> pa.Table:
    """Drops the table columns no record names (Arrow adds every declared column): a missing
    column must stay missing, so that NOT NULL checks and evolution see it as such. Only an
    all-null column can be absent; its quoted name anywhere in ``data`` counts as present."""
    absent = [
        f.name
        for f in schema.fields
        if f.name in table.column_names
        and table.column(f.name).null_count == table.num_rows
        and json.dumps(f.name).encode() not in data
    ]
    return table.drop_columns(absent) if absent else table


def _lines(data: bytes, first_line: int) -> Iterable[tuple[int, bytes]]:
    for i, text in enumerate(data.splitlines(), first_line):
        if text.strip():
            yield i, text


def _record(text: bytes, where: str, line: int) -> dict:
    obj = json_line(text, where, line)
    if not isinstance(obj, dict):
        raise InputLineError(where, line, "not a JSON object")
    return obj


def _read_json_lines(
    lines: Iterable[tuple[int, bytes]], schema: TableSchema, where: str, every_column: bool
) -> pa.Table:
    numbers, records = [], []
    for line, text in lines:
        numbers.append(line)
        records.append(_record(text, where, line))
    return _columns(records, numbers, schema, where, every_column)


def read_changes(
    data: bytes, fmt: str, schema: TableSchema, where: str, first_line: int = 1, every_column: bool = False
) -> pa.Table:
    """The row changes of change events (``cdc_formats``) in ``data``, as ``read_json`` reads
    rows, plus their kinds in a ``_row_kind`` column (+I/-U/+U/-D). Refuses events whose primary
    key differs from the table's."""
    changes = decode_events(_lines(data, first_line), fmt, where)
    if (
        changes.primary_keys is not None
        and schema.primary_keys
        and set(changes.primary_keys) != set(schema.primary_keys)
    ):
        raise InvalidInput(
            f"{where}: the events' primary key ({', '.join(changes.primary_keys)}) is not the table's "
            f"({', '.join(schema.primary_keys)})"
        )
    table = _columns(changes.rows, changes.lines, schema, where, every_column)
    return table.append_column(ROW_KIND, pa.array(changes.kinds, pa.string()))


def _columns(
    records: list[dict], numbers: list[int], schema: TableSchema, where: str, every_column: bool
) -> pa.Table:
    """Columns of JSON ``records`` (``numbers[i]``: the input line of record i) for ``schema``."""
    keys: dict = dict.fromkeys(schema.field_names) if every_column else {}
    for r in records:
        keys.update(dict.fromkeys(r))
    types = {f.name: f.type for f in schema.fields}
    columns = {}
    for name in [f.name for f in schema.fields if f.name in keys] + [k for k in keys if k not in types]:
        values = [r.get(name) for r in records]
        try:
            if name in types:
                columns[name] = from_json_values(values, name, types[name])
            else:
                columns[name] = pa.array(values)  # a new column: Arrow's type, for schema evolution
        except InputRowError as e:
            raise InputLineError(where, numbers[e.row], e.what) from None
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise InvalidInput(f"{where}: column '{name}': {str(e).splitlines()[0]}") from None
    if not columns:  # no column at all, but as many rows as records
        return pa.table([pa.nulls(len(records))], names=["_"]).drop_columns(["_"])
    return pa.table(columns)


__all__ = ["csv_column_types", "csv_options", "read_changes", "read_json"]
