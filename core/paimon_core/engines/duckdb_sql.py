"""``paimon sql`` on DuckDB (embedded, in this process): the default SQL engine.

Each table a statement names (``sql.refs``: the same names and time-travel spellings as on
Spark) is registered on the connection as a ``read.arrow_dataset.SnapshotDataset`` under its
view name, and the statement is rewritten to use it. DuckDB pushes the columns it needs and the
filters its optimizer moved into the scan down to our planning and reading (see
``arrow_dataset`` for why a Dataset is the object DuckDB pushes into). ``$diff=`` references
are computed whole (``read.diff``) and registered as Arrow tables.

Statements: queries (SELECT, VALUES, WITH, EXPLAIN, ...) run on DuckDB; the writes of
``sql.script.parse_write`` run through our table write and delete (each exactly one commit);
any other statement that would change something (CREATE, COPY, ATTACH, UPDATE, ...) is refused
with one line before DuckDB runs it. Errors DuckDB raises become one-line ``SqlError``s in the
user's names (``duckdb_errors``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.engines.sql.aggregates import metadata_answer
from paimon_core.engines.sql.refs import (
    TableRef,
    catalog_exists,
    find_refs,
    in_user_terms,
    resolve,
    rewrite,
)
from paimon_core.engines.sql.writes import WriteSummary, run_write
from paimon_core.errors import SqlError

if TYPE_CHECKING:
    from paimon_core.catalog import Catalog

BATCH_ROWS = 65_536
# statement types DuckDB may run: they read only (a query, its plan, a setting of this session)
_READ_ONLY = {"SELECT", "EXPLAIN", "RELATION", "SET", "VARIABLE_SET", "PRAGMA"}


@dataclass
class SqlResult:
    """Either ``rows`` (a stream of the query's result) or ``write``."""

    rows: pa.RecordBatchReader | None = None
    write: WriteSummary | None = None


def _first_line(e: BaseException) -> str:
    line = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), type(e).__name__)
    return line.rstrip(";").rstrip()


def as_sql_error(e: BaseException, query: str = "", refs=(), datasets=()) -> BaseException:
    """A DuckDB error as a one-line ``SqlError`` (view names turned back into the table
    references of ``query``); an error our own read raised inside a scan of one of
    ``datasets`` as itself."""
    for d in datasets:
        failure = getattr(d, "failure", None)
        if failure is not None:
            d.failure = None
            return failure
    line = _first_line(e)
    if "INT128" in line and "INT64" in line:  # a HUGEINT result cast to BIGINT by query()
        column = line.rsplit("column ", 1)[-1] if "column " in line else "a column"
        return SqlError(
            f"an integer result ({column}) does not fit in BIGINT (64 bits); "
            "cast it to DECIMAL(38, 0) to get it exactly"
        )
    return SqlError(in_user_terms(line, query, list(refs), '"'))


WIDE_INTEGERS = ("HUGEINT", "UHUGEINT")


