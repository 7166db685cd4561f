"""Which Iceberg-compatible metadata a table asks for, where it goes, and what of it we refuse.

Java Paimon 1.x: ``metadata.iceberg.storage`` = ``disabled`` (default) / ``table-location`` /
``hadoop-catalog`` / ``hive-catalog`` / ``rest-catalog``; ``metadata.iceberg.storage-location``
(``table-location`` / ``catalog-location``) overrides where the files go. Java 0.9:
``metadata.iceberg-compatible=true``, the metadata in the table's own ``metadata/`` folder.

Invariants: :func:`iceberg_metadata_dir` is the one place that maps a table to its Iceberg
metadata folder (``<table>/metadata`` for the table location; ``<warehouse>/iceberg/<db>/<table>/
metadata`` for the catalog location, Java's path for a Hadoop catalog over the warehouse);
:func:`check_iceberg_writable` refuses by name, before any file is written, every table whose
Iceberg metadata this project would not write as Java does.
"""

from __future__ import annotations

from paimon_core import paths
from paimon_core.data.types import ArrayType, AtomicType, DataField, DataType, MapType, RowType
from paimon_core.errors import UnsupportedFeature
from paimon_core.fileformat.field_ids import element_id, map_key_id
from paimon_core.options.registry import (
    DELETION_VECTORS_BITMAP64,
    DELETION_VECTORS_ENABLED,
    METADATA_ICEBERG_COMPATIBLE,
    METADATA_ICEBERG_FORMAT_VERSION,
    METADATA_ICEBERG_STORAGE,
    METADATA_ICEBERG_STORAGE_LOCATION,
)
from paimon_core.options.view import OptionView

_WRITTEN = ("table-location", "hadoop-catalog")
# Iceberg types of the atomic Paimon types (Java's IcebergDataField); TIME has none (Java fails)
_ICEBERG_TYPES = {
    "BOOLEAN": "boolean",
    "TINYINT": "int",
    "SMALLINT": "int",
    "INT": "int",
    "BIGINT": "long",
    "FLOAT": "float",
    "DOUBLE": "double",
    "DATE": "date",
    "CHAR": "string",
    "VARCHAR": "string",
    "BINARY": "binary",
    "VARBINARY": "binary",
}
# partition column types whose Avro form and bound bytes this project writes
PARTITION_ROOTS = frozenset({"BOOLEAN", "INT", "BIGINT", "DATE", "CHAR", "VARCHAR"})


def iceberg_storage(options: dict[str, str]) -> str | None:
    """The Iceberg storage a table's options ask for (``table-location``, ``hadoop-catalog``,
    ...), or None when they ask for none."""
    view = OptionView(options)
    storage = view.get(METADATA_ICEBERG_STORAGE)
    if storage != "disabled":
        return storage
    if view.get(METADATA_ICEBERG_COMPATIBLE):  # Java 0.9
        return "table-location"
    return None


def iceberg_format_version(options: dict[str, str]) -> int:
    """The Iceberg format version the metadata is written in (``metadata.iceberg.format-version``)."""
    return OptionView(options).get(METADATA_ICEBERG_FORMAT_VERSION)


def iceberg_dv(options: dict[str, str]) -> bool:
    """Whether deletion vectors go into the Iceberg metadata (as position deletes naming the
    Paimon index files): Java's condition, deletion vectors of 64-bit bitmaps (Iceberg's
    layout) and format version 3."""
    view = OptionView(options)
    return (
        view.get(DELETION_VECTORS_ENABLED)
        and view.get(DELETION_VECTORS_BITMAP64)
        and iceberg_format_version(options) == 3
    )


