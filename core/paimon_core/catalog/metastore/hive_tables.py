"""How Java Paimon 0.9's ``HiveCatalog`` describes a Paimon table to the Hive Metastore, as plain
data: the storage handler, serde and formats, the columns (Paimon types as Hive type names,
``HiveTypeUtils``), partition keys when ``metastore.partitioned-table``, and the parameters.

Invariant: ``hive_columns(schema)`` is what Java 0.9 writes for the same schema, so either side
can rewrite the other's registration after a schema change without a visible difference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_core.data.types import ArrayType, AtomicType, DataType, MapType, MultisetType, RowType
from paimon_core.errors import InvalidInput
from paimon_core.options.registry import METASTORE_PARTITIONED_TABLE

if TYPE_CHECKING:
    from paimon_core.metadata.schema import TableSchema

INPUT_FORMAT = "org.apache.paimon.hive.mapred.PaimonInputFormat"
OUTPUT_FORMAT = "org.apache.paimon.hive.mapred.PaimonOutputFormat"
SERDE = "org.apache.paimon.hive.PaimonSerDe"
STORAGE_HANDLER = "org.apache.paimon.hive.PaimonStorageHandler"
TABLE_TYPE_PROP = "table_type"
PAIMON_TABLE_TYPE = "PAIMON"
META_TABLE_STORAGE = "storage_handler"  # hive_metastoreConstants.META_TABLE_STORAGE
HIVE_PREFIX = "hive."
MAX_CHAR = 255  # HiveChar.MAX_CHAR_LENGTH
MAX_VARCHAR = 65535  # HiveVarchar.MAX_VARCHAR_LENGTH

_SIMPLE = {
    "BOOLEAN": "boolean",
    "TINYINT": "tinyint",
    "SMALLINT": "smallint",
    "INT": "int",
    "INTEGER": "int",
    "BIGINT": "bigint",
    "FLOAT": "float",
    "DOUBLE": "double",
    "DATE": "date",
    "BINARY": "binary",
    "VARBINARY": "binary",
    "BYTES": "binary",
    "BLOB": "binary",  # Java 1.4's HiveTypeUtils
    "TIME": "string",
    "TIMESTAMP": "timestamp",
    # Hive 2.3 has no "timestamp with local time zone"; Java 0.9 maps LTZ to timestamp there
    "TIMESTAMP_LTZ": "timestamp",
    "TIMESTAMP WITH LOCAL TIME ZONE": "timestamp",
}


def hive_type(t: DataType) -> str:
    """The Hive type name of a Paimon type (``HiveTypeUtils.toTypeInfo(...).getTypeName()``)."""
    if isinstance(t, ArrayType):
        return f"array<{hive_type(t.element)}>"
    if isinstance(t, MapType):
        return f"map<{hive_type(t.key)},{hive_type(t.value)}>"
    if isinstance(t, MultisetType):  # Java's HiveTypeUtils: the element's count
        return f"map<{hive_type(t.element)},int>"
    if isinstance(t, RowType):
        return "struct<" + ",".join(f"{f.name}:{hive_type(f.type)}" for f in t.fields) + ">"
    if not isinstance(t, AtomicType):
        raise InvalidInput(f"type {t} has no Hive Metastore equivalent")
    root = t.root.upper()
    if root in ("CHAR", "VARCHAR", "STRING"):
        length = t.length if t.length is not None else (None if root == "STRING" else 1)
        if root == "STRING" or length is None:
            return "string"
        limit = MAX_CHAR if root == "CHAR" else MAX_VARCHAR
        return "string" if length > limit else f"{root.lower()}({length})"
    if root == "DECIMAL":
        return f"decimal({t.declared_precision},{t.declared_scale})"
    if root in _SIMPLE:
        return _SIMPLE[root]
    raise InvalidInput(f"type {t} has no Hive Metastore equivalent")


def partitioned_in_metastore(schema: TableSchema) -> bool:
    return schema.core_options.get(METASTORE_PARTITIONED_TABLE) and bool(schema.partition_keys)


def hive_columns(
    schema: TableSchema,
) -> tuple[list[tuple[str, str, str | None]], list[tuple[str, str, str | None]]]:
    """(columns, partition columns) as (name, hive type, comment); partition columns are split
    out only with ``metastore.partitioned-table`` (then in partition-key order)."""
    cols = [(f.name, hive_type(f.type), f.description) for f in schema.fields]
    if not partitioned_in_metastore(schema):
        if schema.options.get("metastore.tag-to-partition"):
            raise InvalidInput("metastore.tag-to-partition is not supported by this hive catalog")
        return cols, []
    by_name = {c[0]: c for c in cols}
    keys = set(schema.partition_keys)
    return [c for c in cols if c[0] not in keys], [by_name[k] for k in schema.partition_keys]


def table_parameters(schema: TableSchema) -> dict[str, str]:
    """The table parameters Java 0.9 sets (``sync-all-properties`` false): options named
    ``hive.*`` without the prefix, the Paimon markers, and the comment."""
    params = {k[len(HIVE_PREFIX) :]: v for k, v in schema.options.items() if k.startswith(HIVE_PREFIX)}
    params[TABLE_TYPE_PROP] = PAIMON_TABLE_TYPE
    params[META_TABLE_STORAGE] = STORAGE_HANDLER
    if schema.comment is not None:
        params["comment"] = schema.comment
    return params
