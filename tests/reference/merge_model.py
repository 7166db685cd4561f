"""A plain-Python model of a primary-key table: what Paimon 0.9's merge engines make of a
sequence of changes, key by key, with no reference to paimon_core.

Rows are dicts column -> value (plus an optional ``_row_kind``: +I, -U, +U, -D), applied in
commit order with ``PkModel.apply``; ``PkModel.rows()`` is what a batch read returns. Covered:
deduplicate and first-row (``ignore-delete``), partial-update (non-null fields win;
``fields.G.sequence-group``; ``partial-update.remove-record-on-delete``; ``ignore-delete``) and
aggregation (sum, product, max, min, first_value, first_non_null_value, last_value,
last_non_null_value, bool_and, bool_or, listagg; ``fields.default-aggregate-function``;
retraction by sum, last_value and last_non_null_value, ``fields.F.ignore-retract``).

Anything else (an unknown option or function, a retraction the engine refuses) raises
``Unmodelled``: a test never compares against a guess. Histories whose result depends on the
physical layout of the files (a retraction of a key that has no record yet, merged or not with
later records depending on compactions) raise ``Unmodelled`` as well.

Two rules of Paimon's writers and readers show through. A writer merges the records of a key
within one commit (its write buffer; the model assumes the buffer does not spill) before they
reach a file, so for aggregation ``apply`` first folds a commit's records of a key into one +I
record, then aggregates that into the key's state. And a key with a single record is returned
as written, without the merge function: for partial-update with sequence groups that differs
from merging (the merge skips a group whose sequence field is null), so the model keeps a key's
first record apart until a second one arrives. A retraction that reaches a last_non_null_value
field in a commit of its own, followed by records with a null there, gives a result that
depends on which runs a compaction merged first: ``Unmodelled``.
"""

from __future__ import annotations

from typing import Any

KIND = "_row_kind"
RETRACT = ("-U", "-D")

# options the model knows; any other merge-affecting option is refused
_KNOWN_PREFIXES = (
    "bucket",
    "file.format",
    "write-buffer-size",
    "num-sorted-run",
    "compaction.",
    "snapshot.",
    "dynamic-bucket.",
    "write-only",
    "changelog-producer",
    "num-levels",
    "target-file-size",
    "page-size",
    "manifest.",
    "full-compaction.",
    "metadata.",
)


class Unmodelled(Exception):
    """The model does not know what Paimon does here; the test must not rely on it."""


def _agg(fn: str, acc: Any, x: Any, first: bool) -> Any:
    """Accumulate input ``x`` into ``acc``; ``first`` is True for the key's first record."""
    if fn == "last_value":
        return x
    if fn == "first_value":
        return x if first else acc
    if x is None:
        return acc
    if fn == "last_non_null_value":
        return x
    if fn == "first_non_null_value":
        return x if acc is None else acc
    if acc is None:
        return x
    if fn == "sum":
        return acc + x
    if fn == "product":
        return acc * x
    if fn == "max":
        return max(acc, x)
    if fn == "min":
        return min(acc, x)
    if fn == "bool_and":
        return acc and x
    if fn == "bool_or":
        return acc or x
    if fn == "listagg":  # Java 1.4: an empty string adds nothing (0.9 joined it)
        return acc if x == "" else x if acc == "" else f"{acc},{x}"
    raise Unmodelled(f"aggregate function {fn!r}")


def _retract(fn: str, acc: Any, x: Any) -> Any:
    if fn == "sum":
        if x is None:
            return acc
        return -x if acc is None else acc - x
    if fn == "last_value":
        return None
    if fn == "last_non_null_value":
        return None if x is not None else acc
    raise Unmodelled(f"{fn} does not retract (Paimon refuses the record unless ignore-retract)")


