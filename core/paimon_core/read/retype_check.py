"""Before a narrowing ``alter-column``: every stored value of the column must fit its new type.

Java 0.9's cast rules (``schema_evolution.column_cast_allowed``) let a column take a narrower or
unrelated type (STRING -> INT, BIGINT -> INT, DECIMAL(10, 2) -> DECIMAL(5, 2)); files are not
rewritten, readers cast each file's values (``schema_evolution.cast_for_read``). A stored value that
cannot be cast would make every read of the table fail, and an integer outside the new type's
range would silently wrap, so such a change is refused before it is written, naming the first
value that does not fit, its file and its partition.

Invariants: a widening change (``implicitly_castable``) always fits and reads nothing; otherwise
every live file of the latest snapshot (all levels, deleted rows excluded) is read, only the
changed columns. Older snapshots and tags are read with their own schema, so they need no check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from paimon_core.data.types import AtomicType, DataType, implicitly_castable, to_arrow_type
from paimon_core.errors import InvalidInput, SchemaMismatch
from paimon_core.metadata.schema_evolution import cast_for_read
from paimon_core.read.scan import plan
from paimon_core.read.table_read import TableRead

if TYPE_CHECKING:  # annotations only
    from paimon_core.metadata.schema import TableSchema
    from paimon_core.metadata.table_context import TableContext

_INTEGERS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}  # bits
_RANGED = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")  # wrap when narrowed


def narrowed_columns(old: TableSchema, new: TableSchema) -> list[tuple]:
    """(field in ``old``, field in ``new``) of each column whose type changes in a way that may
    not hold every value (not an implicit widening)."""
    by_id = {f.id: f for f in old.fields}
    out = []
    for f in new.fields:
        o = by_id.get(f.id)
        if o is None:
            continue
        src, dst = o.type.with_nullable(True), f.type.with_nullable(True)
        if src != dst and not implicitly_castable(src, dst):
            out.append((o, f))
    return out


def _in_range(arr: pa.Array, src: AtomicType, dst: AtomicType) -> bool:
    """Whether every number of ``arr`` lies in the range of integer type ``dst`` (the read would
    wrap it, as Java's cast does)."""
    bits = _INTEGERS[dst.root]
    if src.root in ("FLOAT", "DOUBLE", "DECIMAL"):  # a fraction is truncated on read, as in Java
        lo, hi = pc.min_max(arr.cast(pa.float64())).values()
        lo, hi = lo.as_py(), hi.as_py()
        return lo is None or (-(2 ** (bits - 1)) <= lo and hi <= 2 ** (bits - 1) - 1)
    try:
        pc.cast(arr, to_arrow_type(dst), safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False
    return True


def _fits(arr: pa.Array, name: str, src: DataType, dst: DataType) -> bool:
    try:
        cast_for_read(arr, name, src, dst)
    except SchemaMismatch:
        return False
    if (
        isinstance(dst, AtomicType)
        and dst.root in _INTEGERS
        and isinstance(src, AtomicType)
        and src.root in _RANGED
    ):
        return _in_range(arr, src, dst)
    return True


def first_misfit(arr: pa.Array, name: str, src: DataType, dst: DataType) -> int | None:
    """The index of the first value of ``arr`` (stored as ``src``) that does not fit ``dst``, or
    None. The whole array is cast once; only a failure bisects over prefixes."""
    if _fits(arr, name, src, dst):
        return None
    lo, hi = 0, len(arr)  # arr[:lo] fits, arr[:hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _fits(arr.slice(0, mid), name, src, dst):
            lo = mid
        else:
            hi = mid
    return hi - 1


def check_stored_values(table: TableContext, new_schema: TableSchema) -> None:
    """Raise InvalidInput naming the first stored value of a narrowed column that ``new_schema``'s
    type cannot hold (``table`` is at the schema the change starts from)."""
    changed = narrowed_columns(table.schema, new_schema)
    snapshot = table.snapshots.latest() if changed else None
    if snapshot is None:
        return
    reader = TableRead(table, [old.name for old, _ in changed])
    codec = table.partition_codec
    for split in plan(table, snapshot, all_levels=True):
        for f in split.files:
            data = reader.read_file(split, f, False)
            for old, new in changed:
                arr = data.column(old.name).combine_chunks()
                i = first_misfit(arr, old.name, old.type, new.type)
                if i is None:
                    continue
                where = f"file {f.file_name}"
                if table.schema.partition_keys:
                    where += f" of partition {codec.display(codec.spec(split.partition))}"
                raise InvalidInput(
                    f"cannot change column '{old.name}' from {old.type.with_nullable(True)} to "
                    f"{new.type.with_nullable(True)}: the stored value {arr[i].as_py()!r} ({where}, "
                    f"bucket {split.bucket}) does not fit; the table is unchanged"
                )
