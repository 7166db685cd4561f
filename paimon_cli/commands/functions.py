"""``paimon function create|list|show|alter|drop``: catalog functions (Paimon's REST catalog
functions: parameters, return type and definitions by name), kept by the catalog (JDBC: its
database; REST: the server; filesystem and Hive: the JDBC database of ``catalog-objects.jdbc-uri``)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from paimon_cli.config import parse_kv
from paimon_cli.errors import CliError
from paimon_cli.state import get_state

app = typer.Typer()
function_app = typer.Typer(
    no_args_is_help=True,
    help="Create, list, show, alter and drop catalog functions (SQL, lambda or file definitions).",
)
app.add_typer(function_app, name="function")

FunctionArg = Annotated[
    str,
    typer.Argument(metavar="DB.FUNCTION", show_default=False, help="The function (its name may hold dots)."),
]


def _ident(name: str) -> str:
    from paimon_core.catalog import parse_function_identifier

    return ".".join(parse_function_identifier(name))


def _params(text: str | None):
    from paimon_core import Schema
    from paimon_core.catalog import fields_from_columns

    return None if text is None else fields_from_columns(Schema.parse_columns(text))


def _sql(items: list[str] | None, flag: str) -> dict:
    """``NAME=BODY`` of ``flag`` (``--sql``...): SQL definitions by name."""
    from paimon_core.catalog import FunctionDefinition

    return {name: FunctionDefinition.sql(body) for name, body in parse_kv(items, flag).items()}


def _lambda(items: list[str] | None, flag: str) -> dict:
    """``NAME=LANGUAGE:BODY`` of ``flag`` (``--lambda``...): lambda definitions by name."""
    from paimon_core.catalog import FunctionDefinition

    out = {}
    for name, value in parse_kv(items, flag).items():
        language, sep, body = value.partition(":")
        if not sep:
            raise CliError(f"bad {flag} '{name}={value}': use NAME=LANGUAGE:BODY")
        out[name] = FunctionDefinition.lambda_(body, language)
    return out


def _file(items: list[str] | None, flag: str) -> dict:
    """``NAME=LANGUAGE:CLASS:URI[,URI...]`` of ``flag`` (``--file``...): file definitions by name."""
    from paimon_core.catalog import FunctionDefinition

    out = {}
    for name, value in parse_kv(items, flag).items():
        parts = value.split(":", 2)
        if len(parts) != 3 or not all(parts):
            raise CliError(f"bad {flag} '{name}={value}': use NAME=LANGUAGE:CLASS:URI[,URI...]")
        language, cls, uris = parts
        resources = [(u.rsplit(".", 1)[-1].upper() if "." in u else "FILE", u) for u in uris.split(",")]
        out[name] = FunctionDefinition.file(resources, language, cls)
    return out


def _definitions(sql: list[str] | None, lam: list[str] | None, files: list[str] | None) -> dict:
    """``--sql NAME=BODY``, ``--lambda NAME=LANGUAGE:BODY``, ``--file NAME=LANGUAGE:CLASS:URI[,URI...]``."""
    return {**_sql(sql, "--sql"), **_lambda(lam, "--lambda"), **_file(files, "--file")}


@function_app.command("create")
def create(
    ctx: typer.Context,
    name: FunctionArg,
    params: Annotated[
        str | None,
        typer.Option("--params", metavar="COLUMNS", help='Input parameters, e.g. "a INT, b INT".'),
    ] = None,
    returns: Annotated[
        str | None, typer.Option("--returns", metavar="COLUMNS", help='Return parameters, e.g. "r INT".')
    ] = None,
    deterministic: Annotated[
        bool, typer.Option("--deterministic", help="The same input always gives the same result.")
    ] = False,
    sql: Annotated[
        list[str] | None,
        typer.Option("--sql", metavar="NAME=BODY", help="A SQL definition named NAME (e.g. spark); repeat."),
    ] = None,
    lam: Annotated[
        list[str] | None,
        typer.Option("--lambda", metavar="NAME=LANGUAGE:BODY", help="A lambda definition; repeat."),
    ] = None,
    file: Annotated[
        list[str] | None,
        typer.Option(
            "--file",
            metavar="NAME=LANGUAGE:CLASS:URI[,URI]",
            help="A definition in files (a jar...); repeat.",
        ),
    ] = None,
    comment: Annotated[
        str | None, typer.Option("--comment", metavar="TEXT", help="Function comment.")
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-O", metavar="KEY=VALUE", help="Function option; repeat for more."),
    ] = None,
    if_not_exists: Annotated[
        bool, typer.Option("--if-not-exists", help="Do nothing if the function exists.")
    ] = False,
) -> None:
    """Create a function with one or more definitions.

    Examples:

      paimon function create demo.plus_one --params "x INT" --returns "r INT" --sql spark="x + 1" --deterministic

      paimon function create demo.parse --file flink=java:com.example.Parse:hdfs:///udf/parse.jar
    """
    from paimon_core.catalog import Function

    definitions = _definitions(sql, lam, file)
    if not definitions:
        raise typer.BadParameter(
            "give at least one definition: --sql, --lambda or --file", param_hint="'--sql'"
        )
    state = get_state(ctx)
    ident = _ident(name)
    function = Function(
        name=ident.split(".", 1)[1],
        input_params=_params(params),
        return_params=_params(returns),
        deterministic=deterministic,
        definitions=definitions,
        comment=comment,
        options=parse_kv(option, "--option"),
    )
    created = state.catalog.create_function(ident, function, ignore_if_exists=if_not_exists)
    text = f"created function {ident}" if created else f"function {ident} already exists; left unchanged"
    state.out.record({"function": ident, "created": created}, text)


@function_app.command("alter")
def alter(
    ctx: typer.Context,
    name: FunctionArg,
    set_option: Annotated[
        list[str] | None,
        typer.Option("--set-option", metavar="KEY=VALUE", help="Set a function option; repeat for more."),
    ] = None,
    remove_option: Annotated[
        list[str] | None,
        typer.Option("--remove-option", metavar="KEY", help="Remove a function option; repeat."),
    ] = None,
    comment: Annotated[
        str | None, typer.Option("--comment", metavar="TEXT", help="New function comment ('' removes it).")
    ] = None,
    add_sql: Annotated[
        list[str] | None, typer.Option("--add-sql", metavar="NAME=BODY", help="Add a SQL definition; repeat.")
    ] = None,
    add_lambda: Annotated[
        list[str] | None,
        typer.Option("--add-lambda", metavar="NAME=LANGUAGE:BODY", help="Add a lambda definition; repeat."),
    ] = None,
    add_file: Annotated[
        list[str] | None,
        typer.Option(
            "--add-file", metavar="NAME=LANGUAGE:CLASS:URI[,URI]", help="Add a definition in files; repeat."
        ),
    ] = None,
    update_sql: Annotated[
        list[str] | None,
        typer.Option("--update-sql", metavar="NAME=BODY", help="Replace a definition by a SQL one; repeat."),
    ] = None,
    update_lambda: Annotated[
        list[str] | None,
        typer.Option(
            "--update-lambda", metavar="NAME=LANGUAGE:BODY", help="Replace a definition by a lambda; repeat."
        ),
    ] = None,
    update_file: Annotated[
        list[str] | None,
        typer.Option(
            "--update-file",
            metavar="NAME=LANGUAGE:CLASS:URI[,URI]",
            help="Replace a definition by one in files; repeat.",
        ),
    ] = None,
    drop_definition: Annotated[
        list[str] | None,
        typer.Option("--drop-definition", metavar="NAME", help="Drop a definition; repeat."),
    ] = None,
) -> None:
    """Change a function's options, comment or definitions, all changes at once or none.

    Definitions are given as create takes them (--add-sql as --sql, --add-lambda as --lambda, --add-file as --file; --update-* likewise). Adding a definition the function has, or updating or dropping one it lacks, is an error and changes nothing. Parameters, return parameters and determinism stay as they are.

    Examples:

      paimon function alter demo.plus_one --add-sql flink="x + 1" --comment "adds one"

      paimon function alter demo.plus_one --update-sql spark="x + 1L" --remove-option owner
    """
    from paimon_cli.object_changes import build_changes, names
    from paimon_core.catalog import FunctionChange

    given = {"add": (add_sql, add_lambda, add_file), "update": (update_sql, update_lambda, update_file)}
    entries = [
        (verb, f"--{verb}-{kind}", n, d)
        for verb, lists in given.items()
        for kind, parse, items in zip(("sql", "lambda", "file"), (_sql, _lambda, _file), lists)
        for n, d in parse(items, f"--{verb}-{kind}").items()
    ]
    entries += [("drop", "--drop-definition", n, None) for n in names(drop_definition, "--drop-definition")]
    changes, done = build_changes(
        FunctionChange, "definition", set_option, remove_option, comment, entries,
        "--set-option, --remove-option, --comment, --add-sql/-lambda/-file, --update-sql/-lambda/-file "
        "or --drop-definition",
    )  # fmt: skip
    state = get_state(ctx)
    ident = _ident(name)
    state.catalog.alter_function(ident, changes)
    state.out.record(
        {"function": ident, "changes": [c.to_json() for c in changes]},
        f"altered function {ident}: {'; '.join(done)}",
    )


@function_app.command("list")
def list_functions(
    ctx: typer.Context,
    database: Annotated[
        str | None,
        typer.Argument(metavar="DB", show_default=False, help="Only this database (default: all)."),
    ] = None,
) -> None:
    """List functions, of one database or of all.

    Example:

      paimon function list demo
    """
    state = get_state(ctx)
    catalog = state.catalog
    dbs = [database] if database else catalog.list_databases()
    state.out.rows(["database", "function"], [[db, f] for db in dbs for f in catalog.list_functions(db)])


def _signature(params) -> str:
    return "-" if params is None else ", ".join(f"{f.name} {f.type}" for f in params) or "()"


@function_app.command("show")
def show(ctx: typer.Context, name: FunctionArg) -> None:
    """Show a function: parameters, return parameters, definitions, comment and options.

    With -o json, prints the function as the REST catalog describes it, as one JSON line.

    Example:

      paimon function show demo.plus_one
    """
    state = get_state(ctx)
    ident = _ident(name)
    function = state.catalog.get_function(ident)
    if state.out.fmt == "json":
        sys.stdout.write(json.dumps({"function": ident, **function.to_json()}, ensure_ascii=False) + "\n")
        return
    rows = [
        [n, d.type, d.language or "", d.definition if d.type != "file" else _file_text(d)]
        for n, d in sorted(function.definitions.items())
    ]
    if state.out.fmt == "csv":
        state.out.rows(["definition", "type", "language", "body"], rows)
        return
    sys.stdout.write(f"function: {ident}\n")
    sys.stdout.write(f"params: {_signature(function.input_params)}\n")
    sys.stdout.write(f"returns: {_signature(function.return_params)}\n")
    sys.stdout.write(f"deterministic: {str(function.deterministic).lower()}\n")
    if function.comment:
        sys.stdout.write(f"comment: {function.comment}\n")
    state.out.rows(["definition", "type", "language", "body"], rows)
    if function.options:
        state.out.rows(["option", "value"], sorted(function.options.items()))


def _file_text(d) -> str:
    uris = ", ".join(u for _t, u in d.file_resources)
    return f"{d.class_name or ''}{'.' + d.function_name if d.function_name else ''} in {uris}"


@function_app.command("drop")
def drop(
    ctx: typer.Context,
    name: FunctionArg,
    if_exists: Annotated[
        bool, typer.Option("--if-exists", help="No error if the function does not exist.")
    ] = False,
) -> None:
    """Drop a function.

    Example:

      paimon function drop demo.plus_one --if-exists
    """
    state = get_state(ctx)
    ident = _ident(name)
    dropped = state.catalog.drop_function(ident, ignore_if_missing=if_exists)
    text = f"dropped function {ident}" if dropped else f"function {ident} does not exist; nothing dropped"
    state.out.record({"function": ident, "dropped": dropped}, text)
