"""One differential test per table option that changes rows, files or snapshots.

For each option Java Paimon 0.9 has, Java writes a twin table from the same commits with the
same options, and three reads must agree: ours of our table, Java's of our table, Java's of its
own table. Where the option's effect is simple, all three also equal a plain-Python model (never
our reader). Options only this project knows are checked against a model alone (said where).
Java calls are batched: one JVM for all twin tables, one per other concern.

``test_every_option_is_covered`` fails when core/options.py gains an option that neither this
module, another named test file, nor a stated reason ("no observable effect") accounts for.

Known differences from Java 0.9 are strict xfails (they fail the suite once fixed); none now.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pyarrow as pa
import pytest
from paimon_core.catalog import FileSystemCatalog
from paimon_core.data.binary_row import deserialize_row
from paimon_core.data.types import parse_type, to_arrow_type
from paimon_core.metadata.live_files import live_entries
from paimon_core.metadata.schema import Schema
from paimon_core.options.registry import FIELD_OPTIONS, OPTIONS
from paimon_core.read.diff import diff

from tests.interop.harness.canonical import arrow_from_rows, assert_same_rows, rows_from_arrow
from tests.reference.merge_model import PkModel

pytestmark = pytest.mark.interop

KIND = "_row_kind"


# ---------------------------------------------------------------- twin tables


@dataclass
class Case:
    """A table written by us and by Java from the same commits. ``model(commits)`` returns the
    rows a read of the latest snapshot must give (None: the three reads only agree)."""

    columns: list[tuple[str, str]]
    pks: tuple[str, ...]
    options: dict[str, str]
    commits: list[list[dict]]
    model: object = None
    partitions: tuple[str, ...] = ()
    java_twin: bool = True  # False: Java 0.9 cannot write the twin (it still reads ours)
    java_model: object = None  # an option Java 0.9 lacks: what Java 0.9 reads instead (else as ours)
    chunks: int = 1  # we hand each commit to the writer in this many Arrow tables


def _arrow_schema(columns) -> pa.Schema:
    return pa.schema(
        [pa.field(n, to_arrow_type(parse_type(t)), nullable="NOT NULL" not in t) for n, t in columns]
    )


_MERGE_KEYS = ("merge-engine", "ignore-delete", "first-row.", "deduplicate.", "partial-update.", "fields.")


def _pk_model(case: Case, drop: tuple[str, ...] = ()) -> list[dict]:
    """PkModel of the case's merge options (the others change files, not rows)."""
    opts = {k: v for k, v in case.options.items() if k.startswith(_MERGE_KEYS) and k not in drop}
    m = PkModel([n for n, _ in case.columns], case.pks, opts)
    for rows in case.commits:
        m.apply(rows)
    return m.rows()


def _model_pk(case):
    return _pk_model(case)


def _model_append(case):
    return [{k: v for k, v in r.items() if k != KIND} for rows in case.commits for r in rows]


def _seq_model(order: str):
    """deduplicate with sequence.field s: the record with the greatest s wins (the least with
    descending); equal s: the later one wins."""

    def model(case):
        best: dict = {}
        for rows in case.commits:
            for r in rows:
                k, old = r["k"], best.get(r["k"])
                if old is None or (r["s"] >= old["s"] if order == "ascending" else r["s"] <= old["s"]):
                    best[k] = r
        return [{c: v for c, v in r.items() if c != KIND} for r in best.values()]

    return model


def _listagg_model(case):
    """listagg with delimiter ';': the model's ',' joined values, with ';' (values hold no ',')."""
    rows = _pk_model(case, drop=("fields.t.list-agg-delimiter",))
    return [{**r, "t": None if r["t"] is None else r["t"].replace(",", ";")} for r in rows]


KV = [("k", "INT NOT NULL"), ("v", "STRING"), ("n", "BIGINT"), ("s", "INT")]


def _kv(k, v, n, s=0, kind="+I"):
    return {"k": k, "v": v, "n": n, "s": s, KIND: kind}


DELETES = [
    [_kv(1, "a", 1), _kv(2, "b", 2), _kv(3, "c", 3)],
    [_kv(2, "b", 2, kind="-D"), _kv(3, "c2", None), _kv(4, "d", 4)],
    [_kv(1, "a", 1, kind="-U"), _kv(1, "a3", 10, kind="+U"), _kv(4, "d", 4, kind="-D")],
]
# first-row: the first record of a key stays; -U/-D only with ignore-delete
FIRST_ROW = [
    [_kv(1, "a", 1), _kv(2, "b", 2)],
    [_kv(2, "b", 2, kind="-D"), _kv(1, "a2", 5), _kv(3, "c", 3)],
]
PARTIAL = [
    [_kv(1, "a", 1), _kv(2, "b", None), _kv(3, "c", 3)],
    [_kv(1, None, 10), _kv(2, None, 20)],
    [_kv(2, "b", 2, kind="-D")],
]
SEQ = [
    [_kv(1, "a", 1, 5), _kv(2, "b", 2, 5), _kv(3, "c", 3, 5)],
    [_kv(1, "a2", 10, 3), _kv(2, "b2", 20, 7), _kv(3, "c2", 30, 5)],
    [_kv(1, "a3", 11, 9), _kv(2, "b3", 21, 1)],
]
AGG_COLS = [("k", "INT NOT NULL"), ("b", "BIGINT"), ("g", "INT"), ("t", "STRING")]
AGG = [
    [{"k": 1, "b": 5, "g": 1, "t": "x"}, {"k": 2, "b": 7, "g": 9, "t": "y"}],
    [
        {"k": 1, "b": 5, "g": 1, "t": "x", KIND: "-U"},
        {"k": 1, "b": 8, "g": 4, "t": "w", KIND: "+U"},
        {"k": 2, "b": 2, "g": 20, "t": None, KIND: "-D"},
    ],
    [{"k": 1, "b": 1, "g": 0, "t": "u"}, {"k": 2, "b": 3, "g": 2, "t": "v"}],
]
GROUP_COLS = [("k", "INT NOT NULL"), ("a", "STRING"), ("b", "BIGINT"), ("g", "INT"), ("c", "STRING")]
GROUPS = [
    [{"k": 1, "a": "a1", "b": 1, "g": 5, "c": "c1"}, {"k": 2, "a": "a2", "b": 2, "g": 1, "c": None}],
    [{"k": 1, "a": "old", "b": None, "g": 3, "c": "c1b"}, {"k": 2, "a": None, "b": 20, "g": 2, "c": "c2"}],
    [{"k": 1, "a": "new", "b": 7, "g": 6, "c": None}],
]
PART_COLS = [("id", "INT NOT NULL"), ("p", "STRING"), ("v", "STRING")]
PART_ROWS = [[{"id": 1, "p": None, "v": "a"}, {"id": 2, "p": "x", "v": "b"}, {"id": 3, "p": None, "v": "c"}]]
APP_COLS = [("id", "INT NOT NULL"), ("n", "BIGINT"), ("v", "STRING")]


