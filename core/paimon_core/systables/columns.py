"""Java's columns of each system table and the small value formats they share.

Each table is a tuple of ``DataField`` built from Java's type text (``BIGINT NOT NULL``), so the
Arrow schema, the ``--where`` binding and the Java type names all come from one definition.
Invariants: names, order and nullability are Java Paimon 2.0.0's (``org.apache.paimon.table.
system.*Table.TABLE_TYPE``); where Java 1.4.2 or 0.9 differs the module saying so names it.
Timestamps Java derives from epoch millis are wall clocks of this process's zone, as Java's
``LocalDateTime.ofInstant(..., ZoneId.systemDefault())``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TypeVar

import pyarrow as pa

from paimon_core.data.types import AtomicType, DataField, DataType, parse_type, to_arrow_schema
from paimon_core.data.values import java_double_string, java_local_datetime_string

K = TypeVar("K")


def fields(*spec: tuple[str, str]) -> tuple[DataField, ...]:
    """(name, Java type text) pairs -> DataFields with ids in order."""
    return tuple(DataField(i, name, parse_type(t)) for i, (name, t) in enumerate(spec))


def to_table(cols: Sequence[DataField], rows: list[tuple]) -> pa.Table:
    """Rows (tuples in column order) as an Arrow table with the columns' schema."""
    schema = to_arrow_schema(cols)
    arrays = [pa.array([r[i] for r in rows], type=schema.field(i).type) for i in range(len(cols))]
    return pa.Table.from_arrays(arrays, schema=schema)


def local_wall(ms: int | None) -> datetime | None:
    """Java's ``LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), systemDefault())``."""
    if ms is None:
        return None
    return datetime.fromtimestamp(ms // 1000) + timedelta(milliseconds=ms % 1000)


def java_text(v, t: DataType | None = None) -> str:
    """Java's ``toString`` of an internal value (``null``, ``true``, ``1.0``, a DATE's day number,
    a DECIMAL in plain form, a TIMESTAMP as ``LocalDateTime.toString``)."""
    kind = type(v)
    if kind is str:  # the common cases first: $files formats 3 values per column per file
        return v
    if kind is int and t is None:
        return str(v)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        single = isinstance(t, AtomicType) and t.root == "FLOAT"
        return java_double_string(v, single=single)
    if isinstance(v, Decimal):
        return f"{v:f}"
    if isinstance(v, datetime):
        wall = v.replace(tzinfo=None) - datetime(1970, 1, 1)
        return java_local_datetime_string(
            (wall.days * 86400 + wall.seconds) * 10**9 + wall.microseconds * 1000
        )
    if isinstance(t, AtomicType) and t.root in ("TIMESTAMP", "TIMESTAMP_LTZ") and isinstance(v, int):
        return java_local_datetime_string(v)
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("utf-8", errors="replace")
    return str(v)


def java_duration(ms: int) -> str:
    """Java's ``Duration.toString`` of ``ms`` milliseconds (``PT1H``, ``PT30M``, ``PT0.5S``)."""
    if ms == 0:
        return "PT0S"
    sign = "-" if ms < 0 else ""
    ms = abs(ms)
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    out = "PT"
    if hours:
        out += f"{sign}{hours}H"
    if minutes:
        out += f"{sign}{minutes}M"
    if secs or millis:
        frac = f".{millis:03d}".rstrip("0") if millis else ""
        out += f"{sign}{secs}{frac}S"
    return out


def _java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units), as an unsigned 32-bit int."""
    data = s.encode("utf-16-le")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    return h


def java_objects_hash(*values: str) -> int:
    """Java's ``Objects.hash`` of strings (an ``Identifier``'s hash), as an unsigned 32-bit int."""
    h = 1
    for v in values:
        h = (31 * h + _java_string_hash(v)) & 0xFFFFFFFF
    return h


def java_hashmap_order(keys: Sequence[K], hash_code: Callable[[K], int] = _java_string_hash) -> list[K]:
    """``keys`` (inserted in this order into a default ``java.util.HashMap``) in the order Java
    iterates them: by bucket of the spread hash in the final table size, then insertion order.
    Java's schema options are such a map, so its ``$schemas`` JSON and ``$options`` follow it;
    ``hash_code`` is the keys' ``hashCode`` (default: a String's)."""
    capacity = 16
    while len(keys) > capacity * 0.75:
        capacity *= 2

    def bucket(k: K) -> int:
        h = hash_code(k)
        return (h ^ (h >> 16)) & (capacity - 1)

    order = sorted((bucket(k), i) for i, k in enumerate(keys))
    return [keys[i] for _, i in order]
