"""Input files for ingest: Parquet, CSV and JSON-lines files, folders and globs, read as a
stream of Arrow tables (bounded memory: one batch at a time)."""

from __future__ import annotations

import dataclasses
import glob
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import TableSchema
from paimon_core.write.cdc_formats import CDC_FORMATS
from paimon_core.write.text_input import csv_options, read_changes, read_json

if TYPE_CHECKING:
    from collections.abc import Iterator

FORMATS = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".parq": "parquet",
    ".csv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".ndjson": "json",
}
BATCH_ROWS = 128 * 1024


@dataclass(frozen=True)
class InputFile:
    path: str
    format: str
    size: int


def _format_of(path: str) -> str | None:
    lower = path.lower()
    for ext in (".gz", ".zst", ".bz2"):
        if lower.endswith(ext) and any(lower[: -len(ext)].endswith(e) for e in (".csv", ".json", ".jsonl")):
            lower = lower[: -len(ext)]
    return FORMATS.get(os.path.splitext(lower)[1])


def input_file(path: str) -> InputFile:
    """The input file at ``path``: its format from the extension, else Parquet by its magic bytes."""
    fmt = _format_of(path)
    if fmt is None:
        with open(path, "rb") as f:
            head = f.read(4)
        if head != b"PAR1":
            raise InvalidInput(f"{path}: not a Parquet, CSV or JSON file (name it .parquet, .csv or .json)")
        fmt = "parquet"
    return InputFile(path, fmt, os.path.getsize(path))


@dataclass(frozen=True)
class Inputs:
    files: list[InputFile]
    skipped: tuple[str, ...] = ()  # files in the folders given that are not Parquet, CSV or JSON


def find_inputs(patterns: list[str]) -> Inputs:
    """Expand files, folders (recursively; hidden and _-prefixed entries skipped, as Spark's
    _SUCCESS and .crc files; other files that are not Parquet, CSV or JSON are skipped and
    listed in ``skipped``) and globs. A path that exists is taken literally even when it holds
    glob characters (``data[1].parquet``)."""
    if not patterns:
        raise InvalidInput("no input files given")
    out: list[InputFile] = []
    skipped: list[str] = []
    for pat in patterns:
        if os.path.isdir(pat):
            found = []
            for root, dirs, files in os.walk(pat):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
                for name in sorted(files):
                    if name.startswith((".", "_")):
                        continue
                    p = os.path.join(root, name)
                    if _format_of(p):
                        found.append(input_file(p))
                    else:
                        skipped.append(p)
            if not found:
                raise InvalidInput(f"folder '{pat}' holds no Parquet, CSV or JSON files")
            out.extend(found)
        elif os.path.isfile(pat):
            out.append(input_file(pat))
        elif any(c in pat for c in "*?["):
            matches = sorted(m for m in glob.glob(pat, recursive=True) if os.path.isfile(m))
            if not matches:
                raise InvalidInput(f"no files match '{pat}'")
            out.extend(input_file(m) for m in matches)
        else:
            raise InvalidInput(f"file not found: {pat}")
    return Inputs(out, tuple(skipped))


def as_change_events(inputs: list[InputFile], fmt: str, row_kind_column: str | None) -> list[InputFile]:
    """``inputs`` (JSON files) read as change events in ``fmt`` (``cdc_formats``); the row kind
    column is the events' own."""
    if fmt not in CDC_FORMATS:
        raise InvalidInput(f"unknown input format '{fmt}' for files (one of {', '.join(CDC_FORMATS)})")
    if row_kind_column is not None:
        raise InvalidInput(f"a row kind column does not go with {fmt}: the events give each row's kind")
    other = next((f for f in inputs if f.format != "json"), None)
    if other is not None:
        raise InvalidInput(f"{other.path}: {fmt} events are JSON lines (name the file .json or .jsonl)")
    return [dataclasses.replace(f, format=fmt) for f in inputs]


def resolve_inputs(patterns: list[str]) -> list[InputFile]:
    """The input files of ``patterns`` (see ``find_inputs``)."""
    return find_inputs(patterns).files


def input_schema(f: InputFile, schema: TableSchema) -> pa.Schema:
    """The Arrow schema of an input file, read without reading its data where possible. A JSON
    file's columns are those of all its blocks: the table's columns any block has, and the new
    ones with the type that holds each block's values."""
    if f.format == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_schema(f.path)
        except (pa.ArrowInvalid, OSError) as e:
            raise InvalidInput(f"{f.path}: not a readable Parquet file ({str(e).splitlines()[0]})") from None
    if f.format == "json":
        return _json_schema(f, schema)
    first = next(read_batches(f, schema), None)
    return first.schema if first is not None else pa.schema([])


