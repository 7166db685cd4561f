"""Java's change lists for catalog objects (``ViewChange``, ``FunctionChange``): ``setOption``,
``removeOption`` and ``updateComment`` as for any object, plus ``add``/``update``/``drop`` of
a named entry (a view's dialects, a function's definitions).

Invariant: ``apply_changes`` is pure and all or nothing: an entry added twice, or updated or
dropped while absent, refuses the whole list before anything is returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_core.errors import InvalidInput

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping


def change_args(
    value: Any,
    keys: Mapping[str, tuple[str, ...]],
    what: str,
    parsers: Mapping[str, Callable[[Any], Any]] | None = None,
) -> tuple[str, dict[str, Any]]:
    """(action, its fields) of a change's JSON; ``keys``: each action's fields, ``parsers``: the
    fields that are not strings, each with its reader; ``what``: "view", "function". Other
    fields are strings (``comment`` may be null); InvalidInput names a malformed change."""
    if not isinstance(value, dict) or value.get("action") not in keys:
        raise InvalidInput(f"malformed {what} change: 'action' must be one of {', '.join(keys)}")
    action = value["action"]
    args: dict[str, Any] = {}
    for k in keys[action]:
        v = value.get(k)
        if parsers and k in parsers:
            args[k] = parsers[k](v)
        elif isinstance(v, str) or (k == "comment" and v is None):
            args[k] = v
        else:
            raise InvalidInput(f"malformed {what} change {action}: '{k}' must be a string")
    return action, args


def apply_changes(
    changes: Iterable,
    options: Mapping[str, str],
    comment: str | None,
    entries: Mapping[str, Any],
    entry: str,
    entry_of: Callable[[Any], tuple[str, Any]],
    already: Callable[[str], Exception],
    missing: Callable[[str], Exception],
    what: str,
) -> tuple[dict[str, str], str | None, dict[str, Any]]:
    """(options, comment, entries) after ``changes`` in order. ``entry``: the entry actions'
    suffix (``Dialect``, ``Definition``); ``entry_of(change)``: its entry's (name, value);
    ``already``/``missing``: the errors naming an entry."""
    options, entries = dict(options), dict(entries)
    verbs = {f"{verb}{entry}": verb for verb in ("add", "update", "drop")}
    for c in changes:
        if c.action == "setOption":
            options[c.key or ""] = c.value or ""
        elif c.action == "removeOption":
            options.pop(c.key or "", None)
        elif c.action == "updateComment":
            comment = c.comment
        elif c.action in verbs:
            name, value = entry_of(c)
            verb = verbs[c.action]
            if verb == "add" and name in entries:
                raise already(name)
            if verb != "add" and name not in entries:
                raise missing(name)
            if verb == "drop":
                del entries[name]
            else:
                entries[name] = value
        else:
            raise InvalidInput(f"unknown {what} change '{c.action}'")
    return options, comment, entries
