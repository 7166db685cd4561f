"""SQL text into statements, and the statements that write: the same for every SQL engine.

``split`` cuts a script at the semicolons outside strings, quoted identifiers and comments.
``parse_write`` recognises the writes that map to our operations (each one commit):

* ``INSERT INTO db.t [(c1, c2, ...)] <query>`` and ``INSERT OVERWRITE [TABLE] db.t
  [PARTITION (k = 'v', ...)] [(c1, ...)] <query>``, ``<query>`` a SELECT or VALUES, written by
  the table write (``FileStoreTable.write_arrow``: an overwrite replaces the whole table, or the
  partition named);
* ``DELETE FROM db.t WHERE <filter>`` through ``ops/delete.py`` (``<filter>`` in the ``--where``
  language, which is SQL's for comparisons, IN, BETWEEN, LIKE, IS NULL, AND/OR/NOT);
* ``TRUNCATE [TABLE] db.t [PARTITION (k = 'v', ...)]``, and ``DELETE FROM db.t`` without a
  filter, through ``ops/truncate.py`` (one TRUNCATE commit, as Java's truncateTable).

Any other statement is for the engine to classify (a query, or a write it refuses).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# an unterminated string, quoted name or comment runs to the end (the REPL then reads on)
_PIECE = re.compile(
    r"'(?:[^']|'')*(?:'|\Z)|\"(?:[^\"]|\"\")*(?:\"|\Z)|`(?:[^`]|``)*(?:`|\Z)|--[^\n]*|/\*.*?(?:\*/|\Z)|;"
    r"|[^'\"`;/-]+|.",
    re.S,
)
_NAME = r"(?P<name>(?:`(?:[^`]|``)+`|\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$]*)(?:\s*\.\s*(?:`(?:[^`]|``)+`|\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$]*))*)"
_LEAD = re.compile(r"\A(?:\s+|--[^\n]*|/\*.*?\*/)*", re.S)
_INSERT = re.compile(
    rf"INSERT\s+(?P<mode>INTO|OVERWRITE)\s+(?:TABLE\s+)?{_NAME}\s*"
    r"(?:PARTITION\s*\((?P<partition>[^)]*)\)\s*)?"
    r"(?:\((?P<columns>[^)]*)\)\s*)?(?=SELECT\b|VALUES\b|WITH\b|FROM\b|\()",
    re.I | re.S,
)
_DELETE = re.compile(rf"DELETE\s+FROM\s+{_NAME}\s*(?:WHERE\b(?P<where>.*))?\Z", re.I | re.S)
_TRUNCATE = re.compile(
    rf"TRUNCATE\s+(?:TABLE\s+)?{_NAME}\s*(?:PARTITION\s*\((?P<partition>[^)]*)\)\s*)?\Z", re.I | re.S
)
_SPEC = re.compile(r"\s*(?P<k>`[^`]+`|\"[^\"]+\"|\w+)\s*=\s*(?P<v>'(?:[^']|'')*'|-?[\w.]+)\s*(?:,|\Z)")


def split(script: str) -> list[str]:
    """The statements of ``script`` (stripped; empty ones and bare comments dropped)."""
    out, current = [], []
    for m in _PIECE.finditer(script):
        if m.group(0) == ";":
            out.append("".join(current))
            current = []
        else:
            current.append(m.group(0))
    out.append("".join(current))
    return [s.strip() for s in out if strip_comments(s).strip()]


def strip_comments(statement: str) -> str:
    """``statement`` without its leading whitespace and comments."""
    return statement[_LEAD.match(statement).end() :]  # type: ignore[union-attr]  # matches ""


def is_complete(text: str) -> bool:
    """Whether ``text`` ends a statement: a ``;`` outside strings and comments, at its end
    (the REPL reads lines until then)."""
    pieces = [m.group(0) for m in _PIECE.finditer(text.rstrip())]
    while pieces and (pieces[-1].startswith("--") or pieces[-1].startswith("/*")):
        pieces.pop()
        while pieces and not pieces[-1].strip():
            pieces.pop()
    return bool(pieces) and pieces[-1] == ";"


def unquote_name(name: str) -> str:
    """``db.t`` / ```db`.`t``` / ``"db"."t"`` / ```db.t$branch_b``` -> ``db.t...`` (plain)."""
    parts = re.findall(r"`(?:[^`]|``)+`|\"(?:[^\"]|\"\")+\"|[^.\s]+", name)
    plain = [p[1:-1].replace(p[0] * 2, p[0]) if p[0] in '`"' else p for p in parts]
    return ".".join(plain)


@dataclass(frozen=True)
class Insert:
    table: str  # the name as written, unquoted (db.t or db.t$branch_b)
    overwrite: bool
    query: str  # the SELECT / VALUES whose rows are written
    columns: list[str] | None = None  # the target columns named, in order
    partition: dict[str, str] = field(default_factory=dict)  # INSERT OVERWRITE ... PARTITION (...)


@dataclass(frozen=True)
class Delete:
    table: str
    where: str | None  # None: every row (a truncation)


@dataclass(frozen=True)
class Truncate:
    table: str
    partition: dict[str, str] = field(default_factory=dict)  # TRUNCATE ... PARTITION (...); may be partial


def parse_write(statement: str) -> Insert | Delete | Truncate | None:
    """The write ``statement`` asks for, or None when it is not an INSERT, DELETE or TRUNCATE we
    map. Raises ValueError with the reason for one of a shape we do not take."""
    body = strip_comments(statement)
    head = body[:12].upper()
    if head.startswith("INSERT"):
        m = _INSERT.match(body)
        if not m:
            raise ValueError(
                "INSERT must be INSERT INTO|OVERWRITE db.t [PARTITION (k = 'v', ...)] [(columns)] "
                "followed by SELECT ... or VALUES ..."
            )
        columns = None
        if m.group("columns") is not None:
            columns = [unquote_name(c.strip()) for c in m.group("columns").split(",") if c.strip()]
        partition = _partition(m.group("partition")) if m.group("partition") is not None else {}
        if partition and m.group("mode").upper() != "OVERWRITE":
            raise ValueError("PARTITION (...) is taken by INSERT OVERWRITE only")
        return Insert(
            unquote_name(m.group("name")),
            m.group("mode").upper() == "OVERWRITE",
            body[m.end() :],
            columns,
            partition,
        )
    if head.startswith("DELETE"):
        m = _DELETE.match(body.rstrip())
        if not m:
            raise ValueError("DELETE must be DELETE FROM db.t WHERE <filter>")
        where = m.group("where")
        if where is not None and not where.strip():
            raise ValueError("DELETE FROM db.t WHERE needs a filter after WHERE")
        return Delete(unquote_name(m.group("name")), where.strip() if where is not None else None)
    if head.startswith("TRUNCATE"):
        m = _TRUNCATE.match(body.rstrip())
        if not m:
            raise ValueError("TRUNCATE must be TRUNCATE TABLE db.t [PARTITION (k = 'v', ...)]")
        partition = _partition(m.group("partition")) if m.group("partition") is not None else {}
        if m.group("partition") is not None and not partition:
            raise ValueError("TRUNCATE ... PARTITION () names no partition: give k = 'v', ...")
        return Truncate(unquote_name(m.group("name")), partition)
    return None


def _partition(text: str) -> dict[str, str]:
    out, pos = {}, 0
    while pos < len(text.strip()):
        m = _SPEC.match(text, pos)
        if not m:
            raise ValueError(f"PARTITION ({text}): expected key = 'value', ...")
        key, value = unquote_name(m.group("k")), m.group("v")
        out[key] = value[1:-1].replace("''", "'") if value.startswith("'") else value
        pos = m.end()
    return out
