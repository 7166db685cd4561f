"""The clock of commits and of the housekeeping after them (partition expiry, automatic tags, tag
time-to-live), injectable for tests.

``now_ms()`` is the wall clock, unless the environment variable ``PAIMON_CLOCK_MS`` holds epoch
milliseconds: then that fixed instant is "now" for the process: the commit time of its snapshots
(still never earlier than the previous snapshot's) and every housekeeping decision (a test sets it
to make process-time tags and partition expiry deterministic). Core functions also take ``now_ms``
directly. Never set it in production: every snapshot of the process gets the same time.

Java works in local date-times (``LocalDateTime.now()``, the JVM's default zone); so do the helpers
here, with the process's local zone (``TZ``).
"""

from __future__ import annotations

import os
import time
from datetime import datetime

from paimon_core.errors import InvalidInput

ENV = "PAIMON_CLOCK_MS"


def now_ms() -> int:
    """Epoch milliseconds: ``PAIMON_CLOCK_MS`` when set, else the wall clock."""
    fixed = os.environ.get(ENV)
    if fixed:
        try:
            return int(fixed)
        except ValueError:
            raise InvalidInput(f"{ENV} must be epoch milliseconds, got '{fixed}'") from None
    return int(time.time() * 1000)


def local(ms: int) -> datetime:
    """The local wall-clock date-time of epoch millis (Java's ``LocalDateTime.ofInstant``)."""
    return datetime.fromtimestamp(ms / 1000)


def epoch_ms(dt: datetime) -> int:
    """Epoch millis of a local wall-clock date-time (Java's ``atZone(systemDefault)``)."""
    return int(round(dt.timestamp() * 1000))


__all__ = ["ENV", "epoch_ms", "local", "now_ms"]
