"""Fault injection at every storage call site of every committing operation.

For each operation below, a calibration run on a copy of a small table counts its storage calls
(``tests/safety/faults.py``: FileIO's methods, its fsspec and Arrow filesystems) with their call
sites, and records the states it passes through. Then, from the same starting copy, one run per
injection point. The points are the k-th calls, for every k that is the first or the last call
from its call site (tests/safety/sites.py: a loop's calls between those take the same path):

* ``error``: an OSError raised instead of the k-th storage call;
* ``error-after``: an OSError raised after the k-th call landed (a write that took effect but
  reported failure), for calls that change storage;
* ``interrupt``: KeyboardInterrupt (Ctrl-C) right after the k-th call landed, for calls that
  change storage.

After each injection:

1. the table reads as it did before the operation or as one of the states the uninterrupted run
   went through (its snapshots; for rollback and expiry, which move through committed snapshots
   one deletion at a time, also any snapshot of the old chain in between): rows, schema and tags;
2. no file that a retained snapshot or a tag uses is missing (snapshots that the operation was
   expiring excepted: their files go first, as in Java);
3. every file left behind that nothing uses lies where orphan cleanup looks (``manifest/``,
   ``index/``, ``statistics/``, ``bucket-*`` folders), and ``remove_orphans`` then leaves no
   unreachable file;
4. Java Paimon 0.9 and 1.4.2 read the same rows (one batch per release and operation, over
   copies of every distinct table state the injections produced), where Java 0.9 can read the
   table. The injections run once per operation; only these reads are per release.

The Spark writers are driven in this process through the data source's writer protocol (the
write task, the driver's commit, its abort after a failed commit), as Spark calls them: inside a
Spark session the tasks run in worker processes the injector cannot reach. The JDBC catalog
runs on SQLite with its commit lock, the Hive catalog on a Hive Metastore 2.3 (PySpark's jars,
started once per session, ~40 s) with its table lock. A catalog changes the path from the commit
on: its runs inject from the first call inside a commit or a catalog, the calls before it (the
data files) being those of the filesystem catalog's run of the same operation, injected there.

Injection points per operation (``pytest -s`` prints them again after the run: storage calls
failed before they happen / failed after they landed / Ctrl-C after they landed; Java reads:
the distinct table states each Java release read, in one batch per operation; postpone-bucket tables
are Paimon 1.1+, so Java 0.9 reads none of them). With test_signals.py the whole run takes about
2 minutes on an idle 2-core machine (4 to 6 on a busy one):

::

    operation                             calls  after Ctrl-C  total Java reads
    ingest[append]                           46      9      9     64          2
    ingest[append-bucketed]                  48     13     13     74          2
    ingest[pk-fixed]                         72     22     22    116          3
    ingest[pk-dynamic]                       58     12     12     82          2
    ingest[pk-postpone]                      30      9      9     48          0
    ingest[pk-dv]                            92     27     27    146          3
    ingest --watch                          155     42     42    239          5
    ingest -                                125     27     27    179          4
    delete[append]                           29      9      9     47          2
    delete[pk-fixed]                         80     22     22    124          3
    delete[pk-dv]                           100     24     24    148          3
    overwrite[append]                        46      9      9     64          2
    overwrite[pk-fixed, p=a]                 46      9      9     64          2
    truncate[pk-fixed]                       10      5      5     20          2
    truncate[pk-fixed, p=a]                  13      5      5     23          2
    compact[pk-fixed]                        30      9      9     48          2
    compact --level-max[pk-fixed]            38     13     13     64          2
    compact --level-max[pk-dv]               38     13     13     64          2
    compact[append]                          30      9      9     48          2
    compact[pk-postpone]                     52     13     13     78          0
    expire                                   44     16     16     76          5
    rollback                                 35     15     15     65          3
    tag create                                3      1      1      5          1
    tag delete                               25      7      7     39          1
    remove-orphans                           23      3      3     29          1
    alter-table                               7      1      1      9          1
    spark write[pk-fixed]                    78     22     22    122          3
    spark write[append]                      52      9      9     70          2
    spark writeStream[pk-fixed]             165     42     42    249          5
    jdbc: ingest[pk-fixed]                   44     14     14     72          3
    jdbc: compact --level-max[pk-dv]         10      5      5     20          2
    jdbc: alter-table                         6      1      1      8          2
    hive: ingest[pk-fixed]                   44     14     14     72          3
    hive: compact --level-max[pk-dv]         10      5      5     20          2
    hive: alter-table                         6      1      1      8          2
    all                                                         2604
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.catalog.factory import create_catalog
from paimon_core.compaction.compaction import compact
from paimon_core.data.types import parse_type
from paimon_core.maintain import (
    create_tag,
    delete_tag,
    expire_snapshots,
    list_tags,
    remove_orphans,
    rollback,
)
from paimon_core.maintain.files import is_temp_name
from paimon_core.maintain.refs import RefReader
from paimon_core.maintain.tags import tag_manager
from paimon_core.maintain.used_names import used_names
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.ops.alter import alter_table
from paimon_core.ops.delete import delete_where
from paimon_core.ops.ingest import ingest_files
from paimon_core.ops.streaming import ingest_stream, watch_dir
from paimon_core.ops.truncate import truncate, truncated_partitions
from tests.safety.checks import table_files, unreachable_files
from tests.safety.faults import FaultInjector, InjectedFault, mutating
from tests.safety.sites import first_and_last

pytestmark = [pytest.mark.safety, pytest.mark.slow]

POINTS: dict[str, dict[str, int]] = {}  # operation -> injection mode -> points (for the summary)

KINDS = {
    # name: (primary key?, options); every table is partitioned by p
    "append": (False, {}),
    "append-bucketed": (False, {"bucket": "2", "bucket-key": "id"}),
    "pk-fixed": (True, {"bucket": "2"}),
    "pk-dynamic": (True, {"bucket": "-1"}),
    "pk-postpone": (
        True,
        {"bucket": "-2", "postpone.default-bucket-num": "2", "postpone.batch-write-fixed-bucket": "false"},
    ),
    "pk-dv": (True, {"bucket": "2", "deletion-vectors.enabled": "true"}),
}
JAVA_READS = {"append", "append-bucketed", "pk-fixed", "pk-dynamic", "pk-dv"}  # no postpone in 0.9
COMMON = {"num-sorted-run.compaction-trigger": "3", "compaction.min.file-num": "3"}


def batch(b: int, n: int = 8) -> pa.Table:
    """Batch ``b``: keys overlapping the previous batch (PK tables update them), both partitions."""
    ids = list(range(b * n // 2, b * n // 2 + n))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": pa.array([f"b{b}-{i}" for i in ids]),
            "p": pa.array(["a" if i % 2 else "b" for i in ids]),
        }
    )


def make(cat: FileSystemCatalog, name: str, kind: str, history: int = 3, extra: dict | None = None):
    pk, options = KINDS[kind]
    cols = "id BIGINT NOT NULL, v STRING, p STRING NOT NULL"
    options = {**COMMON, **options, **(extra or {})}
    schema = Schema(Schema.parse_columns(cols), ("p",), ("id", "p") if pk else (), options)
    table = cat.create_table(f"db.{name}", schema)
    for b in range(history):
        table.write_arrow(batch(b))
    return cat.get_table(f"db.{name}")


# ---------------------------------------------------------------- observing a table
def _rows(t: pa.Table) -> tuple:
    return tuple(sorted((tuple(r.values()) for r in t.to_pylist()), key=repr))


def state_at(table, sid: int | None = None) -> tuple:
    """What a reader sees: columns, rows (at ``sid``, the latest by default) and tag names."""
    snap = table.snapshots.snapshot(sid) if sid is not None else table.snapshots.latest()
    t = table.read(snapshot_id=sid) if sid is not None else table.read()
    schema = table.schema_for(snap.schema_id) if snap is not None else table.schema
    cols = tuple(f.name for f in schema.fields)
    return cols, _rows(t), tuple(sorted(i.name for i in list_tags(table)))


def used_files(table, skip: set[int]) -> set[str]:
    """Files every retained snapshot (but ``skip``) and every tag uses."""
    reader = RefReader(table)
    out: set[str] = set()
    for sid in table.snapshots.list_ids():
        if sid not in skip:
            out |= reader.refs(table.snapshots.snapshot(sid)).all_paths()
    for s in tag_manager(table).tagged().values():
        out |= reader.refs(s).all_paths()
    return out


def orphan_cleanup_may_remove(rel: str) -> bool:
    """Java's orphan cleanup lists manifest/, index/, statistics/ and the bucket folders; ours
    also removes the temporary files of atomic writes (``.<name>.<uuid>.tmp``, left by a kill -9
    during a snapshot create or a hint update) from snapshot/, schema/ and tag/."""
    parts = rel.split("/")
    if parts[0] in ("snapshot", "schema", "tag") and len(parts) == 2:
        return is_temp_name(parts[1])
    return parts[0] in ("manifest", "index", "statistics") or any(p.startswith("bucket-") for p in parts[:-1])


def metadata_file(rel: str) -> bool:
    top, name = rel.split("/", 1)[0], rel.rsplit("/", 1)[-1]
    return (
        (top == "schema" and name.startswith("schema-"))
        or (top == "snapshot" and (name in ("LATEST", "EARLIEST") or name.startswith("snapshot-")))
        or (top == "tag" and name.startswith("tag-"))
    )


def _inodes(root) -> dict[str, int]:
    """Relative path -> inode of the files under ``root``."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            out[os.path.relpath(p, root)] = os.stat(p).st_ino
    return out


