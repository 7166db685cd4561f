"""Table references in SQL text, the same on every SQL engine (DuckDB and Spark): which
``DB.TABLE`` names of a query are the warehouse's tables, at which snapshot, and the rewrite of
the query that names each one by the view an engine registers for it.

Table references (``DB.TABLE``, each part optionally backquoted or double-quoted; only names of
tables that exist in the warehouse are replaced, so aliases and columns are left alone):

* ``db.t``: the latest snapshot;
* ``db.t VERSION AS OF 42`` / ``db.t VERSION AS OF 'nightly'`` (a tag) /
  ``db.t TIMESTAMP AS OF '2024-05-01 12:00:00'`` (UTC unless an offset is given, or epoch
  millis): Spark SQL's time-travel clauses (also ``FOR SYSTEM_VERSION AS OF`` /
  ``FOR SYSTEM_TIME AS OF``), as in Paimon's Spark connector; removed by the rewrite, so DuckDB
  takes them too;
* ``` `db.t$snapshot=42` ```, ``` `db.t$tag=nightly` ```, ``` `db.t$as_of=2024-05-01` ```: the
  same as one quoted identifier;
* ``` `db.t$branch_b` ```: branch ``b`` of the table (parsed by ``metadata/branches.py``); the
  clauses above and the ``$...=`` suffixes apply to it too (``` `db.t$branch_b$tag=nightly` ```);
* ``` `db.t$diff=A..B` ```: the changes in (A, B] (snapshot ids or tags; A = 0 means from the
  empty table) as rows with ``_row_kind`` first (``paimon diff``'s auto mode); append
  ``,mode=changelog|delta|diff`` and/or ``,per_snapshot`` for the other modes / a
  ``_snapshot`` column, e.g. ``` `db.t$diff=3..5,mode=delta,per_snapshot` ```.

``parse_suffix`` is the one place a ``$`` suffix after a table name is understood (system
tables plug in there: a new ``kind``); ``resolve`` turns a reference into what an engine reads
(``RefSource``). Everything is valid SQL before the rewrite (quoted identifiers may hold any
character), so editors and linters accept these queries.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paimon_core.errors import InvalidInput, PaimonError

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    import pyarrow as pa

    from paimon_core.catalog import Catalog
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.table import FileStoreTable

_BACKQUOTED = r"`(?:[^`]|``)+`"
_DOUBLE_QUOTED = r'"(?:[^"]|"")+"'
_BARE = r"[A-Za-z_][A-Za-z0-9_$]*"  # db.t$branch_b needs no quotes
_COMMENT = r"--[^\n]*|/\*.*?\*/"
_SQ_STRING = r"'(?:[^'\\]|\\.)*'"


def _tokens(ident: str, skip: str) -> re.Pattern:
    return re.compile(
        rf"(?P<skip>{skip})|(?<![\w.`\"])(?P<name>{ident}(?:\s*\.\s*{ident})*)",
        re.S,
    )


# Spark: `identifiers`, "..." is a string. DuckDB: "identifiers" (backquotes taken as well: our
# references are replaced before DuckDB reads the query), '...' strings ('' inside).
_DIALECTS = {
    "spark": (
        _tokens(rf"(?:{_BACKQUOTED}|{_BARE})", rf"{_SQ_STRING}|\"(?:[^\"\\]|\\.)*\"|{_COMMENT}"),
        re.compile(rf"{_BACKQUOTED}|{_BARE}"),
    ),
    "duckdb": (
        _tokens(rf"(?:{_BACKQUOTED}|{_DOUBLE_QUOTED}|{_BARE})", rf"'(?:[^']|'')*'|{_COMMENT}"),
        re.compile(rf"{_BACKQUOTED}|{_DOUBLE_QUOTED}|{_BARE}"),
    ),
}
_TEMPORAL = re.compile(
    r"\s+(?:(?P<v>(?:FOR\s+SYSTEM_VERSION|VERSION)\s+AS\s+OF)|(?P<t>(?:FOR\s+SYSTEM_TIME|TIMESTAMP)\s+AS\s+OF))"
    r"\s+(?P<val>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?\d+)",
    re.I,
)


@dataclass(frozen=True)
class TableRef:
    """One table reference of a query: ``kind`` latest | snapshot | tag | as_of | diff."""

    db: str
    table: str
    kind: str = "latest"
    arg: str | None = None
    branch: str | None = None

    @property
    def main_identifier(self) -> str:
        return f"{self.db}.{self.table}"

    @property
    def identifier(self) -> str:
        from paimon_core.metadata.branches import with_branch

        return with_branch(self.main_identifier, self.branch)

    @property
    def view(self) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", f"paimon_{self.db}_{self.table}")
        if self.branch:
            digest = hashlib.sha1(self.branch.encode()).hexdigest()[:6]
            base += "__b_" + re.sub(r"[^A-Za-z0-9_]", "_", self.branch)[:30] + "_" + digest
        if self.kind == "latest":
            return base
        tail = re.sub(r"[^A-Za-z0-9_]", "_", f"{self.kind}_{self.arg}")[:40]
        digest = hashlib.sha1(f"{self.kind}\0{self.arg}".encode()).hexdigest()[:6]
        return f"{base}__{tail}_{digest}"


def _unquote(part: str) -> str:
    if part[:1] in '`"':
        return part[1:-1].replace(part[0] * 2, part[0])
    return part


def _literal(text: str) -> str:
    if text[:1] in "'\"":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


TRAVEL_KINDS = ("snapshot", "tag", "as_of", "diff")


def parse_suffix(db: str, name: str) -> TableRef:
    """``t$snapshot=42``, ``t$branch_b``, ``t$branch_b$tag=x`` etc. -> TableRef (``name`` is
    the part after the database): the one place a ``$`` suffix of a table name in SQL is
    understood. A new kind of suffix (system tables such as ``$snapshots``) is added here and
    in ``resolve``."""
    from paimon_core.metadata.branches import split_branch, split_system
    from paimon_core.systables import TABLE_SYSTEM_TABLES

    if "=" not in name:  # `db.t$snapshots`, `db.t$branch_b$files`: split where every name is
        base, system = split_system(f"{db}.{name}")
        if system is not None and system.lower() in TABLE_SYSTEM_TABLES:
            main, branch = split_branch(base)
            return TableRef(db, main[len(db) + 1 :], "system", system.lower(), branch)
    table, _, suffix = name.partition("$")
    branch = None
    if suffix.startswith("branch_"):  # the branch, parsed where every table name is
        branch_part, more, suffix = suffix.partition("$")
        _, branch = split_branch(f"{db}.{table}${branch_part}")
        if not more:
            return TableRef(db, table, branch=branch)
    key, eq, value = suffix.partition("=")
    key = key.strip().lower()
    if key not in TRAVEL_KINDS or not eq or not value.strip():
        raise InvalidInput(
            f"unknown table suffix '${suffix}' in `{db}.{name}`: use $snapshot=ID, $tag=NAME, "
            "$as_of=TIME, $diff=A..B, $branch_NAME or a system table ($snapshots, $files, ...)"
        )
    return TableRef(db, table, key, value.strip(), branch)


def _is_global_system_table(db: str, name: str) -> bool:
    from paimon_core.metadata.branches import SYSTEM_DATABASE
    from paimon_core.systables import GLOBAL_SYSTEM_TABLES

    return db.lower() == SYSTEM_DATABASE and name.lower() in GLOBAL_SYSTEM_TABLES


def find_refs(
    query: str, exists: Callable[[str], bool], dialect: str = "spark"
) -> list[tuple[int, int, TableRef]]:
    """(start, end, TableRef) of each table reference in ``query``; ``exists(identifier)`` says
    whether a DB.TABLE names a table of the warehouse; ``dialect`` (spark | duckdb) says which
    quotes make identifiers."""
    token, part_rx = _DIALECTS[dialect]
    out = []
    for m in token.finditer(query):
        if m.group("name") is None:
            continue
        parts = [_unquote(p) for p in part_rx.findall(m.group("name"))]
        start, end = m.span("name")
        if len(parts) == 1 and "." in parts[0] and "$" not in parts[0] and exists(parts[0]):
            db, _, rest = parts[0].partition(".")  # `db.t` as one quoted identifier
            out.append((start, end, TableRef(db, rest)))
            continue
        if len(parts) == 1 and "." in parts[0] and "$" in parts[0]:
            db, _, rest = parts[0].partition(".")
            ref = parse_suffix(db, rest)
            if not exists(ref.main_identifier):
                raise InvalidInput(f"table {ref.main_identifier} does not exist (in `{parts[0]}`)")
            out.append((start, end, ref))
            continue
        if len(parts) < 2:
            continue
        db, name = parts[0], parts[1]
        if "$" in name:
            ref = parse_suffix(db, name)
            if not exists(ref.main_identifier):
                raise InvalidInput(f"table {ref.main_identifier} does not exist")
        elif exists(f"{db}.{name}"):
            ref = TableRef(db, name)
        elif _is_global_system_table(db, name):  # sys.tables, sys.all_table_options, ...
            ref = TableRef(db, name, "system")
        else:
            continue
        if len(parts) > 2:  # db.t.column: keep the column, qualified by the view
            tail = m.group("name")
            for _ in range(2):  # skip the two parts of the table name
                part = part_rx.search(tail)
                assert part is not None  # tail starts with the parts of the table name
                tail = tail[part.end() :].lstrip()
                tail = tail[1:].lstrip() if tail.startswith(".") else tail
            out.append((start, end - len(tail) - 1, ref))  # replaces "db.t" (the "." stays)
            continue
        if ref.kind == "latest":
            tm = _TEMPORAL.match(query, end)
            if tm:
                val = _literal(tm.group("val"))
                if tm.group("v"):
                    ref = TableRef(ref.db, ref.table, "snapshot" if val.isdigit() else "tag", val, ref.branch)
                else:
                    ref = TableRef(ref.db, ref.table, "as_of", val, ref.branch)
                end = tm.end()
        out.append((start, end, ref))
    return out


def rewrite(query: str, refs, quote: str = "`") -> str:
    """``query`` with each reference replaced by its view name, quoted with ``quote``."""
    parts, pos = [], 0
    for start, end, ref in refs:
        parts.append(query[pos:start])
        parts.append(f"{quote}{ref.view}{quote}")
        pos = end
    parts.append(query[pos:])
    return "".join(parts)


def _point(table: FileStoreTable, text: str):
    """A diff end point: a snapshot id, a tag (its Snapshot, readable after expiry) or a time."""
    from paimon_core.metadata.time_travel import diff_point, parse_point

    return diff_point(table, parse_point(table, text))


@dataclass(frozen=True)
class DiffSpec:
    """``$diff=A..B[,mode=M][,per_snapshot]``: end points are snapshot ids or tag Snapshots."""

    start: int | Snapshot
    end: int | Snapshot
    mode: str = "auto"
    per_snapshot: bool = False


def parse_diff(table: FileStoreTable, arg: str) -> DiffSpec:
    spec, *flags = [x.strip() for x in arg.split(",")]
    a, sep, b = spec.partition("..")
    if not sep or not a or not b:
        raise InvalidInput(f"$diff= needs A..B (snapshot ids or tags), not '{arg}'")
    mode, per_snapshot = "auto", False
    for f in flags:
        if f.lower() == "per_snapshot":
            per_snapshot = True
        elif f.lower().startswith("mode="):
            mode = f.split("=", 1)[1].strip().lower()
        else:
            raise InvalidInput(f"unknown $diff option '{f}' (mode=auto|changelog|delta|diff, per_snapshot)")
    return DiffSpec(_point(table, a), _point(table, b), mode, per_snapshot)


@dataclass(frozen=True)
class RefSource:
    """What a reference reads. ``base``: the table (of the branch) at its latest schema. Either
    ``at_table``/``snapshot`` (the table viewed through the schema of that snapshot; None: an
    empty table), to be scanned with the engine's pushdown, or ``diff`` (rows computed whole)."""

    base: FileStoreTable | None
    at_table: FileStoreTable | None
    snapshot: Snapshot | None = None
    diff: DiffSpec | None = None
    system: str | None = None  # a system table's full name (db.t$snapshots, sys.catalog_options)
    catalog: Catalog | None = None

    def system_rows(self) -> pa.Table:
        assert self.system is not None and self.catalog is not None  # only for system tables
        return self.catalog.system_table(self.system).to_arrow()

    def diff_rows(self, columns: list[str] | None = None) -> pa.Table:
        from paimon_core.read.diff import diff

        assert self.diff is not None  # only for $diff= references
        d = self.diff
        assert self.base is not None  # a diff is of a table
        return diff(self.base, d.start, d.end, d.mode, d.per_snapshot, columns)


