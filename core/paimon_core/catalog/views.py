"""A view as Paimon stores it (Java's ``ViewSchema``), the changes ``alter_view`` takes (Java's
``ViewChange``), and both as the JSON Java and the REST spec write.

Invariants: ``View.from_json(v.to_json()) == v``; the JSON is Java's ``ViewSchema`` (``fields``
as DataFields, ``query``, ``dialects``, ``comment`` left out when there is none, ``options``), so a
view stored by either side reads the same on the other; ``apply_view_changes`` is pure and
refuses a whole change list that names a dialect wrongly (nothing half applied).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from paimon_core.catalog.object_changes import apply_changes, change_args
from paimon_core.data.types import DataField, assign_field_ids
from paimon_core.errors import DialectAlreadyExists, DialectNotFound, InvalidInput


def _str_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise InvalidInput(f"malformed {what}: an object of strings")
    return dict(value)


def fields_from_json(value: Any, what: str) -> tuple[DataField, ...]:
    """A JSON list of DataFields (``{id, name, type, description}``)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidInput(f"malformed {what}: a list of fields")
    out = []
    for f in value:
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            raise InvalidInput(f"malformed {what}: each field an object with a name")
        try:
            out.append(DataField.from_json({"id": len(out), **f}))
        except (KeyError, TypeError, ValueError, InvalidInput) as e:
            raise InvalidInput(f"malformed type of field '{f['name']}' in {what}: {e}") from None
    return tuple(out)


def fields_from_columns(columns) -> tuple[DataField, ...]:
    """DataFields numbered from 0 (nested fields after) from ``(name, type, comment)`` columns,
    as ``Schema.parse_columns`` gives them."""
    out, last = [], len(columns) - 1
    for i, (name, t, comment) in enumerate(columns):
        t, last = assign_field_ids(t, last)
        out.append(DataField(i, name, t, comment))
    return tuple(out)


@dataclass(frozen=True)
class View:
    """A view: its columns, its default query, the query per dialect (``spark``, ``flink``...),
    a comment and options."""

    fields: tuple[DataField, ...]
    query: str
    dialects: dict[str, str] = field(default_factory=dict)
    comment: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "fields": [f.to_json() for f in self.fields],
            "query": self.query,
            "dialects": dict(self.dialects),
        }
        if self.comment is not None:
            out["comment"] = self.comment
        out["options"] = dict(self.options)
        return out

    @staticmethod
    def from_json(value: Any) -> View:
        if not isinstance(value, dict):
            raise InvalidInput("malformed view schema: a JSON object")
        query = value.get("query")
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("malformed view schema: 'query' must be the view's SQL")
        comment = value.get("comment")
        if comment is not None and not isinstance(comment, str):
            raise InvalidInput("malformed view schema: 'comment' must be a string")
        return View(
            fields=fields_from_json(value.get("fields"), "view fields"),
            query=query,
            dialects=_str_map(value.get("dialects"), "view dialects"),
            comment=comment,
            options=_str_map(value.get("options"), "view options"),
        )


@dataclass(frozen=True)
class ViewChange:
    """One change of ``alter_view``: ``action`` is Java's (``setOption``, ``removeOption``,
    ``updateComment``, ``addDialect``, ``updateDialect``, ``dropDialect``); the other fields are
    those the action takes."""

    action: str
    key: str | None = None
    value: str | None = None
    comment: str | None = None
    dialect: str | None = None
    query: str | None = None

    @staticmethod
    def set_option(key: str, value: str) -> ViewChange:
        return ViewChange("setOption", key=key, value=value)

    @staticmethod
    def remove_option(key: str) -> ViewChange:
        return ViewChange("removeOption", key=key)

    @staticmethod
    def update_comment(comment: str | None) -> ViewChange:
        return ViewChange("updateComment", comment=comment)

    @staticmethod
    def add_dialect(dialect: str, query: str) -> ViewChange:
        return ViewChange("addDialect", dialect=dialect, query=query)

    @staticmethod
    def update_dialect(dialect: str, query: str) -> ViewChange:
        return ViewChange("updateDialect", dialect=dialect, query=query)

    @staticmethod
    def drop_dialect(dialect: str) -> ViewChange:
        return ViewChange("dropDialect", dialect=dialect)

    def to_json(self) -> dict:
        keys = _VIEW_CHANGE_KEYS[self.action]
        return {"action": self.action, **{k: getattr(self, k) for k in keys}}

    @staticmethod
    def from_json(value: Any) -> ViewChange:
        action, args = change_args(value, _VIEW_CHANGE_KEYS, "view")
        return ViewChange(action, **args)


_VIEW_CHANGE_KEYS: dict[str, tuple[str, ...]] = {
    "setOption": ("key", "value"),
    "removeOption": ("key",),
    "updateComment": ("comment",),
    "addDialect": ("dialect", "query"),
    "updateDialect": ("dialect", "query"),
    "dropDialect": ("dialect",),
}


def apply_view_changes(name: str, view: View, changes: list[ViewChange]) -> View:
    """``view`` with ``changes`` applied in order, as Java's JdbcCatalog.alterView applies them:
    a dialect added twice, or updated or dropped while absent, refuses the whole list."""
    options, comment, dialects = apply_changes(
        changes,
        view.options,
        view.comment,
        view.dialects,
        "Dialect",
        lambda c: (c.dialect or "", c.query or ""),
        lambda d: DialectAlreadyExists(name, d),
        lambda d: DialectNotFound(name, d),
        "view",
    )
    return replace(view, options=options, dialects=dialects, comment=comment)
