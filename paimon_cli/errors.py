"""Errors the CLI raises itself, and the mapping of any exception to one stderr line + exit code
(also for Ctrl-C and a closed stdout pipe).

The mapping is used in exactly one place: the root group's ``invoke`` (see ``app.py``).
"""

from __future__ import annotations

import errno
import io
import os
import sys
import traceback


class CliError(Exception):
    """A user-facing error found by the CLI layer (bad config file, bad option value...)."""


def _one_line(text: str) -> str:
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    return " ".join(lines)


# The core's errors speak of the table and the library's names; an error whose fix is a flag
# carries a hint (``PaimonError.hint_key`` and ``hint_values``). Each entry here turns the core
# message and the hint's values into the CLI's line, naming the flags. A hint key missing here
# leaves the core message as it is.
_HINTS = {
    "table": "no table given: pass --table DB.TABLE (or set PAIMON_TABLE / `paimon use`)",
    "primary_key": "{message} (--primary-key)",
    "events_primary_key": "{message}: give --primary-key with --create",
    "primary_key_columns": "{message}; use --primary-key {columns}",
    "bucket": "{message}; use --bucket N",
    "bucket_key": "{message}; use --option bucket-key=COL",
    "local_engine": "{message} (use --engine local)",
    "range": "--from {start} is after --to {end}",
    "mode_diff": "{message}; use --mode diff to compare states",
    "mode_diff_delta": "{message}; use --mode diff or --mode delta",
    "start": "{message} (--from)",
    "stream_gap": "{message} (e.g. `paimon consumer reset` or --mode latest-full)",
    "evolve": "{message}; --evolve adds new columns",
    "drop_table": "{message} with `paimon drop-table`",
    "delete_where": 'delete needs --where EXPR (to empty a table: paimon sql "TRUNCATE TABLE DB.TABLE")',
    "partition_needs_overwrite": "--partition needs --overwrite (it names the partition to replace)",
    "damaged_snapshot": "{message}: `paimon rollback --to {previous}` on this table removes it (and any "
    "newer snapshot) and makes snapshot {previous} the latest",
    "objects_store": "the {kind} catalog stores no {what}: {doing}; keep them in a JDBC database with "
    "--catalog-option catalog-objects.jdbc-uri=sqlite:///PATH/objects.db (or [catalog] in paimon.toml)",
    "catalog_options_table": "table '{table}' exists only with --catalog-option "
    "catalog-options-table.enabled=true (or under [catalog] in paimon.toml): it lists every catalog "
    "option, passwords and tokens included (as in Java 2.0)",
    "overwrite_partition": "--overwrite --partition {spec}: the input has rows of partition {stray}; "
    "nothing was written",
}

# table options the core refuses that a flag does instead (hint "unsupported_option")
_OPTION_FLAGS = {"rowkind.field": " (use --row-kind-column)"}


def _with_hint(exc) -> str:
    """The core error's message, rendered with the CLI's flags when it carries a known hint."""
    message = str(exc)
    key, values = getattr(exc, "hint_key", None), getattr(exc, "hint_values", {}) or {}
    if key == "filter":  # a --where expression (the only filter text the CLI passes to the core)
        quoted = "" if values.get("text") is None else f" '{values['text']}'"
        return f"bad --where{quoted}: {values['detail']}"
    if key == "unsupported_option":
        return message + _OPTION_FLAGS.get(values.get("option"), "")
    template = _HINTS.get(key)
    if template is None:
        return message
    try:
        return template.format(message=message, **values)
    except (KeyError, IndexError):  # values missing: the core message alone is still right
        return message


def message_for(exc: BaseException, verbose: bool = False) -> str:
    """The single line printed for ``exc`` (without the 'error: ' prefix); a core error's hint
    becomes flag-specific advice (see ``_HINTS``)."""
    from paimon_core.errors import PaimonError

    if isinstance(exc, PaimonError):
        return _one_line(_with_hint(exc)) or type(exc).__name__
    if isinstance(exc, CliError):
        return _one_line(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC or "No space left on device" in str(exc):
            where = f" ({exc.filename})" if exc.filename else ""
            return (
                f"no space left on the device{where}: files of a write that was not committed are "
                "deleted; free some space, check `paimon snapshots`, and run the command again"
            )
        if exc.filename is not None and exc.strerror:
            return _one_line(f"{exc.strerror}: {exc.filename}")
        return _one_line(exc) or type(exc).__name__
    hint = "" if verbose else " (run with --verbose for the traceback)"
    return _one_line(f"internal error: {type(exc).__name__}: {exc}{hint}")


def report(exc: BaseException, verbose: bool) -> int:
    """Print ``exc`` as one line on stderr (after the traceback when verbose); return the exit code."""
    if verbose:
        traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.write(f"error: {message_for(exc, verbose)}\n")
    sys.stderr.flush()
    return 1


# commands that delete files without committing a snapshot; each can be run again to finish
_DELETING = ("expire", "rollback", "remove-orphans", "tag", "drop-table")


def interrupted_message(journal: list, command: str | None) -> str:
    """What Ctrl-C left behind, from the commits the command made (see ``paimon_core.journal``)."""
    snapshots = [(path, n) for path, kind, n in journal if kind == "snapshot"]
    schemas = [(path, n) for path, kind, n in journal if kind == "schema"]
    if snapshots or schemas:
        path, n = (snapshots or schemas)[-1]
        what = "snapshot" if snapshots else "schema"
        return f"interrupted after commit: {what} {n} of {_table_name(path)}"
    if command in _DELETING:
        return f"interrupted: {command} may have stopped part-way; run it again to finish"
    return "interrupted: nothing committed"


def _table_name(path: str) -> str:
    """``.../<db>.db/<table>`` -> ``db.table``."""
    parts = path.rstrip("/").replace("\\", "/").split("/")
    db = (
        parts[-2][:-3]
        if len(parts) > 1 and parts[-2].endswith(".db")
        else parts[-2]
        if len(parts) > 1
        else ""
    )
    return f"{db}.{parts[-1]}" if db else parts[-1]


def stdout_to_devnull() -> None:
    """The reader of stdout went away (`paimon read -o json | head -1`): that is normal, the
    command ends quietly with exit 0. stdout now points at /dev/null, so the rest of the
    buffered output and the interpreter's final flush go nowhere instead of failing again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real file descriptor (an in-process test runner)
