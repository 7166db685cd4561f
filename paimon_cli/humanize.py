"""Sizes, durations, counts and id ranges as people read them (``1.5 MiB``, ``7d``, ``2 files``,
``3..9``), and the tail of a write's summary."""

from __future__ import annotations


def human_bytes(n: int) -> str:
    n = max(int(n), 0)
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            return f"{value:.1f} {unit}"
    return f"{n} B"  # unreachable


def human_duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0 or (ms == 0 and unit == "s"):
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def id_range(ids) -> str:
    ids = sorted(ids)
    if not ids:
        return "-"
    if ids == list(range(ids[0], ids[-1] + 1)):
        return str(ids[0]) if len(ids) == 1 else f"{ids[0]}..{ids[-1]}"
    return ",".join(map(str, ids))


def count_of(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def after_commit_summary(after) -> str:
    """The work that followed a commit (``AfterWrite``: its compaction snapshot, housekeeping),
    as a summary's tail: "; then compacted in snapshot 4, expired 2 snapshots" ('' when none)."""
    if after is None:
        return ""
    parts = []
    if after.compaction is not None:
        parts.append(f"compacted in snapshot {after.compaction.id}")
    done = after.housekeeping
    if done is not None:
        expired = done.expired_snapshots.expired if done.expired_snapshots is not None else []
        if expired:
            parts.append(f"expired {count_of(len(expired), 'snapshot')}")
        if done.expired_partitions:
            parts.append(f"expired {count_of(len(done.expired_partitions), 'partition')}")
        if done.created_tags:
            parts.append(f"tagged {', '.join(str(t) for t in done.created_tags)}")
        if done.expired_tags:
            parts.append(f"expired {count_of(len(done.expired_tags), 'tag')}")
    return f"; then {', '.join(parts)}" if parts else ""
