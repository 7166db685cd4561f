"""Tables Java Paimon 1.0-2.0 wrote (``tests/java1x.py``): each one this project reads equals its
expected rows; each one it does not read is refused in one line naming the feature (never a
wrong row)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import FileSystemCatalog
from tests.java1x import encoded_rows, expected, precisions, table_dir

READ_EXACTLY = [
    "append-bucketed-orc-1.0",  # ORC manifests (Java 1.0: no paimon.id attributes)
    "append-schema-evolution-parquet-1.2",
    "data-evolution-alter-cast-orc-1.3",  # column files merged by row id, casts of every kind
    "global-bitmap-index-orc-1.3",  # row tracking, ORC index manifest with global indexes
    "multi-blob-orc-1.4",  # two BLOB columns in rolled .blob files merged by row id
    "pk-agg-lookup-dv-parquet-1.4",
    "pk-btree-partitioned-parquet-2.0",
    "pk-dv-avro-1.4",
    "pk-first-row-orc-1.3dev",  # ORC manifests
    "pk-global-index-golden-parquet-2.0dev",
    "timestamps-parquet-1.3dev",
]


@pytest.mark.parametrize("name", READ_EXACTLY)
def test_fixture_reads_as_expected(name):
    wh, ident, table = table_dir(name)
    got = encoded_rows(FileSystemCatalog(str(wh)).get_table(ident).read(), precisions(table))
    assert got == expected(name)


def test_null_map_key_is_one_line_naming_table_column_and_file():
    """pyarrow's ORC reader aborts the process on a MAP with a NULL key: it is refused first."""
    wh, ident, table = table_dir("map-null-key-orc-2.0")
    result = CliRunner().invoke(app, ["-w", str(wh), "read", "-t", ident])
    err = result.stderr.strip()
    assert result.exit_code == 1 and len(err.splitlines()) == 1, err
    data_file = next(table.glob("bucket-0/*.orc")).name
    assert f"table {ident}" in err and "MAP column attrs" in err and data_file in err, err
    # the other columns read
    result = CliRunner().invoke(app, ["-w", str(wh), "read", "-t", ident, "--select", "id", "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert sorted(json.loads(line)["id"] for line in result.stdout.splitlines()) == [1, 2, 3]


def test_row_tracking_system_columns():
    """The data-evolution fixture's test asserts _ROW_ID 0..9 and _SEQUENCE_NUMBER 1 (rows of
    the first group, written by two column files of snapshot 1) and 3 (the second group, whose
    newest column file is of snapshot 3)."""
    wh, ident, _ = table_dir("data-evolution-alter-cast-orc-1.3")
    t = FileSystemCatalog(str(wh)).get_table(ident)
    got = t.read(columns=["_ROW_ID", "f3", "_SEQUENCE_NUMBER"]).to_pylist()
    assert sorted((r["_ROW_ID"], r["f3"], r["_SEQUENCE_NUMBER"]) for r in got) == [
        (i, 100 + 10 * i, 1 if i < 5 else 3) for i in range(10)
    ]
    wh, ident, _ = table_dir("global-bitmap-index-orc-1.3")
    t = FileSystemCatalog(str(wh)).get_table(ident)
    got = t.read(columns=["_ROW_ID", "f0"], where="f0 = 'Bob'").to_pylist()
    assert sorted(r["_ROW_ID"] for r in got) == [1, 5]


def test_system_columns_only_on_row_tracking_tables():
    wh, ident, _ = table_dir("pk-dv-avro-1.4")
    result = CliRunner().invoke(app, ["-w", str(wh), "read", "-t", ident, "--select", "_ROW_ID"])
    err = result.stderr.strip()
    assert result.exit_code == 1 and len(err.splitlines()) == 1 and "_ROW_ID" in err, err
