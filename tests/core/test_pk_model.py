"""Primary-key tables against a plain dict model: random upserts and deletes in random commits,
for every merge engine, checked at every snapshot (time travel included). The two value columns
get types drawn from every type we support (integers, FLOAT/DOUBLE, compact and wide DECIMAL,
BOOLEAN, strings, binaries, DATE, TIME, TIMESTAMP(0-9), TIMESTAMP_LTZ(0-9), ARRAY, MAP, MULTISET,
ROW, nested ROW, ARRAY<ROW>), NULLs included; keys are INT, STRING, DECIMAL, DATE, TIMESTAMP or
composite, with the partition column in the key; records are +I/+U/-U/-D under each engine's delete
options. A tiny write buffer makes one commit spill into several level-0 sorted runs. A second test
checks the changelog producers (input, lookup, full-compaction) against the same model. Values are canonical JSON (tests/interop/harness/canonical.py), so the
model compares exactly what a reader sees."""

import datetime as dt
import json
from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.mergetree.compaction import compact, max_level
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff
from paimon_core.write.bucket import bucket_of_hash, hash_row

from tests.interop.harness.canonical import arrow_from_rows, rows_from_arrow
from tests.reference.changelog_model import expected_changelog, keys_with_records

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
    ``remove-record-on-delete`` makes a -D remove the row and ignores -U. First-row always
    ignores retractions. Without an option, deduplicate lets -U and -D remove the row; the
    tests send no retraction to partial-update/aggregation then (they reject them)."""
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


def _canon(v):
    return json.dumps(v, sort_keys=True)


@pytest.mark.parametrize("engine", ENGINES)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    types=st.tuples(st.sampled_from(list(TYPES)), st.sampled_from(list(TYPES))),
    second=st.sampled_from(["first_non_null_value", "last_non_null_value"]),
    key_type=st.sampled_from(list(KEY_TYPES)),
    buckets=st.integers(1, 3),
    partitioned=st.booleans(),
    after=st.lists(st.sampled_from([None, "minor", "full"]), min_size=5, max_size=5),
)
def test_pk_table_matches_dict_model(
    tmp_path_factory, engine, data, types, second, key_type, buckets, partitioned, after
):
    """... for keys of every kind (INT, STRING, DECIMAL, DATE, TIMESTAMP, composite), with a
    partition column in the key, +I/+U/-U/-D records under each engine's delete options, and
    compaction (minor or full, at random points) never changes what a read returns."""
    on_delete = data.draw(st.sampled_from(DELETE_OPTIONS[engine]), label="on_delete")
    model_delete = "ignore-delete" if on_delete and on_delete.endswith("ignore-delete") else on_delete
    op = st.tuples(
        st.sampled_from(["+I", "+U", "-U", "-D"]),
        st.integers(0, 12),
        st.one_of(st.none(), TYPES[types[0]][0]),
        st.one_of(st.none(), TYPES[types[1]][0]),
    )
    history = data.draw(
        st.lists(st.lists(op, min_size=1, max_size=25), min_size=1, max_size=5), label="history"
    )
    if engine in ("partial-update", "aggregation") and on_delete is None:  # they reject retractions
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
    funcs = (TYPES[types[0]][1], second)
    wh = tmp_path_factory.mktemp("wh")
    options = {"bucket": str(buckets), "write-buffer-size": "2kb", "merge-engine": engine}
    if on_delete is not None:
        options[on_delete] = "true"
    if engine == "aggregation":
        options.update({"fields.v1.aggregate-function": funcs[0], "fields.v2.aggregate-function": funcs[1]})
    key_cols, key_of = KEY_TYPES[key_type]
    key_names = tuple(n for n, _ in key_cols)
    cols = [*key_cols, ("v1", types[0]), ("v2", types[1]), ("p", "STRING")]
    t = FileSystemCatalog(str(wh)).create_table(
        "db.t",
        Schema(
            Schema.parse_columns(", ".join(f"{n} {ty}" for n, ty in cols)),
            ("p",) if partitioned else (),
            (*key_names, "p") if partitioned else key_names,
            options,
        ),
    )
    arrow_schema = pa.schema(
        [pa.field(n, to_arrow_type(parse_type(ty)), nullable="NOT NULL" not in ty) for n, ty in cols]
    )
    paimon_types = dict(cols)
    model: dict = {}
    expected_at = {}
    for ops in history:
        rows = [
            {**dict(zip(key_names, key_of(k))), "v1": v1, "v2": v2, "p": f"p{k % 2}"} for _, k, v1, v2 in ops
        ]
        batch = arrow_from_rows(rows, arrow_schema).append_column("kind", pa.array([o[0] for o in ops]))
        snap = t.write_arrow(batch, row_kind_column="kind")
        before = dict(model)
        apply(model, engine, types, funcs, ops, model_delete)
        if snap is None:  # everything merged away (retractions ignored): nothing to commit
            assert model == before
            continue
        # the write may be followed by its compaction snapshot; first-row tables show rows only
        # once compacted out of level 0 (as Java's batch reads do), so check the latest there
        expected_at[t.snapshots.latest_id()] = dict(model)
        if engine != "first-row":
            expected_at[snap.id] = dict(model)
        kind = after[len(expected_at) % len(after)]
        if kind is not None:
            res = compact(t, full=(kind == "full"))
            if res.snapshot is not None:
                assert res.snapshot.commit_kind == "COMPACT"
                expected_at[res.snapshot.id] = dict(model)
    for sid, exp in expected_at.items():
        got = {
            (*(_canon(r[n]) for n in key_names), r["p"]): (_canon(r["v1"]), _canon(r["v2"]))
            for r in rows_from_arrow(t.read(snapshot_id=sid), paimon_types)
        }
        want = {
            (*(_canon(x) for x in key_of(k)), f"p{k % 2}"): (_canon(v[0]), _canon(v[1]))
            for k, v in exp.items()
        }
        assert got == want, f"snapshot {sid} ({key_type}, {types}, {on_delete})"


def _fold_changelog(state: dict, log: list, where: str) -> None:
    """Apply changelog rows (kind, key, value) to ``state``; a retraction must retract the value
    the stream last gave its key (a consistent stream), an insert must not shadow a live row."""
    for kind, key, value in log:
        if kind in ("-U", "-D"):
            assert state.get(key) == value, f"{where}: {kind} {key} {value} retracts {state.get(key)}"
            del state[key]
        else:
            assert key not in state, f"{where}: {kind} {key} {value} over live {state[key]}"
            state[key] = value


@pytest.mark.parametrize("producer", ("input", "lookup", "full-compaction"))
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    engine=st.sampled_from(ENGINES),
    types=st.tuples(st.sampled_from(list(TYPES)), st.sampled_from(list(TYPES))),
    buckets=st.integers(1, 2),
    partitioned=st.booleans(),
)
def test_pk_changelog_matches_dict_model(
    tmp_path_factory, producer, data, engine, types, buckets, partitioned
):
    """The changelog producers against the model, snapshot by snapshot. ``input``: each APPEND
    snapshot's changelog is exactly its input records (kinds and values, as a multiset).
    ``lookup`` (deletion vectors drawn too) and ``full-compaction`` (``delta-commits`` 1-3):
    only COMPACT snapshots carry changelog, and each carries exactly what Paimon's producer
    emits (tests/reference/changelog_model.py) for the buckets it leaves without level-0 files
    (lookup) or with top-level files only (full compaction): per key written there since that
    bucket's previous such compaction, +I/-D/-U+U between the model states then and now, -U/+U
    also for an unchanged row unless ``changelog-producer.row-deduplicate`` (drawn), first-row
    +I for new keys only. Every write ends up in such a compaction, and the changelog read so
    far is a consistent stream (every -U/-D retracts the value last given for its key) whose
    fold equals the model states of those compactions."""
    if engine == "first-row" and producer != "lookup":
        engine = "deduplicate"  # first-row takes changelog-producer none or lookup only
    on_delete = data.draw(st.sampled_from(DELETE_OPTIONS[engine]), label="on_delete")
    model_delete = "ignore-delete" if on_delete and on_delete.endswith("ignore-delete") else on_delete
    # a few values per column, so that rows are often written again unchanged (-U/+U of equal
    # rows, dropped by row-deduplicate)
    pools = [
        data.draw(st.lists(TYPES[ty][0], min_size=1, max_size=3), label=f"values of {ty}") for ty in types
    ]
    op = st.tuples(
        st.sampled_from(["+I", "+U", "-U", "-D"]),
        st.integers(0, 8),
        st.one_of(st.none(), st.sampled_from(pools[0])),
        st.one_of(st.none(), st.sampled_from(pools[1])),
    )
    history = data.draw(
        st.lists(st.lists(op, min_size=1, max_size=12), min_size=1, max_size=4), label="history"
    )
    if engine in ("partial-update", "aggregation") and on_delete is None:
        history = [[o for o in ops if o[0] in ("+I", "+U")] or [("+I", 0, None, None)] for ops in history]
    if on_delete == "partial-update.remove-record-on-delete":  # see test_pk_table_matches_dict_model
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
    funcs = (TYPES[types[0]][1], "last_non_null_value")
    options = {
        "bucket": str(buckets),
        "write-buffer-size": "2kb",
        "merge-engine": engine,
        "changelog-producer": producer,
    }
    if on_delete is not None:
        options[on_delete] = "true"
    if engine == "aggregation":
        options.update({"fields.v1.aggregate-function": funcs[0], "fields.v2.aggregate-function": funcs[1]})
    # Java's row-deduplicate compares stored maps in entry order, canonical values do not
    if producer != "input" and not any(ty.startswith(("MAP", "MULTISET")) for ty in types):
        if data.draw(st.booleans(), label="row_deduplicate"):
            options["changelog-producer.row-deduplicate"] = "true"
    if producer == "lookup" and engine != "first-row" and data.draw(st.booleans(), label="dv"):
        options["deletion-vectors.enabled"] = "true"  # the lookup compaction marks older rows deleted
    if producer == "full-compaction":  # a full compaction every n write commits
        options["full-compaction.delta-commits"] = str(data.draw(st.integers(1, 3), label="delta_commits"))
    cols = [("k", "INT NOT NULL"), ("v1", types[0]), ("v2", types[1]), ("p", "STRING")]
    t = FileSystemCatalog(str(tmp_path_factory.mktemp("wh"))).create_table(
        "db.t",
        Schema(
            Schema.parse_columns(", ".join(f"{n} {ty}" for n, ty in cols)),
            ("p",) if partitioned else (),
            ("k", "p") if partitioned else ("k",),
            options,
        ),
    )
    arrow_schema = pa.schema(
        [pa.field(n, to_arrow_type(parse_type(ty)), nullable="NOT NULL" not in ty) for n, ty in cols]
    )
    paimon_types = {**dict(cols), "_row_kind": "STRING"}

    def changelog(a: int, b: int) -> dict:
        out: dict = {}
        if b > a:
            log = diff(t, a, b, mode="changelog", per_snapshot=True)
            sids = log.column("_snapshot").to_pylist()
            for sid, r in zip(sids, rows_from_arrow(log.drop_columns(["_snapshot"]), paimon_types)):
                out.setdefault(sid, []).append((r["_row_kind"], r["k"], (_canon(r["v1"]), _canon(r["v2"]))))
        return out

    def canon_model(m: dict) -> dict:
        return {k: (_canon(v[0]), _canon(v[1])) for k, v in m.items()}

    model: dict = {}
    # the changelog of a bucket comes from a compaction that leaves it with no level-0 file
    # (lookup) or only top-level files (full-compaction): per bucket, the model when that last
    # happened and the records written since
    top = max_level(t)
    int_type = parse_type("INT NOT NULL")

    def bucket_of(k: int) -> tuple:
        return ((f"p{k % 2}",) if partitioned else (), bucket_of_hash(hash_row((k,), [int_type]), buckets))

    def changelog_done(files) -> bool:
        return all(f.level > 0 for f in files) if producer == "lookup" else all(f.level == top for f in files)

    at_compaction: dict = {}  # bucket -> its model then
    pending: dict = {}  # bucket -> records written since
    expected: dict = {}  # compaction snapshot -> (changelog it must carry, model its fold gives, write)
    seen = 0
    for i, ops in enumerate(history):
        rows = [{"k": k, "v1": v1, "v2": v2, "p": f"p{k % 2}"} for _, k, v1, v2 in ops]
        batch = arrow_from_rows(rows, arrow_schema).append_column("kind", pa.array([o[0] for o in ops]))
        snap = t.write_arrow(batch, row_kind_column="kind")
        apply(model, engine, types, funcs, ops, model_delete)
        if producer == "input":
            if snap is not None:
                got = changelog(snap.id - 1, snap.id).get(snap.id, [])
                want = [(o[0], o[1], (_canon(o[2]), _canon(o[3]))) for o in ops]
                assert sorted(got) == sorted(want), f"input changelog of snapshot {snap.id}"
            continue
        where = f"write {i} ({engine}, {on_delete}, {types}, {options})"
        if snap is None:  # every record an ignored retraction: no commit, no changelog
            assert (t.snapshots.latest_id() or 0) == seen, where
            assert not keys_with_records(ops, options), where
        for o in ops:
            if o[1] in keys_with_records([o], options):
                pending.setdefault(bucket_of(o[1]), []).append(o)
        if i == len(history) - 1:
            compact(t, full=True)  # lookup: nothing left in level 0 after the writer's compaction
        latest = t.snapshots.latest_id() or 0
        now = canon_model(model)
        for sid in range(seen + 1, latest + 1):
            snapshot = t.snapshots.snapshot(sid)
            if snapshot.commit_kind != "COMPACT" or not any(pending.values()):
                continue
            files = {(sp.partition, sp.bucket): sp.files for sp in t.plan(snapshot, all_levels=True)}
            want: Counter = Counter()
            for b in [b for b, recs in pending.items() if recs and changelog_done(files.get(b, ()))]:
                mine = {k: v for k, v in now.items() if bucket_of(k) == b}
                want += expected_changelog(at_compaction.get(b, {}), pending.pop(b), mine, options)
                at_compaction[b] = mine
            fold = {k: v for m in at_compaction.values() for k, v in m.items()}
            expected[sid] = (want, fold, where)
        seen = latest
    if producer == "input":
        return
    assert not any(pending.values()), f"records never compacted into changelog: {pending}"
    # one changelog read for the whole history (per snapshot): the test's cost stays that of the writes
    logs = changelog(0, seen)
    assert set(logs) <= set(expected), (
        f"changelog in snapshots {sorted(logs)}, expected in {sorted(expected)}"
    )
    folded: dict = {}
    for sid, (want, fold, where) in sorted(expected.items()):
        got = Counter(logs.get(sid, []))
        assert got == want, f"{where}: changelog of snapshot {sid}: extra {got - want}, missing {want - got}"
        _fold_changelog(folded, logs.get(sid, []), f"snapshot {sid} ({engine}, {on_delete}, {types})")
        assert folded == fold, f"changelog fold after snapshot {sid}"
