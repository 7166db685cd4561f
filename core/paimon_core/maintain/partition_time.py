"""The time a partition stands for, read from its values as Java's ``PartitionTimeExtractor``.

``partition.timestamp-pattern`` builds a text from the partition values (``$dt $hr:00:00``: each
``$key`` replaced by that key's value; without a pattern, the first partition value);
``partition.timestamp-formatter`` is a Java ``DateTimeFormatter`` pattern that parses it (without
one: ``yyyy-M-d[ H:m:s[.fraction]]``, lenient widths). A text with a date but no time is midnight.

Invariant: a value that does not parse raises :class:`UnparsablePartitionTime`; nothing guesses.
Partition values are rendered as Java's ``toString`` of the internal values (so a DATE partition is
its day number, which no formatter parses: Java 0.9 never expires DATE partitions by value).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from paimon_core.errors import InvalidInput


class UnparsablePartitionTime(ValueError):
    """The text does not parse with the formatter."""


_DEFAULT = re.compile(
    r"^(?P<y>\d{1,10})-(?P<M>\d{1,2})-(?P<d>\d{1,2})"
    r"(?: (?P<H>\d{1,2}):(?P<m>\d{1,2}):(?P<s>\d{1,2})(?:\.(?P<S>\d{1,9}))?)?$"
)
_FIELDS = {"y": "y", "u": "y", "M": "M", "d": "d", "H": "H", "m": "m", "s": "s", "S": "S"}


def _compile(formatter: str) -> re.Pattern:
    """A regex for a Java DateTimeFormatter pattern of the letters y/u, M, d, H, m, s, S."""
    out, i, n = [], 0, len(formatter)
    while i < n:
        c = formatter[i]
        if c == "'":
            j = formatter.find("'", i + 1)
            if j < 0:
                raise InvalidInput(f"partition.timestamp-formatter '{formatter}': unclosed quote")
            out.append(re.escape(formatter[i + 1 : j] or "'"))
            i = j + 1
            continue
        if c.isalpha():
            j = i
            while j < n and formatter[j] == c:
                j += 1
            width = j - i
            if c not in _FIELDS:
                raise InvalidInput(
                    f"partition.timestamp-formatter '{formatter}': pattern letter '{c}' is not supported "
                    "here (use y, M, d, H, m, s, S)"
                )
            name = _FIELDS[c]
            if name == "S":
                out.append(rf"(?P<S>\d{{{width}}})")
            elif name == "y":
                out.append(r"(?P<y>\d{2})" if width == 2 else rf"(?P<y>\d{{{max(width, 1)},10}})")
            else:
                out.append(rf"(?P<{name}>\d{{1,2}})" if width == 1 else rf"(?P<{name}>\d{{{width}}})")
            i = j
            continue
        out.append(re.escape(c))
        i += 1
    # a variable-width year directly before fixed-width fields (yyyyMMdd) backtracks to leave
    # them their digits, as Java's adjacent value parsing does
    return re.compile("^" + "".join(out) + "$")


def _to_datetime(m: re.Match, text: str, two_digit_year: bool = False) -> datetime:
    g = m.groupdict()
    if g.get("y") is None or g.get("M") is None or g.get("d") is None:
        raise UnparsablePartitionTime(f"'{text}' has no full date")
    year = int(g["y"]) + (2000 if two_digit_year else 0)
    try:
        day = datetime(year, int(g["M"]), 1)
        base = day + timedelta(days=int(g["d"]) - 1)
        if base.month != day.month:
            raise ValueError("day out of range")
        frac = g.get("S") or ""
        return base.replace(
            hour=int(g.get("H") or 0),
            minute=int(g.get("m") or 0),
            second=int(g.get("s") or 0),
            microsecond=int((frac + "000000")[:6]) if frac else 0,
        )
    except ValueError as e:
        raise UnparsablePartitionTime(f"'{text}': {e}") from None


def parse_time(text: str, formatter: str | None) -> datetime:
    """The local date-time of ``text`` (see the module doc); UnparsablePartitionTime if it does not parse."""
    if formatter is None:
        m = _DEFAULT.match(text)
        if not m:
            raise UnparsablePartitionTime(f"'{text}' is not yyyy-MM-dd[ HH:mm:ss]")
        return _to_datetime(m, text)
    m = _compile(formatter).match(text)
    if not m:
        raise UnparsablePartitionTime(f"'{text}' does not match '{formatter}'")
    years = re.findall(r"[yu]+", re.sub(r"'[^']*'", "", formatter))
    return _to_datetime(m, text, two_digit_year=bool(years) and len(years[0]) == 2)


def partition_time(
    keys: list[str], values: list[str], pattern: str | None, formatter: str | None
) -> datetime:
    """The time of a partition: ``values`` are Java's strings of the partition values, in key order."""
    if pattern is None:
        text = values[0]
    else:
        text = pattern
        for k, v in zip(keys, values):
            text = text.replace(f"${k}", v)
    return parse_time(text, formatter)


def validate_formatter(formatter: str | None) -> None:
    """InvalidInput when the formatter uses what this reader does not parse."""
    if formatter is not None:
        _compile(formatter)


__all__ = ["UnparsablePartitionTime", "parse_time", "partition_time", "validate_formatter"]
