"""How a catalog names databases and tables: ``DB.TABLE`` identifiers and the ``<db>.db`` folder.

Imports nothing of the table stack (no pyarrow), so that a lookup by name stays cheap.
"""

from __future__ import annotations

import re

from paimon_core.errors import InvalidInput

DB_SUFFIX = ".db"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*$")


def parse_identifier(identifier: str, default_db: str | None = None) -> tuple[str, str]:
    """'db.table' -> (db, table); a bare name uses ``default_db``."""
    if not identifier or not identifier.strip():
        raise InvalidInput("no table given (an identifier DB.TABLE)").with_hint("table")
    parts = identifier.strip().split(".")
    if len(parts) == 1 and default_db:
        parts = [default_db, parts[0]]
    if len(parts) != 2 or not all(NAME_PATTERN.match(p) for p in parts):
        raise InvalidInput(f"bad table name '{identifier}': use DB.TABLE with letters, digits, _ or -")
    return parts[0], parts[1]
