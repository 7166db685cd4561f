"""Notes about input values converted on their way into a column.

One rule for every input format (Parquet, CSV, JSON lines, change events):

* a timestamp that carries a time zone (a zoned Parquet/Arrow type, or text with ``Z`` or
  ``+hh:mm``) goes into a TIMESTAMP column (which has no zone) as its UTC time; into
  TIMESTAMP_LTZ it keeps its instant, no conversion;
* a number (integer, floating point, decimal) goes into a CHAR/VARCHAR/STRING column as its
  text.

Each conversion that changed at least one value is announced as an :class:`InputConversion`
warning, once per column and kind; the CLI prints it as a note. Anything else that does not fit
its column is refused by name (``conform.py``, ``text_values.py``).
"""

from __future__ import annotations

import warnings

ZONED_TO_UTC = "timestamps with a time zone stored as their UTC time (a TIMESTAMP has no zone; TIMESTAMP_LTZ keeps the instant)"
NUMBERS_AS_TEXT = "numbers written as text"


class InputConversion(UserWarning):
    """A value of the input was converted to fit its column (the message names the column)."""


def converted(column: str, what: str) -> None:
    """Announce that values of ``column`` were converted as ``what`` says."""
    warnings.warn(InputConversion(f"column '{column}': {what}"), stacklevel=3)


__all__ = ["NUMBERS_AS_TEXT", "ZONED_TO_UTC", "InputConversion", "converted"]
