"""Input files for ingest: Parquet, CSV and JSON-lines files, folders and globs, read as a
stream of Arrow tables (bounded memory: one batch at a time)."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
from paimon_core.data.types import AtomicType, to_arrow_type
from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import TableSchema

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


def _file(path: str) -> InputFile:
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
                        found.append(_file(p))
                    else:
                        skipped.append(p)
            if not found:
                raise InvalidInput(f"folder '{pat}' holds no Parquet, CSV or JSON files")
            out.extend(found)
        elif os.path.isfile(pat):
            out.append(_file(pat))
        elif any(c in pat for c in "*?["):
            matches = sorted(m for m in glob.glob(pat, recursive=True) if os.path.isfile(m))
            if not matches:
                raise InvalidInput(f"no files match '{pat}'")
            out.extend(_file(m) for m in matches)
        else:
            raise InvalidInput(f"file not found: {pat}")
    return Inputs(out, tuple(skipped))


def resolve_inputs(patterns: list[str]) -> list[InputFile]:
    """The input files of ``patterns`` (see ``find_inputs``)."""
    return find_inputs(patterns).files


def _csv_types(schema: TableSchema) -> dict:
    return {f.name: to_arrow_type(f.type) for f in schema.fields if isinstance(f.type, AtomicType)}


def input_schema(f: InputFile, schema: TableSchema) -> pa.Schema:
    """The Arrow schema of an input file, read without reading its data where possible."""
    if f.format == "parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_schema(f.path)
        except (pa.ArrowInvalid, OSError) as e:
            raise InvalidInput(f"{f.path}: not a readable Parquet file ({str(e).splitlines()[0]})") from None
    first = next(read_batches(f, schema), None)
    return first.schema if first is not None else pa.schema([])


def read_batches(f: InputFile, schema: TableSchema, batch_rows: int = BATCH_ROWS) -> Iterator[pa.Table]:
    """Yield Arrow tables of at most ``batch_rows`` rows (CSV/JSON parsed with the table types)."""
    try:
        if f.format == "parquet":
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(f.path)
            yield from _parquet_chunks(pf, batch_rows)
        elif f.format == "csv":
            import pyarrow.csv as pcsv

            reader = pcsv.open_csv(
                f.path,
                read_options=pcsv.ReadOptions(block_size=16 << 20),
                convert_options=pcsv.ConvertOptions(
                    column_types=_csv_types(schema), strings_can_be_null=True
                ),
            )
            for batch in reader:
                yield pa.Table.from_batches([batch])
        else:
            import pyarrow.json as pjson

            types = _csv_types(schema)
            table = _read_json_text_temporals(pjson, f.path, types)
            present = set(_json_keys(f.path))
            table = table.select([c for c in table.column_names if c in present or c not in types])
            for batch in table.to_batches(max_chunksize=batch_rows):
                yield pa.Table.from_batches([batch])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError, UnicodeDecodeError) as e:
        message = str(e).splitlines()[0]
        if f.format == "csv":
            from paimon_core.write.input_errors import explain_csv_error

            message = explain_csv_error(f.path, message, {fld.name: fld.type for fld in schema.fields})
        raise InvalidInput(f"{f.path}: cannot read as {f.format.upper()}: {message}") from None


def _read_json(pjson, path: str, types: dict) -> pa.Table:
    return pjson.read_json(
        path,
        parse_options=pjson.ParseOptions(
            explicit_schema=pa.schema([pa.field(n, t) for n, t in types.items()]),
            unexpected_field_behavior="infer",
        ),
    )


def _read_json_text_temporals(pjson, path: str, types: dict) -> pa.Table:
    """A JSON-lines file with DATE and TIME columns in their text form ("2024-01-02",
    "10:11:12.5"), which pyarrow's JSON reader cannot parse into those types: they are read as
    strings and cast exactly (a value that does not fit fails the read). A file that holds them
    as numbers (days, time units) is read as before."""
    temporal = {n: t for n, t in types.items() if pa.types.is_date(t) or pa.types.is_time(t)}
    if not temporal:
        return _read_json(pjson, path, types)
    try:
        table = _read_json(pjson, path, {**types, **{n: pa.string() for n in temporal}})
    except pa.ArrowInvalid:
        return _read_json(pjson, path, types)
    import pyarrow.compute as pc

    for name, t in temporal.items():
        i = table.schema.get_field_index(name)
        if i < 0:
            continue
        col = table.column(i)
        if pa.types.is_date(t):
            col = col.cast(t)
        else:
            stamp = pc.binary_join_element_wise("1970-01-01T", col, "")
            col = stamp.cast(pa.timestamp(t.unit)).cast(t)
        table = table.set_column(i, name, col)
    return table


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


def _json_keys(path: str, sample: int = 1000) -> set:
    """Keys that appear in the first records: columns absent from a JSON file stay 'missing'
    (so NOT NULL checks fire) instead of arriving as all-null columns."""
    import json

    keys: set = set()
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i >= sample:
                break
            line = line.strip()
            if line:
                try:
                    keys.update(json.loads(line).keys())
                except (ValueError, AttributeError):
                    raise InvalidInput(f"{path}: line {i + 1} is not a JSON object") from None
    return keys
