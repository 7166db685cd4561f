"""Primary-key tables against a plain dict model: random upserts and deletes in random commits,
for every merge engine, checked at every snapshot (time travel included). The two value columns
get types drawn from every type we support (integers, FLOAT/DOUBLE, compact and wide DECIMAL,
BOOLEAN, strings, binaries, DATE, TIME, TIMESTAMP(0-9), TIMESTAMP_LTZ(0-9), ARRAY, MAP, MULTISET,
ROW, nested ROW, ARRAY<ROW>), NULLs included; keys are INT, STRING, DECIMAL, DATE, TIMESTAMP or
composite, with the partition column in the key; records are +I/+U/-U/-D under each engine's delete
options. A tiny write buffer makes one commit spill into several level-0 sorted runs. A second test
checks the changelog producers (input, lookup, full-compaction) against the same model. Values are canonical JSON (tests/interop/harness/canonical.py), so the
model compares exactly what a reader sees."""

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.mergetree.compaction import compact
from paimon_core.metadata.schema import Schema
from paimon_core.read.diff import diff

from tests.interop.harness.canonical import arrow_from_rows, rows_from_arrow
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
    """The changelog producers against the model. ``input``: each APPEND snapshot's changelog is
    exactly its input records (kinds and values, as a multiset). ``lookup`` (changelog in the
    COMPACT snapshot of the compaction after each write) and ``full-compaction`` (in the full
    compaction's COMPACT snapshot): the changelog, read per snapshot, is a consistent stream
    (every -U/-D retracts the value last given for its key) whose fold equals the model after
    every full compaction."""
    if engine == "first-row" and producer != "lookup":
        engine = "deduplicate"  # first-row takes changelog-producer none or lookup only
    on_delete = data.draw(st.sampled_from(DELETE_OPTIONS[engine]), label="on_delete")
    model_delete = "ignore-delete" if on_delete and on_delete.endswith("ignore-delete") else on_delete
    op = st.tuples(
        st.sampled_from(["+I", "+U", "-U", "-D"]),
        st.integers(0, 8),
        st.one_of(st.none(), TYPES[types[0]][0]),
        st.one_of(st.none(), TYPES[types[1]][0]),
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
    folded: dict = {}
    seen = 0
    for i, ops in enumerate(history):
        rows = [{"k": k, "v1": v1, "v2": v2, "p": f"p{k % 2}"} for _, k, v1, v2 in ops]
        batch = arrow_from_rows(rows, arrow_schema).append_column("kind", pa.array([o[0] for o in ops]))
        snap = t.write_arrow(batch, row_kind_column="kind")
        apply(model, engine, types, funcs, ops, model_delete)
        if producer == "input" and snap is not None:
            got = changelog(snap.id - 1, snap.id).get(snap.id, [])
            want = [(o[0], o[1], (_canon(o[2]), _canon(o[3]))) for o in ops]
            assert sorted(got) == sorted(want), f"input changelog of snapshot {snap.id}"
        if producer != "input" and (producer == "full-compaction" or i == len(history) - 1):
            res = compact(t, full=True)
            latest = t.snapshots.latest_id() or 0
            for sid, log in sorted(changelog(seen, latest).items()):
                _fold_changelog(folded, log, f"snapshot {sid} ({engine}, {on_delete}, {types})")
            seen = latest
            assert folded == canon_model(model), f"changelog fold after full compaction {res.snapshot}"
