"""Parameters shared by several commands, and parsers for their values."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import typer

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)

TableOpt = Annotated[
    str | None,
    typer.Option(
        "--table",
        "-t",
        metavar="DB.TABLE",
        help="Table to work on. Default: env PAIMON_TABLE, then `table` in the config file.",
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
    from paimon_core.data.times import parse_time_millis as parse
    from paimon_core.errors import InvalidInput

    try:
        return parse(text)
    except InvalidInput as e:
        raise typer.BadParameter(str(e), param_hint="'--as-of'") from None


def iso_millis(ms: int) -> str:
    """Epoch millis -> ``2024-05-01T12:00:00.123Z``."""
    when = _EPOCH + dt.timedelta(milliseconds=ms)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"
