"""Our system tables equal what Java Paimon's show for the same tables, row for row and column
for column (names and Java's type texts): on 2.0.0 exactly, on 1.4.2 and 0.9 where they have
the table and column.

``sys.catalog_options`` exists only with the catalog option ``catalog-options-table.enabled``
in Java 2.0.0 and here (both sides are opened with it); 1.4.2 and 0.9 serve it always (pinned).

Java 1.4.2 lacks the columns Java 2.0 added, pinned by name (``_JAVA14_LACKS``): ``$snapshots``
``operation``; ``$partitions`` ``total_buckets``, ``done``, ``deleted_record_count``;
``$table_indexes`` ``row_range_start`` .. ``index_field_name`` (the shared ones are compared).
Its ``$files`` shows null as the null count of a column a data-evolution file does not hold
(2.0 and we: the file's row count); such null counts are left out on 1.4.2.

``sys.tables`` and ``sys.partitions`` are compared over the filesystem catalog (no snapshot
figures: Java reads them only from a catalog managing versions; partitions from the files) and
through our REST server (Java's ``RESTCatalog`` and ours: the server's snapshot figures, audit
fields and partition listing), on 2.0.0 and 1.4.2.

Differences of Java 0.9 pinned by name (``_JAVA09_*``): it has no ``$binlog``,
``$table_indexes``, ``$buckets``, ``$file_key_ranges``, ``$row_tracking`` (the row-tracking
table is not compared), ``sys.tables`` or ``sys.partitions`` (nor a REST client); its
``$snapshots`` (no ``next_row_id``, ``operation``), ``$files`` (no ``deleteRowCount`` ..
``write_cols``), ``$manifests`` (no partition stats, no row ids), ``$partitions`` (no
``created_at`` .. ``deleted_record_count``) and ``$branches`` (``created_from_tag``,
``created_from_snapshot`` too) have other columns (the shared ones are compared); ``$files``
shows the file name alone as ``file_path`` and the partition as ``[a]``; ``$partitions`` shows
``[a]`` (1.x: ``dt=a``); ``$ro`` of a deletion-vector table reads every level (1.x and we: the
top level only); ``sys.all_table_options`` has no ``path`` rows.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core import FileSystemCatalog, Schema, create_branch, create_tag
from paimon_core.catalog import create_catalog
from paimon_core.data.types import parse_type
from paimon_core.errors import NotFound
from paimon_core.maintain import write_success_files
from paimon_core.metadata.consumer import consumer_manager
from paimon_core.metadata.schema_evolution import AddColumn
from paimon_core.ops.alter import alter_table
from paimon_core.ops.update_columns import update_columns
from paimon_core.systables import open_system_table
from tests.interop.harness.canonical import rows_from_arrow

pytestmark = pytest.mark.slow

JAVA_VERSIONS = ("0.9", "1.4.2", "2.0.0")

# what Java 0.9 lacks or shows otherwise, by system table (checked by name below)
_JAVA09_MISSING = {"binlog", "table_indexes", "buckets", "file_key_ranges", "sys.tables", "sys.partitions"}
_JAVA09_COLUMNS_DIFFER = {"snapshots", "files", "manifests", "partitions", "branches"}
# the columns Java 2.0 added that 1.4.2 lacks, by system table (checked by name below)
_JAVA14_LACKS = {
    "snapshots": {"operation"},
    "partitions": {"total_buckets", "done", "deleted_record_count"},
    "table_indexes": {"row_range_start", "row_range_end", "index_field_id", "index_field_name"},
}
# sys.catalog_options exists only with this catalog option (Java 2.0 and we); both sides open with it
_CATALOG_OPTIONS = {"catalog-options-table.enabled": "true"}


def _build(wh: str) -> FileSystemCatalog:
    """Tables with several snapshots, schemas, tags, a branch, a consumer, partitions (NULL ones
    too), buckets, deletion vectors, aggregation fields, hash indexes, row tracking, data
    evolution, and a partitioned table without snapshots with the audit options sys.tables reads."""
    c = FileSystemCatalog(wh)
    c.create_database("db")
    t = c.create_table(
        "db.t",
        Schema(
            Schema.parse_columns("dt STRING NOT NULL, id BIGINT NOT NULL, v STRING, n DOUBLE"),
            partition_keys=("dt",),
            primary_keys=("dt", "id"),
            options={"bucket": "2", "deletion-vectors.enabled": "true"},
            comment="system tables",
        ),
    )
    t.write_arrow(
        pa.table({"dt": ["a", "a", "b"], "id": [1, 2, 3], "v": ["x", None, "z"], "n": [1.5, 2.0, None]})
    )
    t.write_arrow(pa.table({"dt": ["a", "b"], "id": [1, 4], "v": ["y", "w"], "n": [0.1, 3.0]}))
    create_tag(t, "t1", 1)
    create_tag(t, "t2", time_retained_ms=3_600_000)
    t = alter_table(t, [AddColumn("x", parse_type("INT"))])
    t = c.get_table("db.t")
    t.write_arrow(pa.table({"dt": ["c"], "id": [5], "v": ["q"], "n": [9.0], "x": pa.array([7], pa.int32())}))
    consumer_manager(t).reset("c1", 2)
    create_branch(t, "b1")
    c.get_table("db.t$branch_b1").write_arrow(
        pa.table({"dt": ["z"], "id": [9], "v": ["b"], "n": [0.5], "x": pa.array([1], pa.int32())})
    )
    a = c.create_table(
        "db.agg",
        Schema(
            Schema.parse_columns("k INT NOT NULL, s BIGINT, m STRING"),
            primary_keys=("k",),
            options={
                "merge-engine": "aggregation",
                "fields.s.aggregate-function": "sum",
                "fields.m.aggregate-function": "max",
                "bucket": "1",
            },
        ),
    )
    a.write_arrow(pa.table({"k": pa.array([1, 2], pa.int32()), "s": [5, 6], "m": ["a", "b"]}))
    a.write_arrow(pa.table({"k": pa.array([1], pa.int32()), "s": [1], "m": ["c"]}))
    d = c.create_table(
        "db.dyn",
        Schema(
            Schema.parse_columns("k INT NOT NULL, v STRING"), primary_keys=("k",), options={"bucket": "-1"}
        ),
    )
    d.write_arrow(pa.table({"k": pa.array([1, 2, 3], pa.int32()), "v": ["a", "b", "c"]}))
    import datetime as dt

    dp = c.create_table(
        "db.dp",
        Schema(
            Schema.parse_columns("d DATE, h INT, id BIGINT NOT NULL, amount DECIMAL(10, 2), ts TIMESTAMP(3)"),
            partition_keys=("d", "h"),
        ),
    )
    dp.write_arrow(
        pa.table(
            {
                "d": pa.array([dt.date(2024, 1, 2), dt.date(2024, 1, 2), None], pa.date32()),
                "h": pa.array([1, None, 3], pa.int32()),
                "id": [1, 2, 3],
                "amount": pa.array([None, "1.50", "-2.25"], pa.string()).cast(pa.decimal128(10, 2)),
                "ts": pa.array(
                    [dt.datetime(2024, 1, 2, 3, 4, 5, 6000), None, dt.datetime(1999, 12, 31)],
                    pa.timestamp("ms"),
                ),
            }
        )
    )
    write_success_files(dp, [(19724, 1)])  # d=2024-01-02/h=1 done (the REST server's listing says so)
    rt = c.create_table(
        "db.rt", Schema(Schema.parse_columns("id INT, s STRING"), options={"row-tracking.enabled": "true"})
    )
    rt.write_arrow(pa.table({"id": pa.array([1, 2], pa.int32()), "s": ["a", "b"]}))
    rt.write_arrow(pa.table({"id": pa.array([3], pa.int32()), "s": ["c"]}))
    evolving = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
    de = c.create_table("db.de", Schema(Schema.parse_columns("id BIGINT, v STRING, w INT"), options=evolving))
    de.write_arrow(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "w": pa.array([7, 8, 9], pa.int32())}))
    # a file of column v alone (write_cols), as Java's MERGE INTO writes one
    update_columns(de, pa.table({"_ROW_ID": pa.array([0, 2], pa.int64()), "v": ["A", "C"]}), ["v"])
    p = c.create_table("db.app", Schema(Schema.parse_columns("id INT, s STRING")))
    p.write_arrow(pa.table({"id": pa.array([1, None], pa.int32()), "s": ["u", "v"]}))
    audit = {"owner": "alice", "createdAt": "1700000000000", "createdBy": "bob"}
    c.create_table(
        "db.nosnap", Schema(Schema.parse_columns("k STRING, v INT"), partition_keys=("k",), options=audit)
    )
    return c


NAMES = [
    *(
        f"db.t${n}"
        for n in (
            "snapshots",
            "schemas",
            "options",
            "files",
            "file_key_ranges",
            "manifests",
            "partitions",
            "buckets",
            "tags",
            "branches",
            "consumers",
            "statistics",
            "table_indexes",
            "audit_log",
            "binlog",
            "ro",
        )
    ),
    "db.t$branch_b1$snapshots",
    "db.t$branch_b1$files",
    "db.agg$aggregation_fields",
    "db.agg$audit_log",
    "db.dyn$table_indexes",
    "db.app$files",
    "db.app$file_key_ranges",
    "db.app$buckets",
    "db.app$manifests",
    "db.app$partitions",
    "db.dp$files",
    "db.dp$file_key_ranges",
    "db.dp$partitions",
    "db.dp$buckets",
    "db.dp$manifests",
    "db.agg$schemas",
    "db.agg$options",
    "sys.all_table_options",
    "sys.catalog_options",
    "sys.tables",
    "sys.partitions",
]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    wh = str(tmp_path_factory.mktemp("systables") / "wh")
    _build(wh)
    return wh


def _ours(catalog, name: str) -> tuple[list, list]:
    st = open_system_table(catalog, name)
    # Java's type text quotes ROW field names (`f0`); ours does not
    cols = [[f.name, str(f.type)] for f in st.fields]
    rows = rows_from_arrow(st.to_arrow(), {f.name: str(f.type) for f in st.fields})
    return cols, rows


def _key(row: dict) -> str:
    return repr(sorted((k, repr(v)) for k, v in row.items() if k != "_row_kind"))


def _system(name: str) -> str:
    """``files`` for ``db.t$files``; a global table by its whole name (``sys.partitions``)."""
    return name.rsplit("$", 1)[-1] if "$" in name else name


def _request(warehouse: str, name: str, via: dict | None = None) -> dict:
    req: dict = {"op": "system_table", "warehouse": warehouse, "name": name}
    if name == "sys.catalog_options":
        req["catalog"] = _CATALOG_OPTIONS
    return {**req, **(via or {})}


def _shared(rows: list[dict], keep: set[str]) -> list[dict]:
    return [{k: v for k, v in r.items() if k in keep} for r in rows]


def _partial_nulls_dropped(rows: list[dict]) -> list[dict]:
    """Rows of ``$files`` without the null counts of data-evolution files (pinned: 1.4.2 shows
    null for the columns such a file does not hold, 2.0 and we their row count)."""
    return [
        {k: v for k, v in r.items() if k != "null_value_counts" or r.get("write_cols") is None} for r in rows
    ]


def _compare(java, warehouse: str, names: list[str], catalog=None, via: dict | None = None) -> list[str]:
    """Each system table of ``names`` read by us and by Java: the differences, as text. By
    default both open the filesystem catalog of ``warehouse``; else we read ``catalog`` and Java
    opens the one the request fields ``via`` name."""
    if catalog is None:
        catalog = create_catalog("filesystem", warehouse, _CATALOG_OPTIONS)
    names = [n for n in names if java.version != "0.9" or _system(n) not in _JAVA09_MISSING]
    results = java.run([_request(warehouse, n, via) for n in names], check=False)
    failures = []
    for name, theirs in zip(names, results, strict=True):
        if "error" in theirs:
            failures.append(f"{name}: Java failed: {theirs['error']}")
            continue
        cols, rows = _ours(catalog, name)
        java_cols = [[n, t.replace("`", "")] for n, t in theirs["columns"]]
        java_rows = theirs["rows"]
        if java.version == "0.9" and _system(name) in _JAVA09_COLUMNS_DIFFER:
            keep = {c[0] for c in cols if c in java_cols}
            differ = {"partitions": ("partition",), "files": ("partition", "file_path")}.get(
                _system(name), ()
            )
            keep -= set(differ)
            rows, java_rows = _shared(rows, keep), _shared(java_rows, keep)
        elif (
            java.version == "0.9"
            and _system(name) == "ro"
            and theirs["rows"] != []
            and len(theirs["rows"]) > len(rows)
        ):
            continue  # 0.9 reads a deletion-vector table's levels below the top too (pinned below)
        else:
            if java.version == "0.9" and name == "sys.all_table_options":
                rows = [r for r in rows if r["key"] != "path"]
            if java.version == "1.4.2":
                lacks = _JAVA14_LACKS.get(_system(name), set())
                extra = {c[0] for c in cols} - {c[0] for c in java_cols}
                if extra != lacks:
                    failures.append(
                        f"{name}: our columns over 1.4.2's {sorted(extra)}, pinned {sorted(lacks)}"
                    )
                    continue
                cols = [c for c in cols if c[0] not in lacks]
                rows = _shared(rows, {c[0] for c in cols})
                if _system(name) == "files":
                    rows, java_rows = _partial_nulls_dropped(rows), _partial_nulls_dropped(java_rows)
            if cols != java_cols:
                failures.append(f"{name}: columns differ:\n ours {cols}\n java {java_cols}")
                continue
        ours_sorted = sorted(_key(r) for r in rows)
        java_sorted = sorted(_key(r) for r in java_rows)
        if ours_sorted != java_sorted:
            failures.append(f"{name}: rows differ:\n ours {ours_sorted}\n java {java_sorted}")
    return failures


ROW_TRACKING = [
    "db.rt$snapshots",
    "db.rt$files",
    "db.rt$file_key_ranges",
    "db.rt$manifests",
    "db.rt$row_tracking",
    "db.de$files",
    "db.de$row_tracking",
]  # next_row_id, first_row_id, row ids, data evolution (1.x)


def test_system_tables_equal_javas(java, warehouse):
    """Tables we wrote: every system table as Java shows it."""
    names = NAMES + (ROW_TRACKING if java.version != "0.9" else [])
    assert not (failures := _compare(java, warehouse, names)), "\n".join(failures)


def test_global_tables_through_rest_equal_javas(java, warehouse):
    """Through ``paimon rest-server`` over the same warehouse, Java's ``RESTCatalog`` and ours:
    ``sys.tables`` with the server's snapshot figures (Java's ``supportsVersionManagement``) and
    the audit fields of its table responses (absent here: Java's 0 and ``null`` texts), and
    ``sys.partitions`` from the server's listing (``done`` from its ``_SUCCESS`` files). Java
    0.9 has neither table (pinned)."""
    from pathlib import Path

    from tests.rest_support import RestServer

    names = ["sys.tables", "sys.partitions"]
    if java.version == "0.9":  # pinned: 0.9 has neither table (nor a REST client)
        got = java.run([_request(warehouse, n) for n in names], check=False)
        assert all("does not exist" in r.get("error", "") for r in got), got
        return
    server = RestServer(Path(warehouse))
    try:
        options = {"uri": server.uri, "token": server.token}
        via = {"warehouse": "paimon", "catalog": {"metastore": "rest", "token.provider": "bear", **options}}
        ours = create_catalog("rest", "unused", options)
        assert not (failures := _compare(java, warehouse, names, ours, via)), "\n".join(failures)
        stats = ours.system_table("sys.tables").to_arrow().to_pylist()
        assert {r["table_name"]: r["record_count"] for r in stats}["dp"] == 3  # the server's figures
        parts = ours.system_table("sys.partitions").to_arrow().to_pylist()
        assert [p["partition_name"] for p in parts if p["done"]] == ["d=19724/h=1"]
    finally:
        server.stop()


def test_java09_ro_reads_lower_levels_of_dv_tables(java, warehouse):
    """Pinned: Java 0.9's $ro of a deletion-vector table also reads levels below the top (a key
    updated since the last full compaction shows twice); 1.4.2 and we read the top level only."""
    catalog = FileSystemCatalog(warehouse)
    ours = catalog.system_table("db.t$ro").to_arrow().num_rows
    theirs = len(java.system_table(warehouse, "db.t$ro")["rows"])
    assert (theirs > ours) if java.version == "0.9" else (theirs == ours)


def test_catalog_options_exist_only_when_enabled(java, warehouse):
    """Java 2.0.0 and we have no ``sys.catalog_options`` unless the catalog sets
    ``catalog-options-table.enabled`` (it lists passwords and tokens); 1.4.2 and 0.9 serve it
    always (pinned)."""
    (theirs,) = java.run(
        [{"op": "system_table", "warehouse": warehouse, "name": "sys.catalog_options"}], check=False
    )
    assert ("does not exist" in theirs.get("error", "")) == (java.version == "2.0.0")
    with pytest.raises(NotFound, match="exists only with the catalog option catalog-options-table.enabled"):
        open_system_table(FileSystemCatalog(warehouse), "sys.catalog_options")


JAVA_COLS = [
    {"name": "dt", "type": "STRING NOT NULL"},
    {"name": "id", "type": "INT NOT NULL"},
    {"name": "v", "type": "STRING"},
    {"name": "d", "type": "DECIMAL(10, 2)"},
]


def test_system_tables_of_javas_table_equal_javas(java, tmp_path):
    """A table Java wrote (its own stats layout: 1.4.2's dense value stats), with compaction,
    tags, a branch and a consumer: our system tables read its metadata as Java does."""
    wh = str(tmp_path / "wh")
    t = {"warehouse": wh, "table": "db.j"}

    def rows(i, ids, dt="d1"):
        return [{"dt": dt, "id": k, "v": f"w{i}-{k}", "d": f"{k}.{i:02d}"} for k in ids]

    java.run(
        [
            {
                **t,
                "op": "create_table",
                "schema": JAVA_COLS,
                "primary_keys": ["dt", "id"],
                "partition_keys": ["dt"],
                "options": {
                    "bucket": "2",
                    "fields.v.aggregate-function": "max",
                    "merge-engine": "aggregation",
                },
            },
            {**t, "op": "write", "rows": rows(1, [1, 2, 3])},
            {**t, "op": "write", "rows": rows(2, [2, 4], "d2")},
            {**t, "op": "compact", "full": True},
            {**t, "op": "create_tag", "tag": "t1", "tag_snapshot": 2},
            {**t, "op": "create_branch", "name": "b", "from_tag": "t1"},
            {**t, "branch": "b", "op": "write", "rows": rows(3, [1, 5])},
            {**t, "op": "write", "rows": rows(4, [9])},
            {**t, "op": "consumer", "action": "reset", "id": "cj", "next": 2},
        ]
    )
    names = [
        f"db.j${n}"
        for n in (
            "snapshots",
            "schemas",
            "options",
            "files",
            "file_key_ranges",
            "manifests",
            "partitions",
            "buckets",
            "tags",
            "branches",
            "consumers",
            "table_indexes",
            "aggregation_fields",
            "audit_log",
            "binlog",
            "ro",
        )
    ] + [
        "db.j$branch_b$snapshots",
        "db.j$branch_b$files",
        "db.j$branch_b$file_key_ranges",
        "db.j$branch_b$tags",
    ]
    assert not (failures := _compare(java, wh, names)), "\n".join(failures)