def resolve(catalog: Catalog, ref: TableRef) -> RefSource:
    """The source of one reference (every engine reads references through this)."""
    if ref.kind == "system":  # system tables: core/paimon_core/systables, by their full name
        name = ref.identifier if ref.arg is None else f"{ref.identifier}${ref.arg}"
        return RefSource(None, None, system=name, catalog=catalog)
    table = catalog.get_table(ref.identifier)
    if ref.kind == "latest":
        at = table.at()
        return RefSource(table, at.table, at.snapshot)
    arg = ref.arg
    if arg is None:
        raise InvalidInput(f"${ref.kind}= on {ref.identifier} needs a value")
    if ref.kind == "snapshot":
        if not arg.isdigit():
            raise InvalidInput(f"$snapshot= needs a snapshot id, not '{arg}'")
        at = table.at(snapshot=int(arg))
    elif ref.kind == "tag":
        at = table.at(tag=arg)
    elif ref.kind == "as_of":
        at = table.at(time=arg)
    else:  # diff
        return RefSource(table, table, None, parse_diff(table, arg))
    return RefSource(table, at.table, at.snapshot)


def catalog_exists(catalog: Catalog) -> Callable[[str], bool]:
    """``exists`` for ``find_refs``: whether a DB.TABLE is a table of ``catalog``."""

    def in_catalog(identifier: str) -> bool:
        try:
            return catalog.table_exists(identifier)
        except PaimonError:  # not a valid table name: not ours
            return False

    return in_catalog


