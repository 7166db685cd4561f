"""Primary-key table histories for property tests, and the plain dict model they are checked
against (no reference to paimon_core).

``pk_histories(engine)`` draws one history of a primary-key table: two value columns with types
drawn from every type we support (integers, FLOAT/DOUBLE, compact and wide DECIMAL, BOOLEAN,
strings, binaries, DATE, TIME, TIMESTAMP(0-9), TIMESTAMP_LTZ(0-9), ARRAY, MAP, MULTISET, ROW,
nested ROW, ARRAY<ROW>), NULLs included; keys INT, STRING, DECIMAL, DATE, TIMESTAMP or composite,
with the partition column in the key when partitioned; 1-3 buckets; a tiny write buffer; one of
the engine's delete options; up to five commits of +I/+U/-U/-D records, each maybe followed by a
minor or full compaction. Values are canonical JSON (tests/interop/harness/canonical.py), so the
model (``apply``) holds exactly what a reader returns. Used by tests/core/test_pk_model.py
(against our reader) and tests/interop/test_model_replay_interop.py (against Java Paimon 0.9).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from hypothesis import strategies as st

ENGINES = ("deduplicate", "first-row", "partial-update", "aggregation")


def _ints(bits: int):
    return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _decimal(p: int, s: int):
    # small enough that 125 of them never sum out of the precision
    return st.integers(-(10 ** (p - 3)), 10 ** (p - 3)).map(lambda u: f"{u / 10**s:.{s}f}" if s else str(u))


def _timestamp(p: int, ltz: bool):
    def text(n: int) -> str:
        secs, frac = divmod(n, 10**9)
        base = (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=secs)).strftime("%Y-%m-%dT%H:%M:%S")
        return base + (f".{frac:09d}"[: p + 1] if p else "") + ("Z" if ltz else "")

    lo = int((dt.datetime(1900, 1, 1) - dt.datetime(1970, 1, 1)).total_seconds()) * 10**9
    hi = int((dt.datetime(2200, 1, 1) - dt.datetime(1970, 1, 1)).total_seconds()) * 10**9
    return st.integers(lo, hi).map(lambda n: n - n % 10 ** (9 - p)).map(text)


_ROW = st.fixed_dictionaries(
    {"a": st.one_of(st.none(), st.integers(-3, 3)), "b": st.one_of(st.none(), st.text("xy", max_size=2))}
)

# type -> (canonical values, aggregate function the model implements for it)
TYPES = {
    "TINYINT": (_ints(8), "sum"),
    "SMALLINT": (_ints(16), "sum"),
    "INT": (_ints(32), "sum"),
    "BIGINT": (_ints(64), "sum"),
    "FLOAT": (st.integers(-2000, 2000).map(lambda i: i / 4), "sum"),
    "DOUBLE": (st.integers(-2000, 2000).map(lambda i: i / 8), "sum"),
    "DECIMAL(9, 2)": (_decimal(9, 2), "sum"),
    "DECIMAL(18, 3)": (_decimal(18, 3), "sum"),
    "DECIMAL(38, 6)": (_decimal(38, 6), "sum"),
    "BOOLEAN": (st.booleans(), "bool_or"),
    "CHAR(4)": (st.text("abé", max_size=4), "max"),
    "VARCHAR(8)": (st.text("abé€", max_size=8), "max"),
    "STRING": (st.text("ab😀", max_size=5), "max"),
    "BINARY(3)": (st.binary(min_size=3, max_size=3).map(bytes.hex), "min"),
    "VARBINARY(6)": (st.binary(max_size=6).map(bytes.hex), "max"),
    "BYTES": (st.binary(max_size=4).map(bytes.hex), "min"),
    "DATE": (st.dates(dt.date(1900, 1, 1), dt.date(2200, 1, 1)).map(dt.date.isoformat), "max"),
    "TIME": (
        st.integers(0, 86_399_999).map(
            lambda ms: f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"
        ),
        "min",
    ),
    **{f"TIMESTAMP({p})": (_timestamp(p, False), "max") for p in range(10)},
    **{f"TIMESTAMP({p}) WITH LOCAL TIME ZONE": (_timestamp(p, True), "min") for p in range(10)},
    "ARRAY<INT>": (st.lists(st.one_of(st.none(), st.integers(-3, 3)), max_size=3), "collect"),
    "ARRAY<STRING>": (st.lists(st.one_of(st.none(), st.text("pq", max_size=2)), max_size=3), "collect"),
    "MAP<STRING, INT>": (
        st.dictionaries(st.sampled_from("abc"), st.one_of(st.none(), st.integers(-3, 3)), max_size=3),
        "merge_map",
    ),
    "MAP<INT, ARRAY<STRING>>": (
        st.dictionaries(
            st.integers(0, 3).map(str),
            st.one_of(st.none(), st.lists(st.sampled_from("xy"), max_size=2)),
            max_size=2,
        ),
        "merge_map",
    ),
    "MULTISET<STRING>": (
        st.dictionaries(st.sampled_from(["a", "b", "é"]), st.integers(1, 3), max_size=3),
        "last_non_null_value",
    ),
    "MULTISET<INT>": (
        st.dictionaries(st.integers(-2, 2).map(str), st.integers(1, 3), max_size=2),
        "first_non_null_value",
    ),
    "ROW<a INT, b STRING>": (_ROW, "last_non_null_value"),
    "ROW<x INT, r ROW<a INT, b STRING>>": (
        st.fixed_dictionaries(
            {"x": st.one_of(st.none(), st.integers(0, 9)), "r": st.one_of(st.none(), _ROW)}
        ),
        "first_non_null_value",
    ),
    "ARRAY<ROW<a INT, b STRING>>": (st.lists(_ROW, max_size=2), "nested_update"),
}
SORT_KEY = {"BINARY(3)": bytes.fromhex, "VARBINARY(6)": bytes.fromhex, "BYTES": bytes.fromhex}


def agg(func: str, t: str, acc, x):
    """Java 0.9's agg(accumulator, input) of the functions above, on canonical values."""
    if func == "first_non_null_value":
        return x if acc is None else acc
    if func == "last_non_null_value":
        return acc if x is None else x
    if acc is None or x is None:
        return x if acc is None else acc
    if func == "sum":
        if t.startswith("DECIMAL"):
            import decimal

            total = decimal.Context(prec=100).add(decimal.Decimal(acc), decimal.Decimal(x))
            return f"{total:.{int(t.split(',')[1][:-1])}f}"
        if t in ("FLOAT", "DOUBLE"):
            return acc + x
        bits = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}[t]
        return (acc + x + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
    if func in ("max", "min"):
        key = SORT_KEY.get(t, lambda v: v)
        bigger = key(x) > key(acc)
        return (x if bigger else acc) if func == "max" else (acc if bigger or x == acc else x)
    if func == "bool_or":
        return acc or x
    if func in ("collect", "nested_update"):
        return acc + x
    if func == "merge_map":
        return {**acc, **x}
    raise AssertionError(func)


def apply(model: dict, engine: str, types: tuple, funcs: tuple, ops, on_delete: str | None = None) -> None:
    """Fold ``ops`` into ``model`` (key -> (v1, v2)). ``on_delete`` is the delete option drawn
    for the table: ``ignore-delete`` drops -U/-D records; partial-update's
    ``remove-record-on-delete`` makes a -D remove the row and ignores -U. First-row never lets a
    retraction change a row. Without an option, deduplicate lets -U and -D remove the row; the
    tests send no retraction to partial-update, aggregation and first-row then (they reject them)."""
    for kind, k, v1, v2 in ops:
        retract = kind in ("-U", "-D")
        if retract and on_delete == "ignore-delete":
            continue
        if engine == "deduplicate":
            if retract:
                model.pop(k, None)
            else:
                model[k] = (v1, v2)
        elif engine == "first-row":
            if not retract and k not in model:
                model[k] = (v1, v2)
        elif engine == "partial-update":
            if retract:
                assert on_delete == "partial-update.remove-record-on-delete", kind
                if kind == "-D":
                    model.pop(k, None)
                continue
            old = model.get(k, (None, None))
            model[k] = (v1 if v1 is not None else old[0], v2 if v2 is not None else old[1])
        else:
            assert not retract, kind
            old = model.get(k, (None, None))
            model[k] = (agg(funcs[0], types[0], old[0], v1), agg(funcs[1], types[1], old[1], v2))


# key type -> (key columns, function of the drawn key number 0..12 to their canonical values);
# every mapping is injective and, for ordered types, crosses zero/the epoch
def _ts_key(k: int) -> str:
    t = dt.datetime(1969, 12, 31, 23, 59, 58) + dt.timedelta(milliseconds=250 * k)
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


KEY_TYPES = {
    "INT": ((("k", "INT NOT NULL"),), lambda k: (k,)),
    "STRING": ((("k", "STRING NOT NULL"),), lambda k: (f"é{k:x}" if k % 3 else f"k{k}",)),
    "DECIMAL": ((("k", "DECIMAL(10, 2) NOT NULL"),), lambda k: (f"{(125 * k - 500) / 100:.2f}",)),
    "DATE": (
        (("k", "DATE NOT NULL"),),
        lambda k: ((dt.date(1969, 12, 25) + dt.timedelta(days=k)).isoformat(),),
    ),
    "TIMESTAMP": ((("k", "TIMESTAMP(3) NOT NULL"),), lambda k: (_ts_key(k),)),
    "COMPOSITE": (
        (("k", "BIGINT NOT NULL"), ("k2", "STRING NOT NULL")),
        lambda k: (k // 4 - 1, "ab"[k % 2] * (k % 4 // 2 + 1)),
    ),
}

# engine -> delete options it is tested with (None: no option)
DELETE_OPTIONS = {
    "deduplicate": (None, "ignore-delete"),
    "first-row": (None, "ignore-delete", "first-row.ignore-delete"),
    "partial-update": (None, "ignore-delete", "partial-update.remove-record-on-delete"),
    "aggregation": (None, "ignore-delete"),
}


def canon(v) -> str:
    return json.dumps(v, sort_keys=True)


def restrict_retractions(engine: str, on_delete: str | None, history: list) -> list:
    """The drawn commits, cut to what the engine takes under ``on_delete``."""
    if (
        engine in ("partial-update", "aggregation", "first-row") and on_delete is None
    ):  # they reject retractions
        history = [[o for o in ops if o[0] in ("+I", "+U")] or [("+I", 0, None, None)] for ops in history]
    if on_delete == "partial-update.remove-record-on-delete":
        # a key is not written again once deleted: a -D and a later insert that meet in one merge
        # (write buffer, or a compaction without the older runs) become a plain insert that older
        # runs then fill in, so the delete's clearing is lost (Java's merge function does the same
        # in 1.x and throws in 0.9); see the report of branch p16model
        deleted: set = set()
        kept = []
        for ops in history:
            kept.append([])
            for o in ops:
                if o[1] not in deleted:
                    kept[-1].append(o)
                if o[0] == "-D":
                    deleted.add(o[1])
            kept[-1] = kept[-1] or [("-U", 0, None, None)]
        history = kept
    return history


@dataclass(frozen=True)
class PkHistory:
    """One drawn history: the table (engine, value types, key type, buckets, partitioning, delete
    option) and its commits (lists of (kind, key number, v1, v2)), each followed by the
    compaction ``after[i]`` (None, "minor" or "full")."""

    engine: str
    types: tuple[str, str]
    second: str  # aggregate function of v2 (aggregation)
    key_type: str
    buckets: int
    partitioned: bool
    after: tuple
    on_delete: str | None
    history: tuple

    @property
    def funcs(self) -> tuple[str, str]:
        return (TYPES[self.types[0]][1], self.second)

    @property
    def model_delete(self) -> str | None:
        """The delete option as ``apply`` takes it (any ``*ignore-delete`` is ``ignore-delete``)."""
        d = self.on_delete
        return "ignore-delete" if d and d.endswith("ignore-delete") else d

    @property
    def options(self) -> dict[str, str]:
        options = {"bucket": str(self.buckets), "write-buffer-size": "2kb", "merge-engine": self.engine}
        if self.on_delete is not None:
            options[self.on_delete] = "true"
        if self.engine == "aggregation":
            options.update(
                {"fields.v1.aggregate-function": self.funcs[0], "fields.v2.aggregate-function": self.funcs[1]}
            )
        return options

    @property
    def key_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in KEY_TYPES[self.key_type][0])

    @property
    def columns(self) -> list[tuple[str, str]]:
        return [*KEY_TYPES[self.key_type][0], ("v1", self.types[0]), ("v2", self.types[1]), ("p", "STRING")]

    @property
    def partition_keys(self) -> tuple[str, ...]:
        return ("p",) if self.partitioned else ()

    @property
    def primary_keys(self) -> tuple[str, ...]:
        return (*self.key_names, "p") if self.partitioned else self.key_names

    def rows(self, ops) -> list[dict]:
        """One commit's records as canonical rows (row kind not included)."""
        key_of = KEY_TYPES[self.key_type][1]
        return [
            {**dict(zip(self.key_names, key_of(k))), "v1": v1, "v2": v2, "p": f"p{k % 2}"}
            for _, k, v1, v2 in ops
        ]

    def canonical(self, model: dict) -> dict:
        """The model (key number -> (v1, v2)) as canonical key tuple -> value pair."""
        key_of = KEY_TYPES[self.key_type][1]
        return {
            (*(canon(x) for x in key_of(k)), f"p{k % 2}"): (canon(v[0]), canon(v[1]))
            for k, v in model.items()
        }

    def canonical_rows(self, rows) -> dict:
        """Rows a reader returned (canonical dicts), keyed as ``canonical`` keys the model."""
        return {
            (*(canon(r[n]) for n in self.key_names), r["p"]): (canon(r["v1"]), canon(r["v2"])) for r in rows
        }


@st.composite
def pk_histories(draw, engine: str) -> PkHistory:
    """A history of a table with merge engine ``engine``."""
    types = (draw(st.sampled_from(list(TYPES)), label="v1"), draw(st.sampled_from(list(TYPES)), label="v2"))
    second = draw(st.sampled_from(["first_non_null_value", "last_non_null_value"]), label="second")
    key_type = draw(st.sampled_from(list(KEY_TYPES)), label="key_type")
    buckets = draw(st.integers(1, 3), label="buckets")
    partitioned = draw(st.booleans(), label="partitioned")
    after = draw(st.lists(st.sampled_from([None, "minor", "full"]), min_size=5, max_size=5), label="after")
    on_delete = draw(st.sampled_from(DELETE_OPTIONS[engine]), label="on_delete")
    op = st.tuples(
        st.sampled_from(["+I", "+U", "-U", "-D"]),
        st.integers(0, 12),
        st.one_of(st.none(), TYPES[types[0]][0]),
        st.one_of(st.none(), TYPES[types[1]][0]),
    )
    history = draw(st.lists(st.lists(op, min_size=1, max_size=25), min_size=1, max_size=5), label="history")
    history = restrict_retractions(engine, on_delete, history)
    return PkHistory(
        engine,
        types,
        second,
        key_type,
        buckets,
        partitioned,
        tuple(after),
        on_delete,
        tuple(map(tuple, history)),
    )
