"""Table listings over REST: a database's table names (``tables``), their details
(``table-details``: each a ``GetTableResponse``), every table of the catalog (``/tables``:
``Identifier``s), and a table found by its id (``tables/id/{id}``).

Filters as Java's test server applies them: ``tableNamePattern``/``databaseNamePattern`` (SQL
``LIKE``), and ``tableType``: ``table`` names Paimon tables, any other type the tables whose
``type`` option is exactly that, which are none here: a table whose ``type`` is not ``table``
is refused by the core (``options/table_rules.py``), so every table listed is one. Paging is ``paging.py``'s; the
global listing is ordered by ``db.table`` and its page token is the last ``db.table`` sent.
A table dropped while a listing runs is left out of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_cli.rest.errors import TABLE, RestError
from paimon_cli.rest.paging import like, max_results, page
from paimon_core.errors import DatabaseNotFound, InvalidInput, NotFound

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService

PAIMON_TYPE = "table"


def _type_matches(wanted: str | None) -> bool:
    return not wanted or wanted == PAIMON_TYPE


def _names(svc: CatalogService, db: str, query: dict) -> list[str]:
    matches = like(query.get("tableNamePattern"))
    return [n for n in svc.core(lambda: svc.catalog.list_tables(db), db) if matches(n)]


def _details(svc: CatalogService, db: str, names: list[str]) -> list[dict]:
    """The ``GetTableResponse`` of each table of ``names`` still there."""
    out = []
    for n in names:
        try:
            got = svc.get_table(db, n)
        except RestError as e:
            if e.status == 404:
                continue
            raise
        out.append(got)
    return out


def list_tables(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)
    if _type_matches(query.get("tableType")):
        names = _names(svc, db, query)
    else:
        svc.require_database(db)
        names = []
    chunk, token = page(names, query)
    return {"tables": chunk, "nextPageToken": token}


def list_table_details(svc: CatalogService, db: str, query: dict) -> dict:
    max_results(query)
    svc.require_database(db)
    wanted = _type_matches(query.get("tableType"))
    details = _details(svc, db, _names(svc, db, query)) if wanted else []
    chunk, token = page(details, query, key=lambda d: d["name"])
    return {"tableDetails": chunk, "nextPageToken": token}


def list_tables_globally(svc: CatalogService, query: dict) -> dict:
    max_results(query)
    db_matches = like(query.get("databaseNamePattern"))
    table_matches = like(query.get("tableNamePattern"))
    found = []
    for db in svc.core(svc.catalog.list_databases):
        if not db_matches(db):
            continue
        try:
            names = svc.catalog.list_tables(db)
        except DatabaseNotFound:
            continue  # dropped meanwhile
        found.extend((db, n) for n in names if table_matches(n))
    chunk, token = page(found, query, key=lambda x: f"{x[0]}.{x[1]}")
    return {"tables": [{"database": d, "object": t} for d, t in chunk], "nextPageToken": token}


def get_table_by_id(svc: CatalogService, table_id: str) -> dict:
    """The table whose id (``GetTableResponse.id``: ``db.t.<creation millis>``) is ``table_id``;
    404 ``TABLE`` naming the id when no table has it (also after a rename, which changes it)."""
    missing = RestError(404, f"no table has id '{table_id}'", TABLE, table_id)
    parts = table_id.split(".")
    if len(parts) != 3 or not parts[2].isdigit():
        raise missing
    db, name, _created = parts
    try:
        table = svc.catalog.get_table(f"{db}.{name}")
    except (NotFound, InvalidInput):  # InvalidInput: the id's names are no table's names
        raise missing from None
    if svc.table_id(table) != table_id:
        raise missing
    return svc.get_table(db, name)