class PkModel:
    def __init__(
        self, columns: list[str], primary_keys: tuple[str, ...] | list[str], options: dict[str, str]
    ):
        self.columns = list(columns)
        self.keys = tuple(primary_keys)
        self.options = dict(options)
        self.engine = self.options.get("merge-engine", "deduplicate")
        self.ignore_delete = (
            self.options.get("ignore-delete", "false") == "true"
            or self.options.get(f"{self.engine}.ignore-delete", "false") == "true"
        )
        self.state: dict[tuple, dict[str, Any]] = {}
        self.first_seen: set[tuple] = set()  # aggregation: keys with at least one record
        self.lone_retract: set[tuple] = set()  # aggregation: keys whose only record is a retraction
        self.as_written: dict[tuple, dict[str, Any]] = {}  # partial-update: a key's single record
        self.retracted_lnnv: set[tuple] = set()  # aggregation: a lone retraction cleared last_non_null_value
        self._groups: dict[str, list[str]] = {}  # partial-update: sequence field -> its fields
        self._functions: dict[str, str] = {}
        self._ignore_retract: set[str] = set()
        self._check_options()

    # ------------------------------------------------------------------ configuration
    def _check_options(self) -> None:
        o = self.options
        default_fn = o.get("fields.default-aggregate-function")
        for key, value in o.items():
            if key in (
                "merge-engine",
                "ignore-delete",
                "partial-update.remove-record-on-delete",
                "fields.default-aggregate-function",
                f"{self.engine}.ignore-delete",
            ):
                continue
            if key.startswith("fields."):
                field, _, what = key[len("fields.") :].rpartition(".")
                if what == "sequence-group" and self.engine == "partial-update":
                    self._groups[field] = [f.strip() for f in value.split(",")]
                elif what == "aggregate-function" and self.engine == "aggregation":
                    self._functions[field] = value
                elif what == "ignore-retract" and self.engine == "aggregation":
                    if value == "true":
                        self._ignore_retract.add(field)
                else:
                    raise Unmodelled(f"option {key}")
            elif not key.startswith(_KNOWN_PREFIXES):
                raise Unmodelled(f"option {key}")
        if self.engine == "aggregation":
            for c in self.columns:
                if c not in self.keys:
                    self._functions.setdefault(c, default_fn or "last_non_null_value")
        elif self.engine not in ("deduplicate", "first-row", "partial-update"):
            raise Unmodelled(f"merge engine {self.engine}")

    # ------------------------------------------------------------------ changes
    def apply(self, rows: list[dict[str, Any]]) -> None:
        """One commit's changes, in order."""
        records = []
        for r in rows:
            kind = r.get(KIND, "+I")
            body = {c: r.get(c) for c in self.columns}
            if kind in RETRACT and self.ignore_delete:
                continue
            records.append((tuple(body[k] for k in self.keys), kind, body))
        if self.engine == "aggregation":
            records = self._premerge(records)
        for key, kind, body in records:
            getattr(self, "_" + self.engine.replace("-", "_"))(key, kind, body)

    def _premerge(self, records: list) -> list:
        """The writer's buffer: the records of a key in one commit become one +I record (a key
        with one record keeps it as written)."""
        by_key: dict[tuple, list] = {}
        for rec in records:
            by_key.setdefault(rec[0], []).append(rec)
        out = []
        for key, recs in by_key.items():
            if len(recs) == 1:
                out.append(recs[0])
                continue
            buffer = PkModel(self.columns, self.keys, self.options)
            for _, kind, body in recs:
                buffer._fold(key, kind, body)
            out.append((key, "+I", buffer.state[key]))
        return out

    def _deduplicate(self, key, kind, body) -> None:
        if kind in RETRACT:
            self.state.pop(key, None)
        else:
            self.state[key] = body

    def _first_row(self, key, kind, body) -> None:
        if kind in RETRACT:
            raise Unmodelled("first-row refuses -U/-D without ignore-delete")
        self.state.setdefault(key, body)

    def _partial_update(self, key, kind, body) -> None:
        if kind in RETRACT:
            if self.options.get("partial-update.remove-record-on-delete") != "true":
                raise Unmodelled(
                    "partial-update refuses -U/-D without ignore-delete or remove-record-on-delete"
                )
            if self._groups:
                raise Unmodelled("deletes with sequence groups: the result depends on compactions")
            if kind == "-D":
                self.state.pop(key, None)
            return
        if key not in self.state:
            self.as_written[key] = dict(body)
        else:
            self.as_written.pop(key, None)
        row = self.state.setdefault(key, {c: None for c in self.columns})
        grouped = {f for fields in self._groups.values() for f in fields} | set(self._groups)
        for c in self.columns:
            if c not in grouped and body[c] is not None:
                row[c] = body[c]
        for seq, fields in self._groups.items():
            if body[seq] is None:
                continue  # a null sequence leaves its group untouched
            if row[seq] is None or body[seq] >= row[seq]:
                for c in (seq, *fields):
                    row[c] = body[c]  # the whole group, nulls included

    def _aggregation(self, key, kind, body) -> None:
        if key in self.lone_retract:
            raise Unmodelled(f"key {key}: a lone retraction followed by more records depends on compactions")
        if key not in self.first_seen:
            self.first_seen.add(key)
            if kind in RETRACT:
                self.lone_retract.add(key)  # read as absent while it stays alone
                return
        lnnv = [
            c
            for c, fn in self._functions.items()
            if fn == "last_non_null_value" and c not in self._ignore_retract
        ]
        if key in self.retracted_lnnv and any(body[c] is None for c in lnnv):
            raise Unmodelled(
                f"key {key}: null last_non_null_value after a lone retraction depends on compactions"
            )
        if kind in RETRACT and any(body[c] is not None for c in lnnv):
            self.retracted_lnnv.add(key)
        self._fold(key, kind, body)

    def _fold(self, key, kind, body) -> None:
        first = key not in self.state
        row = self.state.setdefault(key, {c: (body[c] if c in self.keys else None) for c in self.columns})
        for c, fn in self._functions.items():
            if kind in RETRACT:
                if c not in self._ignore_retract:
                    row[c] = _retract(fn, row[c], body[c])
            else:
                row[c] = _agg(fn, row[c], body[c], first)

    # ------------------------------------------------------------------ reads
    def rows(self) -> list[dict[str, Any]]:
        return [dict(self.as_written.get(k, r)) for k, r in self.state.items()]

    def copy(self) -> PkModel:
        import copy

        return copy.deepcopy(self)
