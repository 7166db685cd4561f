"""``file.compression = none``: Java Paimon 0.9 accepts it in a table's options (its ORC writer
writes NONE); we write such tables too, uncompressed in every format (Parquet
UNCOMPRESSED, Avro ``null``, ORC NONE), and Java 0.9 reads what we wrote. Java 0.9's own Parquet
and Avro writers cannot use the name (no enum constant NONE / an unknown Avro codec), so those
two formats are checked one way: we write, Java reads."""

from __future__ import annotations

import fastavro
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from paimon_core.catalog import FileSystemCatalog

COLUMNS = [{"name": "id", "type": "INT NOT NULL"}, {"name": "s", "type": "STRING"}]


def rows(lo: int, hi: int) -> list[dict]:
    return [{"id": i, "s": f"v{i}"} for i in range(lo, hi)]


def ours(lo: int, hi: int) -> pa.Table:
    return pa.table({"id": pa.array(range(lo, hi), pa.int32()), "s": [f"v{i}" for i in range(lo, hi)]})


def codec_of(path) -> str:
    if path.suffix == ".parquet":
        return pq.ParquetFile(str(path)).metadata.row_group(0).column(0).compression
    if path.suffix == ".orc":
        return orc.ORCFile(str(path)).compression
    with open(path, "rb") as f:
        return fastavro.reader(f).codec


def sorted_rows(res: dict) -> list[dict]:
    return sorted(
        ({k: v for k, v in r.items() if k != "_row_kind"} for r in res["rows"]), key=lambda r: r["id"]
    )


def create_request(wh: str, options: dict, primary_keys: list | None = None) -> dict:
    return {
        "op": "create_table",
        "warehouse": wh,
        "table": "db.t",
        "schema": COLUMNS,
        "partition_keys": [],
        "primary_keys": primary_keys or [],
        "options": options,
    }


@pytest.mark.parametrize("primary_key", [False, True], ids=["append", "pk"])
def test_a_java_table_with_compression_none_takes_our_writes(java, tmp_path, primary_key):
    """Java creates and writes an ORC table with file.compression=none; we append to it, switch
    it to Parquet (alter-table) and append again, uncompressed; Java and we read every row."""
    from paimon_core.metadata.schema_evolution import SetOption
    from paimon_core.ops.alter import alter_table

    wh = str(tmp_path / "wh")
    options = {"bucket": "1" if primary_key else "-1", "file.format": "orc", "file.compression": "none"}
    java.run(
        [
            create_request(wh, options, ["id"] if primary_key else []),
            {"op": "write", "warehouse": wh, "table": "db.t", "rows": rows(0, 5)},
        ]
    )
    table = FileSystemCatalog(wh).get_table("db.t")
    table.write_arrow(ours(5, 10))
    table = alter_table(table, [SetOption("file.format", "parquet")])
    table.write_arrow(ours(10, 15))
    files = sorted((tmp_path / "wh" / "db.db" / "t").rglob("data-*"))
    assert {(p.suffix, codec_of(p)) for p in files} == {
        (".orc", "UNCOMPRESSED"),
        (".parquet", "UNCOMPRESSED"),
    }
    (res,) = java.run([{"op": "read", "warehouse": wh, "table": "db.t"}])
    assert sorted_rows(res) == rows(0, 15)
    got = FileSystemCatalog(wh).get_table("db.t").read().to_pylist()
    assert sorted(got, key=lambda r: r["id"]) == rows(0, 15)


@pytest.mark.parametrize(
    "fmt, codec", [("parquet", "UNCOMPRESSED"), ("orc", "UNCOMPRESSED"), ("avro", "null")]
)
def test_we_write_compression_none_in_every_format_and_java_reads_it(java, tmp_path, fmt, codec):
    wh = str(tmp_path / "wh")
    java.run([create_request(wh, {"bucket": "-1", "file.format": fmt, "file.compression": "none"})])
    FileSystemCatalog(wh).get_table("db.t").write_arrow(ours(0, 30))
    (f,) = (tmp_path / "wh" / "db.db" / "t").rglob("data-*")
    assert (f.suffix, codec_of(f)) == (f".{fmt}", codec)
    (res,) = java.run([{"op": "read", "warehouse": wh, "table": "db.t"}])
    assert sorted_rows(res) == rows(0, 30)
