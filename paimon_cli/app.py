"""The ``paimon`` Typer app: global options, the lazily loaded commands (``lazy_group.py``), and
the one error boundary.

Every exception a command raises ends in ``PaimonGroup.invoke``: library and OS errors become
one ``error: ...`` line on stderr and exit 1, anything else an ``internal error`` line;
``--verbose`` adds the traceback. Usage errors stay Typer's (exit 2).
"""

from __future__ import annotations

import errno
import logging
import sys
from enum import Enum
from typing import Annotated

import typer

from paimon_cli import interrupt
from paimon_cli.config import ENGINES, OUTPUTS, Flags, resolve_from_environment
from paimon_cli.errors import interrupted_message, report, stdout_to_devnull
from paimon_cli.helpstyle import tidy_command, tidy_param
from paimon_cli.lazy_group import LazyGroup
from paimon_cli.plain_params import install as plain_params
from paimon_cli.state import CliState

plain_params()  # plain values without pydantic: about 0.2 s less per command

VERBOSE_KEY = "paimon.verbose"


# Root options that take a value, and the global flags also accepted after the command name.
_VALUE_OPTIONS = {
    "-w",
    "--warehouse",
    "--config",
    "-o",
    "--output",
    "--engine",
    "--spark-master",
    "--spark-remote",
    "--spark-conf",
    "--storage",
    "--catalog",
    "--catalog-option",
}
_HOISTED_WITH_VALUE = set(_VALUE_OPTIONS)  # also accepted after the command
_HOISTED_FLAGS = {"-v", "--verbose"}
_OWNED = {"rest-server": {"--warehouse"}}  # a command's own option of a global option's name
_TABLE_OPTIONS = {"-t", "--table"}  # a command option, also accepted before the command


def hoist_global_options(args: list[str]) -> list[str]:
    """Global options work before or after the command name: ``-w``, ``--config``, ``-o
    FORMAT``, ``-v``, ``--engine``, ``--spark-*``, ``--storage`` and ``--catalog*`` written after
    it move in front of it (``paimon read -t a.b -w /wh`` is ``paimon -w /wh read -t a.b``), and
    ``-t DB.TABLE`` written before it moves behind the command's own words, subcommands included
    (``paimon -t a.b read``, ``paimon -t a.b partition list``). A command's own option of the same
    name stays its own (``rest-server --warehouse``); anything after ``--`` is left alone."""
    i, lowered, head = 0, [], []
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        tok = args[i]
        if tok in _TABLE_OPTIONS and i + 1 < len(args):
            lowered += [tok, args[i + 1]]
            i += 2
            continue
        if tok.startswith(("--table=",)):
            lowered.append(tok)
            i += 1
            continue
        step = 2 if tok in _VALUE_OPTIONS else 1
        head += args[i : i + step]
        i += step
    if i >= len(args) or args[i] == "--":
        return head + lowered + list(args[i:])
    command, rest = args[i], list(args[i + 1 :])
    owned = _OWNED.get(command, set())
    with_value = _HOISTED_WITH_VALUE - owned
    moved, kept, tail, j = [], [], [], 0
    while j < len(rest):
        tok = rest[j]
        if tok == "--":
            tail = rest[j:]
            break
        if tok in with_value and j + 1 < len(rest):
            moved += [tok, rest[j + 1]]
            j += 2
            continue
        if tok in _HOISTED_FLAGS or tok.startswith(tuple(f"{o}=" for o in with_value if o.startswith("--"))):
            moved.append(tok)
        else:
            kept.append(tok)
        j += 1
    return head + moved + [command] + kept + lowered + tail


class PaimonGroup(LazyGroup):
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_global_options(args))

    def get_params(self, ctx: typer.Context):
        params = super().get_params(ctx)
        for p in params:
            tidy_param(p)
        return params

    def get_command(self, ctx: typer.Context, cmd_name: str):
        return tidy_command(super().get_command(ctx, cmd_name))

    def invoke(self, ctx: typer.Context):
        from paimon_core import commit_journal

        try:
            with commit_journal() as journal:
                try:
                    result = super().invoke(ctx)
                except KeyboardInterrupt:
                    sys.stderr.write(interrupted_message(journal, ctx.invoked_subcommand) + "\n")
                    sys.stderr.flush()
                    raise typer.Exit(130) from None
            sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
            return result
        except (typer.TyperException, typer.Exit, typer.Abort):  # usage errors, exits: Typer's own
            raise
        except Exception as e:
            if interrupt.received():  # caused by Ctrl-C (an import it cut short, ...)
                sys.stderr.write(interrupted_message(journal, ctx.invoked_subcommand) + "\n")
                sys.stderr.flush()
                raise typer.Exit(130) from None
            if isinstance(e, OSError) and e.errno == errno.EPIPE:
                stdout_to_devnull()
                raise typer.Exit(0) from None
            raise typer.Exit(report(e, bool(ctx.meta.get(VERBOSE_KEY)))) from None


# the choices of -o and --engine, named once in config.py (paimon.toml and the environment check the same)
OutputFormat = Enum("OutputFormat", [(name, name) for name in OUTPUTS], type=str)
EngineName = Enum("EngineName", [(name, name) for name in ENGINES], type=str)


