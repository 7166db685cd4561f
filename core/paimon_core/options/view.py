"""``OptionView``: typed reads of a dict of option strings, one ``Option[T]`` at a time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from paimon_core.options.registry import Option

T = TypeVar("T")


class OptionView:
    """The option strings of a table or a catalog, read through their typed options: ``get``
    parses the value under the option's key or an alias, else answers the option's default."""

    def __init__(self, options: Mapping[str, str]):
        self.raw = dict(options)

    def get(self, option: Option[T]) -> T:
        for k in (option.key, *option.aliases):
            if k in self.raw:
                return option.parse(self.raw[k])
        return option.default

    def is_set(self, option: Option[T]) -> bool:
        return any(k in self.raw for k in (option.key, *option.aliases))
