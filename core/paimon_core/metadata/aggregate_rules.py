"""Which aggregate functions exist and which Paimon types each takes, as Java Paimon 0.9 defines
them (its ``FieldAggregator`` factory and the type switches of each ``Field*Agg``): a pure rule
set. Schema validation calls it at create-table and alter-table, so a misfit is refused up
front; the functions themselves are ``merge/aggregators.py``."""

from __future__ import annotations

from paimon_core.data.types import ArrayType, AtomicType, DataType, MapType, RowType
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import FIELD_DISTINCT, FIELD_NESTED_KEY

_NUMERIC = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")
_COMPARABLE = _NUMERIC + (
    "DATE",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_LTZ",
    "CHAR",
    "VARCHAR",
    "BINARY",
    "VARBINARY",
)

# function -> (accepted atomic roots or a nested-type test, what the error says it takes)
_RULES: dict[str, tuple[object, str]] = {
    "sum": (_NUMERIC, "TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE or DECIMAL"),
    "product": (_NUMERIC, "TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE or DECIMAL"),
    "max": (_COMPARABLE, "a numeric, DECIMAL, CHAR/VARCHAR, BINARY/VARBINARY, DATE, TIME or TIMESTAMP type"),
    "min": (_COMPARABLE, "a numeric, DECIMAL, CHAR/VARCHAR, BINARY/VARBINARY, DATE, TIME or TIMESTAMP type"),
    "bool_and": (("BOOLEAN",), "BOOLEAN"),
    "bool_or": (("BOOLEAN",), "BOOLEAN"),
    "listagg": (("VARCHAR",), "VARCHAR/STRING"),
    "last_value": (None, "any type"),
    "last_non_null_value": (None, "any type"),
    "first_value": (None, "any type"),
    "first_non_null_value": (None, "any type"),
    "count": (None, "any type"),
    "collect": ("array", "an ARRAY type"),
    "merge_map": ("map", "a MAP type"),
    "nested_update": ("array<row>", "an ARRAY<ROW<...>> type"),
}
ALIASES = {"first_not_null_value": "first_non_null_value"}
# Java 0.9 has these; their values are serialized sketches/bitmaps of Java libraries
NOT_SUPPORTED = ("theta_sketch", "hll_sketch", "rbm32", "rbm64")
FUNCTIONS = tuple(_RULES)
# functions with a retract (-U/-D) rule here; the others need fields.F.ignore-retract
RETRACTABLE = ("sum", "last_value", "last_non_null_value")


def canonical_name(func: str) -> str:
    return ALIASES.get(func, func)


def _fits(rule, t: DataType) -> bool:
    if rule is None:
        return True
    if rule == "array":
        return isinstance(t, ArrayType)
    if rule == "map":
        return isinstance(t, MapType)
    if rule == "array<row>":
        return isinstance(t, ArrayType) and isinstance(t.element, RowType)
    return isinstance(t, AtomicType) and t.root in rule


def name_error(column: str, func: str) -> str | None:
    """None when ``func`` names an aggregate function we implement, else the one-line reason."""
    if func == "count":  # refused by name: a table using it is unreadable by every engine
        return (
            f"aggregate function 'count' of column '{column}' is not supported: Java Paimon 0.9 has no "
            "'count' and later Paimon versions removed it, so no other engine could read the table"
        )
    if func in NOT_SUPPORTED:
        return (
            f"aggregate function '{func}' of column '{column}' is not supported by paimon-cli "
            "(it merges Java DataSketches/RoaringBitmap binaries)"
        )
    if canonical_name(func) not in _RULES:
        return f"unknown aggregate function '{func}' for column '{column}' (one of {', '.join(FUNCTIONS)})"
    return None


def type_error(column: str, func: str, t: DataType) -> str | None:
    """None when aggregate function ``func`` may aggregate a column of type ``t``, else the
    one-line reason. Pure: the same rule serves create-table, alter-table and reads."""
    problem = name_error(column, func)
    if problem:
        return problem
    func = canonical_name(func)
    rule, takes = _RULES[func]
    if not _fits(rule, t):
        return (
            f"aggregate function '{func}' cannot aggregate column '{column}' of type "
            f"{t.with_nullable(True)}: it takes {takes}"
        )
    return None


def options_error(column: str, func: str, t: DataType, options: dict) -> str | None:
    """Problems with a function's own options (``fields.F.nested-key``, ``fields.F.distinct``)."""
    func = canonical_name(func)
    distinct = CoreOptions(options).field(column, FIELD_DISTINCT)
    if distinct and func not in ("collect", "listagg"):
        return f"fields.{column}.distinct is supported with collect and listagg only, not with {func}"
    if func == "nested_update":
        nested = nested_keys(options, column)
        element = t.element if isinstance(t, ArrayType) else None
        if not isinstance(element, RowType):
            return (
                f"aggregate function 'nested_update' takes ARRAY<ROW<...>>, not column '{column}' of type {t}"
            )
        names = [f.name for f in element.fields]
        for k in nested:
            if k not in names:
                return (
                    f"fields.{column}.nested-key names '{k}', which is not a field of "
                    f"{element} (fields: {', '.join(names)})"
                )
    return None


def nested_keys(options: dict, column: str) -> list[str]:
    raw = CoreOptions(options).field(column, FIELD_NESTED_KEY)
    return str(raw).split(",") if raw else []
