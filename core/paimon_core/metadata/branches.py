"""Branches of a table: names, where a branch lives, and the ``db.t$branch_NAME`` spelling.

A branch ``NAME`` is the directory ``<table>/branch/branch-NAME`` holding its own ``snapshot/``,
``schema/``, ``tag/``, ``changelog/`` and ``consumer/`` over the table's shared data, manifest and
index files. The main branch is the table directory itself. A branch exists when its directory
does (Java's rule); a usable branch has at least one schema file.

Invariants: every branch name that reaches a path went through :func:`validate_branch_name`
(no ``/``, no ``..``, not ``main``, not only digits), and the ``$`` suffixes of a table name
are parsed only here: ``$branch_NAME`` (:func:`split_branch`) and a system table's ``$NAME``
after it (:func:`split_system`: ``db.t$branch_b$files``).
"""

from __future__ import annotations

import re

from paimon_core import paths
from paimon_core.errors import AlreadyExists, InvalidInput, NotFound

MAIN = "main"
BRANCH_PREFIX = "branch-"
SYSTEM_SEPARATOR = "$"
BRANCH_SUFFIX = "$branch_"  # db.t$branch_NAME, as Java Paimon spells a branch of a table
SYSTEM_DATABASE = "sys"  # the catalog's global system tables: sys.tables, sys.partitions, ...
_NAME = re.compile(r"^[A-Za-z0-9_\-.]+$")


class BranchNotFound(NotFound):
    def __init__(self, name: str, table: str = ""):
        where = f" of table {table}" if table else ""
        super().__init__(f"branch '{name}'{where} does not exist")
        self.name = name


class BranchAlreadyExists(AlreadyExists):
    def __init__(self, name: str):
        super().__init__(f"branch '{name}' already exists")
        self.name = name


def validate_branch_name(name: str) -> str:
    """The name unchanged if it can name a new branch; InvalidInput otherwise."""
    if name is None or not name.strip():
        raise InvalidInput("bad branch name '': a branch needs a name")
    if name == MAIN:
        raise InvalidInput("bad branch name 'main': the main branch is the table itself")
    if "/" in name or "\\" in name or ".." in name or not _NAME.match(name) or name.startswith("."):
        raise InvalidInput(
            f"bad branch name '{name}': use letters, digits, '-', '_' and '.' (no '/' or '..')"
        )
    if name.isdigit():
        raise InvalidInput(f"bad branch name '{name}': a branch name cannot be only digits")
    return name


def is_main(branch: str | None) -> bool:
    return branch is None or branch == MAIN


def branch_dir(table_path: str) -> str:
    return paths.join(table_path, paths.BRANCH_DIR)


def branch_path(table_path: str, branch: str | None) -> str:
    """Where the snapshots, schemas and tags of ``branch`` live (the table directory for main)."""
    if is_main(branch):
        return table_path
    assert branch is not None
    return paths.join(table_path, paths.BRANCH_DIR, BRANCH_PREFIX + branch)


def split_system(identifier: str) -> tuple[str, str | None]:
    """``db.t$snapshots`` -> (``db.t``, ``snapshots``); ``db.t$branch_b$files`` ->
    (``db.t$branch_b``, ``files``); a name with no system suffix -> (name, None). Only the
    spelling is checked here (the system tables are served by ``paimon_core.systables``)."""
    text = identifier.strip()
    base, sep, rest = text.partition(SYSTEM_SEPARATOR)
    if not sep:
        return text, None
    if (SYSTEM_SEPARATOR + rest).startswith(BRANCH_SUFFIX):
        branch, sep2, system = rest.partition(SYSTEM_SEPARATOR)
        if not sep2:
            return text, None
        base = f"{base}{SYSTEM_SEPARATOR}{branch}"
    else:
        system = rest
    if not system or SYSTEM_SEPARATOR in system:
        raise InvalidInput(f"bad table name '{identifier}': use DB.TABLE$NAME or DB.TABLE$branch_B$NAME")
    return base, system


def split_branch(identifier: str) -> tuple[str, str | None]:
    """``db.t$branch_b`` -> (``db.t``, ``b``); a name without ``$branch_`` -> (name, None).
    A system table suffix (``db.t$files``) is refused: it names no table to open or write."""
    text, system = split_system(identifier)
    if system is not None:
        raise InvalidInput(
            f"'{identifier}' is a system table: read it with `paimon read -t` or `paimon sql` "
            "(it cannot be written or changed)"
        )
    if SYSTEM_SEPARATOR not in text:
        return text, None
    base, _, rest = text.partition(SYSTEM_SEPARATOR)
    name = rest[len(BRANCH_SUFFIX) - 1 :]
    if name == MAIN:
        return base, None
    return base, validate_branch_name(name)


def with_branch(identifier: str, branch: str | None) -> str:
    """The table name a user reads: ``db.t`` for main, ``db.t$branch_NAME`` for a branch."""
    return identifier if is_main(branch) else f"{identifier}{BRANCH_SUFFIX}{branch}"


__all__ = [
    "BRANCH_PREFIX",
    "BRANCH_SUFFIX",
    "MAIN",
    "SYSTEM_DATABASE",
    "BranchAlreadyExists",
    "BranchNotFound",
    "branch_dir",
    "branch_path",
    "is_main",
    "split_branch",
    "split_system",
    "validate_branch_name",
    "with_branch",
]
