"""User-facing points in time: ISO dates/datetimes (UTC unless they carry an offset) or epoch
milliseconds. No heavy imports: the CLI parses ``--as-of`` with this before loading pyarrow."""

from __future__ import annotations

import datetime as dt

from paimon_core.errors import InvalidInput

EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def parse_time_millis(text: str) -> int:
    """'2024-05-01', '2024-05-01T12:00:00', '2024-05-01 12:00:00+02:00' or epoch millis -> epoch ms."""
    s = text.strip()
    if s.lstrip("-").isdigit():
        return int(s)
    try:
        if len(s) == 10 and s.count("-") == 2:
            when = dt.datetime.combine(dt.date.fromisoformat(s), dt.time())
        else:
            when = dt.datetime.fromisoformat(s.replace(" ", "T", 1))
    except ValueError:
        raise InvalidInput(
            f"'{text}' is not a time: use an ISO date or datetime (2024-05-01, 2024-05-01T12:00:00,"
            " 2024-05-01T12:00:00+02:00) or epoch milliseconds"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return (when - EPOCH_UTC) // dt.timedelta(milliseconds=1)
