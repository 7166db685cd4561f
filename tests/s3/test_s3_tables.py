"""Tables on a real S3 server (SeaweedFS): the core lanes, conditional-put commits, concurrent
writers, and refusal on a store that ignores ``If-None-Match: *``."""

from __future__ import annotations

import multiprocessing as mp
import pickle

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.errors import PaimonError, TableNotFound
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.snapshot import Snapshot
from paimon_core.storage.file_io import FileIO

COLUMNS = "id BIGINT NOT NULL, v STRING, dt STRING"


def _rows(ids, tag="a"):
    ids = list(ids)
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": [f"{tag}{i}" for i in ids],
            "dt": ["d1" if i % 2 else "d2" for i in ids],
        }
    )


def _sorted(t: pa.Table) -> list[tuple]:
    return sorted(zip(*(t.column(c).to_pylist() for c in ("id", "v", "dt"))))


def _objects(fs, path: str) -> list[str]:
    """Objects under ``path``: SeaweedFS keeps empty "directories" after deletes, which s3fs lists."""
    return sorted(p for p, info in fs.find(path, detail=True).items() if info["type"] == "file")


def _pk_schema():
    return Schema(Schema.parse_columns(COLUMNS), ("dt",), ("dt", "id"), {"bucket": "2"})


def _append_schema():
    return Schema(Schema.parse_columns(COLUMNS), ("dt",), (), {})


def test_fileio_on_s3_sees_fresh_state(s3_warehouse):
    uri, opts = s3_warehouse
    a, b = FileIO(uri, opts), FileIO(uri, opts)  # two "processes"
    d = a.join(a.root, "dir")
    assert a.list_names(d) == [] and not a.exists(a.join(d, "x"))
    b.write_bytes(b.join(d, "x"), b"hello")
    assert a.exists(a.join(d, "x")) and a.list_names(d) == ["x"]
    assert a.size(a.join(d, "x")) == 5 and a.read_bytes(a.join(d, "x")) == b"hello"
    b.overwrite_hint(b.join(d, "x"), b"bye")
    assert a.read_text(a.join(d, "x")) == "bye"
    b.delete(b.join(d, "x"))
    assert not a.exists(a.join(d, "x")) and a.list_names(d) == []
    with pytest.raises(FileNotFoundError):
        a.read_bytes(a.join(d, "x"))
    a.delete(a.join(d, "x"))  # deleting a missing file is fine
    b.write_bytes(b.join(d, "sub", "y"), b"1")
    b.delete_dir(d)
    assert _objects(a.fs, d) == []


def test_fileio_pickles_and_works_after(s3_warehouse):
    uri, opts = s3_warehouse
    io = FileIO(uri, opts)
    io.write_bytes(io.join(io.root, "f"), b"1")
    io2 = pickle.loads(pickle.dumps(io))  # with fs and arrow_fs already built
    assert io2.read_bytes(io2.join(io2.root, "f")) == b"1"
    assert io2.arrow_fs.get_file_info(io2.join(io2.root, "f")).size == 1


def test_storage_option_spellings(s3_server, s3_bucket):
    o = s3_server.storage_options
    spellings = [
        {
            "endpoint": o["endpoint"],
            "key": o["access_key_id"],
            "secret": o["secret_access_key"],
            "region": "us-east-1",
            "path_style": "true",
        },
        {
            "s3.endpoint": o["endpoint"],
            "s3.access-key": o["access_key_id"],
            "s3.secret-key": o["secret_access_key"],
            "s3.path.style.access": "true",
        },
        {
            "client_kwargs": {"endpoint_url": o["endpoint"], "region_name": "us-east-1"},
            "key": o["access_key_id"],
            "secret": o["secret_access_key"],
        },  # s3fs's own form
    ]
    for i, opts in enumerate(spellings):
        io = FileIO(f"s3://{s3_bucket}/sp{i}", opts)
        assert io.write_if_absent(io.join(io.root, "x"), b"1")
        with io.arrow_fs.open_input_stream(io.join(io.root, "x")) as f:
            assert f.read() == b"1"


def test_storage_options_from_env(s3_server, s3_bucket, monkeypatch):
    o = s3_server.storage_options
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", o["access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", o["secret_access_key"])
    monkeypatch.setenv("AWS_ENDPOINT_URL", o["endpoint"])
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    t = FileSystemCatalog(f"s3://{s3_bucket}/wh").create_table("db.t", _append_schema())
    t.write_arrow(_rows(range(10)))
    assert _sorted(t.read()) == _sorted(_rows(range(10)))


