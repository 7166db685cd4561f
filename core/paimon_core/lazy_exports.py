"""A package's public names imported on first use (PEP 562), so that importing the package, or
one name of it, does not import the modules behind the others."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy_exports(package: str, exports: dict[str, str], namespace: dict) -> tuple[Callable, Callable]:
    """(``__getattr__``, ``__dir__``) for ``package``: a name of ``exports`` (name -> module) is
    imported from its module at first access and kept in ``namespace``, the package's globals."""

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
