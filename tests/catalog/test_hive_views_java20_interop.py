"""Views in the Hive Metastore shared with Java Paimon's ``HiveCatalog`` (2.0.0 and 1.4.2, both
keep views there as ``VIRTUAL_VIEW`` tables): Java reads the views we store (getView, listViews,
listViewsPaged, listViewDetailsPaged) as we read them back, field ids included, and we read
exactly what Java creates, renames and drops, through the catalog and through ``paimon view
list|show``. Each release runs one batch in one JVM.

"Exactly" is Java's own ``ViewSchema`` JSON of the view it read (the driver answers it as
``schema``) against our ``View.to_json()``. What the metastore keeps is less than a view: Hive
types (nullable columns, TIME as STRING, BINARY(n) as BYTES, MULTISET<T> as MAP<T, INT>, LTZ as
TIMESTAMP), no dialects, its own ``transient_lastDdlTime`` among the options. Java drops a view's
dialects there without a word; we refuse them by name. Java has no alterView on Hive
(UnsupportedOperationException); ours rewrites the view in the same form and Java reads it.
Java 1.4.2 reads Hive's ``timestamp`` as TIMESTAMP(3), 2.0.0 (and we) as TIMESTAMP(6).
"""

from __future__ import annotations

import json

import pytest

from paimon_core.catalog import View, ViewChange, fields_from_columns
from paimon_core.catalog.factory import create_catalog
from paimon_core.data.types import RowType
from paimon_core.errors import UnsupportedByCatalog
from paimon_core.metadata.schema import Schema
from tests.catalog.test_hive_catalog import fresh_db
from tests.interop.conftest import java14, java20  # noqa: F401  (the session fixtures)
from tests.interop.test_jdbc_views_java20_interop import cli_views

pytestmark = [pytest.mark.interop, pytest.mark.slow]

COLUMNS = (
    "id BIGINT NOT NULL COMMENT 'the id', name VARCHAR(20), c CHAR(2), price DECIMAL(12, 3), "
    "at TIMESTAMP(6), lt TIMESTAMP(3) WITH LOCAL TIME ZONE, day DATE, t TIME(3), flag BOOLEAN, "
    "raw BYTES, b4 BINARY(4), f FLOAT, x DOUBLE, ti TINYINT, si SMALLINT, tags ARRAY<STRING NOT NULL>, "
    "attrs MAP<STRING, ROW<k INT, v ARRAY<DOUBLE>>>, counts MULTISET<STRING>, "
    "p ROW<a INT NOT NULL, q ROW<r STRING>>"
)
# the fields as the metastore keeps them, read by Java 2.0.0 and by us
KEPT = [
    ("id", "BIGINT", "the id"),
    ("name", "VARCHAR(20)", None),
    ("c", "CHAR(2)", None),
    ("price", "DECIMAL(12, 3)", None),
    ("at", "TIMESTAMP(6)", None),
    ("lt", "TIMESTAMP(6)", None),
    ("day", "DATE", None),
    ("t", "STRING", None),
    ("flag", "BOOLEAN", None),
    ("raw", "BYTES", None),
    ("b4", "BYTES", None),
    ("f", "FLOAT", None),
    ("x", "DOUBLE", None),
    ("ti", "TINYINT", None),
    ("si", "SMALLINT", None),
    ("tags", "ARRAY<STRING>", None),
    ("attrs", "MAP<STRING, ROW<k INT, v ARRAY<DOUBLE>>>", None),
    ("counts", "MAP<STRING, INT>", None),
    ("p", "ROW<a INT, q ROW<r STRING>>", None),
]
FULL = View(
    fields_from_columns(Schema.parse_columns(COLUMNS)),
    "SELECT * FROM db.t WHERE name <> 'é'",
    {},
    "every type — ü",
    {"k": "v", "a.b": "x y"},
)
BARE = View(fields_from_columns(Schema.parse_columns("x INT")), "SELECT 1 AS x")
JAVA_FIELDS = [
    {"name": "k", "type": "INT NOT NULL", "description": "key"},
    {"name": "r", "type": "ROW<x INT, y ARRAY<ROW<z TIMESTAMP(3)>>>"},
    {"name": "m", "type": "MULTISET<DECIMAL(5, 1)>"},
]
DDL_TIME = "transient_lastDdlTime"  # the metastore's own parameter, an option to both readers


