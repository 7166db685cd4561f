"""Spark SQL over Paimon tables without a Java connector: the tables a query names become
temporary views of ``to_dataframe`` (or of a diff), and the query is rewritten to use them.

Table references (``DB.TABLE``, each part optionally backquoted; only names of tables that
exist in the warehouse are replaced, so aliases and columns are left alone):

* ``db.t``: the latest snapshot;
* ``db.t VERSION AS OF 42`` / ``db.t VERSION AS OF 'nightly'`` (a tag) /
  ``db.t TIMESTAMP AS OF '2024-05-01 12:00:00'`` (UTC unless an offset is given, or epoch
  millis): Spark SQL's own time-travel clauses (also ``FOR SYSTEM_VERSION AS OF`` /
  ``FOR SYSTEM_TIME AS OF``), as in Paimon's Spark connector;
* ``` `db.t$snapshot=42` ```, ``` `db.t$tag=nightly` ```, ``` `db.t$as_of=2024-05-01` ```: the
  same as one backquoted identifier;
* ``` `db.t$branch_b` ```: branch ``b`` of the table (as Paimon spells it); the clauses above
  and the ``$...=`` suffixes apply to it too (``` `db.t$branch_b$tag=nightly` ```);
* ``` `db.t$diff=A..B` ```: the changes in (A, B] (snapshot ids or tags; A = 0 means from the
  empty table) as rows with ``_row_kind`` first (``paimon diff``'s auto mode); append
  ``,mode=changelog|delta|diff`` and/or ``,per_snapshot`` for the other modes / a
  ``_snapshot`` column, e.g. ``` `db.t$diff=3..5,mode=delta,per_snapshot` ```.

Everything is valid Spark SQL before the rewrite (backquoted identifiers may hold any
character), so editors and linters accept these queries.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from paimon_core.errors import InvalidInput, PaimonError, SqlError

if TYPE_CHECKING:  # annotations only: table.py imports the modules doing the work
    from paimon_core.table import FileStoreTable

_IDENT = r"(?:`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_]*)"
_TOKEN = re.compile(
    r"(?P<skip>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|--[^\n]*|/\*.*?\*/)"
    rf"|(?<![\w.`])(?P<name>{_IDENT}(?:\s*\.\s*{_IDENT})*)",
    re.S,
)
_PART = re.compile(_IDENT)
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
    return part[1:-1].replace("``", "`") if part.startswith("`") else part


def _literal(text: str) -> str:
    if text[:1] in "'\"":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text


def _suffix_ref(db: str, name: str) -> TableRef:
    """``t$snapshot=42``, ``t$branch_b``, ``t$branch_b$tag=x`` etc. -> TableRef (``name`` is
    the part after the database)."""
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
    if key not in ("snapshot", "tag", "as_of", "diff") or not eq or not value.strip():
        raise InvalidInput(
            f"unknown table suffix '${suffix}' in `{db}.{name}`: use $snapshot=ID, $tag=NAME, "
            "$as_of=TIME, $diff=A..B, $branch_NAME or a system table ($snapshots, $files, ...)"
        )
    return TableRef(db, table, key, value.strip(), branch)


def _is_global_system_table(db: str, name: str) -> bool:
    from paimon_core.metadata.branches import SYSTEM_DATABASE
    from paimon_core.systables import GLOBAL_SYSTEM_TABLES

    return db.lower() == SYSTEM_DATABASE and name.lower() in GLOBAL_SYSTEM_TABLES


def find_refs(query: str, exists: Callable[[str], bool]) -> list[tuple[int, int, TableRef]]:
    """(start, end, TableRef) of each table reference in ``query``; ``exists(identifier)`` says
    whether a DB.TABLE names a table of the warehouse."""
    out = []
    for m in _TOKEN.finditer(query):
        if m.group("name") is None:
            continue
        parts = [_unquote(p) for p in _PART.findall(m.group("name"))]
        start, end = m.span("name")
        if len(parts) == 1 and "." in parts[0] and "$" in parts[0]:
            db, _, rest = parts[0].partition(".")
            ref = _suffix_ref(db, rest)
            if not exists(ref.main_identifier):
                raise InvalidInput(f"table {ref.main_identifier} does not exist (in `{parts[0]}`)")
            out.append((start, end, ref))
            continue
        if len(parts) < 2:
            continue
        db, name = parts[0], parts[1]
        if "$" in name:
            ref = _suffix_ref(db, name)
            if not exists(ref.main_identifier):
                raise InvalidInput(f"table {ref.main_identifier} does not exist")
        elif exists(f"{db}.{name}"):
            ref = TableRef(db, name)
        elif _is_global_system_table(db, name):  # sys.all_table_options, sys.catalog_options
            ref = TableRef(db, name, "system")
        else:
            continue
        if len(parts) > 2:  # db.t.column: keep the column, qualified by the view
            tail = m.group("name")
            for _ in range(2):  # skip the two parts of the table name
                part = _PART.search(tail)
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


def rewrite(query: str, refs) -> str:
    parts, pos = [], 0
    for start, end, ref in refs:
        parts.append(query[pos:start])
        parts.append(f"`{ref.view}`")
        pos = end
    parts.append(query[pos:])
    return "".join(parts)


def _point(table: FileStoreTable, text: str):
    """A diff end point: a snapshot id, a tag (its Snapshot, readable after expiry) or a time."""
    from paimon_core.metadata.time_travel import diff_point, parse_point

    return diff_point(table, parse_point(table, text))


def ref_dataframe(spark, catalog, ref: TableRef):
    from paimon_core.engines.spark.frames import to_dataframe

    if ref.kind == "system":  # a system table: built by the driver, handed over as Arrow
        name = ref.identifier if ref.arg is None else f"{ref.identifier}${ref.arg}"
        rows = catalog.system_table(name).to_arrow()
        return spark.createDataFrame(rows.to_pandas(), schema=_spark_schema(rows.schema))
    table = catalog.get_table(ref.identifier)
    if ref.kind == "latest":
        return to_dataframe(spark, table)
    arg = ref.arg
    if arg is None:
        raise InvalidInput(f"${ref.kind}= on {ref.identifier} needs a value")
    if ref.kind == "snapshot":
        if not arg.isdigit():
            raise InvalidInput(f"$snapshot= needs a snapshot id, not '{arg}'")
        return to_dataframe(spark, table, table.at(snapshot=int(arg)).snapshot)
    if ref.kind == "tag":
        return to_dataframe(spark, table, table.at(tag=arg).snapshot)
    if ref.kind == "as_of":
        return to_dataframe(spark, table, table.at(time=arg).snapshot)
    # diff
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
    return diff_dataframe(spark, table, _point(table, a), _point(table, b), mode, per_snapshot)


def _spark_schema(schema):
    """The Spark schema of an Arrow schema (system tables: strings, integers, timestamps, arrays)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def sql(spark, catalog, query: str, exists: Callable[[str], bool] | None = None):
    """Run ``query`` on ``spark`` with the Paimon tables it names (see the module doc) registered
    as temporary views; returns the DataFrame (lazy). ``catalog``: a FileSystemCatalog."""
    if exists is None:

        def in_catalog(identifier: str) -> bool:
            try:
                return catalog.table_exists(identifier)
            except PaimonError:  # not a valid table name: not ours
                return False

        exists = in_catalog

    refs = find_refs(query, exists)
    done = set()
    for _, _, ref in refs:
        if ref in done:
            continue
        ref_dataframe(spark, catalog, ref).createOrReplaceTempView(ref.view)
        done.add(ref)
    from pyspark.errors import AnalysisException

    try:
        return spark.sql(rewrite(query, refs))
    except AnalysisException as e:  # in the user's terms: their table names, their positions
        raise SqlError(in_user_terms(_first_line(e), query, refs)) from e