_POSITION = re.compile(r"(?P<a>\(line |line )(?P<line>\d+)(?P<b>,? pos )(?P<pos>\d+)")


def in_user_terms(message: str, query: str, refs, quote: str = "`") -> str:
    """A message Spark wrote about the rewritten query, about ``query``: view names become the
    table references they replaced, positions (line N, pos P) are moved back."""
    if not refs:
        return message
    rewritten = rewrite(query, refs, quote)
    for start, end, ref in refs:
        message = message.replace(f"{quote}{ref.view}{quote}", query[start:end]).replace(
            ref.view, query[start:end]
        )

    def original_offset(offset: int) -> int:
        shift = 0  # rewritten - original, for the text before ``offset``
        for start, end, ref in refs:
            new_start = start + shift
            new_end = new_start + len(ref.view) + 2
            if offset < new_start:
                break
            if offset < new_end:
                return start
            shift += (len(ref.view) + 2) - (end - start)
        return offset - shift

    def move(m: re.Match) -> str:
        lines = rewritten.split("\n")
        line, pos = int(m.group("line")), int(m.group("pos"))
        if not 1 <= line <= len(lines):
            return m.group(0)
        offset = original_offset(sum(len(x) + 1 for x in lines[: line - 1]) + pos)
        before = query[:offset]
        new_line = before.count("\n") + 1
        new_pos = offset - (before.rfind("\n") + 1)
        return f"{m.group('a')}{new_line}{m.group('b')}{new_pos}"

    return _POSITION.sub(move, message)
