"""The Flink lane in batch mode: Flink 1.20 with Paimon's own connector (paimon-flink-1.20 1.3.1)
and this project on one warehouse, rows compared exactly with a model.

* Flink reads what we write: after our ingest, delete, compaction, expiry and alter-table, at
  the latest snapshot and (time travel) at every retained one;
* we read what Flink writes: INSERT, UPDATE and DELETE on primary-key tables, at every
  snapshot; a cross-partition upsert table (primary key without the partition column), which
  Flink writes and we then write on top of.
"""

from __future__ import annotations

import itertools

import pytest

from .changelog import fold_checked
from .cli import paimon, paimon_rows
from .model import PkModel, assert_rows, write_jsonl
from .sockets import is_loopback, listening_addresses

_names = itertools.count()


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return tmp_path_factory.mktemp("flink-batch-wh")


@pytest.fixture
def table():
    return f"db.t{next(_names)}"


def latest(wh, table: str) -> int:
    snaps = paimon_rows(wh, "snapshots", "-t", table)
    return max(s["id"] for s in snaps) if snaps else 0


def retained(wh, table: str) -> list[int]:
    return sorted(s["id"] for s in paimon_rows(wh, "snapshots", "-t", table))


def test_flink_listens_on_loopback_only(flink, wh):
    flink.sql(wh, "CREATE DATABASE IF NOT EXISTS db")  # the JVM and its mini-cluster are up
    addresses = listening_addresses(flink.pid)
    assert addresses, "the Flink driver listens on nothing: the check would prove nothing"
    assert [a for a in addresses if not is_loopback(a)] == []


def row(k: int, v: int, dt: str, **more) -> dict:
    return {
        "k": k,
        "v": v,
        "s": f"s{v}",
        "amount": f"{v}.05",
        "d": f"2024-01-{1 + k % 28:02d}",
        "dt": dt,
        **more,
    }


FIXED_LOOKUP = {"bucket": "2", "changelog-producer": "lookup"}
DYNAMIC_DV = {"deletion-vectors.enabled": "true"}  # dynamic buckets


@pytest.mark.flink_versions("1.20")
@pytest.mark.parametrize("options", [FIXED_LOOKUP, DYNAMIC_DV], ids=["fixed-lookup", "dynamic-dv"])
def test_flink_reads_what_we_write(flink, wh, table, options, tmp_path):
    reads_what_we_write(flink, wh, table, options, tmp_path)


@pytest.mark.flink_versions("2.0")
def test_flink2_reads_what_we_write(flink, wh, table, tmp_path):
    """Flink 2.0 takes the fixed-bucket case (its deletion-vector and dynamic-bucket code is 1.x's)."""
    reads_what_we_write(flink, wh, table, FIXED_LOOKUP, tmp_path)