def test_append_table_lanes(s3_warehouse, tmp_path):
    from paimon_core.ops.ingest import ingest_files

    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    t = cat.create_table("db.app", _append_schema())
    t.write_arrow(_rows(range(0, 100)))
    src = tmp_path / "in.parquet"
    pq.write_table(_rows(range(100, 150), "f"), src)
    ingest_files(t, [str(src)])
    t = cat.get_table("db.app")
    assert _sorted(t.read()) == _sorted(pa.concat_tables([_rows(range(100)), _rows(range(100, 150), "f")]))
    assert _sorted(t.read(snapshot_id=1)) == _sorted(_rows(range(100)))
    assert t.read(where="id >= 140").num_rows == 10
    t.write_arrow(_rows(range(7)), overwrite=True)
    assert _sorted(t.read()) == _sorted(_rows(range(7)))
    assert _sorted(t.read(snapshot_id=2)) == _sorted(
        pa.concat_tables([_rows(range(100)), _rows(range(100, 150), "f")])
    )
    ids = t.snapshots.list_ids()
    assert ids == list(range(1, len(ids) + 1)) and t.snapshots.latest_id() == ids[-1]


def test_append_full_compaction(s3_warehouse):
    from paimon_core.compaction.compaction import full_compact

    uri, opts = s3_warehouse
    t = FileSystemCatalog(uri, opts).create_table("db.app", _append_schema())
    for k in range(3):
        t.write_arrow(_rows(range(k * 10, k * 10 + 10)))
    full_compact(t)
    assert _sorted(t.read()) == _sorted(_rows(range(30)))
    assert t.snapshots.latest().commit_kind == "COMPACT"


def test_primary_key_table_lanes(s3_warehouse, tmp_path):
    from paimon_core.compaction.compaction import full_compact, max_level
    from paimon_core.ops.ingest import ingest_files

    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    t = cat.create_table("db.pk", _pk_schema())
    t.write_arrow(_rows(range(0, 50)))
    src = tmp_path / "upd.parquet"
    pq.write_table(_rows(range(25, 75), "u"), src)  # updates 25..49, inserts 50..74
    ingest_files(t, [str(src)])
    expected = _sorted(pa.concat_tables([_rows(range(25)), _rows(range(25, 75), "u")]))
    assert _sorted(t.read()) == expected
    assert _sorted(t.read(snapshot_id=1)) == _sorted(_rows(range(50)))
    before = [f for s in t.plan(t.snapshots.latest()) for f in s.files]
    res = full_compact(t)
    assert res.snapshot.commit_kind == "COMPACT" and res.files_before == len(before)
    after = [f for s in t.plan(t.snapshots.latest()) for f in s.files]
    assert res.files_after == len(after) and {f.level for f in after} == {max_level(t)}
    assert sum(f.row_count for f in after) == 75  # the 25 updated keys merged away
    t = cat.get_table("db.pk")
    assert _sorted(t.read()) == expected
    t.write_arrow(_rows(range(3), "o"), overwrite=True)
    assert _sorted(t.read()) == _sorted(_rows(range(3), "o"))


def test_list_and_drop_tables(s3_warehouse):
    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    cat.create_table("db.a", _append_schema())
    cat.create_table("db.b", _pk_schema()).write_arrow(_rows(range(4)))
    cat.create_table("other.c", _append_schema())
    assert cat.list_databases() == ["db", "other"]
    assert cat.list_tables("db") == ["a", "b"]
    with pytest.raises(PaimonError):
        cat.create_table("db.a", _append_schema())
    cat.drop_table("db.b")
    assert cat.list_tables("db") == ["a"] and not cat.table_exists("db.b")
    with pytest.raises(TableNotFound):
        cat.get_table("db.b")
    assert _objects(cat.io.fs, cat.table_path("db", "b")) == []
    cat.create_table("db.b", _append_schema())  # the name can be reused
    assert cat.get_table("db.b").read().num_rows == 0


def _snapshot(sid: int, user: str) -> Snapshot:
    return Snapshot(
        id=sid,
        schema_id=0,
        base_manifest_list="b",
        delta_manifest_list="d",
        commit_user=user,
        commit_identifier=1,
        commit_kind="APPEND",
        time_millis=0,
        total_record_count=0,
        delta_record_count=0,
    )


