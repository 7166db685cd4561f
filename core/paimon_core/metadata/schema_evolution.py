"""Schema evolution: the changes ``alter-table`` and ``ingest --evolve`` make, Paimon's rules for
them as pure functions, and the commit of ``schema-(N+1)``.

Invariants (docs/format.md section 2, Java ``SchemaManager.commitChanges``): a new column gets
``highestFieldId + 1`` (its ROW sub-fields the ids after it); a rename keeps the id; a drop
removes the field and never frees its id, so ``highestFieldId`` never decreases. Partition and
primary-key columns are never dropped, renamed or retyped; a column never becomes NOT NULL;
immutable options change only while the table has no snapshot. A rejected change raises
``InvalidInput`` with one line and writes nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.clock import now_ms
from paimon_core.data.system_columns import is_system_name
from paimon_core.data.types import (
    ArrayType,
    AtomicType,
    DataField,
    DataType,
    MapType,
    MultisetType,
    RowType,
    assign_field_ids,
    from_arrow_type,
    highest_field_id,
    implicitly_castable,
    to_arrow_type,
)
from paimon_core.errors import CommitConflict, InvalidInput, SchemaMismatch
from paimon_core.journal import record_commit
from paimon_core.metadata.schema import Schema, SchemaManager, TableSchema
from paimon_core.options.bucket_mode import DYNAMIC_BUCKET
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.registry import DISABLE_EXPLICIT_TYPE_CASTING, STRUCTURAL_KEYS
from paimon_core.options.table_rules import check_feature_options

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from paimon_core.storage.file_io import FileIO

# ---------------------------------------------------------------------------------------------
# The changes (Java ``SchemaChange`` subclasses of the same names)


@dataclass(frozen=True)
class AddColumn:
    name: str
    type: DataType
    comment: str | None = None
    first: bool = False
    after: str | None = None


@dataclass(frozen=True)
class DropColumn:
    name: str


@dataclass(frozen=True)
class RenameColumn:
    name: str
    new_name: str


@dataclass(frozen=True)
class UpdateColumnType:
    """Retype a column; with ``keep_nullability`` its NULL / NOT NULL stays as it is (Java's
    ``keepNullability``: what a type written without NULL or NOT NULL means)."""

    name: str
    type: DataType
    keep_nullability: bool = False


@dataclass(frozen=True)
class SetOption:
    key: str
    value: str


@dataclass(frozen=True)
class RemoveOption:
    key: str


@dataclass(frozen=True)
class UpdateComment:
    comment: str | None


SchemaChange = (
    AddColumn | DropColumn | RenameColumn | UpdateColumnType | SetOption | RemoveOption | UpdateComment
)

# Java 0.9 ``CoreOptions.IMMUTABLE_OPTIONS`` (read from the 0.9 jar): they change only while the
# table has no snapshot. ``bucket`` changes between fixed numbers as in Java: partitions keep the
# count of their files until rescaled (ops/rescale.py), and commits refuse mixing counts.
IMMUTABLE_OPTIONS = frozenset(
    {
        "partition",
        "merge-engine",
        "ignore-delete",
        "sequence.field",
        "partial-update.remove-record-on-delete",
        "bucket-key",
        "rowkind.field",
        "force-lookup",
        "primary-key",
    }
)
# Options that shape how stored rows merge: partial-update settings and sequence groups.
IMMUTABLE_PREFIXES = ("partial-update.",)
IMMUTABLE_SUFFIXES = (".sequence-group",)


def is_immutable_option(key: str) -> bool:
    return key in IMMUTABLE_OPTIONS or key.startswith(IMMUTABLE_PREFIXES) or key.endswith(IMMUTABLE_SUFFIXES)


# ---------------------------------------------------------------------------------------------
# Casting rules of ``alter-column`` (Java 0.9 DataTypeCasts.supportsExplicitCast that also has a
# CastExecutor, measured on the 0.9 jar over every pair of atomic roots).

_NUMERIC = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")
_TEXT = ("CHAR", "VARCHAR")
_EXPLICIT: dict[str, frozenset[str]] = {
    "BOOLEAN": frozenset(_NUMERIC + _TEXT),
    "TINYINT": frozenset(_NUMERIC + _TEXT + ("BOOLEAN",)),
    "SMALLINT": frozenset(_NUMERIC + _TEXT + ("BOOLEAN",)),
    "INT": frozenset(_NUMERIC + _TEXT + ("BOOLEAN", "TIMESTAMP", "TIMESTAMP_LTZ")),
    "BIGINT": frozenset(_NUMERIC + _TEXT + ("BOOLEAN", "TIMESTAMP", "TIMESTAMP_LTZ")),
    "FLOAT": frozenset(_NUMERIC + _TEXT),
    "DOUBLE": frozenset(_NUMERIC + _TEXT),
    "DECIMAL": frozenset(_NUMERIC + _TEXT),
    "CHAR": frozenset(
        _NUMERIC + _TEXT + ("BOOLEAN", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
    ),
    "VARCHAR": frozenset(
        _NUMERIC + _TEXT + ("BOOLEAN", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")
    ),
    "BINARY": frozenset(("BINARY", "VARBINARY") + _TEXT),
    "VARBINARY": frozenset(("BINARY", "VARBINARY") + _TEXT),
    "DATE": frozenset(("DATE", "TIMESTAMP", "TIMESTAMP_LTZ", "VARCHAR")),
    "TIME": frozenset(("TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "VARCHAR")),
    "TIMESTAMP": frozenset(("BIGINT", "INT", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "VARCHAR")),
    "TIMESTAMP_LTZ": frozenset(("BIGINT", "INT", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "VARCHAR")),
}


def is_nested(t: DataType) -> bool:
    return isinstance(t, (ArrayType, MapType, RowType, MultisetType))


def column_cast_allowed(src: DataType, dst: DataType, allow_explicit: bool = True) -> bool:
    """May a column of type ``src`` become ``dst``? Implicit widening always; explicit casts
    (narrowing, string <-> number, ...) when ``allow_explicit``. Nested types only widen the
    atomic element of an ARRAY (Java 0.9 itself changes no nested type)."""
    if is_nested(src) or is_nested(dst):
        if isinstance(src, ArrayType) and isinstance(dst, ArrayType):
            a, b = src.element, dst.element
            if is_nested(a) or is_nested(b):
                return False
            return implicitly_castable(a, b) and (b.nullable or not a.nullable)
        return False
    if implicitly_castable(src, dst):
        return True
    assert isinstance(src, AtomicType) and isinstance(dst, AtomicType)  # neither is nested
    return allow_explicit and dst.root in _EXPLICIT.get(src.root, frozenset())


# ---------------------------------------------------------------------------------------------
# Applying changes (pure)


def _check_name(name: str) -> None:
    if not name or name != name.strip():
        raise InvalidInput(f"bad column name '{name}'")
    if is_system_name(name):
        raise InvalidInput(f"column name '{name}' is reserved by Paimon")


def _index(fields: list[DataField], name: str, schema: TableSchema) -> int:
    for i, f in enumerate(fields):
        if f.name == name:
            return i
    raise InvalidInput(f"unknown column '{name}' (columns: {', '.join(f.name for f in fields)})")


def _not_key(schema: TableSchema, name: str, verb: str) -> None:
    if name in schema.partition_keys:
        raise InvalidInput(f"cannot {verb} partition column '{name}'")
    if name in schema.primary_keys:
        raise InvalidInput(f"cannot {verb} primary-key column '{name}'")


def _check_option(schema: TableSchema, key: str, new: str | None, has_snapshot: bool) -> None:
    old = schema.options.get(key)
    if new is not None:
        check_feature_options({key: new}, writing=True, what="the table")
    if key in STRUCTURAL_KEYS:
        raise InvalidInput(
            f"option '{key}' cannot be changed: the {key.replace('-', ' ')} is fixed at create-table"
        )
    if key == "bucket":
        if new is None:
            raise InvalidInput("option 'bucket' cannot be removed")
        old_b = int(old) if old is not None else -1
        try:
            new_b = int(new)
        except ValueError:
            raise InvalidInput(f"option 'bucket' has a bad value '{new}' (expected int)") from None
        if old_b != new_b and (DYNAMIC_BUCKET in (old_b, new_b)):
            raise InvalidInput(
                f"cannot change bucket from {old_b} to {new_b}: bucket -1 (dynamic/unaware) "
                "cannot be switched to or from fixed buckets"
            )
    if is_immutable_option(key) and has_snapshot and old != new:
        raise InvalidInput(
            f"option '{key}' cannot be changed on a table with data (it is immutable once a snapshot exists)"
        )
    if (
        key == "deletion-vectors.enabled"
        and schema.primary_keys
        and has_snapshot
        and (old or "false").lower() != (new or "false").lower()
    ):
        # its level-0 files would vanish from reads and older levels would show stale rows
        raise InvalidInput(
            "option 'deletion-vectors.enabled' cannot be changed on a primary-key table with data"
        )


def _validate(schema: TableSchema) -> None:
    """The create-table checks (keys, bucket, bucket-key, merge engine, sequence.field) on the result."""
    Schema(
        columns=tuple((f.name, f.type, f.description) for f in schema.fields),
        partition_keys=schema.partition_keys,
        primary_keys=schema.primary_keys,
        options=schema.options,
        comment=schema.comment,
    ).to_table_schema(schema.id)


@dataclass
class _Draft:
    """The next schema while changes apply to it, one after another."""

    schema: TableSchema  # the version the changes start from (keys, options before the changes)
    fields: list
    highest: int
    options: dict
    comment: str | None
    has_snapshot: bool

    @property
    def allow_explicit(self) -> bool:
        return not CoreOptions(self.schema.options).get(DISABLE_EXPLICIT_TYPE_CASTING)


def _add_column(d: _Draft, ch: AddColumn) -> None:
    _check_name(ch.name)
    if any(f.name.lower() == ch.name.lower() for f in d.fields):
        raise InvalidInput(f"column '{ch.name}' already exists")
    if not ch.type.nullable:
        raise InvalidInput(
            f"cannot add column '{ch.name}' as NOT NULL: existing rows would have no value (add it nullable)"
        )
    fid = d.highest + 1
    t, last = assign_field_ids(ch.type, fid)
    d.highest = max(fid, last, highest_field_id(t))
    new = DataField(fid, ch.name, t, ch.comment)
    if ch.first:
        d.fields.insert(0, new)
    elif ch.after is not None:
        d.fields.insert(_index(d.fields, ch.after, d.schema) + 1, new)
    else:
        d.fields.append(new)


def _drop_column(d: _Draft, ch: DropColumn) -> None:
    i = _index(d.fields, ch.name, d.schema)
    _not_key(d.schema, ch.name, "drop")
    if len(d.fields) == 1:
        raise InvalidInput(f"cannot drop '{ch.name}': it is the last column of the table")
    del d.fields[i]


def _rename_column(d: _Draft, ch: RenameColumn) -> None:
    i = _index(d.fields, ch.name, d.schema)
    _not_key(d.schema, ch.name, "rename")
    _check_name(ch.new_name)
    if any(f.name.lower() == ch.new_name.lower() for f in d.fields if f.name != ch.name):
        raise InvalidInput(f"cannot rename '{ch.name}' to '{ch.new_name}': that column already exists")
    d.fields[i] = replace(d.fields[i], name=ch.new_name)


def _update_column_type(d: _Draft, ch: UpdateColumnType) -> None:
    i = _index(d.fields, ch.name, d.schema)
    _not_key(d.schema, ch.name, "change the type of")
    old = d.fields[i].type
    if ch.keep_nullability:
        ch = replace(ch, type=ch.type.with_nullable(old.nullable))
    if old.nullable and not ch.type.nullable:
        raise InvalidInput(f"cannot make column '{ch.name}' NOT NULL: it is nullable and may hold nulls")
    if not column_cast_allowed(old.with_nullable(True), ch.type.with_nullable(True), d.allow_explicit):
        explicit_only = not d.allow_explicit and column_cast_allowed(
            old.with_nullable(True), ch.type.with_nullable(True), True
        )
        why = (
            f" (only widening: the table sets {DISABLE_EXPLICIT_TYPE_CASTING.key}=true)"
            if explicit_only
            else ""
        )
        raise InvalidInput(
            f"cannot change column '{ch.name}' from {old.with_nullable(True)} to "
            f"{ch.type.with_nullable(True)}{why}"
        )
    new_t = ch.type
    if isinstance(new_t, RowType):  # unreachable today (ROW is never retyped); keep ids sane
        new_t, last = assign_field_ids(new_t, d.highest)
        d.highest = max(d.highest, last)
    d.fields[i] = replace(d.fields[i], type=new_t)


def _set_option(d: _Draft, ch: SetOption) -> None:
    _check_option(d.schema, ch.key, str(ch.value), d.has_snapshot)
    d.options[ch.key] = str(ch.value)


def _remove_option(d: _Draft, ch: RemoveOption) -> None:
    if ch.key not in d.options:
        raise InvalidInput(f"option '{ch.key}' is not set on this table")
    _check_option(d.schema, ch.key, None, d.has_snapshot)
    del d.options[ch.key]


def _update_comment(d: _Draft, ch: UpdateComment) -> None:
    d.comment = ch.comment


_APPLY = {
    AddColumn: _add_column,
    DropColumn: _drop_column,
    RenameColumn: _rename_column,
    UpdateColumnType: _update_column_type,
    SetOption: _set_option,
    RemoveOption: _remove_option,
    UpdateComment: _update_comment,
}


def apply_changes(schema: TableSchema, changes: Iterable[SchemaChange], has_snapshot: bool) -> TableSchema:
    """``schema`` with ``changes`` applied in order, as ``schema-(id+1)``; raises InvalidInput
    for anything Paimon forbids. ``has_snapshot``: whether the table holds any snapshot."""
    d = _Draft(
        schema,
        list(schema.fields),
        schema.highest_field_id,
        dict(schema.options),
        schema.comment,
        has_snapshot,
    )
    for ch in changes:
        apply = _APPLY.get(type(ch))
        if apply is None:
            raise InvalidInput(f"unknown schema change {ch!r}")
        apply(d, ch)
    out = replace(
        schema,
        id=schema.id + 1,
        fields=tuple(d.fields),
        highest_field_id=d.highest,
        options=d.options,
        comment=d.comment,
        time_millis=now_ms(),
    )
    _validate(out)
    return out


def check_shares_a_column(input_names: list[str], schema: TableSchema) -> None:
    """Input whose columns are all new to the table is refused: it is almost always a CSV file
    without a header row (its first data row read as the names), and evolving the table by it
    would add columns named after values and write every real column as NULL."""
    if input_names and not set(input_names) & set(schema.field_names):
        separated = _other_separator(input_names, schema.field_names)
        if separated is not None:
            raise SchemaMismatch(
                f"the input looks {separated!r}-separated (its first line: {input_names[0]!r}): "
                "CSV input must be comma-separated"
            )
        shown = ", ".join(repr(n) for n in input_names[:5]) + (", ..." if len(input_names) > 5 else "")
        raise SchemaMismatch(
            f"the input shares no column with the table (input columns: {shown}; table columns: "
            f"{', '.join(schema.field_names)}): if it is a CSV file, its first line must name the columns"
        )


def _other_separator(input_names: list[str], table_names: list[str]) -> str | None:
    """The separator (``;``, tab, ``|``) that splits a lone input column name into names the table
    has: a CSV file that is not comma-separated."""
    if len(input_names) != 1:
        return None
    for sep in (";", "\t", "|"):
        parts = [p.strip() for p in input_names[0].split(sep)]
        if len(parts) > 1 and set(parts) & set(table_names):
            return sep
    return None


def changes_for_input(schema: TableSchema, arrow_schema: pa.Schema) -> list[SchemaChange]:
    """What ``ingest --evolve`` changes so that input with ``arrow_schema`` fits: a nullable
    column for each unknown input column (in input order, at the end), and a widened type for a
    non-key column whose input type is wider under the implicit rules. Anything else is left
    for the normal checks to reject; input that shares no column with the table is refused
    (``check_shares_a_column``)."""
    check_shares_a_column(arrow_schema.names, schema)
    known = {f.name: f for f in schema.fields}
    out: list[SchemaChange] = []
    for af in arrow_schema:
        src = from_arrow_type(af.type, True)
        if af.name not in known:
            out.append(AddColumn(af.name, src))
            continue
        f = known[af.name]
        dst = f.type
        if (
            af.name in schema.partition_keys
            or af.name in schema.primary_keys
            or is_nested(dst)
            or is_nested(src)
        ):
            continue
        if not implicitly_castable(src, dst.with_nullable(True)) and implicitly_castable(dst, src):
            out.append(UpdateColumnType(af.name, src.with_nullable(dst.nullable)))
    return out


# ---------------------------------------------------------------------------------------------
# Reading values written under an older column type


_TRUE_TEXT = ("t", "true", "y", "yes", "1")
_FALSE_TEXT = ("f", "false", "n", "no", "0")


def _text_to_boolean(arr: pa.Array, name: str, src: DataType, dst: DataType) -> pa.Array:
    """Java's string -> BOOLEAN cast (``BinaryStringUtils.toBoolean``): trimmed, any case,
    t/true/y/yes/1 and f/false/n/no/0; any other text is an error naming it."""
    text = pc.utf8_lower(pc.utf8_trim_whitespace(arr))
    true, false = pc.is_in(text, pa.array(_TRUE_TEXT)), pc.is_in(text, pa.array(_FALSE_TEXT))
    bad = pc.and_(pc.is_valid(text), pc.invert(pc.or_(true, false)))
    if pc.any(bad).as_py():
        value = pc.filter(arr, bad)[0].as_py()
        raise SchemaMismatch(
            f"column '{name}': values written as {src.with_nullable(True)} cannot be read as "
            f"{dst.with_nullable(True)}: '{value}' is not a boolean"
        )
    return pc.if_else(pc.is_valid(text), true, pa.scalar(None, pa.bool_()))


def cast_for_read(arr: pa.Array, name: str, src: DataType, dst: DataType) -> pa.Array:
    """Values stored as ``src`` read as ``dst`` (Java's CastExecutors semantics where they differ
    from Arrow's: integer <-> timestamp counts seconds, numeric narrowing wraps/truncates)."""
    target = to_arrow_type(dst)
    if arr.type == target:
        return arr
    try:
        if isinstance(src, AtomicType) and isinstance(dst, AtomicType):
            s, d = src.root, dst.root
            if s in ("INT", "BIGINT") and d in ("TIMESTAMP", "TIMESTAMP_LTZ"):
                secs = arr.cast(pa.int64())
                return (
                    pc.multiply(secs, pa.scalar(1_000_000, pa.int64()))
                    .cast(pa.timestamp("us", tz=target.tz))
                    .cast(target)
                )
            if s in ("TIMESTAMP", "TIMESTAMP_LTZ") and d in ("INT", "BIGINT"):
                micros = arr.cast(pa.timestamp("us", tz=arr.type.tz)).cast(pa.int64())
                return (
                    pc.floor(pc.divide(micros.cast(pa.float64()), 1_000_000.0))
                    .cast(pa.int64())
                    .cast(target, safe=False)
                )
            if s == "BOOLEAN" and d in ("CHAR", "VARCHAR"):
                return pc.if_else(arr, pa.scalar("true"), pa.scalar("false")).cast(target)
            if s in _NUMERIC and d in _NUMERIC and not implicitly_castable(src, dst) and d != "DECIMAL":
                return arr.cast(target, safe=False)
            if s == "BOOLEAN" and d == "DECIMAL":
                return arr.cast(pa.int8()).cast(target)
            if s in ("CHAR", "VARCHAR") and d == "BOOLEAN":
                return _text_to_boolean(arr, name, src, dst)
        return arr.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise SchemaMismatch(
            f"column '{name}': values written as {src.with_nullable(True)} cannot be read as "
            f"{dst.with_nullable(True)}: {str(e).splitlines()[0]}"
        ) from None


# ---------------------------------------------------------------------------------------------
# Committing


def commit_changes(
    io: FileIO,
    table_path: str,
    changes: Sequence[SchemaChange],
    max_retries: int = 10,
    check: Callable[[TableSchema, TableSchema], None] | None = None,
) -> TableSchema:
    """Apply ``changes`` to the latest schema and write ``schema-(N+1)`` if absent; when another
    writer took that id first, re-read and re-apply (the rules are checked against what won).
    ``check(latest, new)``, if given, runs before each write and raises to refuse the change."""
    from paimon_core.metadata.snapshot import SnapshotManager

    changes = list(changes)
    if not changes:
        raise InvalidInput("no schema change given")
    manager = SchemaManager(io, table_path)
    snapshots = SnapshotManager(io, table_path)
    for attempt in range(max_retries + 1):
        latest = manager.latest()
        if latest is None:
            raise InvalidInput(f"no table at {table_path}")
        new = apply_changes(latest, changes, has_snapshot=snapshots.latest() is not None)
        if check is not None:
            check(latest, new)
        if manager.commit(new):
            record_commit(table_path, new.id, "schema")
            return new
        time.sleep(min(0.01 * (2**attempt), 0.5))
    raise CommitConflict(
        f"gave up changing the schema after {max_retries + 1} attempts: other writers kept changing it"
    )
