"""What an ingest did, said in its summary: the table columns the input lacks (written as NULL),
what an overwrite replaced, and `--overwrite --dry-run`, which says what it would replace and
writes nothing (not even an evolved schema)."""

from __future__ import annotations

import os


def _csv(name: str, text: str) -> str:
    with open(name, "w") as fh:
        fh.write(text)
    return name


def _files(root) -> set:
    return {os.path.join(d, f) for d, _, names in os.walk(root) for f in names}


def test_columns_the_input_lacks_are_named(cli):
    cli("create-table", "d.e", "--schema", "id INT NOT NULL, v STRING, w INT")
    r = cli("ingest", "-t", "d.e", _csv("a.csv", "id\n1\n"))
    assert "note: columns v, w are not in the input: written as NULL\n" in r.stderr


def test_an_overwrite_says_what_it_replaced(cli):
    cli("create-table", "d.e", "--schema", "id INT NOT NULL, v STRING, dt STRING", "-p", "dt")
    cli("ingest", "-t", "d.e", _csv("a.csv", "id,v,dt\n1,a,x\n2,b,y\n3,c,y\n"))
    r = cli("ingest", "-t", "d.e", _csv("b.csv", "id,v,dt\n9,z,y\n"), "--overwrite")
    assert (
        r.stdout == "overwrote 1 row in 1 file into d.e: snapshot 2 (replaced 1 file of 2 records in dt=y)\n"
    )
    record = cli.json("ingest", "-t", "d.e", "b.csv", "--overwrite")[0]
    assert record["replaced"] == {"files": 1, "records": 1, "partitions": ["dt=y"]}


def test_overwrite_dry_run_writes_nothing(cli, wh):
    cli("create-table", "d.e", "--schema", "id INT NOT NULL, v STRING, dt STRING", "-p", "dt")
    cli("ingest", "-t", "d.e", _csv("a.csv", "id,v,dt\n1,a,x\n2,b,y\n3,c,y\n"))
    before = _files(wh)
    r = cli(
        "ingest",
        "-t",
        "d.e",
        _csv("b.csv", "id,v,dt,extra\n9,z,y,5\n"),
        "--overwrite",
        "--dry-run",
        "--evolve",
    )
    assert r.stdout == (
        "dry run: the input fits d.e once evolved (added column extra BIGINT); the overwrite would replace "
        "1 file of 2 records in dt=y; nothing was written\n"
    )
    r = cli("ingest", "-t", "d.e", "a.csv", "--overwrite", "--dry-run", "-p", "dt=x")
    assert "would replace 1 file of 1 record in dt=x" in r.stdout
    assert _files(wh) == before
    assert cli.snapshot_ids("d.e") == [1]
    cli("create-table", "d.u", "--schema", "id INT NOT NULL, v STRING")
    cli("ingest", "-t", "d.u", "a.csv", "--evolve")
    r = cli("ingest", "-t", "d.u", "b.csv", "--overwrite", "--dry-run", "--evolve")
    assert "would replace 1 file of 3 records;" in r.stdout