def table_files_of(copy: Path, path: str) -> list[str]:
    """The files of a copy of a table, named as if they were at ``path``."""
    return [
        os.path.join(path, os.path.relpath(os.path.join(d, n), copy))
        for d, _, ns in os.walk(copy)
        for n in ns
    ]


# ---------------------------------------------------------------- operations
@dataclass
class Op:
    name: str
    kind: str
    run: Callable  # (table, workdir) -> None
    prepare: Callable | None = None  # (catalog, table, workdir) -> None, before the pristine copy
    passes_through_old: bool = False  # rollback/expire: may stop at any snapshot of the old chain
    java: bool = True
    history: int = 3  # batches written before
    options: dict = field(default_factory=dict)  # table options besides the kind's
    catalog: str = "filesystem"  # or "jdbc": a JDBC catalog on SQLite, commits under its lock
    # the rows after the operation, from the batches written before (a plain-Python model);
    # None: the rows do not change
    model: Callable | None = None


# ---------------------------------------------------------------- row models
def _tuples(*tables: pa.Table) -> list[tuple]:
    return [(r["id"], r["v"], r["p"]) for t in tables for r in t.to_pylist()]


def written(pk: bool, rows: list[tuple]) -> list[tuple]:
    """A table's rows after ``rows`` were written in order: PK tables keep the last of a key."""
    if not pk:
        return list(rows)
    last = {(i, p): (i, v, p) for i, v, p in rows}
    return list(last.values())