_POSITION = re.compile(r"(?P<a>\(line |line )(?P<line>\d+)(?P<b>,? pos )(?P<pos>\d+)")


def in_user_terms(message: str, query: str, refs) -> str:
    """A message Spark wrote about the rewritten query, about ``query``: view names become the
    table references they replaced, positions (line N, pos P) are moved back."""
    if not refs:
        return message
    rewritten = rewrite(query, refs)
    for start, end, ref in refs:
        message = message.replace(f"`{ref.view}`", query[start:end]).replace(ref.view, query[start:end])

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


@contextmanager
def user_errors():
    """Spark's answers to mistakes in a query as one-line ``SqlError``s: analysis and parse
    errors (unknown table or column, syntax), and data errors (SQLSTATE class 22: a failed
    cast, a division by zero) keep the first line of Spark's message, without the query plan
    or the JVM stack trace. PySpark would also log each such error with its stack trace as
    JSON on stderr before raising it; those loggers are silenced here."""
    from pyspark.errors import AnalysisException, PySparkException
    from pyspark.logger import PySparkLogger

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).disabled = True
    try:
        yield
    except AnalysisException as e:
        raise SqlError(_first_line(e)) from e
    except PySparkException as e:
        if (e.getSqlState() or "").startswith("22"):
            raise SqlError(_first_line(e)) from e
        raise


