"""Table schemas: the ``schema/schema-N`` JSON files, validation of new schemas, and the manager
that lists and creates versions.

Invariants: field ids are unique and never reused (``highestFieldId`` only grows); primary-key
columns are NOT NULL; a schema file, once written, is never replaced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

import pyarrow as pa

from paimon_core import paths
from paimon_core.clock import now_ms
from paimon_core.data.types import (
    AtomicType,
    DataField,
    DataType,
    assign_field_ids,
    from_arrow_type,
    highest_field_id,
    parse_type,
    to_arrow_schema,
)
from paimon_core.errors import CorruptMetadata, InvalidInput, PaimonError
from paimon_core.metadata import jsonfmt
from paimon_core.options.bucket_mode import BucketMode, mode_of
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import BLOB_FIELD
from paimon_core.storage.file_io import FileIO

SCHEMA_VERSION = 3


@dataclass(frozen=True)
class TableSchema:
    id: int
    fields: tuple[DataField, ...]
    highest_field_id: int
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    comment: str | None = None
    time_millis: int = 0
    version: int = SCHEMA_VERSION

    # ---- derived views
    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field(self, name: str) -> DataField:
        for f in self.fields:
            if f.name == name:
                return f
        raise InvalidInput(f"unknown column '{name}' (columns: {', '.join(self.field_names)})")

    def types_of(self, names: Iterable[str]) -> list[DataType]:
        return [self.field(n).type for n in names]

    @property
    def trimmed_primary_keys(self) -> list[str]:
        return [k for k in self.primary_keys if k not in self.partition_keys]

    @property
    def cross_partition_update(self) -> bool:
        """Paimon's cross-partition upsert mode: a primary key that leaves out a partition key,
        with ``bucket = -1``; a key is unique across partitions (write/cross_partition.py). With
        ``bucket = N`` such a key is unique within its partition only (plain fixed buckets, as
        Java 1.x writes them)."""
        return self.bucket_mode is BucketMode.KEY_DYNAMIC

    @property
    def key_leaves_out_partition(self) -> bool:
        """A primary key without every partition key (whatever the bucket mode)."""
        return bool(self.primary_keys and self.partition_keys) and not set(self.partition_keys) <= set(
            self.primary_keys
        )

    @property
    def core_options(self) -> CoreOptions:
        return CoreOptions(self.options, self.primary_keys)

    @property
    def bucket_mode(self) -> BucketMode:
        return mode_of(self.core_options.bucket, self.primary_keys, self.partition_keys)

    @property
    def bucket_keys(self) -> list[str]:
        explicit = self.core_options.bucket_key
        if explicit:
            return explicit
        if self.primary_keys:
            return self.trimmed_primary_keys
        return [f.name for f in self.fields]

    def arrow_schema(self) -> pa.Schema:
        return to_arrow_schema(self.fields)

    # ---- JSON
    def to_json(self) -> str:
        obj = {
            "version": self.version,
            "id": self.id,
            "fields": [f.to_json() for f in self.fields],
            "highestFieldId": self.highest_field_id,
            "partitionKeys": list(self.partition_keys),
            "primaryKeys": list(self.primary_keys),
            "options": dict(self.options),
        }
        if self.comment is not None:  # Java omits a null comment
            obj["comment"] = self.comment
        obj["timeMillis"] = self.time_millis
        return jsonfmt.dumps(obj)

    @staticmethod
    def from_json(text: str) -> TableSchema:
        obj = json.loads(text)
        version = obj.get("version", 1)
        options = {k: str(v) for k, v in (obj.get("options") or {}).items()}
        if version <= 1 and "bucket" not in options:
            options["bucket"] = "1"
        if version <= 2 and "file.format" not in options:
            options["file.format"] = "orc"
        comment = obj.get("comment")
        return TableSchema(
            id=int(obj["id"]),
            fields=tuple(DataField.from_json(f) for f in obj["fields"]),
            highest_field_id=int(obj["highestFieldId"]),
            partition_keys=tuple(obj.get("partitionKeys") or ()),
            primary_keys=tuple(obj.get("primaryKeys") or ()),
            options=options,
            comment=comment if isinstance(comment, str) else None,
            time_millis=int(obj.get("timeMillis") or 0),
            version=version,
        )


@dataclass(frozen=True)
class Schema:
    """What a user asks for when creating a table; ``to_table_schema`` validates and assigns ids."""

    columns: tuple[tuple[str, DataType, str | None], ...]
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    comment: str | None = None

    def __post_init__(self) -> None:
        """``blob-field`` (Java's Flink and Spark catalogs): the BYTES columns it names are
        created as BLOB columns."""
        raw = CoreOptions(self.options).get(BLOB_FIELD) or ""
        named = [n.strip() for n in raw.split(",") if n.strip()]
        if not named:
            return
        cols = {c[0]: c[1] for c in self.columns}
        for n in named:
            t = cols.get(n)
            if not isinstance(t, AtomicType) or t.root not in ("VARBINARY", "BINARY", "BLOB"):
                raise InvalidInput(
                    f"option 'blob-field' names '{n}', which is not a BYTES column of the table"
                )
        columns = tuple(
            (n, AtomicType(t.nullable, "BLOB") if n in named else t, d) for n, t, d in self.columns
        )
        object.__setattr__(self, "columns", columns)

    @staticmethod
    def parse_columns(text: str) -> tuple[tuple[str, DataType, str | None], ...]:
        """Parse ``"id BIGINT NOT NULL, name STRING"`` (commas inside <> or () belong to the type)."""
        if not text or not text.strip():
            raise InvalidInput('the schema is empty: give columns like "id BIGINT NOT NULL, name STRING"')
        parts, depth, cur = [], 0, []
        for ch in text:
            if ch in "<(":
                depth += 1
            elif ch in ">)":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append("".join(cur))
                cur = []
            else:
                cur.append(ch)
        parts.append("".join(cur))
        cols = []
        for part in parts:
            part = part.strip()
            if not part:
                raise InvalidInput(f"bad schema '{text}': empty column definition")
            if part.startswith("`"):
                end = part.index("`", 1)
                name, rest = part[1:end], part[end + 1 :]
            else:
                bits = part.split(None, 1)
                if len(bits) < 2:
                    raise InvalidInput(f"bad schema: column '{part}' has no type (write 'name TYPE')")
                name, rest = bits
            comment = None
            upper = rest.upper()
            if " COMMENT " in upper:
                idx = upper.index(" COMMENT ")
                comment = rest[idx + 9 :].strip().strip("'\"")
                rest = rest[:idx]
            cols.append((name, parse_type(rest.strip()), comment))
        return tuple(cols)

    @staticmethod
    def from_arrow(schema: pa.Schema) -> tuple[tuple[str, DataType, str | None], ...]:
        return tuple((f.name, from_arrow_type(f.type, f.nullable), None) for f in schema)

    def to_table_schema(self, schema_id: int = 0) -> TableSchema:
        """Validate (raises InvalidInput/UnsupportedFeature naming the problem) and assign field
        ids: ``schema-<schema_id>`` as it is written."""
        from paimon_core.metadata.schema_rules import check_schema  # (the rulebook loads formats)

        options = {str(k): str(v) for k, v in self.options.items()}
        bucket = check_schema(self.columns, self.partition_keys, self.primary_keys, options)
        if "bucket" not in options:
            options["bucket"] = str(bucket)
        fields, last = self._fields_with_ids()
        return TableSchema(
            id=schema_id,
            fields=tuple(fields),
            highest_field_id=max([last] + [highest_field_id(f.type) for f in fields]),
            partition_keys=tuple(self.partition_keys),
            primary_keys=tuple(self.primary_keys),
            options=options,
            comment=self.comment,
            time_millis=now_ms(),
        )

    def _fields_with_ids(self) -> tuple[list[DataField], int]:
        """The columns as DataFields with ids 0, 1, ... (nested fields numbered after their
        parent); primary-key columns become NOT NULL. Returns (fields, last id assigned)."""
        fields, last = [], -1
        for name, t, desc in self.columns:
            if name in self.primary_keys:
                t = t.with_nullable(False)
            fid = last + 1
            t, last = assign_field_ids(t, fid)
            fields.append(DataField(fid, name, t, desc))
        return fields, last


class SchemaManager:
    """Reads and creates ``schema/schema-N`` under a table directory."""

    PREFIX = paths.SCHEMA_PREFIX

    def __init__(self, io: FileIO, table_path: str):
        self.io = io
        self.dir = io.join(table_path, paths.SCHEMA_DIR)

    def path(self, schema_id: int) -> str:
        return self.io.join(self.dir, f"{self.PREFIX}{schema_id}")

    def list_ids(self) -> list[int]:
        return self.io.list_numbered(self.dir, self.PREFIX)

    def latest(self) -> TableSchema | None:
        ids = self.list_ids()
        return self.schema(ids[-1]) if ids else None

    def schema(self, schema_id: int) -> TableSchema:
        path = self.path(schema_id)
        try:
            return TableSchema.from_json(self.io.read_text(path))
        except FileNotFoundError:
            raise CorruptMetadata(f"schema file {path} is missing") from None
        except (ValueError, KeyError, TypeError) as e:
            raise CorruptMetadata(f"schema file {path} is unreadable: {e}") from None

    def commit(self, schema: TableSchema) -> bool:
        """Write ``schema-<id>`` only if absent; False when another writer got that id first."""
        return self.io.write_if_absent(self.path(schema.id), schema.to_json().encode("utf-8"))


__all__ = ["Schema", "SchemaManager", "TableSchema", "PaimonError"]
