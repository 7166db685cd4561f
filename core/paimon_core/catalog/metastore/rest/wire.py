"""The REST spec's JSON, both ways (our client sends it, our server reads it): table schemas
(``CreateTableRequest.schema``, ``GetTableResponse.schema``), schema changes
(``AlterTableRequest.changes``, the spec's ``SchemaChange`` actions), snapshots of a commit, and
the paged lists every list endpoint answers (``nextPageToken`` followed to the last page).

Invariant: what ``*_json`` writes, the matching ``*_from_json`` reads back as the same value; a
malformed object is an InvalidInput naming what is wrong (a server answers it with a 400)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from paimon_core.data.types import type_from_json
from paimon_core.errors import InvalidInput, PaimonError
from paimon_core.metadata import schema_evolution as evo
from paimon_core.metadata.schema import Schema, TableSchema
from paimon_core.metadata.snapshot import Snapshot


def _type(value: Any):
    """A data type's JSON (any JSON value: a wrong one raises, and the caller names the field)."""
    return type_from_json(value)


class Malformed(InvalidInput):
    """A request object without the shape the spec gives it."""


def obj(value: Any, what: str) -> dict:
    """``value`` when it is a JSON object, else the refusal naming ``what``."""
    if not isinstance(value, dict):
        raise Malformed(f"malformed request: {what} must be a JSON object")
    return value


def field(body: dict, key: str, kind: type, what: str, required: bool = True) -> Any:
    """``body[key]`` when it has JSON type ``kind`` (a bool is no int); None when absent and not
    ``required``."""
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise Malformed(f"malformed request: {what} needs '{key}' ({kind.__name__})")
    return value


def schema_json(schema: TableSchema) -> dict:
    """A table schema as the spec's ``Schema`` object."""
    out = {
        "fields": [f.to_json() for f in schema.fields],
        "partitionKeys": list(schema.partition_keys),
        "primaryKeys": list(schema.primary_keys),
        "options": dict(schema.options),
    }
    if schema.comment is not None:
        out["comment"] = schema.comment
    return out


def schema_from_json(value: dict) -> Schema:
    """The spec's ``Schema`` object as the schema of a table to create."""
    fields = value.get("fields")
    if not isinstance(fields, list) or not fields:
        raise InvalidInput("malformed request: the schema needs a non-empty 'fields' list")
    columns = []
    for f in fields:
        f = obj(f, "a field")
        name = field(f, "name", str, "a field")
        try:
            columns.append((name, _type(f.get("type")), f.get("description")))
        except (KeyError, TypeError, ValueError, PaimonError) as e:
            raise InvalidInput(f"malformed type of field '{name}': {e}") from None
    options = value.get("options") or {}
    if not isinstance(options, dict):
        raise InvalidInput("malformed request: schema 'options' must be an object")
    return Schema(
        columns=tuple(columns),
        partition_keys=tuple(value.get("partitionKeys") or ()),
        primary_keys=tuple(value.get("primaryKeys") or ()),
        options={str(k): str(v) for k, v in options.items()},
        comment=value.get("comment"),
    )


def snapshot_from_json(value: dict) -> Snapshot:
    """A commit's ``snapshot`` object (the fields a snapshot file holds)."""
    for key in ("id", "schemaId"):
        field(value, key, int, "snapshot")
    for key in ("baseManifestList", "deltaManifestList", "commitUser", "commitKind"):
        field(value, key, str, "snapshot")
    try:
        return Snapshot.from_json(json.dumps(value))
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"malformed snapshot: {e}") from None


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


def _one_name(change: dict) -> str:
    names = change.get("fieldNames")
    if not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
        raise Malformed(f"{change.get('action')}: only top-level columns ('fieldNames' of one name)")
    return names[0]


def change_from_json(c: dict) -> evo.SchemaChange:
    """A spec ``SchemaChange`` as the core's change; the actions the core lacks are refused."""
    action = c.get("action")
    try:
        if action == "setOption":
            return evo.SetOption(field(c, "key", str, action), field(c, "value", str, action))
        if action == "removeOption":
            return evo.RemoveOption(field(c, "key", str, action))
        if action == "updateComment":
            return evo.UpdateComment(c.get("comment"))
        if action == "addColumn":
            move = c.get("move") or {}
            first = isinstance(move, dict) and move.get("type") == "FIRST"
            after = (
                move.get("referenceFieldName")
                if isinstance(move, dict) and move.get("type") == "AFTER"
                else None
            )
            return evo.AddColumn(_one_name(c), _type(c.get("dataType")), c.get("comment"), first, after)
        if action == "renameColumn":
            return evo.RenameColumn(_one_name(c), field(c, "newName", str, action))
        if action == "dropColumn":
            return evo.DropColumn(_one_name(c))
        if action == "updateColumnType":
            return evo.UpdateColumnType(
                _one_name(c), _type(c.get("newDataType")), bool(c.get("keepNullability", False))
            )
    except Malformed:
        raise
    except (KeyError, TypeError, ValueError, PaimonError) as e:
        raise InvalidInput(f"malformed {action}: {e}") from None
    raise InvalidInput(f"schema change {action!r} is not supported by this server")


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
