"""A table's consumers over REST, through ``maintain/consumers.py`` on the backing table (its
branch when the table segment is ``t$branch_b``): the paged list (``ConsumerInfo``:
``consumerId``, ``nextSnapshot``) and ``consumers/reset``.

``nextSnapshotId`` must be a snapshot a reader can start from (earliest .. latest + 1; 400
otherwise); null deletes the consumer, and deleting one that does not exist changes nothing
(200), as Java's server deletes it quietly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paimon_cli.rest.errors import bad_request, from_core
from paimon_cli.rest.paging import page
from paimon_core.errors import NotFound, PaimonError

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService


def list_consumers(svc: CatalogService, db: str, name: str, query: dict) -> dict:
    from paimon_core.maintain import list_consumers as core_list

    table = svc.table(db, name)
    found = svc.core(lambda: core_list(table), db, name)
    chunk, token = page(found, query, key=lambda c: c.consumer_id)
    return {
        "consumers": [{"consumerId": c.consumer_id, "nextSnapshot": c.next_snapshot} for c in chunk],
        "nextPageToken": token,
    }


def reset_consumer(svc: CatalogService, db: str, name: str, body: Any) -> None:
    from paimon_core.maintain import delete_consumer, reset_consumer

    body = svc.obj(body, "ResetConsumerRequest")
    consumer = body.get("consumerId")
    if not isinstance(consumer, str) or not consumer:
        raise bad_request("malformed request: ResetConsumerRequest needs 'consumerId' (string)")
    nxt = body.get("nextSnapshotId")
    if nxt is not None and (not isinstance(nxt, int) or isinstance(nxt, bool)):
        raise bad_request("malformed request: 'nextSnapshotId' must be a snapshot id or null")
    table = svc.table(db, name)
    if nxt is not None:
        svc.core(lambda: reset_consumer(table, consumer, nxt), db, name)
        return
    try:
        delete_consumer(table, consumer)
    except NotFound:
        pass  # none to delete: Java's server deletes quietly
    except PaimonError as e:
        raise from_core(e, db, name) from None
