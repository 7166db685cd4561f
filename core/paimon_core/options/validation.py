"""The checks on a table's options: at create-table and alter-table (``validate_options``: values
parse and are in range, no unsupported option is set, field options name existing columns, likely
typos are refused), and the refusal of a table whose options this project does not implement on
every read and write (``check_supported``, the safety net).
"""

from __future__ import annotations

import difflib
from dataclasses import replace

from paimon_core.errors import InvalidInput, UnsupportedFeature
from paimon_core.options.core_options import CoreOptions
from paimon_core.options.keys import PAIMON_OPTION_KEYS
from paimon_core.options.registry import (
    ALIASES,
    CHANGELOG_NUM_RETAINED_MAX,
    CHANGELOG_NUM_RETAINED_MIN,
    FIELD_OPTIONS,
    OPTIONS,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_NUM_RETAINED_MIN,
    STRUCTURAL_KEYS,
    UNSUPPORTED,
    Unsupported,
    field_parts,
)


def _unsupported_entry(key: str) -> Unsupported | None:
    if key in UNSUPPORTED:
        return UNSUPPORTED[key]
    parts = field_parts(key)
    return UNSUPPORTED.get(f"fields.*.{parts[1]}") if parts else None


def unsupported_options(options: dict[str, str], *, reads: bool = False) -> list[tuple[str, str, str]]:
    """(key, value, why) of every option in ``options`` whose effect is not implemented; with
    ``reads`` only those that would make a read return wrong rows."""
    found = []
    for key, value in options.items():
        u = _unsupported_entry(key)
        if u and u.applies(value) and (u.reads or not reads):
            found.append((key, str(value), u.why))
    return found


def check_supported(options: dict[str, str], *, writing: bool, what: str = "this table") -> None:
    """Raise UnsupportedFeature naming the first option of ``options`` that a read (or, with
    ``writing``, a write) of the table would otherwise silently get wrong."""
    bad = unsupported_options(options, reads=not writing)
    if bad:
        key, value, why = bad[0]
        verb = "written" if writing else "read"
        raise UnsupportedFeature(
            f"{what} cannot be {verb} here: it uses {why} ({key}={value}), "
            "which this project does not implement"
        ).with_hint("unsupported_option", option=key)


def _known(key: str) -> bool:
    if key in OPTIONS or key in ALIASES or key in PAIMON_OPTION_KEYS or key in UNSUPPORTED:
        return True
    if field_parts(key):
        return True
    return key.startswith(
        ("orc.", "parquet.", "avro.", "file-index.", "lookup.", "fs.", "hadoop.", "metastore.")
    )


def suggest(key: str) -> str | None:
    """A known option key that ``key`` is probably a typo of, or None."""
    candidates = list(OPTIONS) + list(ALIASES) + sorted(PAIMON_OPTION_KEYS)
    close = difflib.get_close_matches(key, candidates, n=1, cutoff=0.85)
    return close[0] if close else None


def validate_options(options: dict[str, str], columns: list[str] | None = None) -> None:
    """Checks for create-table and alter-table: implemented options parse and are in range, no
    unsupported option is set, field options name existing columns, and a key that is a likely
    typo of a known key is refused with the key it probably meant. Other unknown keys are kept."""
    for key, value in options.items():
        if key in STRUCTURAL_KEYS:
            raise InvalidInput(
                f"'{key}' is not a table option here: it is part of the schema "
                "(primary key and partition keys are given at create-table)"
            )
        opt = OPTIONS.get(ALIASES.get(key, key))
        if opt is not None:
            opt.parse(value)
        parts = field_parts(key)
        if parts and parts[1] in FIELD_OPTIONS:
            replace(FIELD_OPTIONS[parts[1]], key=key).parse(value)
            # Java's sequence-group keys may name several columns: fields.a,b.sequence-group
            missing = [c for c in parts[0].split(",") if columns is not None and c not in columns]
            if missing:
                raise InvalidInput(
                    f"option '{key}' names column '{missing[0]}', which the table does not have"
                )
        if not _known(key):
            near = suggest(key)
            if near:
                raise InvalidInput(f"unknown table option '{key}': did you mean '{near}'?")
    _check_retention(CoreOptions(options))
    check_supported(options, writing=True, what="the table")


def _check_retention(opts: CoreOptions) -> None:
    """Java's SchemaValidation: each minimum retention at most its maximum (an unset changelog
    bound is the snapshot's)."""
    smin, smax = opts.get(SNAPSHOT_NUM_RETAINED_MIN), opts.get(SNAPSHOT_NUM_RETAINED_MAX)
    if smin > smax:
        raise InvalidInput("snapshot.num-retained.min should not be larger than snapshot.num-retained.max")
    cmin, cmax = opts.get(CHANGELOG_NUM_RETAINED_MIN), opts.get(CHANGELOG_NUM_RETAINED_MAX)
    if (smin if cmin is None else cmin) > (smax if cmax is None else cmax):
        raise InvalidInput("changelog.num-retained.min should not be larger than changelog.num-retained.max")
