"""The REST spec's JSON for what the client sends besides tables and snapshots: schema changes
(``AlterTableRequest.changes``, the spec's ``SchemaChange`` actions) and the paged lists every
list endpoint answers (``nextPageToken`` followed to the last page)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from paimon_core.errors import InvalidInput
from paimon_core.metadata import schema_evolution as evo


def change_json(change: evo.SchemaChange) -> dict:
    """One schema change as the spec's ``SchemaChange`` object (``action`` names its kind)."""
    if isinstance(change, evo.SetOption):
        return {"action": "setOption", "key": change.key, "value": change.value}
    if isinstance(change, evo.RemoveOption):
        return {"action": "removeOption", "key": change.key}
    if isinstance(change, evo.UpdateComment):
        return {"action": "updateComment", "comment": change.comment}
    if isinstance(change, evo.AddColumn):
        out: dict[str, Any] = {
            "action": "addColumn",
            "fieldNames": [change.name],
            "dataType": change.type.to_json(),
            "comment": change.comment,
        }
        if change.first:
            out["move"] = {"fieldName": change.name, "type": "FIRST"}
        elif change.after is not None:
            out["move"] = {"fieldName": change.name, "referenceFieldName": change.after, "type": "AFTER"}
        return out
    if isinstance(change, evo.RenameColumn):
        return {"action": "renameColumn", "fieldNames": [change.name], "newName": change.new_name}
    if isinstance(change, evo.DropColumn):
        return {"action": "dropColumn", "fieldNames": [change.name]}
    if isinstance(change, evo.UpdateColumnType):
        return {
            "action": "updateColumnType",
            "fieldNames": [change.name],
            "newDataType": change.type.to_json(),
            "keepNullability": False,
        }
    raise InvalidInput(f"schema change {type(change).__name__} cannot be sent to a REST catalog")


def changes_json(changes: Sequence[evo.SchemaChange]) -> list[dict]:
    return [change_json(c) for c in changes]


def paged(fetch: Callable[[dict[str, str]], dict], key: str, max_pages: int = 100_000) -> Iterator[Any]:
    """Every item of a paged list: ``fetch(query)`` answers one page (``key``: its items,
    ``nextPageToken``: the next page's token, null or absent on the last). A server that sends
    the same token twice is refused rather than followed forever."""
    query: dict[str, str] = {}
    seen: set[str] = set()
    for _ in range(max_pages):
        answer = fetch(query) or {}
        yield from answer.get(key) or []
        token = answer.get("nextPageToken")
        if not token or not answer.get(key):
            return
        if token in seen:
            raise InvalidInput(f"the REST catalog sent page token {token!r} twice")
        seen.add(token)
        query = {"pageToken": str(token)}