@pytest.fixture(params=["2.0.0", "1.4.2"], ids=["java20", "java14"])
def java_hive_release(request):
    from tests.catalog import hive_metastore

    java = request.getfixturevalue("java20" if request.param == "2.0.0" else "java14")
    return java.with_classpath(f"{hive_metastore.pyspark_jars()}/*")


def c(call: str, **kw) -> dict:
    return {"call": call, **kw}


def _as_read_by(version: str, schema: dict) -> dict:
    """A view's JSON as ``version`` reads it from the metastore (1.4.2: timestamps of precision 3)."""
    if version != "1.4.2":
        return schema
    return json.loads(json.dumps(schema).replace('"TIMESTAMP(6)"', '"TIMESTAMP(3)"'))


def test_java_reads_our_hive_views_and_we_read_javas(hive_ms, java_hive_release, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no user config reaches the CLI
    monkeypatch.chdir(tmp_path)
    java, db = java_hive_release, fresh_db()
    wh = str(tmp_path / "wh")
    ours = create_catalog("hive", wh, {"uri": hive_ms.uri})
    ours.create_database(db)
    ours.create_table(f"{db}.t", Schema(Schema.parse_columns("id BIGINT")))
    ours.create_view(f"{db}.full", FULL)
    ours.create_view(f"{db}.bare", BARE)
    ours.create_view(f"{db}.altered", FULL)
    ours.alter_view(
        f"{db}.altered",
        [ViewChange.set_option("k2", "v2"), ViewChange.remove_option("k"), ViewChange.update_comment(None)],
    )
    # dialects: refused by name (Java would drop them)
    with pytest.raises(UnsupportedByCatalog, match="keeps no view dialects"):
        ours.create_view(f"{db}.dialects", View(BARE.fields, BARE.query, {"spark": "SELECT 1"}))
    with pytest.raises(UnsupportedByCatalog, match="keeps no view dialects"):
        ours.alter_view(f"{db}.bare", [ViewChange.add_dialect("spark", "SELECT 1")])

    (answer,) = java.run(
        [
            {
                "op": "catalog_calls",
                "warehouse": wh,
                "catalog": {"metastore": "hive", "uri": hive_ms.uri},
                "calls": [
                    c("listViews", database=db),
                    c("listViewsPaged", database=db, max=2),
                    c("listViewDetailsPaged", database=db),
                    c("getView", view=f"{db}.full"),
                    c("getView", view=f"{db}.bare"),
                    c("getView", view=f"{db}.altered"),
                    c("listTablesPaged", database=db),
                    c(
                        "createView",
                        view=f"{db}.made",
                        fields=JAVA_FIELDS,
                        query="SELECT k, r, m FROM src",
                        dialects={"spark": "SELECT k, r, m FROM src"},
                        comment="java's",
                        options={"o": "1"},
                    ),
                    c("createView", view=f"{db}.copy", schema=FULL.to_json()),
                    c("alterView", view=f"{db}.copy", changes=[ViewChange.set_option("k2", "v2").to_json()]),
                    c("createView", view=f"{db}.old", schema=BARE.to_json()),
                    c("renameView", **{"from": f"{db}.old", "to": f"{db}.renamed"}),
                    c("createView", view=f"{db}.gone", schema=BARE.to_json()),
                    c("dropView", view=f"{db}.gone"),
                    c("createView", view=f"{db}.made", schema=BARE.to_json()),
                    c("createView", view=f"{db}.t", schema=BARE.to_json()),
                    c("getView", view=f"{db}.made"),
                    c("getView", view=f"{db}.copy"),
                    c("getView", view=f"{db}.renamed"),
                    c("getView", view=f"{db}.gone"),
                    c("listViews", database=db),
                ],
            }  # fmt: skip
        ]
    )
    r, v = answer["results"], java.version
    # Java reads our views as we read them back, field ids included
    mine = {n: ours.get_view(f"{db}.{n}") for n in ("altered", "bare", "full")}
    assert sorted(r[0]["items"]) == ["altered", "bare", "full"]
    # Java's HiveCatalog does not page views (Catalog's default listViewsPaged: one page of all)
    assert (sorted(r[1]["items"]), r[1]["next"]) == (["altered", "bare", "full"], None)
    details = {x["name"]: x["schema"] for x in r[2]["views"]}
    assert details == {n: _as_read_by(v, m.to_json()) for n, m in mine.items()}
    for got, name in zip(r[3:6], ("full", "bare", "altered")):
        assert got["schema"] == _as_read_by(v, mine[name].to_json()), name
    # ... which is what we stored, as far as Hive keeps it
    full = mine["full"]
    assert [(f.name, str(f.type), f.description) for f in full.fields] == KEPT
    assert [f.id for f in full.fields] == list(range(len(KEPT)))
    nested = full.fields[-1].type
    assert isinstance(nested, RowType) and [f.id for f in nested.fields] == [0, 1]  # Java's numbering
    assert (full.query, full.dialects, full.comment) == (FULL.query, {}, FULL.comment)
    assert {k: x for k, x in full.options.items() if k != DDL_TIME} == FULL.options
    altered = mine["altered"]
    assert (altered.comment, {k: x for k, x in altered.options.items() if k != DDL_TIME}) == (
        None,
        {"a.b": "x y", "k2": "v2"},
    )
    assert r[6]["items"] == ["t"]  # views are not tables

    # Java's own writes: no alterView on Hive; names taken refused, a view's and our table's
    # (a table's name reaches the metastore's create_table, whose refusal Java wraps)
    errors = [x.get("error") for x in r[7:16]]
    assert errors == [None, None, "UnsupportedOperationException", None, None, None, None,
                      "ViewAlreadyExistException", "RuntimeException"], r[7:16]  # fmt: skip
    assert r[15]["message"] == f"Failed to create table {db}.t"
    assert r[19]["error"] == "ViewNotExistException"
    assert sorted(r[20]["items"]) == ["altered", "bare", "copy", "full", "made", "renamed"]
    javas = {n: got["schema"] for n, got in zip(("made", "copy", "renamed"), r[16:19])}
    assert javas["made"]["dialects"] == {}  # Java dropped them
    # we read exactly what Java reads
    assert ours.list_views(db) == sorted(r[20]["items"])
    for name, schema in javas.items():
        assert _as_read_by(v, ours.get_view(f"{db}.{name}").to_json()) == schema, name
    made = ours.get_view(f"{db}.made")
    assert [(f.name, str(f.type), f.description) for f in made.fields] == [
        ("k", "INT", "key"),
        ("r", "ROW<x INT, y ARRAY<ROW<z TIMESTAMP(6)>>>", None),
        ("m", "MAP<DECIMAL(5, 1), INT>", None),
    ]
    assert (made.query, made.dialects, made.comment, made.options["o"]) == (
        "SELECT k, r, m FROM src",
        {},
        "java's",
        "1",
    )
    # ... and so does the CLI
    flags = ["--catalog", "hive", "--catalog-option", f"uri={hive_ms.uri}", "-w", wh]
    names, shown = cli_views(flags, db)
    assert names == ours.list_views(db)
    assert shown == {n: {"view": f"{db}.{n}", **ours.get_view(f"{db}.{n}").to_json()} for n in names}
    ours.drop_database(db, cascade=True)
