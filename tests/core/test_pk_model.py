"""Primary-key tables against a plain dict model: random upserts and deletes in random commits,
for every merge engine, checked at every snapshot (time travel included). The two value columns
get types drawn from every type we support (integers, FLOAT/DOUBLE, compact and wide DECIMAL,
BOOLEAN, strings, binaries, DATE, TIME, TIMESTAMP(0-9), TIMESTAMP_LTZ(0-9), ARRAY, MAP, MULTISET,
ROW, nested ROW, ARRAY<ROW>), NULLs included; keys are INT, STRING, DECIMAL, DATE, TIMESTAMP or
composite, with the partition column in the key; records are +I/+U/-U/-D under each engine's delete
options. A tiny write buffer makes one commit spill into several level-0 sorted runs. A second test
checks the changelog producers (input, lookup, full-compaction) against the same model. Values are canonical JSON (tests/interop/harness/canonical.py), so the
model compares exactly what a reader sees."""

from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import compact, max_level
from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff
from paimon_core.write.bucket import bucket_of_hash, hash_row
from tests.interop.harness.canonical import arrow_from_rows, rows_from_arrow
from tests.reference.changelog_model import expected_changelog, keys_with_records
from tests.reference.pk_histories import (
    DELETE_OPTIONS,
    ENGINES,
    TYPES,
    apply,
    pk_histories,
    restrict_retractions,
)
from tests.reference.pk_histories import canon as _canon


@pytest.mark.parametrize("engine", ENGINES)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_pk_table_matches_dict_model(tmp_path_factory, engine, data):
    """... for keys of every kind (INT, STRING, DECIMAL, DATE, TIMESTAMP, composite), with a
    partition column in the key, +I/+U/-U/-D records under each engine's delete options, and
    compaction (minor or full, at random points) never changes what a read returns. The histories
    are drawn by tests/reference/pk_histories.py (tests/interop/test_model_replay_interop.py
    replays a sample of them through Java Paimon 0.9)."""
    h = data.draw(pk_histories(engine), label="history")
    wh = tmp_path_factory.mktemp("wh")
    cols = h.columns
    t = FileSystemCatalog(str(wh)).create_table(
        "db.t",
        Schema(
            Schema.parse_columns(", ".join(f"{n} {ty}" for n, ty in cols)),
            h.partition_keys,
            h.primary_keys,
            h.options,
        ),
    )
    arrow_schema = pa.schema(
        [pa.field(n, to_arrow_type(parse_type(ty)), nullable="NOT NULL" not in ty) for n, ty in cols]
    )
    paimon_types = dict(cols)
    model: dict = {}
    expected_at = {}
    for ops in h.history:
        batch = arrow_from_rows(h.rows(ops), arrow_schema).append_column(
            "kind", pa.array([o[0] for o in ops])
        )
        snap = t.write_arrow(batch, row_kind_column="kind")
        before = dict(model)
        apply(model, engine, h.types, h.funcs, ops, h.model_delete)
        if snap is None:  # everything merged away (retractions ignored): nothing to commit
            assert model == before
            continue
        # the write may be followed by its compaction snapshot; first-row tables show rows only
        # once compacted out of level 0 (as Java's batch reads do), so check the latest there
        expected_at[t.snapshots.latest_id()] = dict(model)
        if engine != "first-row":
            expected_at[snap.id] = dict(model)
        kind = h.after[len(expected_at) % len(h.after)]
        if kind is not None:
            res = compact(t, full=(kind == "full"))
            if res.snapshot is not None:
                assert res.snapshot.commit_kind == "COMPACT"
                expected_at[res.snapshot.id] = dict(model)
    for sid, exp in expected_at.items():
        got = h.canonical_rows(rows_from_arrow(t.read(snapshot_id=sid), paimon_types))
        assert got == h.canonical(exp), f"snapshot {sid} ({h.key_type}, {h.types}, {h.on_delete})"


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
    history = restrict_retractions(engine, on_delete, history)
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
