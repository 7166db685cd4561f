"""Views over REST. No backing catalog of this project (filesystem, JDBC, Hive) stores views, so
a database has none: listings are empty (paged like every list), a named view is 404 ``VIEW``,
and creating, altering or renaming one is refused with 501 and the spec's error body, changing
nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_cli.rest.errors import RestError
from paimon_cli.rest.paging import max_results

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService

VIEW = "VIEW"


def list_views(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)  # a bad page size is refused here as on every list
    svc.require_database(db)
    return {"views": [], "nextPageToken": None}


def get_view(svc: CatalogService, db: str, view: str) -> None:
    """Getting or dropping view ``view``: 404 ``VIEW`` (404 ``DATABASE`` when ``db`` is not)."""
    svc.require_database(db)
    raise RestError(404, f"view '{db}.{view}' does not exist", VIEW, view)


def unsupported(what: str) -> RestError:
    return RestError(501, f"{what}: the backing catalog of this server stores no views", VIEW, None)