def history_rows(op) -> list[tuple]:
    return _tuples(*(batch(b) for b in range(op.history)))


def after_writing(*batches: int):
    def model(op):
        pk = KINDS[op.kind][0]
        if op.kind == "pk-postpone":  # every row waits in bucket-postpone: reads see none
            return []
        return written(pk, history_rows(op) + _tuples(*(batch(b) for b in batches)))

    return model


def after_delete(op):
    return [r for r in written(KINDS[op.kind][0], history_rows(op)) if not r[0] < 5]


def after_overwrite(op):
    return _tuples(batch(7))


def after_overwrite_a(op):
    kept = [r for r in written(True, history_rows(op)) if r[2] != "a"]
    return kept + [r for r in _tuples(batch(7)) if r[2] == "a"]


def after_truncate(op):
    return []


def after_truncate_a(op):
    return [r for r in written(True, history_rows(op)) if r[2] != "a"]


def all_history(op):
    return written(KINDS[op.kind][0], history_rows(op))


def after_rollback(op):
    return written(True, _tuples(batch(0), batch(1)))  # snapshot 2: the first two batches


def with_new_column(op):
    return [(*r, None) for r in written(KINDS[op.kind][0], history_rows(op))]


def _input_file(work: Path, b: int) -> str:
    path = work / f"in-{b}.parquet"
    if not path.exists():
        pq.write_table(batch(b), path)
    return str(path)


def _ingest(table, work):
    ingest_files(table, [_input_file(work, 7)])


