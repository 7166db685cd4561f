"""The Hive Metastore catalog against a real metastore (Hive 2.3 from PySpark's jars): the
registration read back over Thrift, partitions added on commit, schema changes, renames, drops,
the errors, cleanup after a refused create, the metastore lock, 4 writers, and every command."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import threading
import time

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog.factory import create_catalog
from paimon_core.data.types import parse_type
from paimon_core.errors import (
    CatalogUnavailable,
    TableAlreadyExists,
    TableFilesMissing,
    TableNotRegistered,
)
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.ops.alter import alter_table
from tests.catalog.cli_flow import every_command

pytestmark = pytest.mark.slow
_dbs = itertools.count()


def fresh_db() -> str:
    return f"h{next(_dbs)}"


def raw_client(ms):
    """A plain Thrift client (pymetastore's generated code) to look at the metastore directly."""
    from pymetastore.hive_metastore import ThriftHiveMetastore
    from thrift.protocol.TBinaryProtocol import TBinaryProtocol
    from thrift.transport import TSocket, TTransport

    transport = TTransport.TBufferedTransport(TSocket.TSocket("127.0.0.1", ms.port))
    transport.open()
    return ThriftHiveMetastore.Client(TBinaryProtocol(transport))


def test_registration_partitions_and_schema_changes(hive_ms, tmp_path):
    db = fresh_db()
    wh = tmp_path / "wh"
    cat = create_catalog("hive", str(wh), {"uri": hive_ms.uri})
    schema = Schema(
        columns=Schema.parse_columns(
            "id BIGINT NOT NULL, name VARCHAR(20), tags ARRAY<STRING>, attrs MAP<STRING, INT>, "
            "amount DECIMAL(10, 2), ts TIMESTAMP(6), dt STRING, hr INT"
        ),
        partition_keys=("dt", "hr"),
        comment="events",
        options={"metastore.partitioned-table": "true", "hive.custom.prop": "x"},
    )
    t = cat.create_table(f"{db}.events", schema)
    t.write_arrow(
        pa.table(
            {
                "id": pa.array([1, 2, 3], pa.int64()),
                "name": ["a", "b", "c"],
                "tags": [["x"], [], None],
                "attrs": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int32())),
                "amount": pa.array([None] * 3, pa.decimal128(10, 2)),
                "ts": pa.array([None] * 3, pa.timestamp("us")),
                "dt": ["d1", "d1", "d 2"],
                "hr": pa.array([1, 2, 1], pa.int32()),
            }
        )
    )
    hms = raw_client(hive_ms)
    h = hms.get_table(db, "events")
    assert h.tableType == "MANAGED_TABLE"
    assert {k: v for k, v in h.parameters.items() if k != "transient_lastDdlTime"} == {
        "table_type": "PAIMON",
        "storage_handler": "org.apache.paimon.hive.PaimonStorageHandler",
        "comment": "events",
        "custom.prop": "x",
    }
    assert h.sd.inputFormat == "org.apache.paimon.hive.mapred.PaimonInputFormat"
    assert h.sd.outputFormat == "org.apache.paimon.hive.mapred.PaimonOutputFormat"
    assert h.sd.serdeInfo.serializationLib == "org.apache.paimon.hive.PaimonSerDe"
    assert h.sd.location == f"file:{wh}/{db}.db/events"
    assert [(c.name, c.type) for c in h.sd.cols] == [
        ("id", "bigint"),
        ("name", "varchar(20)"),
        ("tags", "array<string>"),
        ("attrs", "map<string,int>"),
        ("amount", "decimal(10,2)"),
        ("ts", "timestamp"),
    ]
    assert [(c.name, c.type) for c in h.partitionKeys] == [("dt", "string"), ("hr", "int")]
    parts = sorted((p.values, p.sd.location) for p in hms.get_partitions(db, "events", -1))
    assert parts == [
        (["d 2", "1"], f"file:{wh}/{db}.db/events/dt=d 2/hr=1"),
        (["d1", "1"], f"file:{wh}/{db}.db/events/dt=d1/hr=1"),
        (["d1", "2"], f"file:{wh}/{db}.db/events/dt=d1/hr=2"),
    ]
    assert (hms.get_database(db).locationUri) == f"file:{wh}/{db}.db"
    # a schema change is mirrored
    alter_table(cat.get_table(f"{db}.events"), [AddColumn("extra", parse_type("DOUBLE"))])
    assert [c.name for c in hms.get_table(db, "events").sd.cols][-1] == "extra"
    # rename and drop keep the metastore and the files in step
    cat.rename_table(f"{db}.events", f"{db}.events2")
    assert cat.list_tables(db) == ["events2"]
    assert hms.get_table(db, "events2").sd.location == f"file:{wh}/{db}.db/events2"
    assert cat.get_table(f"{db}.events2").read().num_rows == 3
    cat.drop_table(f"{db}.events2")
    assert cat.list_tables(db) == [] and not (wh / f"{db}.db" / "events2").exists()