def iceberg_type(t: DataType, field_id: int = 0, depth: int = 0) -> str | dict:
    """The Iceberg type of a Paimon type (Java's ``IcebergDataField``): a name for an atomic
    type; a ``list`` / ``map`` / ``struct`` object for ARRAY / MAP / ROW, their element, key and
    value ids derived from the column's id ``field_id`` and the nesting ``depth`` as in the
    Parquet files (:mod:`paimon_core.fileformat.field_ids`), a ROW's fields with their own ids.
    Raises UnsupportedFeature for what Java does not map either (TIME, MULTISET, VARIANT, BLOB,
    TIMESTAMP below precision 3 or above 6: Java fails on their bounds)."""
    if isinstance(t, AtomicType):
        if t.root in _ICEBERG_TYPES:
            return _ICEBERG_TYPES[t.root]
        if t.root == "DECIMAL":
            return f"decimal({t.declared_precision}, {t.declared_scale})"
        if t.root in ("TIMESTAMP", "TIMESTAMP_LTZ") and 3 <= t.declared_precision <= 6:
            return "timestamp" if t.root == "TIMESTAMP" else "timestamptz"
    if isinstance(t, ArrayType):
        return {
            "type": "list",
            "element-id": element_id(field_id, depth + 1),
            "element-required": not t.element.nullable,
            "element": iceberg_type(t.element, field_id, depth + 1),
        }
    if isinstance(t, MapType):
        return {
            "type": "map",
            "key-id": map_key_id(field_id, depth + 1),
            "key": iceberg_type(t.key, field_id, depth + 1),
            "value-id": element_id(field_id, depth + 1),
            "value-required": not t.value.nullable,
            "value": iceberg_type(t.value, field_id, depth + 1),
        }
    if isinstance(t, RowType):
        return {"type": "struct", "fields": [iceberg_field(f) for f in t.fields]}
    raise UnsupportedFeature(f"Iceberg-compatible metadata over a {t} column is not written (nor by Java)")


def iceberg_field(f: DataField) -> dict:
    """The Iceberg schema field of a Paimon field: id, name, required, type, and doc when set."""
    out: dict = {
        "id": f.id,
        "name": f.name,
        "required": not f.type.nullable,
        "type": iceberg_type(f.type, f.id),
    }
    if f.description is not None:
        out["doc"] = f.description
    return out


def check_iceberg_writable(options: dict[str, str], fields, partition_keys, has_pk: bool, what: str) -> None:
    """Refuse (UnsupportedFeature naming the option or column) a table that asks for Iceberg
    metadata this project does not write: another storage than the table location or a Hadoop
    catalog, format versions but 2 and 3, deletion vectors other than Iceberg's (v3 and 64-bit
    bitmaps), column or partition types outside the mapping."""
    storage = iceberg_storage(options)
    if storage is None:
        return
    if storage not in _WRITTEN:
        raise UnsupportedFeature(
            f"{what} cannot be written here: it asks for Iceberg metadata in a {storage} "
            f"({METADATA_ICEBERG_STORAGE.key}={storage}), which Java commits to a Hive metastore or an Iceberg REST "
            "catalog that this tool does not reach; table-location and hadoop-catalog are written"
        )
    # the format version is 2 or 3 (its option's range, checked by the registry's parse)
    if OptionView(options).get(DELETION_VECTORS_ENABLED) and not iceberg_dv(options):
        raise UnsupportedFeature(
            f"{what} cannot be written here: Iceberg-compatible metadata of a table with deletion "
            f"vectors needs {METADATA_ICEBERG_FORMAT_VERSION.key}=3 and deletion-vectors.bitmap64=true (without them "
            "Java writes metadata that shows deleted rows to Iceberg readers)"
        )
    by_name = {f.name: f for f in fields}
    for f in fields:
        try:
            iceberg_type(f.type)
        except UnsupportedFeature:
            raise UnsupportedFeature(
                f"{what} cannot be written here: Iceberg-compatible metadata over column "
                f"{f.name} ({f.type}) is not written"
            ) from None
    for key in partition_keys:
        t = by_name[key].type
        if not isinstance(t, AtomicType) or t.root not in PARTITION_ROOTS:
            raise UnsupportedFeature(
                f"{what} cannot be written here: Iceberg-compatible metadata partitioned by "
                f"{key} ({t}) is not written"
            )


def iceberg_metadata_dir(table_path: str, options: dict[str, str]) -> str:
    """The folder of the table's Iceberg metadata (see the module doc)."""
    storage = iceberg_storage(options) or "table-location"
    location = OptionView(options).get(METADATA_ICEBERG_STORAGE_LOCATION)
    if location is None:
        location = "table-location" if storage == "table-location" else "catalog-location"
    if location == "table-location":
        return paths.join(table_path, "metadata")
    parent, table_name = table_path.rstrip("/").rsplit("/", 1)
    warehouse, db_dir = parent.rsplit("/", 1)
    if not db_dir.endswith(".db"):
        raise UnsupportedFeature(
            f"Iceberg metadata in the catalog location needs a table of a Paimon warehouse ({table_path})"
        )
    return paths.join(warehouse, "iceberg", db_dir[: -len(".db")], table_name, "metadata")


__all__ = [
    "PARTITION_ROOTS",
    "check_iceberg_writable",
    "iceberg_dv",
    "iceberg_field",
    "iceberg_format_version",
    "iceberg_metadata_dir",
    "iceberg_storage",
    "iceberg_type",
]
