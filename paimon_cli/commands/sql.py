"""``paimon sql``: SQL over the warehouse's tables, on DuckDB in this process (default) or on
Spark (``--engine spark``). Queries come from the argument, ``-f FILE``, stdin when it is not a
terminal, or a REPL on a terminal (multi-line until ``;``, history in ~/.paimon_sql_history)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from paimon_cli.errors import CliError
from paimon_cli.params import ForceOpt
from paimon_cli.state import get_state

app = typer.Typer()

DISPLAY_ROWS = 1000  # -o table stops here unless --limit says otherwise
HISTORY = Path.home() / ".paimon_sql_history"


def spark_engine(state):
    """The configured Spark master / Connect remote (default local[*])."""
    from paimon_core.engines import get_engine

    s = state.settings.spark
    return get_engine("spark", master=s.master, remote=s.remote, conf=dict(s.conf))


@app.command(
    "sql",
    epilog='DuckDB runs the query in this process; --engine spark (or engine = "spark" in paimon.toml) '
    "starts Spark locally (local[*]) unless --spark-master or --spark-remote says otherwise.",
)
def sql(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(
            metavar="QUERY",
            show_default=False,
            help="SQL naming tables as DB.TABLE. Without it: -f FILE, stdin, or a REPL on a terminal.",
        ),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", "-f", metavar="FILE", help="Run the statements of FILE (separated by ';')."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", metavar="N", min=0, help="At most N rows.")
    ] = None,
    out: Annotated[
        str | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="Write the result to a file instead of printing, in the format its name says: .parquet, "
            ".csv, .json or .jsonl. With --engine spark, a folder of Parquet part files.",
        ),
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Run SQL over tables of the warehouse (DuckDB by default, Spark with --engine spark).

    Tables are named DB.TABLE (quoted parts allowed: `db`.`t`, "db"."t"); other
    names are the engine's. Time travel, the same on both engines:

      db.t VERSION AS OF 42          or `db.t$snapshot=42`   snapshot 42
      db.t VERSION AS OF 'nightly'   or `db.t$tag=nightly`   a tag's snapshot
      db.t TIMESTAMP AS OF '2024-05-01 12:00:00'  or `db.t$as_of=2024-05-01`
      db.t$branch_b                  branch b

    Changes (like `paimon diff`, _row_kind first): `db.t$diff=A..B` for (A, B],
    add ,mode=changelog|delta|diff and/or ,per_snapshot.

    Writes, each one commit, on both engines: INSERT INTO db.t SELECT ... | VALUES ...,
    INSERT OVERWRITE db.t [PARTITION (k='v')] SELECT ..., DELETE FROM db.t [WHERE ...]
    (the filter in the --where language), TRUNCATE TABLE db.t [PARTITION (k='v')] (as a
    DELETE without WHERE: one TRUNCATE commit, nothing rewritten). Scripts (-f) run
    statement by statement.

    Examples:

      paimon sql "SELECT dt, count(*) AS n FROM demo.events GROUP BY dt"
      paimon sql "SELECT * FROM demo.events VERSION AS OF 1 WHERE id < 5"
      paimon sql 'SELECT _row_kind, count(*) FROM `demo.t$diff=1..3` GROUP BY 1'
      paimon sql "INSERT INTO demo.events SELECT * FROM demo.staging"
      paimon sql "SELECT * FROM demo.events" --out events.parquet
      paimon sql -f report.sql -o csv
    """
    state = get_state(ctx)
    if query is not None and file is not None:
        raise typer.BadParameter("give a QUERY or --file, not both", param_hint="'--file'")
    if out is not None and state.settings.engine != "spark":
        from paimon_cli.outfile import check_out

        check_out(Path(out), force)  # refuse an unknown file type, a missing folder, a file there
    spark = state.settings.engine == "spark"
    runner = _SparkRunner(state, limit, out) if spark else _DuckRunner(state, limit, out)
    if query is None and file is None and sys.stdin.isatty():
        if spark:
            raise CliError("the SQL prompt runs on DuckDB: drop --engine spark, or give a QUERY or -f FILE")
        assert isinstance(runner, _DuckRunner)
        _repl(runner)
        return
    script = query if query is not None else _script(file)
    from paimon_core.engines import split_statements as split

    statements = split(script)
    if not statements:
        raise CliError("no SQL statement given")
    if out is not None and len(statements) > 1:
        raise CliError("--out takes the result of one statement; give one")
    for statement in statements:
        runner.run(statement)


def _script(file: Path | None) -> str:
    if file is None:
        return sys.stdin.read()
    try:
        return file.read_text()
    except OSError as e:
        raise CliError(f"--file {file}: {e.strerror or e}") from e


class _DuckRunner:
    """Runs statements on one DuckDB connection, printing each result."""

    def __init__(self, state, limit: int | None, out: str | None):
        self.state, self.limit, self.out = state, limit, out
        self._engine = None

    @property
    def engine(self):
        if self._engine is None:
            from paimon_core.engines import duckdb_engine

            self._engine = duckdb_engine(self.state.catalog)
        return self._engine

    def run(self, statement: str) -> None:
        from paimon_core.engines import local_sql_errors

        with local_sql_errors(self.engine, statement):
            result = self.engine.run(statement)
            if result.write is not None:
                _record_write(self.state, result.write)
                return
            _emit(self.state, _limited(result.rows, self.limit), self.out, self.limit)


