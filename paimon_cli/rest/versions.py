"""Tags, branches and snapshots of a table over REST, each through the core's own operation on
the backing catalog's table (``maintain/tags.py``, ``maintain/branches.py``), so the server
keeps every invariant those keep (a tag names a snapshot that exists, a deleted tag or branch
deletes only files nothing else uses, a branch's schema and snapshot files are copied before it
is visible). A branch of a table is addressed as Java does: the table segment ``t$branch_b``.

Errors: an unknown tag is 404 ``TAG``, an unknown branch 404 ``BRANCH``, an unknown snapshot 404
``SNAPSHOT``; an existing tag or branch 409 with its resource type; a bad name 400.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import SNAPSHOT, RestError, bad_request
from paimon_cli.rest.names import checked
from paimon_cli.rest.paging import page
from paimon_core.errors import InvalidInput

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def _snapshot_json(snap) -> dict:
    return json.loads(snap.to_json())


def _tagged(table, tag: str):
    """The snapshot tag ``tag`` names, without the tag file's own fields (TagNotFound)."""
    return table.resolve_snapshot(tag=tag)


def _iso_duration(ms: int) -> str:
    """Java's ``Duration.toString`` of ``ms`` milliseconds (``PT1H``, ``PT1H30M``, ``PT0.5S``)."""
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    out = "PT" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if rest or out == "PT":
        sec = rest / 1000
        out += f"{int(sec)}S" if sec == int(sec) else f"{sec:g}S"
    return out


def _retained_ms(text: str) -> int:
    """A tag's time-to-live: ``1d``/``12h``/``30m`` (the spec's examples) or an ISO ``PT..``."""
    from paimon_core import parse_duration_ms

    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?", text.strip())
    if m and any(m.groups()):
        h, mi, s = m.groups()
        return int((int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)) * 1000)
    try:
        return parse_duration_ms(text)
    except InvalidInput:
        raise bad_request(f"bad timeRetained {text!r} (use e.g. 1d, 12h, 30m)") from None


# ---------------------------------------------------------------- tags
def list_tags(svc: CatalogService, db: str, name: str, query: dict) -> dict:
    from paimon_core.maintain import tag_names

    table = svc.table(db, name)
    prefix = query.get("tagNamePrefix") or ""
    names = [n for n in svc.core(lambda: tag_names(table), db, name) if n.startswith(prefix)]
    chunk, token = page(names, query)
    return {"tags": chunk, "nextPageToken": token}


def get_tag(svc: CatalogService, db: str, name: str, tag: str) -> dict:
    from paimon_core.maintain import get_tag as core_get

    table = svc.table(db, name)
    info = svc.core(lambda: core_get(table, tag), db, name)
    created, retained = info.created_millis, info.time_retained_ms
    return {
        "tagName": tag,
        "snapshot": _snapshot_json(svc.core(lambda: _tagged(table, tag), db, name)),
        "tagCreateTime": created,
        "tagTimeRetained": None if retained is None else _iso_duration(retained),
    }


def create_tag(svc: CatalogService, db: str, name: str, body: Any) -> None:
    from paimon_core.maintain import create_tag as core_create
    from paimon_core.maintain import tag_exists

    body = svc.obj(body, "CreateTagRequest")
    tag = body.get("tagName")
    if not isinstance(tag, str) or not tag:
        raise bad_request("malformed request: CreateTagRequest needs 'tagName' (string)")
    snapshot_id = body.get("snapshotId")
    if snapshot_id is not None and (not isinstance(snapshot_id, int) or isinstance(snapshot_id, bool)):
        raise bad_request("malformed request: 'snapshotId' must be an integer")
    retained = body.get("timeRetained")
    if retained is not None and not isinstance(retained, str):
        raise bad_request("malformed request: 'timeRetained' must be a string such as '1d'")
    ttl = _retained_ms(retained) if retained else None
    table = svc.table(db, name)
    if body.get("ignoreIfExists") is True and svc.core(lambda: tag_exists(table, tag), db, name):
        return None
    svc.core(lambda: core_create(table, tag, snapshot_id, time_retained_ms=ttl), db, name)
    return None


def delete_tag(svc: CatalogService, db: str, name: str, tag: str) -> None:
    from paimon_core.maintain import delete_tag as core_delete

    table = svc.table(db, name)
    svc.core(lambda: core_delete(table, tag), db, name)


# ---------------------------------------------------------------- branches
def list_branches(svc: CatalogService, db: str, name: str) -> dict:
    from paimon_core.maintain import branch_names

    table = svc.table(db, name)
    return {"branches": svc.core(lambda: branch_names(table), db, name)}