def test_racing_commits_one_winner(s3_warehouse):
    uri, opts = s3_warehouse
    t = FileSystemCatalog(uri, opts).create_table("db.t", _append_schema())
    t2 = FileSystemCatalog(uri, opts).get_table("db.t")
    assert t.snapshots.try_commit(_snapshot(1, "alice"))
    assert not t2.snapshots.try_commit(_snapshot(1, "bob"))
    assert t2.snapshots.snapshot(1).commit_user == "alice"  # not overwritten
    io = FileIO(uri, opts)
    p = io.join(io.root, "race")
    assert [io.write_if_absent(p, b"x"), io.write_if_absent(p, b"y")] == [True, False]
    assert io.read_bytes(p) == b"x"


def test_racing_commits_threads(s3_warehouse):
    from concurrent.futures import ThreadPoolExecutor

    uri, opts = s3_warehouse
    ios = [FileIO(uri, opts) for _ in range(8)]
    p = ios[0].join(ios[0].root, "race")
    with ThreadPoolExecutor(8) as ex:
        won = list(ex.map(lambda i: ios[i].write_if_absent(p, str(i).encode()), range(8)))
    assert won.count(True) == 1
    assert ios[0].read_bytes(p) == str(won.index(True)).encode()


def _ingest_worker(uri, opts, worker, commits, barrier):
    t = FileSystemCatalog(uri, opts).get_table("db.t")
    barrier.wait()
    for c in range(commits):
        base = worker * 1000 + c * 10
        t.write_arrow(_rows(range(base, base + 10), f"w{worker}-"))


def test_concurrent_processes_lose_nothing(s3_warehouse):
    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    cat.create_table("db.t", Schema(Schema.parse_columns(COLUMNS), options={"commit.max-retries": "100"}))
    workers, commits = 4, 3
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(workers)
    procs = [
        ctx.Process(target=_ingest_worker, args=(uri, opts, w, commits, barrier)) for w in range(workers)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(180)
        assert p.exitcode == 0
    t = cat.get_table("db.t")
    ids = t.read().column("id").to_pylist()
    expected = [w * 1000 + c * 10 + i for w in range(workers) for c in range(commits) for i in range(10)]
    assert sorted(ids) == sorted(expected)  # every row exactly once
    assert t.snapshots.list_ids() == list(range(1, workers * commits + 1))


@pytest.fixture
def ignoring_store(monkeypatch):
    """Make s3fs drop ``If-None-Match`` before it reaches the server: a store that ignores it."""
    import s3fs

    real = s3fs.S3FileSystem._call_s3

    async def call_s3(self, method, *args, **kwargs):
        kwargs.pop("IfNoneMatch", None)
        return await real(self, method, *args, **kwargs)

    monkeypatch.setattr(s3fs.S3FileSystem, "_call_s3", call_s3)


def test_store_ignoring_condition_is_refused(s3_warehouse, ignoring_store):
    from paimon_core.storage.s3 import ConditionalWriteUnsupported

    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    with pytest.raises(ConditionalWriteUnsupported, match="does not honour conditional writes") as e:
        cat.create_table("db.t", _append_schema())
    assert isinstance(e.value, PaimonError) and "unsafe-commits" in str(e.value)
    assert _objects(cat.io.fs, cat.io.root) == []  # neither the probe nor schema-0 was left behind
    with pytest.raises(ConditionalWriteUnsupported):  # the verdict is cached, and still refuses
        FileIO(uri, opts).write_if_absent(f"{cat.io.root}/x", b"1")


def test_unsafe_commits_override(s3_warehouse, ignoring_store):
    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, {**opts, "unsafe-commits": "true"})
    t = cat.create_table("db.t", _append_schema())
    t.write_arrow(_rows(range(5)))
    assert t.read().num_rows == 5
    # check-then-write still refuses a file it can see
    assert not t.snapshots.try_commit(_snapshot(1, "late"))