def reads_what_we_write(flink, wh, table, options, tmp_path):
    schema = "k BIGINT NOT NULL, v BIGINT, s STRING, amount DECIMAL(10, 2), d DATE, dt STRING NOT NULL"
    opts = [x for k, v in options.items() for x in ("-O", f"{k}={v}")]
    paimon(wh, "create-table", table, "--schema", schema, "-k", "dt,k", "-p", "dt", *opts)
    model = PkModel(("dt", "k"))
    done = 0

    dv = options.get("deletion-vectors.enabled") == "true"

    def step(*args, change=lambda: None) -> None:
        nonlocal done
        before = model.state()
        change()
        paimon(wh, *args)
        kinds = {s["id"]: s["kind"] for s in paimon_rows(wh, "snapshots", "-t", table)}
        now = max(kinds)
        model.record(done + 1, now, kinds if dv else None, before)
        done = now

    for i in range(3):  # inserts, then updates of half the keys, in three commits
        batch = [row(k, k + 100 * i, "d1" if k % 3 else "d2") for k in range(i * 10, i * 10 + 40, 1 + i)]
        step(
            "ingest",
            "-t",
            table,
            write_jsonl(tmp_path / f"in{i}.jsonl", batch),
            change=lambda b=batch: model.upsert(b),
        )
    deleted = ", ".join(str(v) for v in range(0, 400, 7))
    step(
        "delete",
        "-t",
        table,
        "--where",
        f"v IN ({deleted})",
        change=lambda: model.delete_where(lambda r: r["v"] % 7 == 0),
    )
    step("compact", "-t", table, "--level-max")
    paimon(wh, "expire", "-t", table, "--retain-min", "2", "--retain-max", "3")
    step("alter-table", table, "add-column", "note", "STRING")
    for r in model.rows.values():
        r["note"] = None
    late = [row(k, 1000 + k, "d3", note=f"n{k}") for k in range(5)]
    step("ingest", "-t", table, write_jsonl(tmp_path / "late.jsonl", late), change=lambda: model.upsert(late))

    kept = retained(wh, table)
    assert len(kept) < done, "expire removed nothing: the test would not cover reads after expiry"
    # one Flink job reads the latest state (_snap 0) and every retained snapshot (a job costs
    # seconds on the mini-cluster; the hinted scans of a UNION ALL are planned one by one)
    union = " UNION ALL ".join(
        [f"SELECT 0 AS _snap, * FROM {table}"]
        + [f"SELECT {n} AS _snap, * FROM {table} /*+ OPTIONS('scan.snapshot-id' = '{n}') */" for n in kept]
    )
    by_snap: dict[int, list] = {n: [] for n in [0, *kept]}
    for r in flink.query(wh, union):
        by_snap[r.pop("_snap")].append(r)
    assert_rows(by_snap[0], model.state(), "Flink SELECT")
    for n in kept:
        # a hinted time travel reads with the table's current schema: `note` is null before it existed
        expected = [{"note": None, **r} for r in model.history[n]]
        assert_rows(by_snap[n], expected, f"Flink at snapshot {n}")


def test_we_read_what_flink_writes(flink, wh, table):
    model = PkModel(("dt", "k"))
    done = 0

    def step(stmt: str, change) -> None:
        nonlocal done
        flink.sql(wh, stmt)
        change()
        now = latest(wh, table)
        assert now > done, f"no snapshot from {stmt}"
        model.record(done + 1, now)
        done = now

    flink.sql(
        wh,
        "CREATE DATABASE IF NOT EXISTS db",
        f"CREATE TABLE {table} (k BIGINT, v BIGINT, s STRING, amount DECIMAL(10, 2), dt STRING, "
        "PRIMARY KEY (dt, k) NOT ENFORCED) PARTITIONED BY (dt) "
        "WITH ('bucket' = '2', 'changelog-producer' = 'lookup')",
    )
    first = [
        {"k": k, "v": k, "s": f"f{k}", "amount": f"{k}.50", "dt": "d1" if k % 2 else "d2"} for k in range(30)
    ]
    values = ", ".join(
        f"({r['k']}, {r['v']}, '{r['s']}', CAST('{r['amount']}' AS DECIMAL(10, 2)), '{r['dt']}')"
        for r in first
    )
    step(f"INSERT INTO {table} VALUES {values}", lambda: model.upsert(first))
    step(
        f"UPDATE {table} SET v = v * 10, s = 'upd' WHERE k < 10",
        lambda: model.update_where(lambda r: r["k"] < 10, lambda r: {"v": r["v"] * 10, "s": "upd"}),
    )
    step(f"DELETE FROM {table} WHERE v > 20", lambda: model.delete_where(lambda r: r["v"] > 20))
    again = [{"k": 25, "v": -25, "s": None, "amount": None, "dt": "d1"}]
    step(
        f"INSERT INTO {table} VALUES (25, -25, CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10, 2)), 'd1')",
        lambda: model.upsert(again),
    )

    assert retained(wh, table) == sorted(model.history)
    for n, expected in sorted(model.history.items()):
        assert_rows(
            paimon_rows(wh, "read", "-t", table, "--snapshot", n), expected, f"paimon read --snapshot {n}"
        )
    # and the changelog Flink's lookup producer wrote folds into the same rows
    changes = paimon_rows(wh, "stream", table, "--mode", "from-snapshot", "--from", 1, "--until", done)
    fields = ("v", "s", "amount")
    folded = fold_checked(
        changes, lambda r: (r["dt"], r["k"]), lambda r: tuple(r[f] for f in fields), growing=False
    )
    assert folded == {(r["dt"], r["k"]): tuple(r[f] for f in fields) for r in model.state()}


