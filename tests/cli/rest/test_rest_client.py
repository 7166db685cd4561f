"""``--catalog rest``: the CLI through ``paimon rest-server`` (the session's server), with
commits decided by the server's commit endpoint."""

from __future__ import annotations

import pyarrow as pa
import pytest
from paimon_core.catalog_factory import create_catalog
from paimon_core.errors import TableNotFound
from paimon_core.metadata.schema import Schema

from tests.cli.conftest import Cli
from tests.rest_support import TOKEN


def _flags(server, token: str = TOKEN) -> list[str]:
    return [
        "--catalog",
        "rest",
        "--catalog-option",
        f"uri={server.uri}",
        "--catalog-option",
        f"token={token}",
    ]


def test_the_cli_creates_ingests_reads_renames_and_drops_through_the_server(rest_server, tmp_path):
    cli = Cli(tmp_path / "unused")
    f = _flags(rest_server)
    (tmp_path / "in.csv").write_text("id,v\n1,a\n2,b\n")
    cli(*f, "create-table", "cl_db.t", "--schema", "id INT, v STRING", warehouse=False)
    cli(*f, "ingest", "-t", "cl_db.t", str(tmp_path / "in.csv"), warehouse=False)
    cli(*f, "ingest", "-t", "cl_db.t", str(tmp_path / "in.csv"), warehouse=False)
    rows = cli.json(*f, "read", "-t", "cl_db.t", warehouse=False)
    assert sorted((r["id"], r["v"]) for r in rows) == [(1, "a"), (1, "a"), (2, "b"), (2, "b")]
    assert [r["id"] for r in cli.json(*f, "snapshots", "-t", "cl_db.t", warehouse=False)] == [1, 2]
    assert (rest_server.warehouse / "cl_db.db" / "t" / "snapshot" / "snapshot-2").exists()
    cli(*f, "rename-table", "cl_db.t", "cl_db.u", warehouse=False)
    assert [r["table"] for r in cli.json(*f, "tables", "cl_db", warehouse=False)] == ["u"]
    cli(*f, "drop-table", "cl_db.u", warehouse=False)
    assert cli.json(*f, "tables", "cl_db", warehouse=False) == []


def test_a_wrong_token_is_one_line_and_exit_1(rest_server, tmp_path):
    r = Cli(tmp_path)(*_flags(rest_server, "wrong"), "databases", warehouse=False, code=1)
    assert "401" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_the_server_decides_commits(rest_server):
    """A table dropped and created again under the same name (same path) while a writer holds
    the old one: the server refuses the writer's commit (404), so the new table gets no snapshot.
    A client committing on storage itself would have put snapshot-1 into the new table."""
    catalog = create_catalog("rest", "unused", {"uri": rest_server.uri, "token": TOKEN})
    schema = Schema(Schema.parse_columns("id INT"))
    old = catalog.create_table("cl_dec.t", schema)
    catalog.drop_table("cl_dec.t")
    import time

    time.sleep(0.01)  # the new table's id (its schema-0 time) differs from the old one's
    catalog.create_table("cl_dec.t", schema)
    with pytest.raises(TableNotFound):
        old.write_arrow(pa.table({"id": pa.array([1], pa.int32())}))
    assert catalog.get_table("cl_dec.t").snapshots.list_ids() == []