def test_errors_and_refused_create_leave_nothing(hive_ms, tmp_path):
    db = fresh_db()
    wh = tmp_path / "wh"
    cat = create_catalog("hive", str(wh), {"uri": hive_ms.uri})
    schema = Schema(columns=Schema.parse_columns("id INT, v STRING"))
    # a plain Hive table of the same name: the metastore refuses our registration
    from pymetastore.hive_metastore import ttypes as T

    hms = raw_client(hive_ms)
    hms.create_database(T.Database(name=db, locationUri=f"file:{tmp_path}/other/{db}.db", parameters={}))
    sd = T.StorageDescriptor(
        cols=[T.FieldSchema("a", "int", None)],
        location=f"file:{tmp_path}/other/plain",
        inputFormat="org.apache.hadoop.mapred.TextInputFormat",
        outputFormat="org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
        serdeInfo=T.SerDeInfo(
            serializationLib="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe", parameters={}
        ),
    )
    hms.create_table(
        T.Table(
            tableName="plain", dbName=db, sd=sd, partitionKeys=[], parameters={}, tableType="MANAGED_TABLE"
        )
    )
    assert cat.list_tables(db) == []  # not a Paimon table: not listed
    with pytest.raises(TableAlreadyExists):
        cat.create_table(f"{db}.plain", schema)
    assert not (tmp_path / "other" / f"{db}.db" / "plain" / "schema").exists()
    assert hms.get_table(db, "plain").sd.inputFormat == "org.apache.hadoop.mapred.TextInputFormat"
    # a registered table whose files are gone; a table on storage that is not registered
    cat.create_table(f"{db}.gone", schema)
    shutil.rmtree(tmp_path / "other" / f"{db}.db" / "gone")
    with pytest.raises(TableFilesMissing, match="registered in the hive catalog but has no files"):
        cat.get_table(f"{db}.gone")
    fs = create_catalog("filesystem", str(tmp_path / "other"))
    fs.create_table(f"{db}.fs_only", schema)
    with pytest.raises(TableNotRegistered, match=f"'{db}.fs_only' is not registered in the hive catalog"):
        cat.get_table(f"{db}.fs_only")
    # an unreachable metastore is one line
    res = CliRunner().invoke(
        app, ["-w", str(wh), "--catalog", "hive", "--catalog-option", "uri=thrift://127.0.0.1:1", "tables"]
    )
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: cannot reach the hive metastore thrift://127.0.0.1:1"
    )


def test_lock_blocks_commits(hive_ms, tmp_path):
    from pymetastore.hive_metastore import ttypes as T

    db = fresh_db()
    opts = {
        "uri": hive_ms.uri,
        "lock.enabled": "true",
        "lock-acquire-timeout": "2 s",
        "lock-check-max-sleep": "100 ms",
    }
    cat = create_catalog("hive", str(tmp_path / "wh"), opts)
    t = cat.create_table(f"{db}.t", Schema(columns=Schema.parse_columns("id INT")))
    hms = raw_client(hive_ms)
    held = hms.lock(
        T.LockRequest(
            component=[
                T.LockComponent(
                    type=T.LockType.EXCLUSIVE,
                    level=T.LockLevel.TABLE,
                    dbname=db,
                    tablename="t",
                    operationType=T.DataOperationType.NO_TXN,
                )
            ],
            user="other",
            hostname="elsewhere",
        )
    )
    assert held.state == T.LockState.ACQUIRED
    with pytest.raises(CatalogUnavailable, match=f"could not take the hive metastore lock on {db}.t"):
        t.write_arrow(pa.table({"id": pa.array([1], pa.int32())}))
    assert t.snapshots.latest() is None
    releaser = threading.Timer(0.5, lambda: raw_client(hive_ms).unlock(T.UnlockRequest(lockid=held.lockid)))
    releaser.start()
    t2 = create_catalog("hive", str(tmp_path / "wh"), {**opts, "lock-acquire-timeout": "60 s"}).get_table(
        f"{db}.t"
    )
    t2.write_arrow(pa.table({"id": pa.array([2], pa.int32())}))
    releaser.join()
    assert t2.snapshots.latest().id == 1


WRITER = """
import json, sys
import pyarrow as pa
from paimon_core.catalog.factory import create_catalog
t = create_catalog("hive", sys.argv[1], json.loads(sys.argv[2])).get_table(sys.argv[3])
w = int(sys.argv[4])
for k in range(3):
    ids = [w * 1000 + k * 10 + j for j in range(10)]
    t.write_arrow(pa.table({"id": pa.array(ids, pa.int64()), "dt": [f"p{w % 2}"] * 10}))
"""