HELP = """Apache Paimon tables from the command line.

A warehouse is a folder or an fsspec URI (s3://bucket/path); a table is named DB.TABLE. Settings come from flags, then env (PAIMON_WAREHOUSE, PAIMON_TABLE), then ./paimon.toml or ~/.config/paimon/config.toml. Global options (-w, -t, -o, -v, --engine, --catalog...) go before or after the command.

Examples:

  paimon demo
  paimon create-table demo.t --schema "id BIGINT NOT NULL, dt STRING" -p dt
  paimon use demo.t
  paimon -o json snapshots
"""

app = typer.Typer(
    name="paimon",
    cls=PaimonGroup,
    help=HELP,
    no_args_is_help=True,
    invoke_without_command=True,  # for --version; a missing command is still a usage error (see root)
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def root(
    ctx: typer.Context,
    warehouse: Annotated[
        str | None,
        typer.Option(
            "--warehouse",
            "-w",
            metavar="URI",
            help="Warehouse folder or URI. Env PAIMON_WAREHOUSE; default ./warehouse.",
        ),
    ] = None,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="Config file (default ./paimon.toml, else config.toml in ~/.config/paimon).",
        ),
    ] = None,
    output: Annotated[
        OutputFormat | None,
        typer.Option("--output", "-o", case_sensitive=False, help="Output format (default table)."),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show tracebacks on errors.")] = False,
    engine: Annotated[
        EngineName | None,
        typer.Option("--engine", case_sensitive=False, help="Engine for heavy work (default auto)."),
    ] = None,
    spark_master: Annotated[
        str | None,
        typer.Option(
            "--spark-master", metavar="URL", help="Spark master, e.g. local[*] or spark://host:7077."
        ),
    ] = None,
    spark_remote: Annotated[
        str | None,
        typer.Option("--spark-remote", metavar="URL", help="Spark Connect server, e.g. sc://host:15002."),
    ] = None,
    spark_conf: Annotated[
        list[str] | None,
        typer.Option("--spark-conf", metavar="KEY=VALUE", help="Spark setting; repeat for more."),
    ] = None,
    storage: Annotated[
        list[str] | None,
        typer.Option(
            "--storage",
            metavar="KEY=VALUE",
            help="Storage option (endpoint, key, secret, region...), over \\[storage] in the config; repeat for more.",
        ),
    ] = None,
    catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog",
            metavar="TYPE",
            help="Catalog: filesystem (default), jdbc, hive or rest. Env PAIMON_CATALOG, or \\[catalog] type in the config.",
        ),
    ] = None,
    catalog_option: Annotated[
        list[str] | None,
        typer.Option(
            "--catalog-option",
            metavar="KEY=VALUE",
            help="Catalog option (uri, lock.enabled, catalog-key...), over \\[catalog] in the config; repeat for more.",
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit (with -v: also Python, pyarrow and pyspark)."
        ),
    ] = False,
) -> None:
    _warnings_to_stderr()
    if version:
        sys.stdout.write(version_text(verbose))
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        ctx.fail("Missing command.")
    ctx.meta[VERBOSE_KEY] = verbose  # known to the error boundary even if the config is bad
    flags = Flags(
        warehouse=warehouse,
        config=config,
        output=output.value if output else None,
        verbose=verbose,
        engine=engine.value if engine else None,
        spark_master=spark_master,
        spark_remote=spark_remote,
        spark_conf=tuple(spark_conf or ()),
        storage=tuple(storage or ()),
        catalog=catalog,
        catalog_option=tuple(catalog_option or ()),
    )
    ctx.obj = CliState(flags, resolve_from_environment(flags))


def version_text(verbose: bool) -> str:
    """``paimon X.Y.Z``; verbose adds the versions that decide behaviour (read from the installed
    packages' metadata: nothing heavy is imported)."""
    import platform
    from importlib import metadata

    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    from paimon_core import __version__

    lines = [f"paimon {__version__}"]
    if verbose:
        lines += [
            f"python {platform.python_version()}",
            f"pyarrow {installed('pyarrow')}",
            f"pyspark {installed('pyspark')}",
            f"fsspec {installed('fsspec')}",
            f"s3fs {installed('s3fs')}",
        ]
    return "\n".join(lines) + "\n"


class _StderrWarnings(logging.Handler):
    """Warnings of the core (a housekeeping step that failed after a commit landed, a partition
    expiry could not date) as one ``warning: ...`` line each on the current stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(f"warning: {record.getMessage()}\n")
        sys.stderr.flush()


def _warnings_to_stderr() -> None:
    log = logging.getLogger("paimon_core")
    if not any(isinstance(h, _StderrWarnings) for h in log.handlers):
        log.addHandler(_StderrWarnings(logging.WARNING))
        log.setLevel(logging.WARNING)
        log.propagate = False


def main() -> None:
    """Console-script entry point (``paimon``): the process ends in ``process_exit`` (no
    interpreter teardown once the command is done)."""
    from paimon_cli.process_exit import exit_process

    interrupt.watch()
    try:
        try:
            app(prog_name="paimon")
        except KeyboardInterrupt:  # before a command ran (Click's own startup)
            interrupt.exit_before_command()
    except SystemExit as e:
        exit_process(e.code)
    exit_process(0)