@pytest.mark.flink_versions("1.20")
def test_cross_partition_upsert_written_by_flink_then_by_us(flink, wh, table, tmp_path):
    """A primary key without the partition column (dynamic buckets): Flink moves keys between
    partitions, we read one row per key in its latest partition; then we move keys and Flink
    reads the same."""
    flink.sql(
        wh,
        "CREATE DATABASE IF NOT EXISTS db",
        f"CREATE TABLE {table} (k BIGINT, v BIGINT, dt STRING, PRIMARY KEY (k) NOT ENFORCED) "
        "PARTITIONED BY (dt) WITH ('bucket' = '-1')",
        f"INSERT INTO {table} VALUES " + ", ".join(f"({k}, {k}, 'a')" for k in range(20)),
        f"INSERT INTO {table} VALUES " + ", ".join(f"({k}, {k * 10}, 'b')" for k in range(0, 20, 3)),
    )
    model = PkModel(("k",))
    model.upsert({"k": k, "v": k, "dt": "a"} for k in range(20))
    model.upsert({"k": k, "v": k * 10, "dt": "b"} for k in range(0, 20, 3))
    assert_rows(paimon_rows(wh, "read", "-t", table), model.state(), "paimon read of Flink's table")

    ours = [{"k": k, "v": -k, "dt": "c"} for k in range(0, 20, 2)] + [{"k": 99, "v": 99, "dt": "a"}]
    paimon(wh, "ingest", "-t", table, write_jsonl(tmp_path / "move.jsonl", ours))
    model.upsert(ours)
    assert_rows(flink.query(wh, f"SELECT * FROM {table}"), model.state(), "Flink SELECT of our moves")
    assert_rows(paimon_rows(wh, "read", "-t", table), model.state(), "paimon read")


@pytest.mark.flink_versions("2.0")
def test_row_tracking_compacted_by_flink_and_by_us(flink, wh, table, tmp_path):
    """#38 item 11. A row-tracking table without data evolution that Java Paimon 2.0 compacted
    (`CALL sys.compact`) has a file whose `_WRITE_COLS` lists every column, `_ROW_ID` and
    `_SEQUENCE_NUMBER` included (both stored in the file): we read it, row ids and sequence
    numbers equal to Flink's `$row_tracking`. Then we write and compact the same table, and
    Flink reads our row ids and sequence numbers the same way."""
    from paimon_core.catalog import FileSystemCatalog

    flink.sql(
        wh,
        "CREATE DATABASE IF NOT EXISTS db",
        f"CREATE TABLE {table} (id INT, v STRING) WITH ('row-tracking.enabled' = 'true')",
        f"INSERT INTO {table} VALUES (1, 'a'), (2, 'b')",
        f"INSERT INTO {table} VALUES (3, 'c'), (4, 'd')",
        f"CALL sys.compact(`table` => '{table}', options => 'compaction.min.file-num=2')",
    )
    t = FileSystemCatalog(str(wh)).get_table(table)
    snapshot = t.snapshots.latest()
    assert snapshot is not None and snapshot.commit_kind == "COMPACT"
    (compacted,) = [f for s in t.at(snapshot.id).plan() for f in s.files]
    assert compacted.write_cols == ("id", "v", "_ROW_ID", "_SEQUENCE_NUMBER")

    def both() -> tuple[list, list]:
        cols = ("_ROW_ID", "_SEQUENCE_NUMBER", "id", "v")
        ours = paimon_rows(wh, "read", "-t", table, "--select", ",".join(cols))
        db, name = table.split(".")
        java = flink.query(wh, f"SELECT {', '.join(cols)} FROM {db}.`{name}$row_tracking`")
        return sorted(tuple(r[c] for c in cols) for r in ours), sorted(
            tuple(r[c] for c in cols) for r in java
        )

    ours, java = both()
    assert ours == java == [(0, 1, 1, "a"), (1, 1, 2, "b"), (2, 2, 3, "c"), (3, 2, 4, "d")]
    for i, v in ((5, "e"), (6, "f")):
        paimon(wh, "ingest", write_jsonl(tmp_path / f"r{i}.jsonl", [{"id": i, "v": v}]), "-t", table)
    paimon(wh, "compact", "-t", table, "--level-max")
    ours, java = both()
    assert ours == java and [r[0] for r in ours] == [0, 1, 2, 3, 4, 5], ours