def test_store_rejecting_condition_is_refused(s3_warehouse, monkeypatch):
    """Some stores answer If-None-Match with 501 Not Implemented: refused with the reason."""
    import s3fs
    from botocore.exceptions import ClientError

    from paimon_core.storage.s3 import ConditionalWriteUnsupported

    real = s3fs.S3FileSystem._call_s3

    async def call_s3(self, method, *args, **kwargs):
        if "IfNoneMatch" in kwargs:
            raise s3fs.errors.translate_boto_error(
                ClientError(
                    {
                        "Error": {
                            "Code": "NotImplemented",
                            "Message": "A header you provided implies functionality that is not implemented",
                        }
                    },
                    "PutObject",
                )
            )
        return await real(self, method, *args, **kwargs)

    monkeypatch.setattr(s3fs.S3FileSystem, "_call_s3", call_s3)
    uri, opts = s3_warehouse
    with pytest.raises(ConditionalWriteUnsupported, match="rejects the condition"):
        FileSystemCatalog(uri, opts).create_table("db.t", _append_schema())


def test_expire_and_remove_orphans(s3_warehouse):
    """Maintenance deletes through FileIO: what it keeps still reads; an orphan is found by listing."""
    from paimon_core.maintain.expire import expire_snapshots
    from paimon_core.maintain.orphans import remove_orphans

    uri, opts = s3_warehouse
    t = FileSystemCatalog(uri, opts).create_table("db.t", _pk_schema())
    for k in range(5):
        t.write_arrow(_rows(range(k * 10, k * 10 + 10), f"s{k}"))
    last = t.snapshots.latest_id()
    before, before_prev = _sorted(t.read()), _sorted(t.read(snapshot_id=last - 1))
    res = expire_snapshots(t, retain_min=2, retain_max=2, older_than_ms=0)
    assert res.expired and t.snapshots.list_ids() == [last - 1, last]
    assert _sorted(t.read()) == before and _sorted(t.read(snapshot_id=last - 1)) == before_prev
    orphan = t.io.join(t.path, "dt=d1", "bucket-0", "data-orphan.parquet")
    t.io.write_bytes(orphan, b"x")
    removed = remove_orphans(t, older_than_ms=0, now_ms=2**62)
    assert [f.path for f in removed.plan.files] == [orphan]
    assert not t.io.exists(orphan) and _sorted(t.read()) == before


def test_diff_and_changelog_on_s3(s3_warehouse):
    from paimon_core.read.diff import diff

    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    t = cat.create_table(
        "db.cdc",
        Schema(
            Schema.parse_columns("id BIGINT NOT NULL, v STRING"),
            (),
            ("id",),
            {"bucket": "2", "changelog-producer": "lookup"},
        ),
    )
    t.write_arrow(pa.table({"id": pa.array([1, 2], pa.int64()), "v": ["a", "b"]}))
    t.write_arrow(pa.table({"id": pa.array([2, 3], pa.int64()), "v": ["b2", "c"]}))
    last = t.snapshots.latest_id()
    state = sorted((r["_row_kind"], r["id"], r["v"]) for r in diff(t, 1, last, mode="diff").to_pylist())
    assert state == [("+I", 3, "c"), ("+U", 2, "b2"), ("-U", 2, "b")]
    log = [(r["_row_kind"], r["id"], r["v"]) for r in diff(t, 0, last, mode="changelog").to_pylist()]
    assert sorted(log) == sorted(
        [("+I", 1, "a"), ("+I", 2, "b"), ("-U", 2, "b"), ("+U", 2, "b2"), ("+I", 3, "c")]
    )


def test_planning_on_s3_equals_local(s3_warehouse, tmp_path):
    """Manifests fetched in one concurrent batch (#26): the same commits on S3 and on local disk
    plan the same files in the same order, filtered and not, cold and from the cache, and a
    count from metadata agrees."""
    from paimon_core.metadata import manifest_cache

    uri, opts = s3_warehouse
    tables = [
        FileSystemCatalog(uri, opts).create_table("db.plan", _append_schema()),
        FileSystemCatalog(str(tmp_path / "wh")).create_table("db.plan", _append_schema()),
    ]
    for c in range(4):
        for t in tables:
            t.write_arrow(_rows(range(c * 10, c * 10 + 10), f"c{c}"))

    def shape(t, where):
        return [
            (s.partition, sorted(f.row_count for f in s.files))
            for s in t.plan(t.snapshots.latest(), t.parse_filter(where))
        ]

    for where in (None, "dt = 'd1'", "dt IN ('d2')"):
        manifest_cache.clear()
        cold = [shape(t, where) for t in tables]
        warm = [shape(t, where) for t in tables]
        assert cold[0] == cold[1] == warm[0] == warm[1], where
    assert tables[0].count("dt = 'd1'") == tables[1].count("dt = 'd1'") == 20


