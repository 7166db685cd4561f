"""Partition expiry, as Java's ``PartitionExpire`` (0.9) with 1.x's ``partition.expiration-max-num``.

A partition is expired when ``now - partition.expiration-time`` is after its time:

* ``values-time`` (default): the time its values stand for (``maintain/partition_time.py``); a
  partition whose values do not parse is never expired (after a commit it is skipped with a
  warning, as Java logs it; ``paimon partition expire`` refuses and names it, dropping nothing);
* ``update-time``: the creation time of its newest live file.

At most ``partition.expiration-max-num`` partitions go per run (the first ones in the order of
their values joined by ',', as Java 1.x); they are dropped in one OVERWRITE commit
(``partitions.drop_partitions``).

The check interval: Java keeps the time of a writer's last check in memory, starting at the
writer's creation, and checks again once ``partition.expiration-check-interval`` has passed
(0: after every commit); a batch commit also checks when ``end-input.check-partition-expire``
is set. A ``paimon`` process is one writer: its first check is due one interval after the
process started (:data:`_LAST_CHECK`, per table path), so a short batch command with the default
one hour interval does not expire partitions after its commit, exactly as a Java batch job does.
``paimon partition expire`` checks now, whatever the interval.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from paimon_core.clock import epoch_ms, local, now_ms
from paimon_core.errors import InvalidInput
from paimon_core.maintain.partition_time import UnparsablePartitionTime, partition_time, validate_formatter
from paimon_core.maintain.partitions import drop_partitions, java_strings, partition_stats
from paimon_core.options.registry import (
    END_INPUT_CHECK_PARTITION_EXPIRE,
    PARTITION_EXPIRATION_CHECK_INTERVAL,
    PARTITION_EXPIRATION_MAX_NUM,
    PARTITION_EXPIRATION_STRATEGY,
    PARTITION_EXPIRATION_TIME,
    PARTITION_TIMESTAMP_FORMATTER,
    PARTITION_TIMESTAMP_PATTERN,
)

if TYPE_CHECKING:
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.metadata.table_context import TableContext

LOG = logging.getLogger(__name__)
_START_MS = now_ms()
_LAST_CHECK: dict[str, int] = {}  # table path -> epoch millis of this process's last check


class UnparsablePartition(InvalidInput):
    """A partition whose values the table's timestamp formatter does not parse."""


@dataclass(frozen=True)
class ExpireSettings:
    expiration_ms: int
    strategy: str  # values-time | update-time
    formatter: str | None
    pattern: str | None
    max_num: int

    @staticmethod
    def of(table: TableContext, **overrides) -> ExpireSettings | None:
        """The table's settings with ``overrides`` (None values ignored); None when no expiration
        time is set either way."""
        o = table.schema.core_options
        got = {
            "expiration_ms": o.get(PARTITION_EXPIRATION_TIME),
            "strategy": o.get(PARTITION_EXPIRATION_STRATEGY),
            "formatter": o.get(PARTITION_TIMESTAMP_FORMATTER),
            "pattern": o.get(PARTITION_TIMESTAMP_PATTERN),
            "max_num": o.get(PARTITION_EXPIRATION_MAX_NUM),
        }
        got.update({k: v for k, v in overrides.items() if v is not None})
        if got["expiration_ms"] is None:
            return None
        if got["strategy"] not in ("values-time", "update-time"):
            raise InvalidInput(
                f"partition expiration strategy '{got['strategy']}' is not values-time or update-time"
            )
        if got["max_num"] < 1:
            raise InvalidInput(f"partition expiration max-num must be at least 1, got {got['max_num']}")
        validate_formatter(got["formatter"])
        return ExpireSettings(**got)


@dataclass(frozen=True)
class PartitionExpiry:
    expired: tuple  # value tuples, in the order Java picks them
    skipped: tuple  # (display, reason): partitions whose values do not parse
    cutoff_ms: int
    snapshot: Snapshot | None = None  # the OVERWRITE commit (None on a dry run or when none expired)