def _overwrite(table, work):
    ingest_files(table, [_input_file(work, 7)], overwrite=True)


def _overwrite_partition(table, work):
    t = batch(7).filter(pa.compute.equal(batch(7).column("p"), "a"))
    path = work / "in-a.parquet"
    pq.write_table(t, path)
    ingest_files(table, [str(path)], overwrite=True, partition="p=a")


def _watch(table, work):
    src = work / "watch"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir()
    pq.write_table(batch(7), src / "f1.parquet")
    pq.write_table(batch(8), src / "f2.parquet")
    done = []
    watch_dir(
        table,
        str(src),
        poll_s=0.01,
        settle_s=0.0,
        commit_user="watcher",
        stop=lambda: len(done) >= 2,
        on_commit=lambda result, group: done.append(group),
    )


def _stdin(table, work):
    lines = [json.dumps(r) for r in batch(7).to_pylist() + batch(8).to_pylist()]
    stream = io.BytesIO(("\n".join(lines) + "\n").encode())
    ingest_stream(table, stream, fmt="json", commit_interval_s=60, commit_rows=8, commit_user="stdin")


def _spark_protocol(writer, batches: list[pa.Table], *batch_id) -> None:
    """What Spark does with a data source writer: one task writes, the driver commits, and aborts
    with the tasks' messages when the commit fails (the task aborts its own writer on failure)."""
    msgs = [writer.write(iter(b.to_batches())) for b in batches]
    try:
        writer.commit(msgs, *batch_id)
    except BaseException:
        writer.abort(msgs, *batch_id)
        raise


def _spark_write(table, work):
    from paimon_core.engines.spark.source import PaimonWriter

    # one task: two tasks writing one key have no order (Spark gives them different sequence
    # ranges by partition id, which a task run outside Spark does not have)
    _spark_protocol(PaimonWriter(table, False), [pa.concat_tables([batch(7), batch(8)])])


def _spark_stream(table, work):
    from paimon_core.engines.spark.source import PaimonStreamWriter

    w = PaimonStreamWriter(table, {"commit-user": "spark-stream"})
    for batch_id, b in enumerate((7, 8)):
        _spark_protocol(w, [batch(b)], batch_id)


def _delete(table, work):
    delete_where(table, "id < 5")


def _truncate(table, work):
    truncate(table)


def _truncate_a(table, work):
    truncate(table, truncated_partitions(table, {"p": "a"}))


def _compact(table, work):
    compact(table)


def _compact_full(table, work):
    compact(table, full=True)


def _expire(table, work):
    expire_snapshots(table, retain_min=1, older_than_ms=0)


def _rollback(table, work):
    rollback(table, to_snapshot=2)


def _tag_create(table, work):
    create_tag(table, "t2", snapshot_id=2)


def _tag_prepare(cat, table, work):
    create_tag(table, "old", snapshot_id=1)
    compact(table, full=True)  # so that the tag alone keeps some data files
    expire_snapshots(table, retain_min=1, older_than_ms=0)


def _tag_delete(table, work):
    delete_tag(table, "old")


def _plant_orphans(cat, table, work):
    """Files nothing uses in every folder orphan cleanup looks at."""
    root = Path(table.path)
    for rel in ("manifest/manifest-orphan-0", "index/index-orphan-0", "p=a/bucket-0/data-orphan-0.parquet"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"orphan")


def _remove_orphans(table, work):
    remove_orphans(table, older_than_ms=0)


def _alter(table, work):
    alter_table(table, [AddColumn("w", parse_type("INT"))])