def test_a_cold_plan_on_s3_reads_each_file_with_one_get(s3_warehouse, monkeypatch):
    """The reads of a cold plan (#26): the LATEST hint, the hinted snapshot and the next one
    (read at once, ``FileIO.together``), both manifest lists (at once), every manifest (one
    batch). Each is one GET: no HEAD for the object's size, no HEAD and listing to tell
    whether the next snapshot exists."""
    import s3fs

    from paimon_core.metadata import manifest_cache

    monkeypatch.setenv("PAIMON_MANIFEST_CACHE", "off")  # a cold plan: no decoded manifest on disk either
    uri, opts = s3_warehouse
    t = FileSystemCatalog(uri, opts).create_table("db.rt", _append_schema())
    for c in range(3):
        t.write_arrow(_rows(range(c * 10, c * 10 + 10), f"c{c}"))
    calls = []
    real = s3fs.S3FileSystem._call_s3

    async def spy(self, method, *args, **kwargs):
        calls.append((method, kwargs.get("Key", "").rsplit("/", 1)[-1]))
        return await real(self, method, *args, **kwargs)

    monkeypatch.setattr(s3fs.S3FileSystem, "_call_s3", spy)
    manifest_cache.clear()
    table = FileSystemCatalog(uri, opts).get_table("db.rt")
    calls.clear()
    splits = table.plan(table.snapshots.latest(), table.parse_filter("dt = 'd1'"))
    assert splits and {m for m, _ in calls} == {"get_object"}, calls
    names = sorted(k.split("-")[0] if k.startswith("manifest") else k for _, k in calls)
    assert names == ["LATEST", *["manifest"] * 5, "snapshot-3", "snapshot-4"], calls


def test_together_overlaps_remote_calls_only():
    """``FileIO.together`` runs remote calls at once (each waits for the other here) and
    local ones in order."""
    import threading

    from paimon_core.storage.file_io import FileIO

    meet = threading.Barrier(2, timeout=10)
    assert FileIO("s3://b/wh", {}).together(lambda: meet.wait() + 10, lambda: meet.wait() + 20) in (
        [10, 21],
        [11, 20],
    )
    order = []
    assert FileIO("/tmp").together(lambda: order.append(1), lambda: order.append(2)) == [None, None]
    assert order == [1, 2]


def test_a_later_plan_reads_no_manifest_from_s3(s3_warehouse, tmp_path, monkeypatch):
    """The disk cache of decoded manifests (#43) serves remote tables too, keyed by the
    manifest's size as its list records it: a later process reads only the lists."""
    from paimon_core.metadata import manifest_cache, manifest_disk_cache

    monkeypatch.setenv("PAIMON_MANIFEST_CACHE", str(tmp_path / "cache"))
    uri, opts = s3_warehouse
    cat = FileSystemCatalog(uri, opts)
    cat.create_database("db")
    t = cat.create_table("db.t", _pk_schema())
    for k in range(3):
        t.write_arrow(_rows(range(k * 10, k * 10 + 10), f"w{k}"))
    want = [s.files for s in t.plan(t.snapshots.latest())]
    assert manifest_disk_cache.usage()[0] >= 3
    manifest_cache.clear()
    t = FileSystemCatalog(uri, opts).get_table("db.t")
    reads: list[str] = []
    real_read, real_cat = type(t.io).read_bytes, type(t.io.fs).cat

    def counting(io, path):
        reads.append(path)
        return real_read(io, path)

    def counting_cat(fs, paths, *a, **k):
        reads.extend(paths if isinstance(paths, list) else [paths])
        return real_cat(fs, paths, *a, **k)

    monkeypatch.setattr(type(t.io), "read_bytes", counting)
    monkeypatch.setattr(type(t.io.fs), "cat", counting_cat)
    assert [s.files for s in t.plan(t.snapshots.latest())] == want
    assert _sorted(t.read()) == sorted((i, f"w{i // 10}{i}", "d1" if i % 2 else "d2") for i in range(30))
    assert not [p for p in reads if "/manifest/manifest-" in p and "list" not in p]
