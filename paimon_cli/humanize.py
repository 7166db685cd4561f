"""Sizes, durations and id ranges as people read them (``1.5 MiB``, ``7d``, ``3..9``)."""

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