WRITE_ONLY = {"write-only": "true"}  # the history leaves work for an explicit compaction
OPS = [
    *[Op(f"ingest[{k}]", k, _ingest, model=after_writing(7)) for k in KINDS],
    Op("ingest --watch", "pk-fixed", _watch, model=after_writing(7, 8)),
    Op("ingest -", "append", _stdin, model=after_writing(7, 8)),
    Op("delete[append]", "append", _delete, model=after_delete),
    Op("delete[pk-fixed]", "pk-fixed", _delete, model=after_delete),
    Op("delete[pk-dv]", "pk-dv", _delete, model=after_delete),
    Op("overwrite[append]", "append", _overwrite, model=after_overwrite),
    Op("overwrite[pk-fixed, p=a]", "pk-fixed", _overwrite_partition, model=after_overwrite_a),
    Op("truncate[pk-fixed]", "pk-fixed", _truncate, model=after_truncate),
    Op("truncate[pk-fixed, p=a]", "pk-fixed", _truncate_a, model=after_truncate_a),
    Op("compact[pk-fixed]", "pk-fixed", _compact, options=WRITE_ONLY, model=all_history),
    Op("compact --level-max[pk-fixed]", "pk-fixed", _compact_full, options=WRITE_ONLY, model=all_history),
    Op("compact --level-max[pk-dv]", "pk-dv", _compact_full, options=WRITE_ONLY, model=all_history),
    Op("compact[append]", "append", _compact, options=WRITE_ONLY, model=all_history),
    Op("compact[pk-postpone]", "pk-postpone", _compact, options=WRITE_ONLY, model=all_history),
    Op("expire", "pk-fixed", _expire, passes_through_old=True, model=all_history),
    Op("rollback", "pk-fixed", _rollback, passes_through_old=True, model=after_rollback),
    Op("tag create", "pk-fixed", _tag_create, model=all_history),
    Op("tag delete", "pk-fixed", _tag_delete, prepare=_tag_prepare, model=all_history),
    Op("remove-orphans", "pk-fixed", _remove_orphans, prepare=_plant_orphans, model=all_history),
    Op("alter-table", "pk-fixed", _alter, model=with_new_column),
    Op("spark write[pk-fixed]", "pk-fixed", _spark_write, model=after_writing(7, 8)),
    Op("spark write[append]", "append", _spark_write, model=after_writing(7, 8)),
    Op("spark writeStream[pk-fixed]", "pk-fixed", _spark_stream, model=after_writing(7, 8)),
    Op("jdbc: ingest[pk-fixed]", "pk-fixed", _ingest, catalog="jdbc", model=after_writing(7)),
    Op(
        "jdbc: compact --level-max[pk-dv]",
        "pk-dv",
        _compact_full,
        options=WRITE_ONLY,
        catalog="jdbc",
        model=all_history,
    ),
    Op("jdbc: alter-table", "pk-fixed", _alter, catalog="jdbc", model=with_new_column),
    Op("hive: ingest[pk-fixed]", "pk-fixed", _ingest, catalog="hive", model=after_writing(7)),
    Op(
        "hive: compact --level-max[pk-dv]",
        "pk-dv",
        _compact_full,
        options=WRITE_ONLY,
        catalog="hive",
        model=all_history,
    ),
    Op("hive: alter-table", "pk-fixed", _alter, catalog="hive", model=with_new_column),
]


