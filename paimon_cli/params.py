"""Parameters shared by several commands, and parsers for their values."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import typer

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)

TableArg = Annotated[str | None, typer.Argument(metavar="DB.TABLE", help="Table (or -t).")]
TableOpt = Annotated[
    str | None,
    typer.Option(
        "--table",
        "-t",
        metavar="DB.TABLE",
        help="Table to work on. Default: env PAIMON_TABLE, then `table` in the config file.",
    ),
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace an existing --out file.")]
BranchOpt = Annotated[
    str | None,
    typer.Option(
        "--branch",
        "-b",
        metavar="NAME",
        help="Work on branch NAME of the table (default: main; also DB.TABLE$branch_NAME).",
    ),
]
SnapshotOpt = Annotated[
    int | None,
    typer.Option("--snapshot", "-s", metavar="ID", min=1, help="Snapshot id (default: the latest)."),
]


def split_list(value: str | None) -> list[str]:
    """``"a, b"`` -> ``["a", "b"]``; None or blank -> []."""
    if not value:
        return []
    return [p.strip() for p in value.split(",") if p.strip()]


def parse_time_millis(text: str) -> int:
    """``--as-of``: epoch millis, or an ISO date/datetime (UTC unless it carries an offset)."""
    from paimon_core import parse_time_millis as parse
    from paimon_core.errors import InvalidInput

    try:
        return parse(text)
    except InvalidInput as e:
        raise typer.BadParameter(str(e), param_hint="'--as-of'") from None


def iso_millis(ms: int) -> str:
    """Epoch millis -> ``2024-05-01T12:00:00.123Z``."""
    when = _EPOCH + dt.timedelta(milliseconds=ms)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="Print the plan; delete nothing.")]


def parse_duration(text: str | None, flag: str) -> int | None:
    """``30m`` / ``12h`` / ``7d`` -> milliseconds; a bad value is a usage error. A bare number
    is refused: these commands delete, and whether ``7`` means days or milliseconds (as in a
    Paimon option) is not something to guess."""
    if text is None:
        return None
    import re

    from paimon_core import parse_duration_ms
    from paimon_core.errors import PaimonError

    if re.fullmatch(r"\s*[-+]?\d+(\.\d*)?\s*", text):
        raise typer.BadParameter(
            f"'{text}' has no unit: write e.g. {text.strip()}d, {text.strip()}h, "
            f"{text.strip()}m, {text.strip()}s or {text.strip()}ms",
            param_hint=flag,
        )
    try:
        ms = parse_duration_ms(text)
    except PaimonError as e:
        raise typer.BadParameter(str(e), param_hint=flag) from None
    if ms < 0:
        raise typer.BadParameter(f"duration '{text}' must not be negative", param_hint=flag)
    return ms


def one_table(name: str | None, table: str | None) -> str | None:
    """The table named by the argument or -t (both only when they agree)."""
    if name and table and name != table:
        raise typer.BadParameter(f"two tables given: {name} and -t {table}")
    return name or table
