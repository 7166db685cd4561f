"""The change list of ``paimon view alter`` and ``paimon function alter`` (Java's ``ViewChange`` /
``FunctionChange``) from their options: ``--set-option KEY=VALUE``, ``--remove-option KEY``,
``--comment TEXT`` ('' removes it), and the add/update/drop of a named entry (a view's dialect, a
function's definition).

Invariant: an option key, or an entry name, is named by one option at most (the options of a
command line lose their order, so a key both set and removed has no meaning); the core applies
the list all or nothing.
"""

from __future__ import annotations

from typing import Any

import typer

from paimon_cli.config import parse_kv
from paimon_cli.errors import CliError

PAST = {"add": "added", "update": "updated", "drop": "dropped"}


def names(items: list[str] | None, flag: str) -> list[str]:
    """The names given to a repeatable ``flag`` taking one name (``--remove-option KEY``), once each."""
    out = [i.strip() for i in items or ()]
    if any(not n for n in out):
        raise CliError(f"bad {flag} '': give a name")
    return list(dict.fromkeys(out))


def _once(what: str, given: list[tuple[str, str]]) -> None:
    """Refuse a name given by two options (``given``: (flag, name) pairs)."""
    seen: dict[str, str] = {}
    for flag, name in given:
        if name in seen:
            raise typer.BadParameter(
                f"{what} '{name}' named by both; one change per {what}",
                param_hint=f"'{seen[name]}' / '{flag}'",
            )
        seen[name] = flag


def build_changes(
    change_cls: Any,
    entry: str,
    set_option: list[str] | None,
    remove_option: list[str] | None,
    comment: str | None,
    entries: list[tuple[str, str, str, Any]],
    flags: str,
) -> tuple[list, list[str]]:
    """(the changes, each in words). ``change_cls``: ViewChange or FunctionChange; ``entry``: the
    entry's kind (``dialect``, ``definition``: its change methods are ``add_<entry>``...);
    ``entries``: (verb, flag, name, value) of each add/update/drop, value None for a drop;
    ``flags``: every change option, for the usage error when none is given."""
    options = parse_kv(set_option, "--set-option")
    removed = names(remove_option, "--remove-option")
    _once("option", [("--set-option", k) for k in options] + [("--remove-option", k) for k in removed])
    _once(entry, [(flag, name) for _verb, flag, name, _value in entries])
    changes: list = []
    done: list[str] = []
    for k, v in options.items():
        changes.append(change_cls.set_option(k, v))
        done.append(f"set option {k}={v}")
    for k in removed:
        changes.append(change_cls.remove_option(k))
        done.append(f"removed option {k}")
    if comment is not None:
        changes.append(change_cls.update_comment(comment or None))
        done.append("set the comment" if comment else "removed the comment")
    for verb, _flag, name, value in entries:
        make = getattr(change_cls, f"{verb}_{entry}")
        changes.append(make(name) if verb == "drop" else make(name, value))
        done.append(f"{PAST[verb]} {entry} {name}")
    if not changes:
        raise typer.BadParameter(f"give at least one change: {flags}")
    return changes, done
