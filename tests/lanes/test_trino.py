"""The Trino lane: Trino 476's Iceberg connector reads the Iceberg-compatible metadata we write
(append, partitioned, nested, after ADD COLUMN, compacted primary key), at every snapshot by id,
on a local warehouse named as Java names it (``file:`` URI) and on S3 (the tests' SeaweedFS).

Trino finds a table through its metastore: each table is registered
(``CALL <catalog>.system.register_table``) at its folder, and a registered table stays at the
metadata file it was registered with until it is registered again. Trino's own limit is pinned
by name: it reads Iceberg format versions 1 and 2 only, so a deletion-vector table's v3
metadata is refused.
"""

from __future__ import annotations

import datetime as dt
import decimal

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from tests.interop.harness import assert_same_rows, rows_from_arrow
from tests.interop.option_twins import arrow_schema, our_write
from tests.s3 import seaweed
from tests.s3.conftest import _no_instance_metadata  # noqa: F401 - fixture

from .iceberg_kinds import DV_V3, KINDS, Written, write_kind
from .rows import C3
from .trino import Trino, TrinoError

pytestmark = [pytest.mark.lanes, pytest.mark.slow]

S3_KINDS = ("append-partitioned", "pk-compacted")


@pytest.fixture(scope="module")
def trino(tmp_path_factory, s3_server):  # noqa: F811
    server = Trino(tmp_path_factory.mktemp("trino"), s3=s3_server.storage_options)
    yield server
    server.close()


def _columns(written: Written) -> list[tuple[str, str]]:
    return list(written.types.items())


def _value(v, t: pa.DataType):
    """Trino's JSON value of an Arrow type as the Python value Arrow takes."""
    if v is None:
        return None
    if pa.types.is_struct(t):
        return {f.name: _value(x, f.type) for f, x in zip(t, v, strict=True)}
    if pa.types.is_map(t):
        return [(_value(k, t.key_type), _value(x, t.item_type)) for k, x in v.items()]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_value(x, t.value_type) for x in v]
    if pa.types.is_decimal(t):
        return decimal.Decimal(v)
    if pa.types.is_date(t):
        return dt.date.fromisoformat(v)
    if pa.types.is_timestamp(t):
        return dt.datetime.fromisoformat(v)
    return v


def _rows(answer: dict, written: Written) -> list[dict]:
    """Trino's rows as canonical rows, through the Arrow types of the table's Paimon types."""
    names = [c["name"] for c in answer["columns"]]
    schema = arrow_schema([(n, written.types[n]) for n in names])
    columns = {
        f.name: pa.array([_value(r[i], f.type) for r in answer["rows"]], f.type) for i, f in enumerate(schema)
    }
    return rows_from_arrow(pa.table(columns, schema=schema), written.types)


def _register(trino: Trino, catalog: str, name: str, location: str) -> None:
    trino.query(
        f"CALL {catalog}.system.register_table(schema_name => 'db', table_name => '{name}', "
        f"table_location => '{location}')"
    )


def _check(trino: Trino, catalog: str, name: str, written: Written) -> None:
    table = f'{catalog}.db."{name}"'
    for sid, rows in written.rows.items():
        got = trino.query(f"SELECT * FROM {table} FOR VERSION AS OF BIGINT '{sid}'")
        assert_same_rows(_rows(got, written), rows, label_a=f"Trino on {name} at snapshot {sid}")
    got = trino.query(f"SELECT * FROM {table}")
    assert_same_rows(_rows(got, written), written.rows[written.latest], label_a=f"Trino on {name}")


@pytest.fixture(scope="module")
def local_tables(trino, tmp_path_factory):
    """Every kind on a local warehouse named as a ``file:`` URI, registered in Trino."""
    wh = tmp_path_factory.mktemp("trino-local") / "wh"
    trino.query("CREATE SCHEMA local.db")
    out = {}
    for name, kind in KINDS.items():
        out[name] = write_kind(wh.as_uri(), name, kind)
        _register(trino, "local", name.replace("-", "_"), out[name].location)
    return out


@pytest.mark.parametrize("name", sorted(KINDS))
def test_trino_reads_our_iceberg_metadata_at_every_snapshot(trino, local_tables, name):
    written = local_tables[name]
    assert written.location.startswith("file:/"), written.location  # Java's form of the path
    _check(trino, "local", name.replace("-", "_"), written)


def test_trino_reads_our_tables_on_s3(trino, s3_server):  # noqa: F811
    bucket = "trino-lane"
    seaweed.create_bucket(s3_server, bucket)
    trino.query("CREATE SCHEMA s3.db")
    for name in S3_KINDS:
        written = write_kind(f"s3://{bucket}/wh", name, KINDS[name], s3_server.storage_options)
        assert written.location.startswith(f"s3://{bucket}/wh/db.db/"), written.location
        _register(trino, "s3", name.replace("-", "_"), written.location)
        _check(trino, "s3", name.replace("-", "_"), written)


def test_a_registered_table_shows_a_new_commit_once_registered_again(trino, tmp_path):
    """Trino keeps the metadata file a table was registered with; unregistering and registering
    it again (its metadata files stay) shows our later commits. The warehouse is a plain path
    here (plain paths recorded), which Trino reads as well as the ``file:`` form."""
    wh = str(tmp_path / "wh")
    kind = KINDS["append"]
    written = write_kind(wh, "again", kind)
    trino.query("CREATE SCHEMA IF NOT EXISTS local.db")
    assert written.location.startswith("/"), written.location
    _register(trino, "local", "again", written.location)
    table = FileSystemCatalog(wh).get_table("db.again")
    our_write(table, list(kind.case.columns), C3[1:])
    before = trino.query('SELECT count(*) FROM local.db."again"')["rows"]
    assert before == [[sum(len(c) for c in kind.case.commits)]]  # still the registered metadata
    trino.query("CALL local.system.unregister_table(schema_name => 'db', table_name => 'again')")
    _register(trino, "local", "again", written.location)
    after = trino.query('SELECT count(*) FROM local.db."again"')["rows"]
    assert after == [[before[0][0] + 1]]


def test_trino_limit_iceberg_v3_deletion_vectors(trino, tmp_path):
    """Pinned: Trino 476 reads Iceberg format versions 1 and 2; a deletion-vector table's
    metadata (format version 3, as Java 1.4.2 writes it) is refused."""
    written = write_kind((tmp_path / "wh").as_uri(), "dv_v3", DV_V3)
    trino.query("CREATE SCHEMA IF NOT EXISTS local.db")
    with pytest.raises(TrinoError, match="Invalid metadata file"):
        _register(trino, "local", "dv_v3", written.location)
