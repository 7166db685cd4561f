"""Table options that change rows or files, one twin table each: Java Paimon writes a twin of
each of our tables from the same commits with the same options, and three reads must agree: ours
of our table, Java's of our table, Java's of its own. Where the option's effect is simple, all
three also equal a plain-Python model (never our reader). Options only this project knows are
checked against a model alone (said where). One JVM writes and reads all twins.

Known differences from Java 0.9 are strict xfails (they fail the suite once fixed); none now.
"""

from __future__ import annotations

import os

import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.read.diff import diff
from tests.interop.harness.canonical import assert_same_rows, rows_from_arrow
from tests.interop.option_twins import (
    DELETES,
    KIND,
    KV,
    Case,
    create_ours,
    java_create,
    kv,
    model_append,
    model_pk,
    our_write,
    pk_model,
)

pytestmark = pytest.mark.interop


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
    rows = pk_model(case, drop=("fields.t.list-agg-delimiter",))
    return [{**r, "t": None if r["t"] is None else r["t"].replace(",", ";")} for r in rows]


# first-row: the first record of a key stays; -U/-D only with ignore-delete
FIRST_ROW = [
    [kv(1, "a", 1), kv(2, "b", 2)],
    [kv(2, "b", 2, kind="-D"), kv(1, "a2", 5), kv(3, "c", 3)],
]
PARTIAL = [
    [kv(1, "a", 1), kv(2, "b", None), kv(3, "c", 3)],
    [kv(1, None, 10), kv(2, None, 20)],
    [kv(2, "b", 2, kind="-D")],
]
SEQ = [
    [kv(1, "a", 1, 5), kv(2, "b", 2, 5), kv(3, "c", 3, 5)],
    [kv(1, "a2", 10, 3), kv(2, "b2", 20, 7), kv(3, "c2", 30, 5)],
    [kv(1, "a3", 11, 9), kv(2, "b3", 21, 1)],
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


DYN = [[kv(i, f"v{i}", i) for i in range(10)], [kv(i, f"w{i}", i * 2) for i in range(5, 14)]]

CASES: dict[str, Case] = {
    # ignore-delete and its aliases (Java 0.9: the same option with fallback keys)
    "ignore_delete": Case(KV, ("k",), {"ignore-delete": "true"}, DELETES, model_pk),
    "deduplicate_ignore_delete": Case(KV, ("k",), {"deduplicate.ignore-delete": "true"}, DELETES, model_pk),
    "first_row_ignore_delete": Case(
        KV, ("k",), {"merge-engine": "first-row", "first-row.ignore-delete": "true"}, FIRST_ROW, model_pk
    ),
    "partial_update_ignore_delete": Case(
        KV,
        ("k",),
        {"merge-engine": "partial-update", "partial-update.ignore-delete": "true"},
        PARTIAL,
        model_pk,
    ),
    "remove_record_on_delete": Case(
        KV,
        ("k",),
        {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
        PARTIAL,
        model_pk,
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
        model_pk,
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
        model_pk,
    ),
    "bucket_key": Case(APP_COLS, (), {"bucket": "3", "bucket-key": "n"}, [_append_rows(0, 40)], model_append),
    "pk_bucket": Case(KV, ("k",), {"bucket": "4"}, [[kv(i, "v", i) for i in range(30)]], model_pk),
    "partition_default_name": Case(
        PART_COLS,
        (),
        {"partition.default-name": "NULL_P", "bucket": "-1"},
        PART_ROWS,
        model_append,
        partitions=("p",),
    ),
    # data-file.prefix / changelog-file.prefix are not in Java 0.9 (1.x): Java's twin names its
    # files data-/changelog- (checked below); Java reads ours through the manifests' names
    "file_prefixes": Case(
        KV,
        ("k",),
        {"data-file.prefix": "dat-", "changelog-file.prefix": "chg-", "changelog-producer": "input"},
        DELETES,
        model_pk,
    ),
    "target_file_size": Case(
        APP_COLS,
        (),
        {"target-file-size": "8 kb", "bucket": "1", "bucket-key": "id"},
        [_append_rows(0, 6000)],
        model_append,
    ),
    # our writer turns a commit bigger than the buffer (given in 4 parts) into several level-0
    # runs (Java spills to disk and writes one file): rows agree, and the runs are checked below
    # (Java needs at least 3 pages of 64 kb)
    "write_buffer": Case(
        KV,
        ("k",),
        {"write-buffer-size": "256 kb", "bucket": "1"},
        [[kv(i % 5000, f"value-{i}", i) for i in range(20000)]],
        model_pk,
        chunks=4,
    ),
    # manifests merged into small ones after 2 commits: Java reads the merged manifests
    "manifest_merge": Case(
        KV, ("k",), {"manifest.merge-min-count": "2", "manifest.target-file-size": "1 kb"}, DELETES, model_pk
    ),
    "dynamic_bucket": Case(KV, ("k",), {"bucket": "-1", "dynamic-bucket.target-row-num": "3"}, DYN, model_pk),
    # one case each; formats x codecs: tests/interop/test_file_formats_interop.py
    "file_format_orc": Case(KV, ("k",), {"file.format": "orc"}, DELETES, model_pk),
    "file_compression_gzip": Case(KV, ("k",), {"file.compression": "gzip"}, DELETES, model_pk),
    "zstd_level": Case(KV, ("k",), {"file.compression.zstd-level": "9"}, DELETES, model_pk),
    # Java 0.9 writes snappy manifests for any manifest.compression but zstd, and its jar has no
    # snappy: it cannot write this twin. We write deflate manifests (as Java 1.x), Java 0.9 reads them.
    "manifest_deflate": Case(
        KV, ("k",), {"manifest.compression": "deflate"}, DELETES, model_pk, java_twin=False
    ),
}
for _c in CASES.values():
    _c.options.setdefault("bucket", "2")
    _c.options.setdefault("file.format", "parquet")


@pytest.fixture(scope="module")
def twins(tmp_path_factory, java):
    """Every case: our table o.<case> and Java's j.<case>; one JVM writes Java's tables and reads
    both (rows, files, snapshots)."""
    owh, jwh = str(tmp_path_factory.mktemp("ours")), str(tmp_path_factory.mktemp("java"))
    reqs, slots = [], {}
    for name, case in CASES.items():
        t = create_ours(owh, f"o.{name}", case)
        for rows in case.commits:
            our_write(t, case.columns, rows, case.chunks)
        reads = [("java_of_ours", owh, f"o.{name}")]
        if case.java_twin:
            reqs.append(java_create(jwh, f"j.{name}", case))
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

    t = create_ours(
        str(tmp_path), "o.bad", Case(KV, ("k",), {"bucket": "1", "manifest.compression": "lzo"}, [])
    )
    with pytest.raises(InvalidInput, match="manifest.compression 'lzo'"):
        our_write(t, KV, DELETES[0])
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
    java.run([java_create(wh, "j.l", case), {"op": "write", "warehouse": wh, "table": "j.l", "rows": rows}])
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

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
