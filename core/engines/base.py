"""The Engine protocol and engine selection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from paimon_core.errors import InvalidInput

Progress = Callable[[int], None]  # called with a number of input bytes just processed


class Engine(Protocol):
    name: str

    def write(self, table, inputs: list, progress: Progress | None = None, row_kind_column: str | None = None) -> list:
        """Write the rows of ``inputs`` (InputFile list) into new files; return CommitMessages.
        Must leave no files behind if it raises."""
        ...


def get_engine(name: str = "local", **options) -> Engine:
    if name in ("local", "auto"):
        from paimon_core.engines.local import LocalEngine

        return LocalEngine()
    if name == "spark":
        raise InvalidInput("the spark engine is not available yet; use --engine local")
    raise InvalidInput(f"unknown engine '{name}' (use local, spark or auto)")