def _first_line(e: BaseException) -> str:
    line = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return line.rstrip(";").rstrip()


# ---- diffs on executors


def _diff_task(spec, jobs: list, mode: str, per_snapshot: bool, columns, target, batches):
    """Each job is (start, end): the core's diff of that range, cast to Spark's Arrow types."""
    from paimon_core.engines.spark.tasks import to_spark_arrow
    from paimon_core.read.diff import diff

    table = spec.table()
    for ids in batches:
        for j in ids.column(0).to_pylist():
            a, b = jobs[j]
            t = diff(table, a, b, mode, per_snapshot, columns)
            if t.num_rows:
                yield from to_spark_arrow(t, target).to_batches()


def diff_dataframe(
    spark, table: FileStoreTable, start, end, mode: str = "auto", per_snapshot: bool = False, columns=None
):
    """``paimon_core.read.diff.diff`` as a Spark DataFrame computed on the executors: one task per
    snapshot of (start, end] for changelog/delta modes and per-snapshot diffs, one task for a
    state-against-state diff. ``start``/``end``: snapshot ids or Snapshot objects (tags)."""
    from paimon_core.engines.spark import tasks as T
    from paimon_core.engines.spark.frames import ship_core
    from paimon_core.engines.spark.types import spark_schema
    from paimon_core.metadata.snapshot import Snapshot
    from paimon_core.read import diff as D

    if mode not in D.MODES:
        raise InvalidInput(f"unknown diff mode '{mode}' (one of {', '.join(D.MODES)})")
    producer = table.schema.core_options.changelog_producer
    resolved = mode
    if mode == "auto":
        resolved = "changelog" if producer != "none" and table.is_primary_key_table else "diff"
    a_id = start.id if isinstance(start, Snapshot) else start
    b_id = end.id if isinstance(end, Snapshot) else end
    # the driver validates the range (as the core does) and builds the schema from an empty diff
    if resolved == "diff" and not per_snapshot:
        if a_id > b_id:
            raise D.range_error(a_id, b_id)
        if not isinstance(start, Snapshot) and not isinstance(end, Snapshot):
            D.check_range(table, a_id, b_id, need_all=False)
        jobs = [(start, end)]
    else:
        D.check_range(table, a_id, b_id, need_all=True)
        jobs = [(sid - 1, sid) for sid in range(a_id + 1, b_id + 1)]
    empty = D.empty_changes(table, columns or table.schema.field_names)
    if per_snapshot:
        import pyarrow as pa

        empty = empty.add_column(1, D.SNAPSHOT, pa.array([], pa.int64()))
    sschema, target = spark_schema(empty.schema)
    if not jobs:
        return spark.createDataFrame([], sschema)
    ship_core(spark)
    spec = T.TableSpec.of(table)
    return spark.range(0, len(jobs), 1, len(jobs)).mapInArrow(
        partial(_diff_task, spec, jobs, mode, per_snapshot, columns, target), sschema
    )
