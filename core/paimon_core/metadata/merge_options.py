"""The merge options of a primary-key table, read and validated in one place.

``MergeOptions.of(options)`` reads what the merge engines need (engine, ``sequence.field``,
sequence groups, aggregate functions, delete handling). ``validate_merge_options`` is the
create-table / alter-table check against the schema's columns and types, following Java Paimon
0.9's ``SchemaValidation`` and merge-function factories, plus the aggregate-function/type rule of
``aggregators.type_error``; every problem is one ``InvalidInput`` line naming the column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from paimon_core.data.types import AtomicType, DataType
from paimon_core.errors import InvalidInput
from paimon_core.metadata import aggregate_rules as aggregators
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.merge_engine import MergeEngineKind
from paimon_core.options.registry import (
    FIELD_IGNORE_RETRACT,
    FIELDS_DEFAULT_AGGREGATE_FUNCTION,
    IGNORE_DELETE,
    PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE,
    SEQUENCE_FIELD_SORT_ORDER,
)

# aggregate functions a partial-update sequence group can apply: their result does not depend
# on the order Java 0.9 applies them in (it folds records older than the group's current
# sequence "reversed"), or that order is reproduced (last_value, last_non_null_value)
GROUP_FUNCTIONS = (
    "sum",
    "product",
    "max",
    "min",
    "bool_and",
    "bool_or",
    "count",
    "last_value",
    "last_non_null_value",
)


def sequence_groups(options: dict) -> list[tuple[list[str], list[str]]]:
    """``fields.<s1>[,<s2>].sequence-group = f1,f2`` -> [([s1, s2], [f1, f2]), ...]."""
    out = []
    for k, v in options.items():
        if k.startswith("fields.") and k.endswith(".sequence-group"):
            seqs = [s.strip() for s in k[len("fields.") : -len(".sequence-group")].split(",") if s.strip()]
            out.append((seqs, [f.strip() for f in str(v).split(",") if f.strip()]))
    return out


def sequence_fields(options: dict) -> list[str]:
    return CoreOptions(options).sequence_fields


@dataclass(frozen=True)
class MergeOptions:
    engine: MergeEngineKind
    sequence_fields: list[str]
    descending: bool
    ignore_delete: bool
    remove_on_delete: bool
    groups: list[tuple[list[str], list[str]]]
    explicit_functions: dict[str, str] = field(default_factory=dict)
    default_function: str | None = None
    options: dict = field(default_factory=dict)

    @staticmethod
    def of(options: dict) -> MergeOptions:
        opts = CoreOptions(options)
        engine = opts.merge_engine  # the registry refuses engines Paimon does not have
        explicit = {}
        for k, v in options.items():
            if k.startswith("fields.") and k.endswith(".aggregate-function"):
                explicit[k[len("fields.") : -len(".aggregate-function")]] = str(v).strip()
        return MergeOptions(
            engine=engine,
            sequence_fields=opts.sequence_fields,
            descending=opts.get(SEQUENCE_FIELD_SORT_ORDER) == "descending",
            ignore_delete=opts.get(IGNORE_DELETE),
            remove_on_delete=opts.get(PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE),
            groups=sequence_groups(options),
            explicit_functions=explicit,
            default_function=opts.get(FIELDS_DEFAULT_AGGREGATE_FUNCTION),
            options=dict(options),
        )

    def function(self, column: str) -> str | None:
        """The aggregate function of a value column: aggregation always has one (default
        last_non_null_value); partial-update only where one is set or defaulted."""
        f = self.explicit_functions.get(column, self.default_function)
        if f is None and self.engine is MergeEngineKind.AGGREGATION:
            f = "last_non_null_value"
        return aggregators.canonical_name(f) if f is not None else None

    def ignore_retract(self, column: str) -> bool:
        return bool(CoreOptions(self.options).field(column, FIELD_IGNORE_RETRACT))

    def group_of(self) -> dict[str, tuple[list[str], list[str]]]:
        """column -> its sequence group (sequence fields included)."""
        return {c: g for g in self.groups for c in g[0] + g[1]}


def validate_merge_options(
    options: dict, types: dict[str, DataType], primary_keys: Sequence[str], partition_keys: Sequence[str]
) -> None:
    """Create-table/alter-table checks of a primary-key table's merge options. ``types`` maps
    every column to its type. Raises ``InvalidInput``."""
    mo = MergeOptions.of(options)
    values = [c for c in types if c not in primary_keys]
    for f in mo.sequence_fields:
        if f not in types:
            raise InvalidInput(f"sequence.field column '{f}' is not a column")
        if f in mo.explicit_functions:
            raise InvalidInput(f"sequence.field column '{f}' must not have an aggregate function")
    if len(set(mo.sequence_fields)) != len(mo.sequence_fields):
        raise InvalidInput("sequence.field names a column twice")
    if mo.sequence_fields and mo.engine is MergeEngineKind.FIRST_ROW:
        raise InvalidInput("sequence.field does not apply to merge-engine=first-row (Paimon refuses it)")
    if mo.engine is MergeEngineKind.FIRST_ROW and CoreOptions(options).changelog_producer not in (
        "none",
        "lookup",
    ):
        raise InvalidInput("merge-engine=first-row takes changelog-producer none or lookup only (as Paimon)")
    for seqs, fields in mo.groups:
        for s in seqs:
            if s not in types:
                raise InvalidInput(f"sequence-group field '{s}' is not a column")
            if s in mo.explicit_functions:
                raise InvalidInput(f"sequence-group field '{s}' must not have an aggregate function")
        for f in fields:
            if f not in types:
                raise InvalidInput(f"column '{f}' of a sequence group is not a column")
    check_merge_rules(mo, primary_keys, values, types)
    if mo.engine is MergeEngineKind.PARTIAL_UPDATE:
        if mo.remove_on_delete and mo.ignore_delete:
            raise InvalidInput("ignore-delete and partial-update.remove-record-on-delete cannot both be set")
        if mo.remove_on_delete and mo.groups:
            raise InvalidInput("partial-update.remove-record-on-delete cannot be used with sequence groups")
    for c in mo.explicit_functions:
        if c not in types:
            raise InvalidInput(f"fields.{c}.aggregate-function names '{c}', which is not a column")
    if not mo.engine.merges_fields:
        return
    group_of = mo.group_of()
    for c in values:
        func = mo.function(c)
        if func is None:
            continue
        problem = aggregators.options_error(c, func, types[c], options)
        if problem:
            raise InvalidInput(problem)
        if mo.engine is not MergeEngineKind.PARTIAL_UPDATE:
            continue
        if not mo.groups:
            raise InvalidInput(
                f"aggregate function '{func}' of column '{c}' needs a sequence group in a "
                "partial-update table (fields.<seq>.sequence-group)"
            )
        group = group_of.get(c)
        if group is None:
            continue
        seqs, _ = group
        if c in seqs:  # only the default function can get here
            if func == "last_value" or (func == "last_non_null_value" and len(seqs) == 1):
                continue
            raise InvalidInput(
                f"fields.default-aggregate-function '{func}' would apply to sequence-group "
                f"field '{c}': set it only with last_value, or give the fields their functions"
            )
        if func not in GROUP_FUNCTIONS:
            raise InvalidInput(
                f"aggregate function '{func}' of column '{c}' inside a partial-update sequence "
                f"group is not supported (supported there: {', '.join(GROUP_FUNCTIONS)})"
            )


def check_merge_rules(
    mo: MergeOptions, primary_keys: Sequence[str], values: Sequence[str], types: Mapping[str, DataType]
) -> None:
    """The rules a merge engine relies on, stated once: checked when a table schema is made
    (``validate_merge_options``) and again when a merge engine is built from a schema file
    written elsewhere (``MergeEngine``). ``types``: the types known (a projection may know
    fewer); ``values``: the columns the engine merges."""
    if mo.groups and mo.engine is not MergeEngineKind.PARTIAL_UPDATE:
        raise InvalidInput("fields.*.sequence-group needs merge-engine=partial-update")
    for f in mo.sequence_fields:
        if f in types:
            _check_sortable(f, types[f], "sequence.field")
    for seqs, fields in mo.groups:
        for f in seqs + fields:
            if f in primary_keys:
                raise InvalidInput(f"sequence-group field '{f}' must not be a primary-key column")
        for f in seqs:
            if f in types:
                _check_sortable(f, types[f], "sequence-group field")
    if len(set(f for _, fs in mo.groups for f in fs)) != sum(len(fs) for _, fs in mo.groups):
        raise InvalidInput("a field belongs to two sequence groups")
    if not mo.engine.merges_fields:
        return
    for c in values:
        func = mo.function(c)
        if func is None:
            continue
        problem = aggregators.type_error(c, func, types[c]) if c in types else aggregators.name_error(c, func)
        if problem:
            raise InvalidInput(problem)


def _check_sortable(column: str, t: DataType, what: str) -> None:
    if not isinstance(t, AtomicType):
        raise InvalidInput(f"{what} '{column}' must have an atomic type to order records, not {t}")
