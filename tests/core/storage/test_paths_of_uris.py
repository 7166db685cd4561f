"""``FileIO.path_of``: a URI recorded in metadata (a Hive location, an external data path, a BLOB
descriptor) as a path of the table's storage, or None when it names other storage; and how
``hdfs://`` warehouses keep their NameNode (no cluster needed: nothing here touches storage)."""

from __future__ import annotations

import pytest

from paimon_core.errors import InvalidInput
from paimon_core.storage.file_io import FileIO


@pytest.mark.parametrize(
    "root, uri, path",
    [
        ("/tmp/wh", "file:/tmp/wh/t", "/tmp/wh/t"),
        ("/tmp/wh", "/tmp/wh/t", "/tmp/wh/t"),
        ("/tmp/wh", "s3://b/t", None),
        ("s3://b/wh", "s3a://b/wh/t", "b/wh/t"),
        ("s3://b/wh", "hdfs://nn:8020/wh/t", None),
        ("hdfs://nn:8020/wh", "hdfs://nn:8020/wh/t", "/wh/t"),
        ("hdfs://nn:8020/wh", "hdfs:///wh/t", "/wh/t"),  # fs.defaultFS: the same cluster
        ("hdfs://nn:8020/wh", "hdfs://other:8020/wh/t", None),
        ("hdfs://nn:8020/wh", "webhdfs://nn:9870/wh/t", "/wh/t"),  # one NameNode, its HTTP port
        ("webhdfs://nn:9870/wh", "hdfs://nn:8020/wh/t", "/wh/t"),
        ("hdfs://nn:8020/wh", "file:/wh/t", None),
    ],
)
def test_a_recorded_uri_is_a_path_of_the_same_storage_or_none(root, uri, path):
    assert FileIO(root).path_of(uri) == path


def test_an_hdfs_warehouse_keeps_its_namenode():
    io = FileIO("hdfs://nn:8020/warehouse/")
    assert (io.scheme, io.authority, io.root) == ("hdfs", "nn:8020", "/warehouse")
    assert io.uri(io.join(io.root, "db.db")) == "hdfs://nn:8020/warehouse/db.db"
    assert io.is_hdfs and not io.is_local and not io.is_s3
    default = FileIO("hdfs:///warehouse")
    assert (default.authority, default.root, default.uri("/warehouse")) == (
        "",
        "/warehouse",
        "hdfs:///warehouse",
    )
    clone = FileIO.__new__(FileIO)
    clone.__setstate__(io.__getstate__())  # what Spark's executors receive
    assert (clone.authority, clone.uri("/warehouse")) == ("nn:8020", "hdfs://nn:8020/warehouse")


def test_a_port_that_is_no_number_is_refused_by_name():
    with pytest.raises(InvalidInput, match="bad HDFS address 'nn:x': the port must be a number"):
        FileIO("hdfs://nn:x/wh").exists("/wh")