JSON_BLOCK_BYTES = 32 << 20  # JSON lines are parsed a block of whole lines at a time


def json_blocks(path: str, block_bytes: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number of its first line, bytes) of consecutive blocks of whole lines of ``path``
    (decompressed by its extension: .gz, .bz2, .zst), about ``block_bytes`` each; lines are
    numbered as ``bytes.splitlines`` numbers the whole file's."""
    line, rest, size = 1, b"", block_bytes or JSON_BLOCK_BYTES
    with pa.input_stream(path) as fh:
        while chunk := fh.read(size):
            cut = chunk.rfind(b"\n") + 1  # a CR LF pair is never split
            if cut == 0:
                rest += chunk
                continue
            block = rest + chunk[:cut] if rest else chunk[:cut]  # a whole chunk: the same object
            rest = chunk[cut:]
            yield line, block
            line += _line_count(block)
    if rest:
        yield line, rest


def _line_count(block: bytes) -> int:
    """``len(block.splitlines())`` for a block that ends a line, without making the lines."""
    lines = block.count(b"\n")
    if b"\r" in block:
        lines += block.count(b"\r") - block.count(b"\r\n")
    return lines


def _json_schema(f: InputFile, schema: TableSchema) -> pa.Schema:
    declared = set(schema.field_names)
    fields: dict[str, pa.Field] = {}
    for part in read_batches(f, schema, typed=False):
        for field in part.schema:
            seen = fields.get(field.name)
            if seen is None:
                fields[field.name] = field
            elif field.name not in declared and seen.type != field.type:
                try:
                    fields[field.name] = pa.unify_schemas(
                        [pa.schema([seen]), pa.schema([field])], promote_options="permissive"
                    ).field(0)
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    raise InvalidInput(
                        f"{f.path}: the new column '{field.name}' holds {seen.type} values in one part of the "
                        f"file and {field.type} values in another"
                    ) from None
    return pa.schema(list(fields.values()))


def read_batches(
    f: InputFile, schema: TableSchema, batch_rows: int = BATCH_ROWS, typed: bool = True
) -> Iterator[pa.Table]:
    """Yield Arrow tables of at most ``batch_rows`` rows (CSV/JSON parsed with the table types;
    not ``typed``: JSON's nested columns left in their JSON form, see ``read_json``)."""
    try:
        if f.format == "parquet":
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(f.path)
            yield from _parquet_chunks(pf, batch_rows)
        elif f.format == "csv":
            import pyarrow.csv as pcsv

            read, parse, convert = csv_options(schema)
            reader = pcsv.open_csv(f.path, read_options=read, parse_options=parse, convert_options=convert)
            for batch in reader:
                yield pa.Table.from_batches([batch])
        elif f.format == "json":
            for first_line, block in json_blocks(f.path):
                for batch in read_json(block, schema, f.path, first_line, typed=typed).to_batches(
                    max_chunksize=batch_rows
                ):
                    yield pa.Table.from_batches([batch])
        else:
            with pa.input_stream(f.path) as fh:
                data = fh.read()
            for batch in read_changes(data, f.format, schema, f.path).to_batches(max_chunksize=batch_rows):
                yield pa.Table.from_batches([batch])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, UnicodeDecodeError) as e:
        message = str(e).splitlines()[0]
        if f.format == "csv":
            from paimon_core.write.input_errors import explain_csv_error

            message = explain_csv_error(f.path, message, {fld.name: fld.type for fld in schema.fields})
        raise InvalidInput(f"{f.path}: cannot read as {f.format.upper()}: {message}") from None


PARQUET_CHUNK_BYTES = 64 << 20  # uncompressed bytes of row groups read at once


def _parquet_chunks(pf, batch_rows: int):
    """Whole row groups, several at a time up to ~64 MB uncompressed (pyarrow decodes their
    columns on threads); a row group bigger than that is streamed in batches instead."""
    meta = pf.metadata
    group, size = [], 0
    for i in range(meta.num_row_groups):
        rg_size = meta.row_group(i).total_byte_size
        if rg_size > PARQUET_CHUNK_BYTES:
            if group:
                yield pf.read_row_groups(group)
                group, size = [], 0
            for batch in pf.iter_batches(batch_size=batch_rows, row_groups=[i]):
                yield pa.Table.from_batches([batch])
            continue
        if group and size + rg_size > PARQUET_CHUNK_BYTES:
            yield pf.read_row_groups(group)
            group, size = [], 0
        group.append(i)
        size += rg_size
    if group:
        yield pf.read_row_groups(group)
