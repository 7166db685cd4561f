"""Option values by kind, as Java's ConfigOptions read them: integers, booleans, text, enum
values (case-insensitive, returned in lower case), sizes (Java's MemorySize: ``128mb`` -> bytes)
and durations (Java's TimeUtils: ``30m`` -> milliseconds; a bare number is milliseconds).

Invariant: ``parse_value`` returns a value of the kind's Python type (int, bool or str) or raises
ValueError / InvalidInput; it never checks ranges (the registry's ``Option`` does).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from paimon_core.errors import InvalidInput


def parse_value(kind: str, text: str, choices: tuple[str, ...] = ()) -> object:
    """``text`` (stripped) as a value of ``kind``; ``choices`` are an enum's values, lower case."""
    return _PARSERS[kind](text, choices)


def describe(kind: str, choices: tuple[str, ...] = ()) -> str:
    """What a value of ``kind`` looks like, for messages."""
    if kind == "enum":
        return " | ".join(choices)
    return {
        "int": "an integer",
        "long": "an integer",
        "bool": "true or false",
        "str": "text",
        "size": "a size such as 128mb",
        "duration": "a duration such as 1h",
    }[kind]


def _parse_bool(text: str, _choices: tuple[str, ...]) -> bool:
    if text.lower() not in ("true", "false"):
        raise ValueError(text)
    return text.lower() == "true"


def _parse_enum(text: str, choices: tuple[str, ...]) -> str:
    if text.lower() not in choices:
        raise ValueError(text)
    return text.lower()


_PARSERS: dict[str, Callable[[str, tuple[str, ...]], object]] = {
    "int": lambda t, _c: int(t),
    "long": lambda t, _c: int(t),
    "bool": _parse_bool,
    "str": lambda t, _c: t,
    "enum": _parse_enum,
    "size": lambda t, _c: parse_size(t),
    "duration": lambda t, _c: parse_duration_ms(t),
}

# sizes and durations, as Java's MemorySize and TimeUtils parse them

_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")
_SIZE_UNITS = {
    "": 1,
    "b": 1,
    "bytes": 1,
    "k": 1024,
    "kb": 1024,
    "kibibytes": 1024,
    "m": 1024**2,
    "mb": 1024**2,
    "mebibytes": 1024**2,
    "g": 1024**3,
    "gb": 1024**3,
    "gibibytes": 1024**3,
    "t": 1024**4,
    "tb": 1024**4,
    "tebibytes": 1024**4,
}
_DUR_UNITS = {
    "": 1,
    "ms": 1,
    "milli": 1,
    "millis": 1,
    "millisecond": 1,
    "milliseconds": 1,
    "s": 1000,
    "sec": 1000,
    "secs": 1000,
    "second": 1000,
    "seconds": 1000,
    "m": 60_000,
    "min": 60_000,
    "mins": 60_000,
    "minute": 60_000,
    "minutes": 60_000,
    "h": 3_600_000,
    "hour": 3_600_000,
    "hours": 3_600_000,
    "d": 86_400_000,
    "day": 86_400_000,
    "days": 86_400_000,
}


def parse_size(text: str) -> int:
    """'128mb', '64 MB', '1gb', '1024' -> bytes."""
    m = _AMOUNT.match(str(text))
    if not m or m.group(2).lower() not in _SIZE_UNITS:
        raise InvalidInput(f"bad size '{text}' (use e.g. 128mb, 64 MB, 1gb)")
    return int(float(m.group(1)) * _SIZE_UNITS[m.group(2).lower()])


def parse_duration_ms(text: str) -> int:
    """'30m', '12h', '7d', '1 h', '500ms' -> milliseconds (a bare number is milliseconds, as in Java)."""
    m = _AMOUNT.match(str(text))
    if not m or m.group(2).lower() not in _DUR_UNITS:
        raise InvalidInput(f"bad duration '{text}' (use e.g. 30m, 12h, 7d)")
    return int(float(m.group(1)) * _DUR_UNITS[m.group(2).lower()])