def _record_write(state, w) -> None:
    """One record of what a write statement did (``sql.writes.WriteSummary``)."""
    made = f"snapshot {w.snapshot}" if w.snapshot is not None else "no snapshot"
    state.out.record(
        {"action": w.action, "table": w.table, "rows": w.rows, "snapshot": w.snapshot},
        f"{w.action} {w.rows} row{'s' if w.rows != 1 else ''} "
        f"{'from' if w.action in ('deleted', 'truncated') else 'into'} "
        f"{w.table}: {made}",
    )


class _SparkRunner:
    """Runs statements on Spark (started once, at the first statement that needs it): queries
    print as on DuckDB; an INSERT's query runs on Spark and its rows are written here, a DELETE
    or TRUNCATE runs here (``sql.writes``: one commit each, as on DuckDB)."""

    def __init__(self, state, limit: int | None, out: str | None):
        self.state, self.limit, self.out = state, limit, out
        self._engine = None

    def engine(self):
        if self._engine is None:
            from paimon_cli.progress import spinner

            engine = spark_engine(self.state)
            with spinner("starting Spark..."):
                engine.start()
            self._engine = engine
        return self._engine

    def run(self, statement: str) -> None:
        from paimon_core.engines import sql_errors, sql_write

        catalog = self.state.catalog
        with sql_errors():
            summary = sql_write(catalog, statement, lambda q: self.engine().sql(catalog, q).toArrow())
            if summary is not None:
                _record_write(self.state, summary)
            else:
                _run_spark(self.state, self.engine(), statement, self.limit, self.out)


def _limited(reader, limit: int | None):
    """``reader``'s batches, at most ``limit`` rows."""
    import pyarrow as pa

    if limit is None:
        return reader

    def gen():
        left = limit
        for batch in reader:
            if left <= 0:
                return
            batch = batch.slice(0, left)
            left -= batch.num_rows
            yield batch

    return pa.RecordBatchReader.from_batches(reader.schema, gen())


def _emit(state, reader, out: str | None, limit: int | None) -> None:
    from paimon_cli.convert import is_numeric

    if out is not None:
        from paimon_cli.outfile import out_format, text_renderer
        from paimon_core.engines import write_result_file

        path = Path(out)
        rows = write_result_file(reader, reader.schema, path, out_format(path), text_renderer)
        state.out.record({"file": str(path), "rows": rows}, f"wrote {rows} rows to {path}")
        return
    schema = reader.schema
    sink = state.out.sink(schema.names, [is_numeric(f.type) for f in schema])
    capped = state.out.fmt == "table" and limit is None
    shown = 0
    for batch in reader:
        if capped and shown + batch.num_rows > DISPLAY_ROWS:
            sink.write_arrow(batch.slice(0, DISPLAY_ROWS - shown))
            sink.close()
            sys.stderr.write(
                f"note: showing the first {DISPLAY_ROWS} rows; use --limit N, -o csv, -o json or --out FILE "
                "for more\n"
            )
            return
        sink.write_arrow(batch)
        shown += batch.num_rows
    sink.close()


def _repl(runner: _DuckRunner) -> None:
    """Statements typed on a terminal: lines are joined until one ends with ';'; an error is
    printed and the session goes on; Ctrl-D (or .quit) ends it, Ctrl-C drops the statement."""
    import readline

    from paimon_cli.errors import message_for
    from paimon_core.engines import split_statements as split
    from paimon_core.engines import statement_is_complete as is_complete

    try:
        readline.read_history_file(HISTORY)
    except OSError:
        pass
    sys.stderr.write("paimon sql (DuckDB): end statements with ';', Ctrl-D to quit\n")
    lines: list[str] = []
    try:
        while True:
            try:
                line = input("...> " if lines else "paimon> ")
            except KeyboardInterrupt:
                sys.stderr.write("\n")
                lines = []
                continue
            if not lines and line.strip() in (".quit", ".exit", "quit", "exit"):
                break
            lines.append(line)
            text = "\n".join(lines)
            if not is_complete(text):
                continue
            lines = []
            for statement in split(text):
                try:
                    runner.run(statement)
                except Exception as e:  # one line per mistake; the session goes on
                    sys.stderr.write(f"error: {message_for(e)}\n")
    except EOFError:
        sys.stderr.write("\n")
    finally:
        try:
            readline.write_history_file(HISTORY)
        except OSError:
            pass


def _run_spark(state, engine, query: str, limit: int | None, out: str | None) -> None:
    df = engine.sql(state.catalog, query)
    if limit is not None:
        df = df.limit(limit)
    if out is not None:
        from paimon_cli.progress import spinner

        with spinner(f"writing {out}"):
            result = engine.export_dataframe(df, out)
        state.out.record(
            {"folder": result.path, "rows": result.rows},
            f"wrote {result.rows} rows to {result.path}/ (Parquet part files)",
        )
        return
    capped = state.out.fmt == "table" and limit is None
    if capped:
        df = df.limit(DISPLAY_ROWS + 1)
    result = df.toArrow()
    import pyarrow as pa

    _emit(state, pa.RecordBatchReader.from_batches(result.schema, result.to_batches()), None, limit)
