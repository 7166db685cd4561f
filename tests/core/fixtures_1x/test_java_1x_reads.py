"""Tables Java Paimon 1.0-2.0 wrote (``tests/java1x.py``): each one this project reads equals its
expected rows; each one it does not read is refused in one line naming the feature (never a
wrong row)."""

from __future__ import annotations

import json

import pytest
from paimon_core.catalog import FileSystemCatalog
from typer.testing import CliRunner

from paimon_cli.app import app
from tests.java1x import encoded_rows, expected, precisions, table_dir

READ_EXACTLY = [
    "append-bucketed-orc-1.0",  # ORC manifests (Java 1.0: no paimon.id attributes)
    "append-schema-evolution-parquet-1.2",
    "pk-agg-lookup-dv-parquet-1.4",
    "pk-btree-partitioned-parquet-2.0",
    "pk-dv-avro-1.4",
    "pk-first-row-orc-1.3dev",  # ORC manifests
    "pk-global-index-golden-parquet-2.0dev",
    "timestamps-parquet-1.3dev",
]
REFUSED = {  # fixture -> words the one-line refusal must hold
    "multi-blob-orc-1.4": "BLOB",
}


@pytest.mark.parametrize("name", READ_EXACTLY)
def test_fixture_reads_as_expected(name):
    wh, ident, table = table_dir(name)
    got = encoded_rows(FileSystemCatalog(str(wh)).get_table(ident).read(), precisions(table))
    assert got == expected(name)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_fixture_refused_by_name(name):
    wh, ident, _ = table_dir(name)
    result = CliRunner().invoke(app, ["-w", str(wh), "read", "-t", ident])
    err = result.stderr.strip()
    assert result.exit_code == 1 and len(err.splitlines()) == 1, err
    assert REFUSED[name] in err and "Traceback" not in err


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