def test_four_writers_lose_nothing(hive_ms, tmp_path):
    db = fresh_db()
    wh = str(tmp_path / "wh")
    opts = {"uri": hive_ms.uri, "lock.enabled": "true", "lock-check-max-sleep": "200 ms"}
    cat = create_catalog("hive", wh, opts)
    cat.create_table(
        f"{db}.t",
        Schema(
            columns=Schema.parse_columns("id BIGINT NOT NULL, dt STRING"),
            partition_keys=("dt",),
            options={"metastore.partitioned-table": "true"},
        ),
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, wh, json.dumps(opts), f"{db}.t", str(w)])
        for w in range(4)
    ]
    deadline = time.monotonic() + 300
    for p in procs:
        assert p.wait(max(1, deadline - time.monotonic())) == 0
    t = cat.get_table(f"{db}.t")
    assert sorted(t.read().column("id").to_pylist()) == sorted(
        w * 1000 + k * 10 + j for w in range(4) for k in range(3) for j in range(10)
    )
    assert len(t.snapshots.snapshots()) == 12
    assert sorted(p.values for p in raw_client(hive_ms).get_partitions(db, "t", -1)) == [["p0"], ["p1"]]


def test_every_command_through_the_hive_catalog(hive_ms, tmp_path, monkeypatch):
    every_command(tmp_path, monkeypatch, "hive", {"uri": hive_ms.uri, "lock.enabled": "true"})


def test_database_properties_and_location(hive_ms, tmp_path):
    """As Java's HiveCatalog: ``comment`` is the description, ``location`` the database location
    (made; its tables go there), other properties are parameters; read back over Thrift."""
    db = fresh_db()
    wh, elsewhere = tmp_path / "wh", tmp_path / "elsewhere" / "crm"
    cat = create_catalog("hive", str(wh), {"uri": hive_ms.uri})
    cat.create_database(
        db, properties={"owner": "data-team", "comment": "customers", "location": str(elsewhere)}
    )
    raw = raw_client(hive_ms).get_database(db)
    assert raw.description == "customers" and raw.parameters == {"owner": "data-team"}
    assert raw.locationUri.endswith(str(elsewhere))
    props = cat.database_properties(db)
    assert props["owner"] == "data-team" and props["comment"] == "customers"
    cat.create_table(f"{db}.t", Schema(columns=Schema.parse_columns("id INT"), options={}))
    assert (elsewhere / "t" / "schema" / "schema-0").exists()
    with pytest.raises(Exception, match="is not empty"):
        cat.drop_database(db)
    cat.drop_database(db, cascade=True)
    assert db not in cat.list_databases()


def _partitioned_hive_table(hive_ms, tmp_path, options: dict):
    db = fresh_db()
    cat = create_catalog("hive", str(tmp_path / "wh"), {"uri": hive_ms.uri})
    cat.create_table(
        f"{db}.t",
        Schema(
            columns=Schema.parse_columns("id BIGINT NOT NULL, dt STRING"),
            partition_keys=("dt",),
            options={"metastore.partitioned-table": "true", **options},
        ),
    )
    return db, cat.get_table(f"{db}.t")


def test_dropped_and_expired_partitions_leave_the_metastore(hive_ms, tmp_path):
    from paimon_core.maintain.partitions import drop_partitions, matching
    from paimon_core.read.partition_spec import parse_partition_spec

    db, t = _partitioned_hive_table(
        hive_ms,
        tmp_path,
        {
            "partition.expiration-time": "1 d",
            "partition.expiration-check-interval": "0",
        },
    )
    t.write_arrow(
        pa.table({"id": pa.array([1, 2, 3], pa.int64()), "dt": ["2020-01-01", "2099-01-01", "2099-01-02"]})
    )
    assert sorted(p.values for p in raw_client(hive_ms).get_partitions(db, "t", -1)) == [
        ["2099-01-01"],
        ["2099-01-02"],
    ]  # 2020-01-01 was added by the write, then expired after it
    drop_partitions(t, matching(t, [parse_partition_spec(t, "dt=2099-01-01")]))
    assert [p.values for p in raw_client(hive_ms).get_partitions(db, "t", -1)] == [["2099-01-02"]]


def test_mark_done_adds_the_done_partition_and_the_load_done_event(hive_ms, tmp_path):
    from paimon_core.maintain.partitions import mark_done, matching, read_success_file
    from paimon_core.read.partition_spec import parse_partition_spec

    db, t = _partitioned_hive_table(
        hive_ms,
        tmp_path,
        {
            "partition.mark-done-action": "success-file,done-partition,mark-event",
        },
    )
    t.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "dt": ["2024-01-01"]}))
    found = matching(t, [parse_partition_spec(t, "dt=2024-01-01")])
    mark_done(t, found)
    mark_done(t, found)  # again: the done partition is there once
    assert sorted(p.values for p in raw_client(hive_ms).get_partitions(db, "t", -1)) == [
        ["2024-01-01"],
        ["2024-01-01.done"],
    ]
    assert raw_client(hive_ms).isPartitionMarkedForEvent(db, "t", {"dt": "2024-01-01"}, 1)
    assert read_success_file(t, found[0]) is not None
