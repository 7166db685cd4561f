"""Reading values stored under an older column type as the column's current type
(``alter-column`` changes a type without rewriting files; readers cast each file's values).

Java's CastExecutors semantics where they differ from Arrow's: integer <-> timestamp counts
seconds, numeric narrowing wraps/truncates. A value that cannot be cast raises
``SchemaMismatch`` naming the column.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from paimon_core.data.types import AtomicType, DataType, implicitly_castable, to_arrow_type
from paimon_core.errors import SchemaMismatch

NUMERIC = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")


def cast_for_read(arr, name: str, src: DataType, dst: DataType):
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
            if s in NUMERIC and d in NUMERIC and not implicitly_castable(src, dst) and d != "DECIMAL":
                return arr.cast(target, safe=False)
            if s == "BOOLEAN" and d == "DECIMAL":
                return arr.cast(pa.int8()).cast(target)
        return arr.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise SchemaMismatch(
            f"column '{name}': values written as {src.with_nullable(True)} cannot be read as "
            f"{dst.with_nullable(True)}: {str(e).splitlines()[0]}"
        ) from None
