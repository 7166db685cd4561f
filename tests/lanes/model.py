"""Plain-Python models of primary-key tables for the lanes: a dict key -> row, changed by the
same statements the engines run, and compared to what each engine reads."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.interop.harness.canonical import assert_same_rows

__all__ = ["PkModel", "write_jsonl", "assert_rows"]


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def assert_rows(actual: Iterable[dict[str, Any]], expected: Iterable[dict[str, Any]], what: str) -> None:
    """Exact multiset equality (row kinds ignored), the diff labelled with `what`."""
    assert_same_rows(
        [{k: v for k, v in r.items() if k != "_row_kind"} for r in actual], list(expected), label_a=what
    )


class PkModel:
    """Rows by primary key; `history[snapshot]` is the table's content at each snapshot."""

    def __init__(self, key: tuple[str, ...]):
        self.key = key
        self.rows: dict[tuple, dict[str, Any]] = {}
        self.history: dict[int, list[dict[str, Any]]] = {}

    def _k(self, row: dict[str, Any]) -> tuple:
        return tuple(row[c] for c in self.key)

    def upsert(self, rows: Iterable[dict[str, Any]]) -> None:
        for r in rows:
            self.rows[self._k(r)] = dict(r)

    def delete_where(self, pred) -> None:
        for k in [k for k, r in self.rows.items() if pred(r)]:
            del self.rows[k]

    def update_where(self, pred, change) -> None:
        for r in self.rows.values():
            if pred(r):
                r.update(change(r))

    def state(self) -> list[dict[str, Any]]:
        return copy.deepcopy(list(self.rows.values()))

    def record(
        self,
        first: int,
        last: int,
        kinds: dict[int, str] | None = None,
        before: list[dict[str, Any]] | None = None,
    ) -> None:
        """Snapshots first..last (the ones a statement made) hold the current state. On a
        deletion-vector table (`kinds` and `before` given) an APPEND snapshot still shows the state
        `before` the statement: batch reads of such tables skip level-0 files (Java's rule, ours
        too), so a statement's rows show once its COMPACT snapshot, which must end it."""
        if kinds is not None:
            assert kinds[last] == "COMPACT", f"a write to a deletion-vector table ended in {kinds[last]}"
        for s in range(first, last + 1):
            self.history[s] = before if kinds is not None and kinds[s] == "APPEND" else self.state()