def _wide_integers_as_bigint(relation):
    """``relation`` with its HUGEINT/UHUGEINT columns cast to BIGINT (the others as they are)."""
    types = [str(t) for t in relation.types]
    if not any(t in WIDE_INTEGERS for t in types):
        return relation

    def quoted(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    exprs = [
        f"CAST({quoted(c)} AS BIGINT) AS {quoted(c)}" if t in WIDE_INTEGERS else quoted(c)
        for c, t in zip(relation.columns, types, strict=True)
    ]
    return relation.project(", ".join(exprs))


@contextmanager
def duckdb_errors(query: str = "", refs=(), datasets=()) -> Iterator[None]:
    """DuckDB's answers to a mistake (parse, bind, catalog, conversion errors...) as one-line
    ``SqlError``s (``as_sql_error``)."""
    import duckdb

    try:
        yield
    except duckdb.Error as e:
        raise as_sql_error(e, query, refs, datasets) from e


class DuckDbSql:
    """A DuckDB connection over ``catalog``'s tables; ``run`` one statement at a time (the
    tables are read at their latest snapshot as of each statement). A count/min/max the
    manifests answer exactly (``sql.aggregates``) is answered from them, without DuckDB, unless
    ``metadata_aggregates`` is False; the connection is opened by the first statement that needs
    it (``con``)."""

    def __init__(self, catalog: Catalog, connection=None, metadata_aggregates: bool = True):
        self.catalog = catalog
        self._con = connection
        self._configured = False
        self.metadata_aggregates = metadata_aggregates
        self.from_metadata = False  # whether the last query was answered from manifests
        self.exists = catalog_exists(catalog)
        self.datasets: dict[str, object] = {}
        self.last_refs: tuple[str, list] = ("", [])  # view -> what is registered (SnapshotDataset / table)

    @property
    def con(self):
        """The DuckDB connection (opened and set up on first use)."""
        if self._con is None:
            import duckdb

            self._con = duckdb.connect()
        if not self._configured:
            self._configured = True
            self._con.execute("SET python_enable_replacements = false")  # no Python variables as tables
            self._con.execute("SET TimeZone = 'UTC'")  # TIMESTAMP WITH LOCAL TIME ZONE shown in UTC
        return self._con

    def run(self, statement: str) -> SqlResult:
        write = run_write(self.catalog, statement, lambda q: self.query_table(q, exact_wide_integers=True))
        return SqlResult(write=write) if write is not None else SqlResult(rows=self.query(statement))

    # ---- queries
    def _register(self, statement: str) -> tuple[str, list]:
        """Register the references of ``statement``; the rewritten text and the references."""
        from paimon_core.read.arrow_dataset import SnapshotDataset

        refs = find_refs(statement, self.exists, "duckdb")
        done: set[TableRef] = set()
        for _, _, ref in refs:
            if ref in done:
                continue
            done.add(ref)
            src = resolve(self.catalog, ref)
            if src.system is not None:
                obj = src.system_rows()
            elif src.diff is not None:
                obj = src.diff_rows()
            else:
                assert src.at_table is not None  # a table reference
                obj = SnapshotDataset(src.at_table, src.snapshot)
            self.con.register(ref.view, obj)
            self.datasets[ref.view] = obj
        return rewrite(statement, refs, '"'), refs

    def query(self, statement: str, exact_wide_integers: bool = False) -> pa.RecordBatchReader:
        """The result of a read-only statement as a stream of batches.

        DuckDB's 128-bit integers (SUM of INT or BIGINT is HUGEINT) come out as BIGINT, as Spark,
        Flink and Java SQL type those sums: a value beyond 64 bits is an error naming the column
        (DECIMAL(38, 0) keeps it). ``exact_wide_integers`` keeps them (INSERT ... SELECT, whose
        target column decides)."""
        self.from_metadata = False
        if self.metadata_aggregates:
            answer = metadata_answer(self.catalog, statement, self.exists)
            if answer is not None:
                self.from_metadata = True
                return pa.RecordBatchReader.from_batches(answer.schema, answer.to_batches())
        rewritten, refs = self._register(statement)
        self.last_refs = (statement, refs)  # for errors raised while the result streams
        with duckdb_errors(statement, refs, list(self.datasets.values())):
            kinds = [s.type.name for s in self.con.extract_statements(rewritten)]
            if len(kinds) != 1:
                raise SqlError("give one statement at a time (or a script with -f: split at ';')")
            if kinds[0] not in _READ_ONLY:
                raise SqlError(
                    f"{kinds[0]} statements are not supported: paimon sql runs queries, INSERT INTO|OVERWRITE "
                    "db.t SELECT|VALUES ... and DELETE FROM db.t WHERE ... (other changes: the paimon commands)"
                )
            relation = self.con.sql(rewritten)
            if relation is None:  # SET and the like: no rows
                return pa.RecordBatchReader.from_batches(pa.schema([]), [])
            if not exact_wide_integers:
                relation = _wide_integers_as_bigint(relation)
            return relation.to_arrow_reader(BATCH_ROWS)

    def query_table(self, statement: str, exact_wide_integers: bool = False) -> pa.Table:
        reader = self.query(statement, exact_wide_integers)
        with duckdb_errors(*self.last_refs, list(self.datasets.values())):
            return reader.read_all()