def create_branch(svc: CatalogService, db: str, name: str, body: Any) -> None:
    from paimon_core.maintain import create_branch as core_create

    body = svc.obj(body, "CreateBranchRequest")
    branch = checked(body.get("branch"), "branch")
    tag = body.get("fromTag")
    if tag is not None and not isinstance(tag, str):
        raise bad_request("malformed request: 'fromTag' must be a string")
    table = svc.table(db, name)
    svc.core(lambda: core_create(table, branch, tag or None), db, name)


def drop_branch(svc: CatalogService, db: str, name: str, branch: str) -> None:
    from paimon_core.maintain import delete_branch

    table = svc.table(db, name)
    svc.core(lambda: delete_branch(table, branch), db, name)


def rename_branch(svc: CatalogService, db: str, name: str, branch: str, body: Any) -> None:
    from paimon_core.maintain import rename_branch as core_rename

    body = svc.obj(body, "RenameBranchRequest")
    to = checked(body.get("toBranch"), "branch")
    table = svc.table(db, name)
    svc.core(lambda: core_rename(table, branch, to), db, name)


def forward_branch(svc: CatalogService, db: str, name: str, branch: str) -> None:
    from paimon_core.maintain import fast_forward

    table = svc.table(db, name)
    svc.core(lambda: fast_forward(table, branch), db, name)


def rollback(svc: CatalogService, db: str, name: str, body: Any) -> None:
    """``POST .../rollback``: ``{"instant": {"type": "snapshot", "snapshotId": N} | {"type": "tag",
    "tagName": T}, "fromSnapshot": M?}``, as Java's ``RESTCatalog.rollbackTo`` sends it. A snapshot
    or tag that does not exist is a 404 (``SNAPSHOT``/``TAG``); with ``fromSnapshot``, a table whose
    latest snapshot is another is a 409 and nothing changes."""
    from paimon_core.maintain import rollback as core_rollback
    from paimon_core.maintain import tag_exists

    req = svc.obj(body, "rollback request")
    instant = req.get("instant")
    if not isinstance(instant, dict) or instant.get("type") not in ("snapshot", "tag"):
        raise bad_request(
            'rollback needs an instant: {"type": "snapshot", "snapshotId": N} or {"type": "tag", "tagName": T}'
        )
    table = svc.table(db, name)
    since = req.get("fromSnapshot")
    if since is not None:
        latest = table.snapshots.latest_id()
        if latest != since:
            raise RestError(
                409, f"the latest snapshot is {latest}, not {since}: not rolled back", SNAPSHOT, str(since)
            )
    if instant["type"] == "snapshot":
        sid = instant.get("snapshotId")
        if not isinstance(sid, int) or isinstance(sid, bool):
            raise bad_request("instant.snapshotId must be a snapshot id")
        if not table.snapshots.exists(sid):
            raise RestError(404, f"snapshot {sid} does not exist", SNAPSHOT, str(sid))
        svc.core(lambda: core_rollback(table, to_snapshot=sid), db, name)
        return
    tag = instant.get("tagName")
    if not isinstance(tag, str) or not tag:
        raise bad_request("instant.tagName must be a tag name")
    if not tag_exists(table, tag):
        raise RestError(404, f"tag '{tag}' does not exist", "TAG", tag)
    svc.core(lambda: core_rollback(table, to_tag=tag), db, name)


# ---------------------------------------------------------------- snapshots
def version_snapshot(svc: CatalogService, db: str, name: str, version: str) -> dict:
    """``version``: a snapshot id, ``EARLIEST``/``LATEST``, or a tag name (Java's server's
    reading of the path segment)."""
    table = svc.table(db, name)
    sm = table.snapshots

    def find():
        if version.isdigit():
            return sm.snapshot(int(version))
        if version.upper() == "LATEST":
            return sm.latest()
        if version.upper() == "EARLIEST":
            first = sm.earliest_id()
            return None if first is None else sm.snapshot(first)
        return _tagged(table, version)

    snap = svc.core(find, db, name)
    if snap is None:
        raise RestError(404, f"table '{db}.{name}' has no snapshot {version}", SNAPSHOT, version)
    return {"snapshot": _snapshot_json(snap)}


def list_snapshots(svc: CatalogService, db: str, name: str, query: dict) -> dict:
    table = svc.table(db, name)
    sm = table.snapshots
    ids = svc.core(sm.list_ids, db, name)
    chunk, token = page(ids, query, token_of=int)
    return {"snapshots": [_snapshot_json(s) for s in _existing(sm, chunk)], "nextPageToken": token}


def _existing(sm, ids: list[int]) -> list:
    """The snapshots of ``ids`` still there (one expired since it was listed is left out)."""
    from paimon_core.errors import SnapshotNotFound

    out = []
    for i in ids:
        try:
            out.append(sm.snapshot(i))
        except SnapshotNotFound:
            continue
    return out