def _time_strings(table: TableContext, values, strings: list[str | None]) -> list[str | None]:
    """The texts a partition's time is read from: ``strings`` (Java's), but a DATE as the date it
    is (yyyy-MM-dd), whatever its folder holds (the day number under partition.legacy-name), as
    Java expires DATE partitions by their date."""
    from paimon_core.data.types import AtomicType

    out = list(strings)
    for i, (v, t) in enumerate(zip(values, table.partition_codec.types, strict=True)):
        if v is not None and isinstance(t, AtomicType) and t.root == "DATE":
            out[i] = (_EPOCH_DAY + timedelta(days=int(v))).isoformat()
    return out


_EPOCH_DAY = datetime(1970, 1, 1).date()


def plan_partition_expiry(
    table: TableContext, settings: ExpireSettings, now: int | None = None, strict: bool = False
) -> PartitionExpiry:
    """Which partitions expire at ``now`` (epoch millis); ``strict``: an unparsable partition
    raises UnparsablePartition naming it instead of being skipped."""
    now = now_ms() if now is None else now
    cutoff: datetime = local(now) - timedelta(milliseconds=settings.expiration_ms)
    keys = list(table.schema.partition_keys)
    if not keys:
        raise InvalidInput(f"table {table.identifier} is not partitioned: it has no partitions to expire")
    codec = table.partition_codec
    hits: list[tuple[str, tuple]] = []
    skipped: list[tuple[str, str]] = []
    for st in partition_stats(table):
        strings = java_strings(table, st.values)
        times = _time_strings(table, st.values, strings)
        if settings.strategy == "update-time":
            expired = epoch_ms(cutoff) > st.last_file_creation_time
        else:
            try:
                if any(s is None for s in times):
                    raise UnparsablePartitionTime("a NULL partition value has no time")
                t = partition_time(keys, [s or "" for s in times], settings.pattern, settings.formatter)
            except UnparsablePartitionTime as e:
                where = codec.display(codec.spec(st.values))
                if strict:
                    raise UnparsablePartition(
                        f"partition {where} of {table.identifier}: its time cannot be read ({e}); "
                        "nothing was expired. Check partition.timestamp-formatter / partition.timestamp-pattern, "
                        "or the update-time expiration strategy"
                    ) from None
                skipped.append((where, str(e)))
                continue
            expired = cutoff > t
        if expired:
            hits.append((",".join(s or "null" for s in strings), st.values))
    hits.sort(key=lambda h: h[0])
    return PartitionExpiry(tuple(v for _, v in hits[: settings.max_num]), tuple(skipped), epoch_ms(cutoff))


def expire_partitions(
    table: TableContext,
    settings: ExpireSettings,
    now: int | None = None,
    dry_run: bool = False,
    strict: bool = True,
) -> PartitionExpiry:
    """Plan, then drop the expired partitions in one OVERWRITE commit (nothing on ``dry_run``)."""
    plan = plan_partition_expiry(table, settings, now, strict)
    if dry_run or not plan.expired:
        return plan
    snap = drop_partitions(table, list(plan.expired), operation=None)  # Java's expiry: none
    return PartitionExpiry(plan.expired, plan.skipped, plan.cutoff_ms, snap)


def expire_partitions_after_commit(
    table: TableContext, now: int | None = None, batch: bool = False
) -> PartitionExpiry | None:
    """The step a writer runs after a commit: the table's settings, the check interval (see the
    module doc), unparsable partitions skipped with a warning."""
    settings = ExpireSettings.of(table)
    if settings is None or not table.schema.partition_keys:
        return None
    o = table.schema.core_options
    now = now_ms() if now is None else now
    interval = o.get(PARTITION_EXPIRATION_CHECK_INTERVAL)
    last = _LAST_CHECK.get(table.path, _START_MS)
    due = interval == 0 or now > last + interval or (batch and o.get(END_INPUT_CHECK_PARTITION_EXPIRE))
    if not due:
        return None
    result = expire_partitions(table, settings, now, strict=False)
    _LAST_CHECK[table.path] = now
    for where, why in result.skipped:
        LOG.warning(
            f"partition expiry skipped partition {where} of {table.identifier}: its time cannot be read ({why})"
        )
    return result


__all__ = [
    "ExpireSettings",
    "PartitionExpiry",
    "UnparsablePartition",
    "expire_partitions",
    "expire_partitions_after_commit",
    "plan_partition_expiry",
]