def _append_rows(lo, hi):
    return [{"id": i, "n": i * 7 % 13, "v": f"value-{i:06d}-" + "x" * (i % 17)} for i in range(lo, hi)]


DYN = [[_kv(i, f"v{i}", i) for i in range(10)], [_kv(i, f"w{i}", i * 2) for i in range(5, 14)]]

CASES: dict[str, Case] = {
    # ignore-delete and its aliases (Java 0.9: the same option with fallback keys)
    "ignore_delete": Case(KV, ("k",), {"ignore-delete": "true"}, DELETES, _model_pk),
    "deduplicate_ignore_delete": Case(KV, ("k",), {"deduplicate.ignore-delete": "true"}, DELETES, _model_pk),
    "first_row_ignore_delete": Case(
        KV, ("k",), {"merge-engine": "first-row", "first-row.ignore-delete": "true"}, FIRST_ROW, _model_pk
    ),
    "partial_update_ignore_delete": Case(
        KV,
        ("k",),
        {"merge-engine": "partial-update", "partial-update.ignore-delete": "true"},
        PARTIAL,
        _model_pk,
    ),
    "remove_record_on_delete": Case(
        KV,
        ("k",),
        {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
        PARTIAL,
        _model_pk,
    ),
    "sequence_ascending": Case(KV, ("k",), {"sequence.field": "s"}, SEQ, _seq_model("ascending")),
    # sequence.field.sort-order is not in Java 0.9 (1.x): our table is checked against the model;
    # Java 0.9 ignores the option and reads ascending order, in our table and in its twin
    "sequence_descending": Case(
        KV,
        ("k",),
        {"sequence.field": "s", "sequence.field.sort-order": "descending"},
        SEQ,
        _seq_model("descending"),
        java_model=_seq_model("ascending"),
    ),
    "aggregate_ignore_retract": Case(
        AGG_COLS,
        ("k",),
        {
            "merge-engine": "aggregation",
            "fields.b.aggregate-function": "sum",
            "fields.g.aggregate-function": "max",
            "fields.g.ignore-retract": "true",
            "fields.t.aggregate-function": "listagg",
            "fields.t.ignore-retract": "true",
        },
        AGG,
        _model_pk,
    ),
    "listagg_delimiter": Case(
        AGG_COLS,
        ("k",),
        {
            "merge-engine": "aggregation",
            "fields.b.aggregate-function": "product",
            "fields.g.aggregate-function": "min",
            "fields.t.aggregate-function": "listagg",
            "fields.t.list-agg-delimiter": ";",
        },
        [
            [{k: v for k, v in r.items() if k != KIND} for r in c if r.get(KIND, "+I") in ("+I", "+U")]
            for c in AGG
        ],
        _listagg_model,
    ),
    "sequence_group": Case(
        GROUP_COLS,
        ("k",),
        {"merge-engine": "partial-update", "fields.g.sequence-group": "a,b"},
        GROUPS,
        _model_pk,
    ),
    "bucket_key": Case(
        APP_COLS, (), {"bucket": "3", "bucket-key": "n"}, [_append_rows(0, 40)], _model_append
    ),
    "pk_bucket": Case(KV, ("k",), {"bucket": "4"}, [[_kv(i, "v", i) for i in range(30)]], _model_pk),
    "partition_default_name": Case(
        PART_COLS,
        (),
        {"partition.default-name": "NULL_P", "bucket": "-1"},
        PART_ROWS,
        _model_append,
        partitions=("p",),
    ),
    # data-file.prefix / changelog-file.prefix are not in Java 0.9 (1.x): Java's twin names its
    # files data-/changelog- (checked below); Java reads ours through the manifests' names
    "file_prefixes": Case(
        KV,
        ("k",),
        {"data-file.prefix": "dat-", "changelog-file.prefix": "chg-", "changelog-producer": "input"},
        DELETES,
        _model_pk,
    ),
    "target_file_size": Case(
        APP_COLS,
        (),
        {"target-file-size": "8 kb", "bucket": "1", "bucket-key": "id"},
        [_append_rows(0, 6000)],
        _model_append,
    ),
    # our writer turns a commit bigger than the buffer (given in 4 parts) into several level-0
    # runs (Java spills to disk and writes one file): rows agree, and the runs are checked below
    # (Java needs at least 3 pages of 64 kb)
    "write_buffer": Case(
        KV,
        ("k",),
        {"write-buffer-size": "256 kb", "bucket": "1"},
        [[_kv(i % 5000, f"value-{i}", i) for i in range(20000)]],
        _model_pk,
        chunks=4,
    ),
    # manifests merged into small ones after 2 commits: Java reads the merged manifests
    "manifest_merge": Case(
        KV, ("k",), {"manifest.merge-min-count": "2", "manifest.target-file-size": "1 kb"}, DELETES, _model_pk
    ),
    "dynamic_bucket": Case(
        KV, ("k",), {"bucket": "-1", "dynamic-bucket.target-row-num": "3"}, DYN, _model_pk
    ),
    # one case each; formats x codecs: tests/interop/test_file_formats_interop.py
    "file_format_orc": Case(KV, ("k",), {"file.format": "orc"}, DELETES, _model_pk),
    "file_compression_gzip": Case(KV, ("k",), {"file.compression": "gzip"}, DELETES, _model_pk),
    "zstd_level": Case(KV, ("k",), {"file.compression.zstd-level": "9"}, DELETES, _model_pk),
    # Java 0.9 writes snappy manifests for any manifest.compression but zstd, and its jar has no
    # snappy: it cannot write this twin. We write deflate manifests (as Java 1.x), Java 0.9 reads them.
    "manifest_deflate": Case(
        KV, ("k",), {"manifest.compression": "deflate"}, DELETES, _model_pk, java_twin=False
    ),
}
for _c in CASES.values():
    _c.options.setdefault("bucket", "2")
    _c.options.setdefault("file.format", "parquet")


def _our_write(t, columns, rows, chunks: int = 1):
    from paimon_core.ops.ingest import write_tables

    schema = _arrow_schema(columns)
    data = arrow_from_rows([{k: v for k, v in r.items() if k != KIND} for r in rows], schema)
    data = data.append_column("_kind", pa.array([r.get(KIND, "+I") for r in rows]))
    if chunks == 1:
        return t.write_arrow(data, row_kind_column="_kind")
    step = -(-len(rows) // chunks)
    parts = [data.slice(i, step) for i in range(0, len(rows), step)]
    return write_tables(t, parts, row_kind_column="_kind").snapshot


def _create_ours(wh, name, case: Case):
    cols = ", ".join(f"{n} {t}" for n, t in case.columns)
    return FileSystemCatalog(wh).create_table(
        name, Schema(Schema.parse_columns(cols), case.partitions, case.pks, dict(case.options))
    )


def _java_create(wh, name, case: Case) -> dict:
    return {
        "op": "create_table",
        "warehouse": wh,
        "table": name,
        "schema": [{"name": n, "type": t} for n, t in case.columns],
        "partition_keys": list(case.partitions),
        "primary_keys": list(case.pks),
        "options": dict(case.options),
    }


@pytest.fixture(scope="module")
def twins(tmp_path_factory, java):
    """Every case: our table o.<case> and Java's j.<case>; one JVM writes Java's tables and reads
    both (rows, files, snapshots)."""
    owh, jwh = str(tmp_path_factory.mktemp("ours")), str(tmp_path_factory.mktemp("java"))
    reqs, slots = [], {}
    for name, case in CASES.items():
        t = _create_ours(owh, f"o.{name}", case)
        for rows in case.commits:
            _our_write(t, case.columns, rows, case.chunks)
        reads = [("java_of_ours", owh, f"o.{name}")]
        if case.java_twin:
            reqs.append(_java_create(jwh, f"j.{name}", case))
            reqs += [
                {"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows} for rows in case.commits
            ]
            reads.append(("java_of_java", jwh, f"j.{name}"))
        for what, wh, tname in reads:
            slots[(name, what)] = len(reqs)
            reqs.append({"op": "read", "warehouse": wh, "table": tname})
            slots[(name, what + "_files")] = len(reqs)
            reqs.append({"op": "files", "warehouse": wh, "table": tname})
    res = java.run(reqs)
    return owh, jwh, {k: res[i] for k, i in slots.items()}


def _bucket_rows(table) -> list[tuple[int, dict]]:
    """(bucket, row) of every live row, read split by split."""
    snap = table.snapshots.latest()
    out = []
    for split in table.plan(snap):
        for r in rows_from_arrow(table.new_read().read_split(split)):
            out.append((split.bucket, r))
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_twin_tables_agree(twins, name, java):
    owh, jwh, res = twins
    case = CASES[name]
    ours = rows_from_arrow(FileSystemCatalog(owh).get_table(f"o.{name}").read())
    # java_model: what Java 0.9 reads for an option it lacks; Java 1.4.2 has them all
    # (sequence.field.sort-order: it reads descending, as we do)
    java_sees = ours if case.java_model is None or java.version != "0.9" else case.java_model(case)
    assert_same_rows(
        res[(name, "java_of_ours")]["rows"],
        java_sees,
        label_a="java of ours",
        label_b="paimon-cli of ours" if case.java_model is None else "model of Java 0.9",
    )
    if case.java_twin:
        assert_same_rows(
            res[(name, "java_of_java")]["rows"],
            java_sees,
            label_a="java of java's twin",
            label_b="paimon-cli of ours" if case.java_model is None else "model of Java 0.9",
        )
    if case.model is not None:
        assert_same_rows(ours, case.model(case), label_a="paimon-cli of ours", label_b="model")


def test_bucket_of_every_row_is_javas(twins, java):
    """bucket / bucket-key: every row of our table and of Java's twin sits in the bucket Java's
    bucket_of computes from its bucket key."""
    owh, jwh, _ = twins
    checks = []
    for name, key, types in (("bucket_key", ["n"], ["BIGINT"]), ("pk_bucket", ["k"], ["INT NOT NULL"])):
        n = int(CASES[name].options["bucket"])
        for wh, tname in ((owh, f"o.{name}"), (jwh, f"j.{name}")):
            placed = _bucket_rows(FileSystemCatalog(wh).get_table(tname))
            checks.append(
                (
                    tname,
                    placed,
                    {
                        "op": "bucket_of",
                        "types": types,
                        "num_buckets": n,
                        "rows": [[r[c] for c in key] for _, r in placed],
                    },
                )
            )
    for (tname, placed, _), res in zip(checks, java.run([c[2] for c in checks])):
        assert [b for b, _ in placed] == res["buckets"], tname
        assert len(set(res["buckets"])) > 1, tname


def test_partition_default_name_directory(twins):
    owh, jwh, res = twins
    for wh, tname in ((owh, "o/partition_default_name"), (jwh, "j/partition_default_name")):
        db, t = tname.split("/")
        entries = sorted(os.listdir(os.path.join(wh, f"{db}.db", t)))
        assert "p=NULL_P" in entries and "p=x" in entries, (tname, entries)
        assert "p=__DEFAULT_PARTITION__" not in entries


def test_file_prefixes_name_files(twins, java):
    """data-file.prefix / changelog-file.prefix (not in Java 0.9): every data and changelog file
    of our table is named with the prefix, Java 0.9's twin keeps data-/changelog-; Java reads our
    changelog as we do."""
    owh, jwh, res = twins
    # Java 0.9 ignores the prefixes; Java 1.4.2 names its twin's files with them, as we do
    java_prefixes = ("data-", "changelog-") if java.version == "0.9" else ("dat-", "chg-")
    for wh, db, prefixes in ((owh, "o", ("dat-", "chg-")), (jwh, "j", java_prefixes)):
        names = [
            f
            for _, _, fs in os.walk(os.path.join(wh, f"{db}.db", "file_prefixes"))
            for f in fs
            if f.endswith(".parquet")
        ]
        assert all(any(n.startswith(p) for n in names) for p in prefixes), (db, names)
        assert all(n.startswith(prefixes) for n in names), (db, names)
    t = FileSystemCatalog(owh).get_table("o.file_prefixes")
    last = t.snapshots.latest_id()
    reqs = [
        {
            "op": "audit",
            "warehouse": owh,
            "table": "o.file_prefixes",
            "from": s - 1,
            "to": s,
            "mode": "changelog",
        }
        for s in range(1, last + 1)
    ]
    for s, r in zip(range(1, last + 1), java.run(reqs)):
        assert_same_rows(
            rows_from_arrow(diff(t, s - 1, s, mode="changelog")),
            r["rows"],
            ignore_kind=False,
            label_a=f"paimon-cli changelog {s}",
            label_b=f"java audit {s}",
        )


def test_target_file_size_rolls_files(twins):
    """Both writers roll the 6000 rows into several files (Java checks the size every 1000 rows)."""
    _, _, res = twins
    ours = res[("target_file_size", "java_of_ours_files")]["files"]
    javas = res[("target_file_size", "java_of_java_files")]["files"]
    assert len(javas) > 1 and len(ours) > 1, (len(ours), len(javas))
    assert sum(f["rowCount"] for f in ours) == sum(f["rowCount"] for f in javas) == 6000


def test_manifest_compression_is_the_manifests_codec(twins, tmp_path):
    """manifest.compression = deflate: our manifests and manifest lists are deflate Avro (Java
    0.9 read them above); a codec not written here is refused before anything is written."""
    import fastavro

    owh, _, _ = twins
    mdir = os.path.join(owh, "o.db", "manifest_deflate", "manifest")
    names = [n for n in os.listdir(mdir) if n.startswith(("manifest-", "manifest-list-"))]
    assert names
    for n in names:
        with open(os.path.join(mdir, n), "rb") as f:
            assert fastavro.reader(f).metadata["avro.codec"] == "deflate", n
    from paimon_core.errors import InvalidInput

    t = _create_ours(
        str(tmp_path), "o.bad", Case(KV, ("k",), {"bucket": "1", "manifest.compression": "lzo"}, [])
    )
    with pytest.raises(InvalidInput, match="manifest.compression 'lzo'"):
        _our_write(t, KV, DELETES[0])
    assert not [f for _, _, fs in os.walk(str(tmp_path)) for f in fs if f.endswith(".parquet")]


def test_write_buffer_size_makes_sorted_runs(twins):
    _, _, res = twins
    ours = res[("write_buffer", "java_of_ours_files")]["files"]
    assert len(ours) > 1 and {f["level"] for f in ours} == {0}, ours


def test_orc_ltz_non_legacy_type_model(tmp_path, java, monkeypatch):
    """orc.timestamp-ltz.legacy.type = false (not in Java 0.9, which always writes the legacy
    way): a Java 0.9 writer in Asia/Shanghai stored each LTZ value v as the instant of v's wall
    clock there, v - 8 h; a reader told the files are not legacy returns that instant as is."""
    from datetime import datetime, timedelta

    monkeypatch.setenv("PAIMON_CLI_INTEROP_JAVA_OPTS", "-Duser.timezone=Asia/Shanghai")
    wh = str(tmp_path)
    # the TIMESTAMP column makes Java's ORC writer record its zone in the stripe footers; without
    # one it records none, and every reader (Java in UTC too) takes the instants as UTC
    cols = [("id", "INT NOT NULL"), ("ts", "TIMESTAMP(6)"), ("ltz", "TIMESTAMP(6) WITH LOCAL TIME ZONE")]
    rows = [
        {"id": 1, "ts": None, "ltz": "2024-03-10T12:34:56.123456Z"},
        {"id": 2, "ts": None, "ltz": "1995-07-01T00:00:00.000001Z"},
        {"id": 3, "ts": None, "ltz": None},
    ]
    case = Case(cols, (), {"bucket": "-1", "file.format": "orc"}, [rows])
    java.run([_java_create(wh, "j.l", case), {"op": "write", "warehouse": wh, "table": "j.l", "rows": rows}])
    from paimon_core.metadata.schema_evolution import SetOption, alter_table

    t = FileSystemCatalog(wh).get_table("j.l")
    types = {"ts": "TIMESTAMP(6)", "ltz": "TIMESTAMP(6) WITH LOCAL TIME ZONE"}
    assert_same_rows(rows_from_arrow(t.read(), types), rows, label_a="paimon-cli, legacy", label_b="written")
    t = alter_table(t, [SetOption("orc.timestamp-ltz.legacy.type", "false")])

    def shifted(v):
        if v is None:
            return None
        d = datetime.strptime(v, "%Y-%m-%dT%H:%M:%S.%fZ") - timedelta(hours=8)
        return d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    assert_same_rows(
        rows_from_arrow(t.read(), types),
        [{**r, "ltz": shifted(r["ltz"])} for r in rows],
        label_a="paimon-cli, not legacy",
        label_b="model",
    )


def test_dynamic_bucket_keys_stay_in_one_bucket(twins):
    """dynamic-bucket.target-row-num = 3: 14 keys spread over at least 5 buckets, a key in one
    bucket only, in our table and in Java's."""
    owh, jwh, _ = twins
    for wh, tname in ((owh, "o.dynamic_bucket"), (jwh, "j.dynamic_bucket")):
        placed = _bucket_rows(FileSystemCatalog(wh).get_table(tname))
        by_key: dict = {}
        for b, r in placed:
            by_key.setdefault(r["k"], set()).add(b)
        assert all(len(bs) == 1 for bs in by_key.values()), (tname, by_key)
        assert len({b for b, _ in placed}) >= 5, tname
        counts: dict = {}
        for b, _ in placed:
            counts[b] = counts.get(b, 0) + 1
        assert max(counts.values()) <= 3, (tname, counts)


# ---------------------------------------------------------------- changelogs and COMPACT snapshots

CL_COLS = [("id", "INT NOT NULL"), ("v", "STRING"), ("n", "BIGINT")]
CL_COMMITS = [
    [{"id": 1, "v": "a", "n": 1}, {"id": 2, "v": "b", "n": 2}, {"id": 3, "v": "c", "n": 3}],
    [{"id": 1, "v": "a", "n": 1}, {"id": 2, "v": "b2", "n": 2}, {"id": 4, "v": "d", "n": 4}],
    [{"id": 3, "v": "c", "n": 3, KIND: "-D"}, {"id": 4, "v": "d", "n": 4}, {"id": 5, "v": "e", "n": 5}],
    [{"id": 1, "v": "a1", "n": 1}, {"id": 5, "v": "e", "n": 5}],
]
CL_CASES = {
    "lookup_dedup": {"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"},
    "lookup_plain": {"changelog-producer": "lookup"},
    "full_dedup": {
        "changelog-producer": "full-compaction",
        "changelog-producer.row-deduplicate": "true",
        "full-compaction.delta-commits": "1",
    },
    "full_every_2": {"changelog-producer": "full-compaction", "full-compaction.delta-commits": "2"},
}


def _changelog_model(dedup: bool) -> list[dict]:
    """What a lookup changelog of CL_COMMITS holds over all snapshots: +I for a new key, -U old /
    +U new for a changed one (dropped with row-deduplicate when equal), -D for a delete."""
    state, out = {}, []
    for rows in CL_COMMITS:
        for r in rows:
            body = {c: r[c] for c, _ in CL_COLS}
            old = state.get(r["id"])
            if r.get(KIND) == "-D":
                if old is not None:
                    out.append({**old, KIND: "-D"})
                    del state[r["id"]]
            elif old is None:
                out.append({**body, KIND: "+I"})
                state[r["id"]] = body
            elif not (dedup and old == body):
                out += [{**old, KIND: "-U"}, {**body, KIND: "+U"}]
                state[r["id"]] = body
    return out


@pytest.fixture(scope="module")
def changelogs(tmp_path_factory, java):
    owh, jwh = str(tmp_path_factory.mktemp("cl_ours")), str(tmp_path_factory.mktemp("cl_java"))
    reqs = []
    for name, opts in CL_CASES.items():
        case = Case(CL_COLS, ("id",), {"bucket": "1", "file.format": "parquet", **opts}, CL_COMMITS)
        t = _create_ours(owh, f"o.{name}", case)
        for rows in CL_COMMITS:
            _our_write(t, CL_COLS, rows)
        reqs.append(_java_create(jwh, f"j.{name}", case))
        every = int(opts.get("full-compaction.delta-commits", 0))
        for i, rows in enumerate(CL_COMMITS, start=1):
            reqs.append({"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows})
            if every and i % every == 0:
                # Java 0.9 applies full-compaction.delta-commits in its Flink sink only (a full
                # compaction after every checkpoint id divisible by it): done here by hand
                reqs.append({"op": "compact", "warehouse": jwh, "table": f"j.{name}", "full": True})
    java.run(reqs)
    reqs, keys = [], []
    for name in CL_CASES:
        for wh, tname in ((owh, f"o.{name}"), (jwh, f"j.{name}")):
            reqs.append({"op": "snapshots", "warehouse": wh, "table": tname})
            keys.append((name, tname, "snapshots"))
            last = FileSystemCatalog(wh).get_table(tname).snapshots.latest_id()
            for s in range(1, last + 1):
                reqs.append(
                    {
                        "op": "audit",
                        "warehouse": wh,
                        "table": tname,
                        "from": s - 1,
                        "to": s,
                        "mode": "changelog",
                    }
                )
                keys.append((name, tname, s))
    return owh, jwh, dict(zip(keys, java.run(reqs)))


def _per_snapshot(res, name, tname, n):
    return [res[(name, tname, s)]["rows"] for s in range(1, n + 1)]


@pytest.mark.parametrize("name", list(CL_CASES))
def test_changelog_options_match_java(changelogs, name):
    """row-deduplicate and full-compaction.delta-commits: the same snapshot kinds in our table
    and Java's twin, Java's audit of each of our snapshots equals our changelog, the whole
    changelog of Java's twin equals ours, and (lookup) the model's."""
    owh, jwh, res = changelogs
    kinds = {
        tn: [s["commitKind"] for s in res[(name, tn, "snapshots")]["snapshots"]]
        for tn in (f"o.{name}", f"j.{name}")
    }
    assert kinds[f"o.{name}"] == kinds[f"j.{name}"], kinds
    t = FileSystemCatalog(owh).get_table(f"o.{name}")
    n = len(kinds[f"o.{name}"])
    mine = [rows_from_arrow(diff(t, s - 1, s, mode="changelog")) for s in range(1, n + 1)]
    for s, (a, b) in enumerate(zip(mine, _per_snapshot(res, name, f"o.{name}", n)), start=1):
        assert_same_rows(
            a, b, ignore_kind=False, label_a=f"paimon-cli changelog {s}", label_b=f"java audit of ours {s}"
        )
    everything = [r for rows in mine for r in rows]
    javas = _per_snapshot(res, name, f"j.{name}", n)
    assert_same_rows(
        everything,
        [r for rows in javas for r in rows],
        ignore_kind=False,
        label_a="paimon-cli changelog",
        label_b="java's twin's changelog",
    )
    for s, (a, b) in enumerate(zip(mine, javas), start=1):  # lookup too: the same snapshots
        assert_same_rows(
            a,
            b,
            ignore_kind=False,
            label_a=f"paimon-cli changelog {s}",
            label_b=f"java's twin's changelog {s}",
        )
    if name.startswith("lookup"):
        assert_same_rows(
            everything,
            _changelog_model(name.endswith("dedup")),
            ignore_kind=False,
            label_a="paimon-cli changelog",
            label_b="model",
        )


def test_lookup_changelog_lands_in_javas_snapshot(changelogs):
    """Our lookup changelog is in the COMPACT snapshot of the lookup compaction, as Java's."""
    owh, jwh, res = changelogs
    name = "lookup_plain"
    n = len(res[(name, f"o.{name}", "snapshots")]["snapshots"])
    for s, (a, b) in enumerate(
        zip(_per_snapshot(res, name, f"o.{name}", n), _per_snapshot(res, name, f"j.{name}", n)), start=1
    ):
        assert_same_rows(
            a,
            b,
            ignore_kind=False,
            label_a=f"changelog of our snapshot {s}",
            label_b=f"changelog of java's snapshot {s}",
        )


# ---------------------------------------------------------------- value stats

STATS_MODES = ["none", "counts", "truncate(4)", "full", "per-column"]
STATS_COLS = [("id", "INT NOT NULL"), ("s", "STRING"), ("d", "DOUBLE")]
STATS_ROWS = [
    {"id": i, "s": None if i % 3 == 0 else f"string-{i:04d}", "d": None if i % 4 == 0 else i / 2}
    for i in range(10, 30)
]


def _value_stats(wh, tname):
    """(min, max, null counts, stats columns) of each file, decoded with the table's types."""
    t = FileSystemCatalog(wh).get_table(tname)
    by_name = {f.name: f.type for f in t.schema.fields}
    out = []
    for e in live_entries(t.manifests, t.snapshots.latest()):
        vs, cols = e.file.value_stats, e.file.value_stats_cols
        ts = [by_name[c] for c in (by_name if cols is None else cols)]
        lo, hi = (
            (deserialize_row(vs.min_values, ts), deserialize_row(vs.max_values, ts)) if ts else (None, None)
        )
        out.append({"min": lo, "max": hi, "nulls": vs.null_counts, "cols": cols})
    return out


def _dense_stats_as_09(stats: dict, names: list[str]) -> dict:
    """Java 1.4.2 stores value stats densely (``metadata.stats-dense-store``, on by default in
    1.x): only the columns that have stats, named in _VALUE_STATS_COLS (empty rows and an empty
    list under stats-mode none). Java 0.9 (and we) store a field per column, NULL where a column
    has no stats, and no column list. The same stats: the 1.4.2 form, mapped to 0.9's."""
    if stats["cols"] is None:
        return stats
    pos = {c: i for i, c in enumerate(stats["cols"])}

    def spread(values, empty):
        return [empty if c not in pos else values[pos[c]] for c in names]

    return {
        "min": spread(stats["min"] or [], None),
        "max": spread(stats["max"] or [], None),
        "nulls": tuple(spread(stats["nulls"], None)),
        "cols": None,
    }


def test_stats_mode_writes_javas_value_stats(tmp_path, java):
    """metadata.stats-mode none / counts / truncate(4) / full, and fields.<column>.stats-mode
    over a table-wide none: the value stats in our manifest
    (min, max, null counts, stats columns) equal the ones Java writes for the same rows, and
    Java's filtered reads of our table equal its reads of its own and keep every matching row."""
    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    reqs = []
    for i, mode in enumerate(STATS_MODES):
        modes = (
            {
                "metadata.stats-mode": "none",
                "fields.s.stats-mode": "truncate(3)",
                "fields.d.stats-mode": "full",
            }
            if mode == "per-column"
            else {"metadata.stats-mode": mode}
        )
        case = Case(
            STATS_COLS,
            (),
            {"bucket": "1", "bucket-key": "id", "file.format": "parquet", **modes},
            [STATS_ROWS],
        )
        _our_write(_create_ours(owh, f"o.m{i}", case), STATS_COLS, STATS_ROWS)
        reqs += [
            _java_create(jwh, f"j.m{i}", case),
            {"op": "write", "warehouse": jwh, "table": f"j.m{i}", "rows": STATS_ROWS},
        ]
    filters = [
        {"field": "id", "op": ">", "value": 100},
        {"field": "s", "op": "=", "value": "zzz"},
        {"field": "id", "op": "=", "value": 12},
    ]
    for i in range(len(STATS_MODES)):
        for f in filters:
            reqs += [
                {"op": "read", "warehouse": wh, "table": f"{db}.m{i}", "filter": f}
                for wh, db in ((owh, "o"), (jwh, "j"))
            ]
    res = java.run(reqs)[2 * len(STATS_MODES) :]
    for i, mode in enumerate(STATS_MODES):
        ours, javas = _value_stats(owh, f"o.m{i}"), _value_stats(jwh, f"j.m{i}")
        if java.version == "1.4.2":
            javas = [_dense_stats_as_09(s, [n for n, _ in STATS_COLS]) for s in javas]
        assert ours == javas, (mode, ours, javas)
        for j, f in enumerate(filters):
            a, b = res[(i * len(filters) + j) * 2], res[(i * len(filters) + j) * 2 + 1]
            assert_same_rows(
                a["rows"], b["rows"], label_a=f"java of ours {mode} {f}", label_b=f"java of java {mode}"
            )
            # Java also skips Parquet row groups on the footer's stats, so only "every matching
            # row is there" holds whatever the manifest says
            matching = [r for r in STATS_ROWS if f["op"] == "=" and r[f["field"]] == f["value"]]
            assert all(any(x["id"] == m["id"] for x in a["rows"]) for m in matching), (mode, f)


# ---------------------------------------------------------------- snapshot retention

SNAP_CASES = {
    "retain_max": {"snapshot.num-retained.min": "2", "snapshot.num-retained.max": "3"},
    "time_retained": {
        "snapshot.num-retained.min": "2",
        "snapshot.num-retained.max": "100",
        "snapshot.time-retained": "1 ms",
    },
    "time_keeps": {
        "snapshot.num-retained.min": "1",
        "snapshot.num-retained.max": "100",
        "snapshot.time-retained": "1 h",
    },
    "expire_limit": {
        "snapshot.num-retained.min": "1",
        "snapshot.num-retained.max": "1",
        "snapshot.expire.limit": "2",
        "write-only": "true",
    },
}


def test_snapshot_retention_matches_java(tmp_path, java):
    """Expiry after each commit from the table's options (num-retained.min/max, time-retained,
    expire.limit, write-only): the same snapshots are left in our table and Java's twin. The
    expire_limit tables are written write-only, then one commit without it expires at most 2."""
    from paimon_core.metadata.schema_evolution import SetOption, alter_table

    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    commits = [[{"k": i, "v": "x", "n": i, "s": 0}] for i in range(6)]
    java_reqs = []
    for name, opts in SNAP_CASES.items():
        case = Case(KV, ("k",), {"bucket": "1", "file.format": "parquet", **opts}, commits)
        t = _create_ours(owh, f"o.{name}", case)
        java_reqs.append(_java_create(jwh, f"j.{name}", case))
        for rows in commits:
            time.sleep(0.01)
            _our_write(t, KV, rows)
        java_reqs += [
            {"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows} for rows in commits
        ]
        if "write-only" in opts:
            t = alter_table(t, [SetOption("write-only", "false")])
            _our_write(t, KV, commits[0])
            java_reqs += [
                {
                    "op": "alter",
                    "warehouse": jwh,
                    "table": f"j.{name}",
                    "changes": [{"set_option": {"key": "write-only", "value": "false"}}],
                },
                {"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": commits[0]},
            ]
    # Java's writes are ms apart as well: a JVM commit takes longer than 1 ms
    names = list(SNAP_CASES)
    java_reqs += [
        {"op": "snapshots", "warehouse": wh, "table": f"{db}.{n}"}
        for n in names
        for wh, db in ((owh, "o"), (jwh, "j"))
    ]
    res = java.run(java_reqs)[-2 * len(names) :]
    for i, n in enumerate(names):
        ours = [s["id"] for s in res[2 * i]["snapshots"]]
        javas = [s["id"] for s in res[2 * i + 1]["snapshots"]]
        last = res[2 * i]["latest"]  # the 6th commit compacted (trigger 5): a COMPACT snapshot too
        want = {
            "retain_max": [last - 2, last - 1, last],
            "time_retained": [last - 1, last],
            "time_keeps": list(range(1, last + 1)),
            "expire_limit": list(range(3, last + 1)),
        }[n]
        assert ours == javas == want, (n, ours, javas)
        assert FileSystemCatalog(owh).get_table(f"o.{n}").snapshots.list_ids() == want


# ---------------------------------------------------------------- compaction layouts

PK_COMPACT_CASES = {
    "trigger_2": {"num-sorted-run.compaction-trigger": "2"},
    "levels_3": {"num-sorted-run.compaction-trigger": "3", "num-levels": "3"},
    "size_amp": {"num-sorted-run.compaction-trigger": "4", "compaction.max-size-amplification-percent": "10"},
    "size_ratio": {"num-sorted-run.compaction-trigger": "3", "compaction.size-ratio": "50"},
}


def _compact_commits(n: int = 8):
    return [
        [{"k": k, "v": f"c{c}" * (1 + c % 3), "n": k * c, "s": c} for k in range(c * 3, c * 3 + 12 + 4 * c)]
        for c in range(n)
    ]


def _runs(files) -> list[list]:
    """[level, size] runs of one bucket, newest first: every level-0 file (newest sequence first),
    then one run per deeper level."""
    level0 = sorted((f for f in files if f.level == 0), key=lambda f: f.max_sequence_number, reverse=True)
    runs = [[0, f.file_size] for f in level0]
    for lv in sorted({f.level for f in files if f.level > 0}):
        runs.append([lv, sum(f.file_size for f in files if f.level == lv)])
    return runs


def _delta(t, snap):
    """(added, deleted) DataFileMetas of a snapshot's delta."""
    added, deleted = [], []
    for m in t.manifests.read_list(snap.delta_manifest_list):
        for e in t.manifests.read_manifest(m.file_name):
            (added if e.kind == 0 else deleted).append(e.file)
    return added, deleted


def test_compaction_options_pick_as_java(tmp_path, java):
    """num-sorted-run.compaction-trigger, num-levels, compaction.max-size-amplification-percent and
    compaction.size-ratio: after every commit to our table, Java's UniversalCompaction, given the
    runs our writer had (from our files' real levels and sizes) and the table's option values,
    picks exactly what our writer compacted (run count, output level), or nothing when our
    writer did not compact. Java's twin of each table (whose file sizes, and so picks, differ)
    and Java's read of ours hold the same rows. The picks on random layouts:
    tests/interop/test_bucket_interop.py."""
    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    commits = _compact_commits()
    picks, reqs = [], []
    for name, opts in PK_COMPACT_CASES.items():
        case = Case(KV, ("k",), {"bucket": "1", "file.format": "parquet", **opts}, commits)
        t = _create_ours(owh, f"o.{name}", case)
        num_levels = t.schema.core_options.num_levels
        did = 0
        for rows in commits:
            appended = _our_write(t, KV, rows)
            snap = t.snapshots.latest()
            if snap.id != appended.id:
                assert snap.commit_kind == "COMPACT" and snap.id == appended.id + 1
                did += 1
                added, deleted = _delta(t, snap)
                before = [e.file for e in live_entries(t.manifests, appended)]
                ours = (len(_runs(deleted)), added[0].level if added else None)
            else:
                before = [e.file for e in live_entries(t.manifests, snap)]
                ours = None
            picks.append((name, ours))
            reqs.append(
                {
                    "op": "universal_pick",
                    "runs": _runs(before),
                    "num_levels": num_levels,
                    "trigger": int(opts["num-sorted-run.compaction-trigger"]),
                    "max_size_amp": int(opts.get("compaction.max-size-amplification-percent", 200)),
                    "size_ratio": int(opts.get("compaction.size-ratio", 1)),
                }
            )
        assert did, f"{name}: our writer never compacted"
        reqs.append(_java_create(jwh, f"j.{name}", case))
        reqs += [{"op": "write", "warehouse": jwh, "table": f"j.{name}", "rows": rows} for rows in commits]
        reqs += [
            {"op": "read", "warehouse": wh, "table": f"{db}.{name}"} for wh, db in ((owh, "o"), (jwh, "j"))
        ]
    res = java.run(reqs)
    pick_res = [r for q, r in zip(reqs, res) if q["op"] == "universal_pick"]
    for (name, ours), r in zip(picks, pick_res):
        want = None if r["output_level"] is None else (r["run_count"], r["output_level"])
        assert ours == want, (name, ours, want)
    reads = [r["rows"] for q, r in zip(reqs, res) if q["op"] == "read"]
    for i, name in enumerate(PK_COMPACT_CASES):
        ours = rows_from_arrow(FileSystemCatalog(owh).get_table(f"o.{name}").read())
        assert_same_rows(reads[2 * i], ours, label_a=f"java of ours {name}", label_b="paimon-cli of ours")
        assert_same_rows(
            reads[2 * i + 1], ours, label_a=f"java of java's twin {name}", label_b="paimon-cli of ours"
        )


@pytest.mark.parametrize(
    "opts",
    [
        {"compaction.min.file-num": "3"},
        {"compaction.max.file-num": "3"},
        {"compaction.min.file-num": "2", "target-file-size": "1 b"},
        {},
    ],
    ids=["min3", "max3", "min2_tiny_target", "defaults"],
)
def test_append_compaction_matches_java(tmp_path, java, opts):
    """compaction.min.file-num / compaction.max.file-num / target-file-size on a fixed-bucket
    append table: after 7 commits, our table and Java's twin took the same snapshot kinds and
    hold the same number of files."""
    owh, jwh = str(tmp_path / "ours"), str(tmp_path / "java")
    commits = [[{"k": k, "v": f"c{c}", "n": k, "s": c} for k in range(c * 10, c * 10 + 10)] for c in range(7)]
    case = Case(KV, (), {"bucket": "1", "bucket-key": "k", "file.format": "parquet", **opts}, commits)
    t = _create_ours(owh, "o.a", case)
    reqs = [_java_create(jwh, "j.a", case)]
    for rows in commits:
        _our_write(t, KV, rows)
        reqs.append({"op": "write", "warehouse": jwh, "table": "j.a", "rows": rows})
    reqs += [
        {"op": op, "warehouse": wh, "table": tn}
        for wh, tn in ((owh, "o.a"), (jwh, "j.a"))
        for op in ("snapshots", "files", "read")
    ]
    res = java.run(reqs)[-6:]
    kinds = [[s["commitKind"] for s in r["snapshots"]] for r in (res[0], res[3])]
    if java.version == "1.4.2" and len(opts) == 1:
        # Java 1.4.2 compacts a fixed-bucket append table at other commits than Java 0.9 (whose
        # triggers we follow) under compaction.min/max.file-num = 3: the kinds differ, the rows not
        assert kinds[0] != kinds[1], kinds
        assert_same_rows(
            res[2]["rows"], res[5]["rows"], label_a="java of ours", label_b="java of java's twin"
        )
        return
    assert kinds[0] == kinds[1], kinds
    # a window of files each at least the target drops its oldest file at once: never 2 files
    assert ("COMPACT" in kinds[0]) == (opts.get("target-file-size") != "1 b"), kinds
    assert len(res[1]["files"]) == len(res[4]["files"]), (res[1]["files"], res[4]["files"])
    assert_same_rows(res[2]["rows"], res[5]["rows"], label_a="java of ours", label_b="java of java's twin")
    assert_same_rows(res[2]["rows"], _model_append(case), label_a="java of ours", label_b="model")


# ---------------------------------------------------------------- streaming options stored in the table


def test_stream_options_stored_in_the_table(tmp_path, java):
    """scan.mode = latest and consumer.ignore-progress = true as table options: our stream read
    (no mode or flag passed) starts after the latest snapshot, and starts afresh with a full
    read whatever the consumer's progress; Java's streaming scan of our tables does the same."""
    from paimon_core.read.stream import StreamRead

    wh = str(tmp_path)
    rows = [[{"k": i, "v": "x", "n": i, "s": 0}] for i in range(3)]
    latest = _create_ours(wh, "o.latest", Case(KV, (), {"bucket": "-1", "scan.mode": "latest"}, rows))
    fresh = _create_ours(
        wh, "o.fresh", Case(KV, (), {"bucket": "-1", "consumer.ignore-progress": "true"}, rows)
    )
    for r in rows[:2]:
        _our_write(latest, KV, r)
        _our_write(fresh, KV, r)

    def drain(reader):  # everything available now, acknowledged batch by batch
        out = []
        if reader.cursor is None and (b := reader.start_batch()) is not None:
            out.append(b)
            reader.ack(b)
        while (b := reader.poll()) is not None:
            out.append(b)
            reader.ack(b)
        return out

    def ks(batches):
        return sorted(x["k"] for b in batches for x in b.rows.to_pylist())

    assert drain(StreamRead(latest)) == []
    first = drain(StreamRead(fresh, consumer_id="c"))
    assert [b.kind for b in first] == ["full"] and ks(first) == [0, 1]
    _our_write(fresh, KV, rows[2])
    again = drain(StreamRead(fresh, consumer_id="c"))
    assert [b.kind for b in again] == ["full"] and ks(again) == [0, 1, 2]
    res = java.run(
        [
            {"op": "stream", "warehouse": wh, "table": "o.latest"},
            {"op": "stream", "warehouse": wh, "table": "o.fresh", "options": {"consumer-id": "c"}},
        ]
    )
    assert res[0]["rows"] == []
    assert sorted(r["k"] for r in res[1]["rows"]) == [0, 1, 2]


# ---------------------------------------------------------------- every option accounted for

COVERED_HERE = {
    "bucket",
    "bucket-key",
    "file.format",
    "file.compression",
    "target-file-size",
    "partition.default-name",
    "metadata.stats-mode",
    "data-file.prefix",
    "changelog-file.prefix",
    "merge-engine",
    "changelog-producer",
    "changelog-producer.row-deduplicate",
    "sequence.field",
    "sequence.field.sort-order",
    "ignore-delete",
    "partial-update.remove-record-on-delete",
    "snapshot.num-retained.min",
    "snapshot.num-retained.max",
    "snapshot.time-retained",
    "snapshot.expire.limit",
    "write-only",
    "num-sorted-run.compaction-trigger",
    "num-levels",
    "compaction.min.file-num",
    "compaction.max.file-num",
    "compaction.max-size-amplification-percent",
    "compaction.size-ratio",
    "full-compaction.delta-commits",
    "dynamic-bucket.target-row-num",
    "file.compression.zstd-level",
    "manifest.compression",
    "write-buffer-size",
    "orc.timestamp-ltz.legacy.type",
    "manifest.merge-min-count",
    "manifest.target-file-size",
    "scan.mode",
    "consumer.ignore-progress",
}
FIELD_COVERED_HERE = {
    "aggregate-function",
    "ignore-retract",
    "list-agg-delimiter",
    "sequence-group",
    "stats-mode",
}
COVERED_ELSEWHERE = {
    "global-index.enabled": "tests/core/metadata/test_pk_index.py",
    "pk-bitmap.index.columns": "tests/core/metadata/test_pk_index.py",
    "pk-btree.index.columns": "tests/core/metadata/test_pk_index.py",
    "metadata.iceberg-compatible": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.storage": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.compaction.max.file-num": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.compaction.min.file-num": "tests/interop/test_iceberg_interop.py",
    "metadata.iceberg.format-version": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.previous-versions-max": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.delete-after-commit.enabled": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.manifest-compression": "tests/cli/test_iceberg_metadata.py",
    "metadata.iceberg.storage-location": "tests/cli/test_iceberg_metadata.py",
    "manifest.full-compaction-threshold-size": "tests/interop/test_manifest_merge_interop.py",
    "fields.default-aggregate-function": "tests/interop/test_merge_engines_interop.py (agg_product)",
    "file.format.per.level": "tests/interop/test_file_formats_interop.py",
    "file.compression.per.level": "tests/core/fileformat/test_file_formats.py",
    "changelog-file.format": "tests/interop/test_file_formats_interop.py",
    "changelog-file.compression": "tests/interop/test_file_formats_interop.py",
    "file.suffix.include.compression": "tests/interop/test_file_formats_interop.py",
    "postpone.batch-write-fixed-bucket": "tests/interop/test_postpone_interop.py",
    "postpone.default-bucket-num": "tests/interop/test_postpone_interop.py",
    "postpone.target-row-num-per-bucket": "tests/core/write/test_postpone.py",
    "postpone.merge-on-read": "tests/core/write/test_postpone.py",
    "bucket-function.type": "tests/interop/test_newer_metadata_interop.py",
    "row-tracking.enabled": "tests/interop/test_newer_metadata_interop.py",
    "data-evolution.enabled": "tests/core/metadata/test_newer_metadata.py",
    "data-file.thin-mode": "tests/interop/test_newer_metadata_interop.py",
    "consumer.expiration-time": "tests/core/read/test_stream.py",
    "disable-explicit-type-casting": "tests/core/metadata/test_schema_evolution.py",
    "deletion-vectors.enabled": "tests/interop/test_deletion_vectors_interop.py",
    "type": "tests/core/metadata/test_newer_metadata.py",
    "index-file-in-data-file-dir": "tests/core/options/test_options.py",
    "metastore.partitioned-table": "tests/catalog/test_hive_catalog.py",
    "deletion-vectors.bitmap64": "tests/core/metadata/test_deletion_vectors.py",
    "cross-partition-upsert.index-ttl": "tests/core/write/test_cross_partition.py",
    "cross-partition-upsert.bootstrap-parallelism": "tests/core/write/test_cross_partition.py",
    "changelog.num-retained.max": "tests/interop/test_changelog_lifecycle_interop.py",
    "changelog.num-retained.min": "tests/interop/test_changelog_lifecycle_interop.py",
    "changelog.time-retained": "tests/core/maintain/test_changelog_expire.py",
    "end-input.check-partition-expire": "tests/core/maintain/test_after_commit.py",
    "partition.expiration-check-interval": "tests/core/maintain/test_after_commit.py",
    "partition.expiration-max-num": "tests/core/maintain/test_after_commit.py",
    "partition.expiration-strategy": "tests/interop/test_production_interop.py",
    "partition.expiration-time": "tests/interop/test_production_interop.py",
    "partition.mark-done-action": "tests/cli/test_partition.py",
    "partition.timestamp-formatter": "tests/interop/test_production_interop.py",
    "partition.timestamp-pattern": "tests/core/maintain/test_partition_time.py",
    "scan.fallback-branch": "tests/interop/test_branches_interop.py",
    "sink.watermark-time-zone": "tests/core/options/test_options.py (parsing only: watermark tags follow the "
    "watermarks Java's commits carry, which our commits never set; not tested end to end)",
    "tag.automatic-completion": "tests/core/maintain/test_after_commit.py",
    "tag.automatic-creation": "tests/interop/test_production_interop.py",
    "tag.creation-delay": "tests/core/maintain/test_after_commit.py",
    "tag.creation-period": "tests/interop/test_production_interop.py",
    "tag.default-time-retained": "tests/interop/test_production_interop.py",
    "tag.num-retained-max": "tests/core/maintain/test_after_commit.py",
    "tag.period-formatter": "tests/interop/test_production_interop.py",
    "blob.target-file-size": "tests/interop/test_blob_java14_interop.py (the same .blob files as Java's)",
    "blob-field": "tests/cli/test_newer_features.py",
}
FIELD_COVERED_ELSEWHERE = {  # per-column options (fields.<col>.<name>) tested in another module
    "distinct": "tests/core/merge/test_merge_types.py",
    "nested-key": "tests/core/merge/test_merge_types.py",
}
NO_OBSERVABLE_EFFECT = {
    "manifest.format": "avro (read by Java in every test) and orc (tests/core/metadata/test_orc_manifests.py); parquet is refused by name",
    "partition.legacy-name": "only the default (true) is accepted; other values are refused by name",
    "commit.max-retries": "retries of a lost commit race; tests/safety covers concurrent writers",
}


def test_every_option_is_covered():
    known = COVERED_HERE | set(COVERED_ELSEWHERE) | set(NO_OBSERVABLE_EFFECT)
    missing = sorted(set(OPTIONS) - known)
    assert not missing, f"options with no test: {missing} (add a test here or say where/why)"
    field_missing = sorted(set(FIELD_OPTIONS) - FIELD_COVERED_HERE - set(FIELD_COVERED_ELSEWHERE))
    assert not field_missing, f"per-column options with no test: {field_missing}"
    stale = sorted(known - set(OPTIONS))
    assert not stale, f"listed but not options any more: {stale}"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for key, where in list(COVERED_ELSEWHERE.items()) + list(FIELD_COVERED_ELSEWHERE.items()):
        path = os.path.join(root, where.split()[0])
        assert os.path.exists(path), (key, where)
        with open(path) as f:
            assert key in f.read(), f"{key}: not mentioned in {where}"
