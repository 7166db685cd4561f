"""The schema of a table created from change events (``ingest --create``): the columns and the
primary key the first input file's events describe.

Invariant: the schema is taken from the events alone (``write.cdc_formats``); an input that names
no primary key (and none is given) or carries no row change is refused before anything is created."""

from __future__ import annotations

from dataclasses import dataclass

from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import Schema
from paimon_core.write.cdc_formats import CDC_FORMATS, decode_events, table_columns
from paimon_core.write.input_files import find_inputs


@dataclass(frozen=True)
class EventSchema:
    schema: Schema
    source: str  # the file the events were read from
    columns: str  # the columns, as ``--schema`` text


def schema_from_events(files: list[str], fmt: str, primary_keys: list[str] | None = None) -> EventSchema:
    """The schema the first of ``files``'s change events in ``fmt`` describe; ``primary_keys``
    (when given) instead of the key the events name."""
    if fmt not in CDC_FORMATS:
        raise InvalidInput(f"change events come in one of {', '.join(CDC_FORMATS)}, not {fmt}")
    first = find_inputs(files).files[0]
    with open(first.path, "rb") as fh:
        lines = [(i, line) for i, line in enumerate(fh.read().splitlines(), 1) if line.strip()]
    changes = decode_events(lines, fmt, first.path)
    keys = list(primary_keys or changes.primary_keys or ())
    if not keys:
        raise InvalidInput(f"{first.path}: the events name no primary key").with_hint("events_primary_key")
    if not changes.rows:
        raise InvalidInput(f"{first.path}: no row change to take the columns from")
    changes.primary_keys = keys
    columns = table_columns(changes)
    return EventSchema(
        Schema(columns=Schema.parse_columns(columns), primary_keys=tuple(keys)), first.path, columns
    )


__all__ = ["CDC_FORMATS", "EventSchema", "schema_from_events"]
