"""The CLI on Paimon 1.x features: postpone-bucket tables end to end, and every refusal of a
feature we do not implement is exit code 1 with one line naming it (nothing committed)."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from tests.cli.conftest import write_parquet


def _one_line(result, *words):
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err


def _pk_input(tmp_path, name, ids, gen, dts=("a", "b")):
    t = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "dt": [dts[i % len(dts)] for i in ids],
            "v": [f"v{i}-{gen}" for i in ids],
        }
    )
    return write_parquet(tmp_path / name, t)


def test_postpone_table_end_to_end(cli, tmp_path):
    """Fixed-bucket writes are read at once; bucket-postpone writes wait (with a note) until
    compact; the model is last-write-wins per key in replay order."""
    cli(
        "create-table",
        "db.pb",
        "--schema",
        "id BIGINT NOT NULL, dt STRING NOT NULL, v STRING",
        "--primary-key",
        "dt,id",
        "--partition",
        "dt",
        "--bucket",
        "-2",
        "-O",
        "postpone.default-bucket-num=3",
    )
    cli("ingest", "-t", "db.pb", _pk_input(tmp_path, "1.parquet", range(10), 1))
    assert cli("read", "-t", "db.pb", "--count").stdout.strip() == "10"
    files = cli.json("files", "-t", "db.pb")
    assert {f["bucket"] for f in files} <= {0, 1, 2} and files
    cli("alter-table", "db.pb", "set-option", "postpone.batch-write-fixed-bucket=false")
    cli("ingest", "-t", "db.pb", _pk_input(tmp_path, "2.parquet", range(5, 15), 2))
    r = cli("read", "-t", "db.pb", "-o", "json")
    assert "10 row(s) wait in bucket-postpone" in r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert {(x["id"], x["v"]) for x in rows} == {(i, f"v{i}-1") for i in range(10)}
    assert list((cli.wh / "db.db" / "pb" / "dt=a" / "bucket-postpone").glob("data--u-*-s-*-w-*.avro"))
    out = cli("compact", "-t", "db.pb")
    assert "snapshot" in out.stdout
    r = cli("read", "-t", "db.pb", "-o", "json")
    assert "bucket-postpone" not in r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    expected = {i: f"v{i}-1" for i in range(10)} | {i: f"v{i}-2" for i in range(5, 15)}
    assert {(x["id"], x["v"]) for x in rows} == set(expected.items())
    assert cli.json("snapshots", "-t", "db.pb")[-1]["kind"] == "COMPACT"


@pytest.mark.parametrize(
    "option,feature",
    [
        ("bucket-function.type=mod", "bucket-function.type = mod"),
        ("row-tracking.enabled=true", "row tracking"),
        ("data-evolution.enabled=true", "data evolution"),
        ("type=format-table", "type = format-table"),
    ],
)
def test_refused_options(cli, option, feature):
    r = cli(
        "create-table",
        "db.t",
        "--schema",
        "id BIGINT NOT NULL, v STRING",
        "--primary-key",
        "id",
        "--bucket",
        "2",
        "-O",
        option,
        code=1,
    )
    _one_line(r, feature)
    cli(
        "create-table",
        "db.t",
        "--schema",
        "id BIGINT NOT NULL, v STRING",
        "--primary-key",
        "id",
        "--bucket",
        "2",
    )
    r = cli("alter-table", "db.t", "set-option", option, code=1)
    _one_line(r, feature)


def test_refused_types(cli):
    for typ in ("VARIANT", "VECTOR<FLOAT, 3>"):
        r = cli("create-table", "db.t", "--schema", f"id BIGINT NOT NULL, x {typ}", code=1)
        _one_line(r, typ.split("<")[0] + " columns")


def test_refused_on_read_of_existing_table(cli, tmp_path):
    cli("create-table", "db.t", "--schema", "id BIGINT NOT NULL, v STRING")
    cli(
        "ingest",
        "-t",
        "db.t",
        write_parquet(tmp_path / "x.parquet", pa.table({"id": pa.array([1], pa.int64()), "v": ["a"]})),
    )
    schema_file = cli.wh / "db.db" / "t" / "schema" / "schema-0"
    obj = json.loads(schema_file.read_text())
    obj["fields"].append({"id": 5, "name": "x", "type": "VARIANT"})
    schema_file.write_text(json.dumps(obj))
    _one_line(cli("read", "-t", "db.t", code=1), "VARIANT columns")
    obj["fields"].pop()
    obj["options"]["data-evolution.enabled"] = "true"
    schema_file.write_text(json.dumps(obj))
    cli("read", "-t", "db.t")  # data evolution is read (files of some columns merged by row id)


def test_postpone_needs_a_primary_key(cli):
    _one_line(cli("create-table", "db.t", "--schema", "id BIGINT", "--bucket", "-2", code=1), "primary key")


def _manifest_rewrite(wh, name, fn):
    from paimon_core.catalog import FileSystemCatalog
    from tests.core.metadata.test_newer_metadata import rewrite_entries

    rewrite_entries(FileSystemCatalog(str(wh)).get_table(name), fn)


def _small_table(cli, tmp_path):
    cli("create-table", "db.t", "--schema", "id BIGINT NOT NULL, v STRING")
    cli(
        "ingest",
        "-t",
        "db.t",
        write_parquet(tmp_path / "x.parquet", pa.table({"id": pa.array([1], pa.int64()), "v": ["a"]})),
    )


def test_refused_files_and_writes(cli, tmp_path):

    _small_table(cli, tmp_path)
    src = write_parquet(tmp_path / "y.parquet", pa.table({"id": pa.array([2], pa.int64()), "v": ["b"]}))
    schema_file = cli.wh / "db.db" / "t" / "schema" / "schema-0"
    obj = json.loads(schema_file.read_text())
    obj["fields"][1]["defaultValue"] = "'dflt'"
    schema_file.write_text(json.dumps(obj))
    _one_line(cli("ingest", "-t", "db.t", src, code=1), "column default values (v)")
    assert cli("read", "-t", "db.t", "--count").stdout.strip() == "1"
    _manifest_rewrite(
        cli.wh, "db.t", lambda e: e._replace(file=e.file._replace(external_path="s3://other/x.parquet"))
    )
    _one_line(cli("read", "-t", "db.t", code=1), "another file system")
    # orphan cleanup matches used files by name and never looks outside the table directory,
    # so a data file elsewhere is neither resolved nor touched
    assert "no orphan files" in cli("remove-orphans", "-t", "db.t", "--dry-run", "--older-than", "0s").stdout
    _manifest_rewrite(
        cli.wh, "db.t", lambda e: e._replace(file=e.file._replace(external_path=None, write_cols=("v",)))
    )
    _one_line(cli("read", "-t", "db.t", code=1), "_WRITE_COLS")


def test_update_columns_by_row_id(cli, tmp_path):
    cli(
        "create-table",
        "db.d",
        "--schema",
        "id BIGINT, v STRING",
        "-O",
        "row-tracking.enabled=true",
        "-O",
        "data-evolution.enabled=true",
    )
    src = tmp_path / "in.csv"
    src.write_text("id,v\n1,a\n2,b\n")
    cli("ingest", "-t", "db.d", str(src))
    upd = tmp_path / "upd.csv"
    upd.write_text("_ROW_ID,v\n1,B\n")
    out = cli("ingest", "-t", "db.d", str(upd), "--update-columns", "v")
    assert "updated v of 1 row in 1 column file" in out.stdout
    rows = cli.json("read", "-t", "db.d", "--select", "_ROW_ID,id,v")
    assert sorted((r["_ROW_ID"], r["id"], r["v"]) for r in rows) == [(0, 1, "a"), (1, 2, "B")]
    upd.write_text("_ROW_ID,v\n5,B\n")
    _one_line(cli("ingest", "-t", "db.d", str(upd), "--update-columns", "v", code=1), "_ROW_ID 5")


def test_blob_columns_end_to_end(cli, tmp_path):
    """BLOB columns take binary Parquet input and hex text as BYTES do, read back as BYTES are
    shown, and ``--out`` them as binary; their .blob files sit beside the data file."""
    blob = ("-O", "row-tracking.enabled=true", "-O", "data-evolution.enabled=true")
    _one_line(cli("create-table", "db.n", "--schema", "id INT, b BLOB", code=1), "data-evolution.enabled")
    cli("create-table", "db.b", "--schema", "id INT, b BLOB, s STRING", *blob)
    src = write_parquet(
        tmp_path / "in.parquet",
        pa.table({"id": pa.array([1, 2], pa.int32()), "b": pa.array([b"\x00\xff", None]), "s": ["x", "y"]}),
    )
    assert "ingested 2 rows" in cli("ingest", "-t", "db.b", src).stdout
    csv = tmp_path / "in.csv"
    csv.write_text("id,b,s\n3,abcd,z\n")
    cli("ingest", "-t", "db.b", str(csv))
    rows = cli.json("read", "-t", "db.b", "--select", "_ROW_ID,id,b")
    assert sorted((r["_ROW_ID"], r["id"], r["b"]) for r in rows) == [
        (0, 1, "00ff"),
        (1, 2, None),
        (2, 3, "abcd"),
    ]
    assert len(list((cli.wh / "db.db" / "b" / "bucket-0").glob("*.blob"))) == 2
    out = tmp_path / "out.parquet"
    cli("read", "-t", "db.b", "--out", str(out))
    import pyarrow.parquet as pq

    got = pq.read_table(out)
    assert got.schema.field("b").type == pa.binary()
    assert sorted(got.to_pylist(), key=lambda r: r["id"])[0]["b"] == b"\x00\xff"
    upd = tmp_path / "upd.csv"
    upd.write_text("_ROW_ID,b\n0,ee\n")
    _one_line(cli("ingest", "-t", "db.b", str(upd), "--update-columns", "b", code=1), "BLOB column 'b'")
    _one_line(cli("delete", "-t", "db.b", "--where", "id = 1", code=1), "BLOB columns (b)")
    out = cli("ingest", "-t", "db.b", src, "--overwrite").stdout
    assert "overwrote 2 rows in 2 files" in out and "replaced 4 files of 3 records" in out, out
    assert sorted(r["id"] for r in cli.json("read", "-t", "db.b")) == [1, 2]


def test_blob_field_option_and_blob_table_rules(cli):
    """``blob-field`` makes the BYTES columns it names BLOB columns (as Java's Flink and Spark
    catalogs do); a table of BLOB columns only, or partitioned by one, is refused as Java refuses it."""
    de = ("-O", "row-tracking.enabled=true", "-O", "data-evolution.enabled=true")
    cli("create-table", "db.f", "--schema", "id INT, b BYTES, c BYTES", *de, "-O", "blob-field=b")
    schema = json.loads((cli.wh / "db.db" / "f" / "schema" / "schema-0").read_text())
    assert [f["type"] for f in schema["fields"]] == ["INT", "BLOB", "BYTES"]
    _one_line(
        cli("create-table", "db.g", "--schema", "id INT, b STRING", *de, "-O", "blob-field=b", code=1),
        "blob-field",
    )
    _one_line(cli("create-table", "db.h", "--schema", "b BLOB", *de, code=1), "other columns")
    _one_line(
        cli(
            "create-table", "db.d", "--schema", "id INT, b BLOB", *de, "-O", "blob-descriptor-field=b", code=1
        ),
        "other storage",
    )
    _one_line(
        cli("create-table", "db.i", "--schema", "id INT, b BLOB", *de, "--partition", "b", code=1),
        "partition key",
    )
