"""The ClickHouse lane: ClickHouse's native Paimon reader (chDB 4.4, ClickHouse 26.9,
``paimonLocal``) reads every kind of table we write exactly, wherever it reads Java Paimon 2.0's
twin of that kind exactly.

Each kind is written twice from the same commits: by us and by Java 2.0 (one JVM batch). chDB
reads all of them in one process; Java reads its own twins and we read ours, and each table's
chDB rows must equal its writer's read. Where chDB cannot read Java's own table either, the limit
is ClickHouse's: it is pinned by name in `LIMITS`, and the test asserts chDB still fails on
Java's twin that way, so that a chDB upgrade that lifts it shows up here.

The same batch has Java 2.0 read our tables, and we read Java's twins: every kind both ways on
Java Paimon 2.0.0.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.compaction.compaction import full_compact
from paimon_core.data.types import parse_type
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.ops.alter import alter_table
from tests.interop.harness import assert_same_rows, rows_from_arrow
from tests.interop.option_twins import Case, create_ours, java_create, our_write

from .envs import chdb_python, lane_env
from .rows import C1, C2, C3, COLUMNS

DRIVER = Path(__file__).with_name("chdb_driver.py")
PK = ("k", "p")


@dataclass(frozen=True)
class Kind:
    case: Case
    compact: bool = False  # a full compaction after the commits
    add_column: bool = False  # ADD COLUMN c STRING between the first commit and the rest


KINDS = {
    "append": Kind(Case(COLUMNS, (), {"bucket": "-1"}, [C1, C2])),
    "append-partitioned": Kind(Case(COLUMNS, (), {"bucket": "-1"}, [C1, C2], partitions=("p",))),
    "append-bucketed": Kind(Case(COLUMNS, (), {"bucket": "2", "bucket-key": "k"}, [C1, C2])),
    "append-compacted": Kind(Case(COLUMNS, (), {"bucket": "-1"}, [C1, C2]), compact=True),
    "append-evolved": Kind(
        Case(COLUMNS, (), {"bucket": "-1"}, [C1, [dict(r, c="new") for r in C2]]), add_column=True
    ),
    "append-orc": Kind(Case(COLUMNS, (), {"bucket": "-1", "file.format": "orc"}, [C1, C2])),
    "append-avro": Kind(Case(COLUMNS, (), {"bucket": "-1", "file.format": "avro"}, [C1, C2])),
    "append-orc-manifests": Kind(Case(COLUMNS, (), {"bucket": "-1", "manifest.format": "orc"}, [C1, C2])),
    "pk-compacted": Kind(Case(COLUMNS, PK, {"bucket": "2"}, [C1, C2, C3], partitions=("p",)), compact=True),
    "pk-unpartitioned-compacted": Kind(Case(COLUMNS, ("k",), {"bucket": "2"}, [C1, C2]), compact=True),
    "pk-level0": Kind(Case(COLUMNS, PK, {"bucket": "2"}, [C1, C2, C3], partitions=("p",))),
    "pk-deletion-vectors": Kind(
        Case(
            COLUMNS, PK, {"bucket": "2", "deletion-vectors.enabled": "true"}, [C1, C2, C3], partitions=("p",)
        )
    ),
    "pk-dynamic-bucket": Kind(Case(COLUMNS, PK, {"bucket": "-1"}, [C1, C2], partitions=("p",)), compact=True),
    "pk-partial-update": Kind(
        Case(
            COLUMNS,
            ("k",),
            {"bucket": "1", "merge-engine": "partial-update"},
            [C1, [dict(r, v=None) for r in C2]],
        ),
        compact=True,
    ),
    "pk-aggregation": Kind(
        Case(
            COLUMNS,
            ("k",),
            {"bucket": "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
            [C1, C2],
        ),
        compact=True,
    ),
    "pk-first-row": Kind(
        Case(COLUMNS, ("k",), {"bucket": "1", "merge-engine": "first-row"}, [C1, C2]), compact=True
    ),
    "pk-orc": Kind(Case(COLUMNS, ("k",), {"bucket": "1", "file.format": "orc"}, [C1, C2]), compact=True),
}


@dataclass(frozen=True)
class Limit:
    """What ClickHouse 26.9 does wrong on Java's twin: `error` is part of its message, or None
    when it answers other rows; `ours` says whether it does the same on our table."""

    reason: str
    error: str | None = None
    ours: bool = True


NOT_PARQUET = "Not a Parquet file"
LIMITS = {
    "append-orc": Limit("reads Parquet data files only", NOT_PARQUET),
    "append-avro": Limit("reads Parquet data files only", NOT_PARQUET),
    "pk-orc": Limit("reads Parquet data files only", NOT_PARQUET),
    "append-orc-manifests": Limit("reads Avro manifests only", "Cannot read Iceberg avro manifest file"),
    "pk-level0": Limit("does not merge a primary-key bucket's sorted runs: level-0 rows are read raw"),
    # Java's full compaction moves a lone level-0 file to the top level without rewriting it (a
    # DELETE and an ADD entry of one file name); ClickHouse then drops that file's rows. Our full
    # compaction rewrites the file (a new name), which ClickHouse reads.
    "pk-compacted": Limit("drops a file a compaction upgraded in place (same name)", ours=False),
    "pk-unpartitioned-compacted": Limit(
        "drops a file a compaction upgraded in place (same name)", ours=False
    ),
    "pk-deletion-vectors": Limit("drops a file a compaction upgraded in place (same name)", ours=False),
}


def _types(kind: Kind) -> dict[str, str]:
    return dict(kind.case.columns) | ({"c": "STRING"} if kind.add_column else {})


def _java_requests(wh: Path, name: str, kind: Kind) -> list[dict]:
    table = f"db.{name}"
    reqs = [java_create(str(wh), table, kind.case)]
    for i, rows in enumerate(kind.case.commits):
        if i == 1 and kind.add_column:
            add = {"add_column": {"name": "c", "type": "STRING"}}
            reqs.append({"op": "alter", "warehouse": str(wh), "table": table, "changes": [add]})
        reqs.append({"op": "write", "warehouse": str(wh), "table": table, "rows": rows})
    if kind.compact:
        reqs.append({"op": "compact", "warehouse": str(wh), "table": table, "full": True})
    return reqs


def _write_ours(wh: Path, name: str, kind: Kind) -> list[dict]:
    """Our twin of `name`; the rows our own read answers."""
    table = create_ours(str(wh), f"db.{name}", kind.case)
    cat = FileSystemCatalog(str(wh))
    columns = list(kind.case.columns)
    for i, rows in enumerate(kind.case.commits):
        if i == 1 and kind.add_column:
            alter_table(cat.get_table(f"db.{name}"), [AddColumn("c", parse_type("STRING"))])
            columns.append(("c", "STRING"))
        our_write(cat.get_table(f"db.{name}"), columns, rows)
    if kind.compact:
        full_compact(cat.get_table(f"db.{name}"))
    table = cat.get_table(f"db.{name}")
    return rows_from_arrow(table.read(), _types(kind))


def _chdb_read(root: Path, folders: list[str]) -> dict[str, dict]:
    """{folder: {"table": pa.Table} | {"error": message}}: one chDB process for all of them."""
    out = root / "chdb-out"
    out.mkdir()
    req = {"cwd": str(root), "tables": folders, "out": str(out)}
    proc = subprocess.run(
        [chdb_python(), str(DRIVER)],
        input=json.dumps(req),
        capture_output=True,
        text=True,
        env=lane_env(),
        timeout=300,
    )
    assert proc.returncode == 0, f"chDB driver exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    answers = json.loads(proc.stdout)
    for a in answers.values():
        if "file" in a:
            with pa.ipc.open_file(a["file"]) as f:
                a["table"] = f.read_all()
    return answers


@pytest.fixture(scope="module")
def reads(java20, tmp_path_factory):
    """{kind: {"ours": (chDB answer, our read), "java": (chDB answer, Java's read)}}."""
    root = tmp_path_factory.mktemp("clickhouse")
    ours_wh, java_wh = root / "ours", root / "java"
    ours = {name: _write_ours(ours_wh, name, kind) for name, kind in KINDS.items()}
    reqs = [r for name, kind in KINDS.items() for r in _java_requests(java_wh, name, kind)]
    # Java 2.0 reads its twins and ours in the same batch
    reqs += [
        {"op": "read", "warehouse": str(wh), "table": f"db.{name}"}
        for wh in (java_wh, ours_wh)
        for name in KINDS
    ]
    answers = [a["rows"] for a in java20.run(reqs)[-2 * len(KINDS) :]]
    java = dict(zip(KINDS, answers[: len(KINDS)], strict=True))
    java_on_ours = dict(zip(KINDS, answers[len(KINDS) :], strict=True))
    cat = FileSystemCatalog(str(java_wh))
    ours_on_java = {
        name: rows_from_arrow(cat.get_table(f"db.{name}").read(), _types(kind))
        for name, kind in KINDS.items()
    }
    folders = [f"{side}/db.db/{name}" for side in ("ours", "java") for name in KINDS]
    answers = _chdb_read(root, folders)
    return {
        name: {
            "ours": (answers[f"ours/db.db/{name}"], ours[name]),
            "java": (answers[f"java/db.db/{name}"], java[name]),
            "java_on_ours": java_on_ours[name],
            "ours_on_java": ours_on_java[name],
        }
        for name in KINDS
    }


def _rows(answer: dict, types: dict[str, str]) -> list[dict]:
    """chDB's Arrow answer as canonical rows. ClickHouse's Arrow output carries Bool as UInt8:
    BOOLEAN columns are cast back (0/1 only; anything else fails the cast)."""
    table: pa.Table = answer["table"]
    for i, name in enumerate(table.column_names):
        if types.get(name, "").startswith("BOOLEAN") and pa.types.is_integer(table.schema.field(i).type):
            col = table.column(i)
            assert pa.compute.all(pa.compute.is_in(col.drop_null(), pa.array([0, 1], col.type))).as_py()
            table = table.set_column(i, name, col.cast(pa.bool_()))
    return rows_from_arrow(table, types)


def _exact(answer: dict, expected: list[dict], types: dict[str, str], label: str) -> None:
    assert "error" not in answer, f"{label}: ClickHouse failed: {answer['error'][:500]}"
    assert_same_rows(_rows(answer, types), expected, label_a=f"ClickHouse on {label}")


def _fails_as_pinned(
    answer: dict, expected: list[dict], types: dict[str, str], limit: Limit, label: str
) -> None:
    if limit.error is not None:
        assert limit.error in answer.get("error", ""), (
            f"{label}: ClickHouse no longer fails with {limit.error!r} ({limit.reason}): {answer}"
        )
        return
    assert "error" not in answer, f"{label}: ClickHouse failed: {answer['error'][:500]}"
    got = _rows(answer, types)
    with pytest.raises(AssertionError):  # the pinned limit: other rows than the writer's read
        assert_same_rows(got, expected)


@pytest.mark.parametrize("name", sorted(KINDS))
def test_clickhouse_reads_our_tables_as_it_reads_javas(reads, name):
    kind, types = KINDS[name], _types(KINDS[name])
    limit = LIMITS.get(name)
    java_answer, java_rows = reads[name]["java"]
    ours_answer, ours_rows = reads[name]["ours"]
    assert_same_rows(ours_rows, [{k: v for k, v in r.items() if k != "_row_kind"} for r in java_rows])
    if limit is None:
        _exact(java_answer, java_rows, types, f"Java 2.0's {name}")
        _exact(ours_answer, ours_rows, types, f"our {name}")
        return
    _fails_as_pinned(java_answer, java_rows, types, limit, f"Java 2.0's {name}")
    if limit.ours:
        _fails_as_pinned(ours_answer, ours_rows, types, limit, f"our {name}")
    else:
        _exact(ours_answer, ours_rows, types, f"our {name}")
    assert kind.case.columns  # every kind has columns: the comparisons above saw rows


@pytest.mark.parametrize("name", sorted(KINDS))
def test_java20_and_we_read_each_others_twins(reads, name):
    """Every kind both ways on Java Paimon 2.0.0: Java reads our table as we read it, and we
    read Java's twin as Java reads it."""
    _, ours_rows = reads[name]["ours"]
    _, java_rows = reads[name]["java"]
    assert_same_rows(reads[name]["java_on_ours"], ours_rows, label_a=f"Java 2.0 on our {name}")
    assert_same_rows(reads[name]["ours_on_java"], java_rows, label_a=f"we on Java 2.0's {name}")


def test_the_readme_example(tmp_path, monkeypatch):
    """The README's ClickHouse block as written (tests/cli/readme_story.py): a primary-key
    table compacted, then chDB's query from inside ./warehouse. Its venv is the lane's (the same
    `pip install chdb==4.4.0`), not one made per run."""
    import shlex

    from tests.cli.readme_blocks import blocks
    from tests.cli.readme_story import Story

    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in blocks() if b.key == "Reading our tables from other engines"]
    compact, venv, query = block.commands
    assert "pip install chdb==4.4.0" in venv.text
    s = Story(tmp_path, block)
    s.create("shop.orders", "id BIGINT NOT NULL, customer STRING, amount DOUBLE", "-k", "id", "--bucket", "2")
    for k in range(3):
        s.write(
            "shop.orders",
            {"id": pa.array([k, k + 1], pa.int64()), "customer": [f"c{k}"] * 2, "amount": [k, k]},
        )
    s.run(compact)
    cd, python_c = query.text.split(" && ", 1)
    argv = shlex.split(python_c)
    assert cd == "cd warehouse" and argv[0] == "../chdb/bin/python", query.text
    r = subprocess.run(
        [chdb_python(), *argv[1:]],
        cwd=tmp_path / "warehouse",
        capture_output=True,
        text=True,
        env=lane_env(),
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    rows = sorted(
        tuple(c.strip() for c in x.split("│")[1:4]) for x in r.stdout.splitlines() if x.count("│") == 4
    )
    assert rows == [("0", "c0", "0"), ("1", "c1", "1"), ("2", "c2", "2"), ("3", "c2", "2")], r.stdout