# ---------------------------------------------------------------- the harness
class Harness:
    def __init__(self, op: Op, tmp: Path, metastore=None):
        self.op = op
        self.work = tmp / "work"
        self.work.mkdir()
        if op.catalog == "jdbc":  # commits under the catalog's lock (a row in its database)
            uri = f"jdbc:sqlite:{tmp / 'catalog.db'}"
            opts = {"uri": uri, "lock.enabled": "true", "lock-acquire-timeout": "5s"}
            self.cat = create_catalog("jdbc", str(tmp / "wh"), opts)
        elif op.catalog == "hive":  # commits under the metastore's table lock
            opts = {"uri": metastore.uri, "lock.enabled": "true", "lock-acquire-timeout": "5 s"}
            self.cat = create_catalog("hive", str(tmp / "wh"), opts)
        else:
            self.cat = FileSystemCatalog(str(tmp / "wh"))
        self.cat.create_database("db")
        if op.catalog == "hive":  # one metastore for the session: the previous op's table goes
            self.cat.drop_table("db.t", ignore_if_missing=True)
        table = make(self.cat, "t", op.kind, op.history, op.options)
        if op.prepare:
            op.prepare(self.cat, table, self.work)
        self.path = table.path
        self.pristine = tmp / "pristine"
        shutil.copytree(self.path, self.pristine, copy_function=os.link)
        self.pristine_inodes = _inodes(self.pristine)
        self.java_wh = tmp / "java"
        self.java_copies: dict[str, tuple] = {}  # signature -> (table name, rows we read)

    def table(self):
        return self.cat.get_table("db.t")

    def restore(self):
        """The starting table again, by difference: files the run added go, files it removed or
        replaced (the hints) come back as hard links. Safe because no file of a table is ever
        changed in place (new files get new names, hints are replaced by a rename)."""
        now = _inodes(self.path)
        for rel in now.keys() - self.pristine_inodes.keys():
            os.unlink(os.path.join(self.path, rel))
        for rel, ino in self.pristine_inodes.items():
            if now.get(rel) != ino:
                dst = os.path.join(self.path, rel)
                if rel in now:
                    os.unlink(dst)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.link(os.path.join(self.pristine, rel), dst)

    def calibrate(self) -> tuple[list[str], set]:
        self.restore()
        t = self.table()
        self.before = before = state_at(t)
        old_ids = t.snapshots.list_ids()
        self.allowed = {before}
        if self.op.passes_through_old:
            self.allowed |= {state_at(t, sid) for sid in old_ids}
        t = self.table()  # a fresh table object: no cached metadata, as in every injected run
        with FaultInjector() as inj:
            self.op.run(t, self.work)
        t = self.table()
        after = state_at(t)
        assert after != before or table_files(t) != set(table_files_of(self.pristine, t.path)), (
            f"{self.op.name}: the uninterrupted run changed nothing"
        )
        want = tuple(sorted(self.op.model(self.op), key=repr))
        assert after[1] == want, f"{self.op.name}: the uninterrupted run does not match the model"
        new_ids = [i for i in t.snapshots.list_ids() if i not in old_ids]
        self.allowed |= {after} | {state_at(t, sid) for sid in new_ids}
        self.doomed = set(old_ids) - set(t.snapshots.list_ids())  # expired by the operation
        self.after_files = table_files(t)
        self.calls = inj.calls
        self.keys = list(zip(inj.calls, inj.sites, strict=True))
        return inj.calls

    def inject(self, k: int, exc, after: bool) -> str:
        self.restore()
        t = self.table()
        with FaultInjector(k, exc, after) as inj:
            try:
                self.op.run(t, self.work)
                outcome = "completed"
            except (InjectedFault, KeyboardInterrupt) as e:
                outcome = type(e).__name__
            except Exception as e:  # a failure that wraps the fault names it
                assert "injected fault" in f"{e} {e.__cause__} {e.__context__}", (
                    f"{self.op.name}: fault at call {k} ({inj.fired}) became an unrelated error: {e!r}"
                )
                outcome = type(e).__name__
        assert inj.fired == self.calls[k - 1], (
            f"{self.op.name}: call {k} is {inj.fired}, not {self.calls[k - 1]} as in the calibration run"
        )
        where = f"{self.op.name}: {'after' if after else 'at'} call {k} ({inj.fired}), {exc.__name__}"
        self.check(where)
        return outcome

    def check(self, where: str) -> None:
        if self.op.catalog == "filesystem" and _inodes(self.path) == self.pristine_inodes:
            return  # not a file added, removed or replaced: the table is exactly as before
        t = self.table()
        try:
            got = state_at(t)
        except Exception as e:  # noqa: BLE001 - reported as the failure it is
            raise AssertionError(f"{where}: the table no longer reads: {e}") from e
        assert got in self.allowed, (
            f"{where}: the table reads neither as before nor as after the operation "
            f"({len(got[1])} rows, columns {got[0]}, tags {got[2]})"
        )
        used = used_files(t, self.doomed)
        missing = sorted(p for p in used if not os.path.exists(p))
        assert not missing, f"{where}: files a live snapshot or tag uses are missing: {missing[:3]}"
        root = t.path.rstrip("/") + "/"
        left = sorted(
            p[len(root) :]
            for p in table_files(t)
            if p not in used and not metadata_file(p[len(root) :]) and p not in self.after_files
        )
        outside = [r for r in left if not orphan_cleanup_may_remove(r)]
        assert not outside, f"{where}: left files orphan cleanup never looks at: {outside[:3]}"
        self.keep_for_java(t, got, used)
        if self.doomed & set(t.snapshots.list_ids()):
            # an expiry stopped half-way: snapshots it was removing may miss files already, and
            # orphan cleanup refuses such a snapshot; running it again finishes the job
            self.op.run(t, self.work)
            t = self.table()
            got = state_at(t)
            assert not self.doomed & set(t.snapshots.list_ids()), f"{where}: the re-run did not finish"
        if left:
            remove_orphans(t, older_than_ms=0)
            t = self.table()
            # what orphan cleanup keeps is what Java's keeps: files a retained snapshot's
            # manifests still name (a deleted entry of the latest delta manifest; expiry removes
            # those files when that snapshot goes)
            named = used_names(t)
            stale = [r for r in unreachable_files(t) if r in left and r.rsplit("/", 1)[-1] not in named]
            assert not stale, f"{where}: remove-orphans left {stale[:3]}"
            assert state_at(t) == got, f"{where}: remove-orphans changed what the table reads"
        if self.op.catalog != "filesystem":  # the catalog's lock was released: the next commit lands
            t = self.table()
            latest = t.snapshots.latest_id()
            snap = t.write_arrow(batch(20))
            assert snap is not None and snap.id == (latest or 0) + 1, f"{where}: the next commit got {snap}"

    def keep_for_java(self, t, got, used: set[str]) -> None:
        """Copy the table for Java, once per distinct state: what it reads, its metadata files by
        name and the number of files in use (data and manifest names are unique per run)."""
        if not (self.op.java and self.op.kind in JAVA_READS):
            return
        root = t.path.rstrip("/") + "/"
        meta = sorted(p[len(root) :] for p in table_files(t) if metadata_file(p[len(root) :]))
        sig = hashlib.sha1(repr((got, meta, len(used))).encode()).hexdigest()
        if sig in self.java_copies:
            return
        name = f"c{len(self.java_copies)}"
        shutil.copytree(t.path, self.java_wh / "db.db" / name, copy_function=os.link)
        self.java_copies[sig] = (name, t.read())

    def java_check(self, releases) -> int:
        """Each Java release reads every distinct state kept, in one batch per release."""
        from tests.interop.harness import assert_same_rows, rows_from_arrow

        copies = list(self.java_copies.values())
        if not copies:
            return 0
        wh = str(self.java_wh)
        for java in releases:
            results = java.run([{"op": "read", "warehouse": wh, "table": f"db.{n}"} for n, _ in copies])
            for (_, ours), res in zip(copies, results):
                label = f"Java {java.version}"
                assert_same_rows(res["rows"], rows_from_arrow(ours), label_a=label, label_b="ours")
        return len(copies)


