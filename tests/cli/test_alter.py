"""``paimon alter-table`` subcommands and ``paimon ingest --evolve``, through CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

from .conftest import events, run_paimon, write_parquet


def schema_json(cli, table: str) -> dict:
    return json.loads(cli("-o", "json", "schema", "-t", table).stdout)


def columns(cli, table: str) -> list[tuple[int, str, str]]:
    return [(f["id"], f["name"], f["type"]) for f in schema_json(cli, table)["fields"]]


def read_json(cli, table: str, *args) -> list[dict]:
    return sorted(cli.json("read", "-t", table, *args), key=lambda r: r["id"])


@pytest.fixture
def pk_table(cli) -> str:
    cli(
        "create-table",
        "db.pk",
        "--schema",
        "id BIGINT NOT NULL, v STRING, n INT",
        "-k",
        "id",
        "--bucket",
        "2",
    )
    cli(
        "ingest",
        write_parquet(
            Path("in/pk1.parquet"),
            pa.table(
                {"id": pa.array([1, 2], pa.int64()), "v": ["a", "b"], "n": pa.array([1, 2], pa.int32())}
            ),
        ),
        "-t",
        "db.pk",
    )
    return "db.pk"


def test_add_column_positions_and_comment(cli, events_table):
    r = cli(
        "alter-table", events_table, "add-column", "country", "STRING", "--after", "name", "--comment", "ISO"
    )
    assert r.stdout.strip() == "added column country STRING on demo.events: schema 1"
    cli("alter-table", "-t", events_table, "add-column", "first_col", "INT", "--first")
    cli("alter-table", "add-column", "last_col", "DECIMAL(10, 2)", "-t", events_table)
    assert columns(cli, events_table) == [
        (5, "first_col", "INT"),
        (0, "id", "BIGINT NOT NULL"),
        (1, "name", "STRING"),
        (4, "country", "STRING"),
        (2, "value", "DOUBLE"),
        (3, "dt", "STRING"),
        (6, "last_col", "DECIMAL(10, 2)"),
    ]
    s = schema_json(cli, events_table)
    assert s["id"] == 3 and s["highestFieldId"] == 6
    assert s["fields"][3]["description"] == "ISO"
    rows = read_json(cli, events_table)
    assert len(rows) == 10 and all(r["country"] is None and r["first_col"] is None for r in rows)


def test_default_table_and_json_output(cli, events_table, monkeypatch):
    monkeypatch.setenv("PAIMON_TABLE", events_table)
    out = cli.json("alter-table", "add-column", "x", "INT")
    assert out == [{"table": "demo.events", "schema_id": 1, "written": True}]


def test_alter_column_keeps_not_null_unless_the_type_says(cli):
    """As Java's keepNullability: a type without NULL / NOT NULL keeps the column's nullability."""
    cli("create-table", "demo.nn", "--schema", "id BIGINT NOT NULL, n INT NOT NULL, s STRING")
    cli("alter-table", "demo.nn", "alter-column", "n", "BIGINT")
    cli("alter-table", "demo.nn", "alter-column", "s", "VARCHAR(10)")
    assert columns(cli, "demo.nn") == [
        (0, "id", "BIGINT NOT NULL"),
        (1, "n", "BIGINT NOT NULL"),
        (2, "s", "VARCHAR(10)"),
    ]
    cli("alter-table", "demo.nn", "alter-column", "n", "BIGINT NULL")
    assert columns(cli, "demo.nn")[1] == (1, "n", "BIGINT")
    # the case: BIGINT NOT NULL to STRING stays NOT NULL (a nullable column is never
    # made NOT NULL, as Java refuses it by default: alter-column-null-to-not-null.disabled)
    cli("create-table", "demo.nn2", "--schema", "id BIGINT NOT NULL, v INT")
    cli("alter-table", "demo.nn2", "alter-column", "id", "STRING")
    assert columns(cli, "demo.nn2")[0] == (0, "id", "STRING NOT NULL")


def test_drop_rename_alter_column_and_read(cli, events_table):
    cli("alter-table", events_table, "rename-column", "value", "amount")
    cli("alter-table", events_table, "alter-column", "amount", "DECIMAL(12, 2)")
    cli("alter-table", events_table, "drop-column", "name")
    assert columns(cli, events_table) == [
        (0, "id", "BIGINT NOT NULL"),
        (2, "amount", "DECIMAL(12, 2)"),
        (3, "dt", "STRING"),
    ]
    rows = read_json(cli, events_table)
    assert rows[3] == {
        "id": 3,
        "amount": "1.50",
        "dt": "2024-01-02",
    }  # DECIMAL: an exact string, never a float
    # time travel: snapshot 1 was written under schema 0 and reads with its columns
    old = read_json(cli, events_table, "--snapshot", "1")
    assert set(old[0]) == {"id", "name", "value", "dt"} and old[3]["value"] == 1.5


def test_set_and_remove_option_and_comment(cli, events_table):
    cli("alter-table", events_table, "set-option", "snapshot.num-retained.min=20", "write-only=true")
    s = schema_json(cli, events_table)
    assert s["options"]["snapshot.num-retained.min"] == "20" and s["options"]["write-only"] == "true"
    assert s["id"] == 1  # several options: one schema
    cli("alter-table", events_table, "remove-option", "write-only")
    assert "write-only" not in schema_json(cli, events_table)["options"]
    cli("alter-table", events_table, "comment", "click events")
    assert schema_json(cli, events_table)["comment"] == "click events"
    cli("alter-table", events_table, "comment", "")
    assert "comment" not in schema_json(cli, events_table)


def test_dry_run_writes_nothing(cli, events_table):
    r = cli("alter-table", "--dry-run", events_table, "drop-column", "name")
    assert "not written" in r.stdout and "name" not in r.stdout.split(":", 1)[1].replace("demo.events", "")
    assert schema_json(cli, events_table)["id"] == 0


@pytest.mark.parametrize(
    "args, plan, done",
    [
        (["drop-column", "name"], "would drop column name", "dropped column name"),
        (
            ["alter-column", "value", "DECIMAL(12, 2)"],
            "would change column value to DECIMAL(12, 2)",
            "changed column value to DECIMAL(12, 2)",
        ),
        (["add-column", "x", "INT"], "would add column x INT", "added column x INT"),
        (
            ["rename-column", "name", "label"],
            "would rename column name to label",
            "renamed column name to label",
        ),
        (
            ["set-option", "snapshot.num-retained.min=20"],
            "would set snapshot.num-retained.min=20",
            "set snapshot.num-retained.min=20",
        ),
        (["comment", ""], "would remove the comment", "removed the comment"),
    ],
)
def test_dry_run_and_done_messages_read_well(cli, events_table, args, plan, done):
    r = cli("alter-table", "--dry-run", events_table, *args)
    assert r.stdout.startswith(f"{plan} on demo.events (schema 1, not written): ")
    r = cli("alter-table", events_table, *args)
    assert r.stdout == f"{done} on demo.events: schema 1\n"


def test_create_table_counts_one_column(cli):
    assert cli("create-table", "db.one", "--schema", "id INT").stdout == "created table db.one (1 column)\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["drop-column", "dt"], "cannot drop partition column 'dt'"),
        (["rename-column", "dt", "day"], "cannot rename partition column 'dt'"),
        (["alter-column", "dt", "VARCHAR(20)"], "cannot change the type of partition column 'dt'"),
        (["alter-column", "name", "STRING NOT NULL"], "cannot make column 'name' NOT NULL"),
        (["alter-column", "dt", "DATE"], "partition column"),
        (["alter-column", "value", "DATE"], "cannot change column 'value' from DOUBLE to DATE"),
        (
            ["alter-column", "value", "ARRAY<DOUBLE>"],
            "cannot change column 'value' from DOUBLE to ARRAY<DOUBLE>",
        ),
        (["add-column", "x", "INT NOT NULL"], "cannot add column 'x' as NOT NULL"),
        (["add-column", "name", "INT"], "column 'name' already exists"),
        (["add-column", "x", "NOPE"], "unknown type 'NOPE'"),
        (["add-column", "x", "INT", "--after", "zz"], "unknown column 'zz'"),
        (["drop-column", "zz"], "unknown column 'zz'"),
        (["set-option", "bucket=4"], "cannot change bucket from -1 to 4"),
        (["set-option", "bucket-key=id"], "option 'bucket-key' cannot be changed on a table with data"),
        (["set-option", "merge-engine=first-row"], "merge-engine"),
        (["set-option", "nonsense"], "bad option 'nonsense': use KEY=VALUE"),
        (["remove-option", "nope"], "option 'nope' is not set"),
    ],
)
def test_errors_are_one_line_and_write_nothing(cli, events_table, args, message):
    r = cli("alter-table", events_table, *args, code=1)
    assert r.stderr.startswith("error: ") and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert schema_json(cli, events_table)["id"] == 0


def test_add_first_and_after_together_is_a_usage_error(cli, events_table):
    r = cli("alter-table", events_table, "add-column", "x", "INT", "--first", "--after", "id", code=2)
    assert "--first" in r.stderr


def test_pk_table_rules(cli, pk_table):
    for args, msg in [
        (["drop-column", "id"], "cannot drop primary-key column 'id'"),
        (["rename-column", "id", "k"], "cannot rename primary-key column 'id'"),
        (["alter-column", "id", "INT"], "primary-key column 'id'"),
        (["set-option", "merge-engine=partial-update"], "merge-engine"),
        (["set-option", "sequence.field=n"], "sequence.field"),
        (["set-option", "partial-update.remove-record-on-delete=true"], "cannot be changed"),
    ]:
        r = cli("alter-table", pk_table, *args, code=1)
        assert msg in r.stderr, (args, r.stderr)
    cli("alter-table", pk_table, "alter-column", "n", "BIGINT")
    cli("alter-table", pk_table, "rename-column", "v", "w")
    cli(
        "ingest",
        write_parquet(
            Path("in/pk2.parquet"),
            pa.table(
                {"id": pa.array([2, 3], pa.int64()), "w": ["B", "c"], "n": pa.array([2**40, 3], pa.int64())}
            ),
        ),
        "-t",
        pk_table,
    )
    cli("compact", "-t", pk_table, "--full")
    assert read_json(cli, pk_table) == [
        {"id": 1, "w": "a", "n": 1},
        {"id": 2, "w": "B", "n": 2**40},
        {"id": 3, "w": "c", "n": 3},
    ]


def test_immutable_option_on_an_empty_table(cli):
    cli("create-table", "db.e", "--schema", "id BIGINT NOT NULL, v STRING", "-k", "id", "--bucket", "2")
    cli("alter-table", "db.e", "set-option", "bucket=4", "merge-engine=first-row")
    assert schema_json(cli, "db.e")["options"]["bucket"] == "4"


def test_disable_explicit_type_casting(cli, events_table):
    cli("alter-table", events_table, "set-option", "disable-explicit-type-casting=true")
    r = cli("alter-table", events_table, "alter-column", "value", "FLOAT", code=1)
    assert "only widening" in r.stderr
    cli("alter-table", events_table, "remove-option", "disable-explicit-type-casting")
    cli("alter-table", events_table, "alter-column", "value", "FLOAT")


def test_ingest_evolve(cli, events_table):
    extra = events(3, start=100).append_column("country", pa.array(["de", "fr", None]))
    f = write_parquet(Path("in/extra.parquet"), extra)
    r = cli("ingest", f, "-t", events_table, code=1)
    assert "unknown column 'country'" in r.stderr and "--evolve" in r.stderr
    r = cli("ingest", f, "-t", events_table, "--evolve")
    assert "added column country STRING" in r.stderr
    s = schema_json(cli, events_table)
    assert s["id"] == 1 and s["fields"][-1] == {"id": 4, "name": "country", "type": "STRING"}
    snaps = cli.json("snapshots", "-t", events_table)
    assert [x["schema_id"] for x in snaps] == [0, 1]
    rows = read_json(cli, events_table)
    assert [r["country"] for r in rows if r["id"] >= 100] == ["de", "fr", None]
    assert all(r["country"] is None for r in rows if r["id"] < 100)


def test_subprocess_exit_code(tmp_path, cli, events_table):
    p = run_paimon("-w", cli.wh, "alter-table", events_table, "drop-column", "dt", cwd=tmp_path)
    assert p.returncode == 1 and p.stderr.strip() == "error: cannot drop partition column 'dt'"


# ---- a narrowing alter-column checks the stored data first (issue 19, item 5)


@pytest.fixture
def text_table(cli, tmp_path) -> str:
    cli("create-table", "db.n", "--schema", "id BIGINT NOT NULL, s STRING, big BIGINT, dt STRING", "-p", "dt")
    rows = pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int64()),
            "s": ["12", None, "-7"],
            "big": pa.array([5, 70_000, -3], pa.int64()),
            "dt": ["a", "a", "b"],
        }
    )
    cli("ingest", write_parquet(tmp_path / "n1.parquet", rows), "-t", "db.n")
    more = pa.table(
        {
            "id": pa.array([4], pa.int64()),
            "s": ["abc"],
            "big": pa.array([5_000_000_000], pa.int64()),
            "dt": ["b"],
        }
    )
    cli("ingest", write_parquet(tmp_path / "n2.parquet", more), "-t", "db.n")
    return "db.n"


def data_file_of(wh: Path, partition: str, row_id: int) -> str:
    import pyarrow.parquet as pq

    for p in (wh / "db.db" / "n" / partition).rglob("data-*.parquet"):
        if row_id in pq.read_table(p, columns=["id"]).column("id").to_pylist():
            return p.name
    raise AssertionError(f"no file holds id {row_id}")


@pytest.mark.parametrize(
    "column, new_type, value",
    [("s", "INT", "'abc'"), ("big", "INT", "5000000000"), ("big", "SMALLINT", "70000")],
)
def test_a_narrowing_change_refuses_the_first_value_that_does_not_fit(
    cli, wh, text_table, column, new_type, value
):
    before = schema_json(cli, text_table)["id"]
    rows = read_json(cli, text_table)
    partition, row_id = ("dt=a", 2) if value == "70000" else ("dt=b", 4)
    for dry in ([], ["--dry-run"]):
        r = cli("alter-table", text_table, *dry, "alter-column", column, new_type, code=1)
        err = r.stderr.strip()
        assert "\n" not in err and "Traceback" not in err
        assert f"cannot change column '{column}'" in err and f"to {new_type}" in err, err
        assert f"stored value {value} " in err, err
        assert data_file_of(wh, partition, row_id) in err and f"partition {partition}" in err, err
    assert schema_json(cli, text_table)["id"] == before  # nothing written
    assert read_json(cli, text_table) == rows  # and every read still works


def test_a_narrowing_change_whose_values_fit_and_widening_keep_working(cli, text_table):
    cli("-o", "json", "delete", "-t", text_table, "--where", "id = 4")
    cli("alter-table", text_table, "--dry-run", "alter-column", "s", "INT")
    cli("alter-table", text_table, "alter-column", "s", "INT")
    cli("alter-table", text_table, "alter-column", "big", "INT")
    cli("alter-table", text_table, "alter-column", "big", "DOUBLE")  # widening: no data read
    assert [(r["id"], r["s"], r["big"]) for r in read_json(cli, text_table)] == [
        (1, 12, 5.0),
        (2, None, 70000.0),
        (3, -7, -3.0),
    ]
