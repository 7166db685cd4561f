"""The changelog a `paimon stream --consumer-id --snapshot-column` consumer delivered across
restarts, and its check against a model of upserts.

A run killed mid-snapshot may have printed part of it; the next run starts at the consumer's
``nextSnapshot`` and prints that snapshot again whole. So for each snapshot the rows of the
last run that printed it are taken, and a line cut by the kill is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["delivered", "fold_checked"]


def delivered(runs: list[Path]) -> list[dict[str, Any]]:
    """The rows of every snapshot, in snapshot order, each from the last run that printed it."""
    by_snapshot: dict[int, list[dict[str, Any]]] = {}
    for path in runs:
        text = path.read_text()
        complete = text[: text.rfind("\n") + 1]
        seen: dict[int, list[dict[str, Any]]] = {}
        for line in complete.splitlines():
            if line.strip():
                r = json.loads(line)
                seen.setdefault(r["_snapshot"], []).append(r)
        by_snapshot.update(seen)
    return [r for s in sorted(by_snapshot) for r in by_snapshot[s]]


def fold_checked(
    rows: list[dict[str, Any]], key: Callable[[dict], Any], value: Callable[[dict], Any], growing: bool = True
) -> dict[Any, Any]:
    """Apply a changelog, checking each step: +I only for an absent key, -U/-D only of the key's
    current value, +U only right after a -U of the key and (`growing`) with a value above the
    old one. Returns key -> value."""
    state: dict[Any, Any] = {}
    retracted: dict[Any, Any] = {}
    for i, r in enumerate(rows):
        k, v, kind = key(r), value(r), r["_row_kind"]
        where = f"change {i} (snapshot {r.get('_snapshot')}): {kind} key={k} value={v}"
        if kind == "+I":
            assert k not in state and k not in retracted, f"{where}: key already present ({state.get(k)})"
            state[k] = v
        elif kind in ("-U", "-D"):
            assert state.get(k) == v, f"{where}: retracts {v} but the key holds {state.get(k)}"
            del state[k]
            if kind == "-U":
                retracted[k] = v
        elif kind == "+U":
            assert k in retracted, f"{where}: +U without a -U before it"
            old = retracted.pop(k)
            assert not growing or v > old, f"{where}: value went backwards from {old} (a replayed input?)"
            state[k] = v
        else:
            raise AssertionError(f"{where}: unknown row kind")
    assert not retracted, f"-U without its +U for keys {sorted(retracted)[:10]}"
    return state