def _commit_or_catalog(site: str) -> bool:
    """The call site is inside a commit or a catalog (``sites.call_site``'s chain of steps)."""
    return any(step.startswith(("paimon_core/commit/", "paimon_core/catalog/")) for step in site.split(">"))


MODES = (
    ("error", InjectedFault, False),
    ("error-after", InjectedFault, True),
    ("interrupt", KeyboardInterrupt, True),
)


@pytest.mark.parametrize("op", OPS, ids=[o.name for o in OPS])
def test_fault_at_every_storage_call(op: Op, tmp_path, java_releases, request):
    metastore = request.getfixturevalue("hive_ms") if op.catalog == "hive" else None
    h = Harness(op, tmp_path, metastore)
    calls = h.calibrate()
    counts = {}
    outcomes: dict[str, int] = {}
    for mode, exc, after in MODES:
        candidates = [k for k, label in enumerate(calls, 1) if not after or mutating(label)]
        if op.catalog != "filesystem":
            # a catalog changes the path from the commit on (under its lock) and in its hooks; the
            # files written before the commit take the path of the filesystem catalog's run of the
            # same operation, whose points are injected there
            committing = [k for k in candidates if _commit_or_catalog(h.keys[k - 1][1])]
            candidates = [k for k in candidates if k >= min(committing, default=1)]
        ks = first_and_last(h.keys, candidates)  # every call site, at its first and last call
        for k in ks:
            o = h.inject(k, exc, after)
            outcomes[o] = outcomes.get(o, 0) + 1
        counts[mode] = len(ks)
    counts["java-read tables"] = h.java_check(java_releases)
    POINTS[op.name] = counts
    print(f"\n{op.name}: {len(calls)} storage calls; injection points {counts}; outcomes {outcomes}")
