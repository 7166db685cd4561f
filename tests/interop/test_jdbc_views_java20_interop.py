"""Views in a JDBC catalog database (SQLite and PostgreSQL) shared with Java Paimon's
``JdbcCatalog``: Java 2.0.0 reads the views we store in ``paimon_views`` exactly (getView,
listViews, listViewsPaged, listViewDetailsPaged: fields with their ids, nested types and
descriptions, query, dialects, comment, options), and we read exactly what Java creates, alters,
renames and drops there, through the catalog and through ``paimon view list|show``. Each release
runs one batch (both databases) in one JVM.

"Exactly" is Java's own ``ViewSchema`` JSON of the view it read (the driver answers it as
``schema``) against our ``View.to_json()``. Java 1.4.2's JdbcCatalog has no views: it lists none
of ours, finds none, and refuses to create one (UnsupportedOperationException); the test pins it.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from paimon_cli.app import app
from paimon_core.catalog import View, ViewChange, fields_from_columns
from paimon_core.catalog.factory import create_catalog
from paimon_core.metadata.schema import Schema
from tests.catalog.conftest import JdbcBackend, pg_server  # noqa: F401  (pg_server: the fixture)
from tests.interop.harness.jdbc_jars import ensure_jdbc_jars

pytestmark = [pytest.mark.interop, pytest.mark.slow]

COLUMNS = (
    "id BIGINT NOT NULL COMMENT 'the id', name VARCHAR(20) COMMENT 'naïve name', price DECIMAL(12, 3), "
    "at TIMESTAMP(6), lt TIMESTAMP(3) WITH LOCAL TIME ZONE, day DATE, t TIME(3), flag BOOLEAN, "
    "raw VARBINARY(8), b4 BINARY(4), c CHAR(2), f FLOAT, x DOUBLE, ti TINYINT, si SMALLINT, "
    "tags ARRAY<STRING NOT NULL>, attrs MAP<STRING NOT NULL, ROW<k INT, v ARRAY<DOUBLE>>>, "
    "counts MULTISET<STRING>, p ROW<a INT NOT NULL, q ROW<r STRING>> NOT NULL"
)


def _full() -> View:
    """A view of every kind of field (a nested field with a description of its own), with
    dialects, a comment and options, in text beyond ASCII."""
    data = View(fields_from_columns(Schema.parse_columns(COLUMNS)), "q").to_json()
    data["fields"][-1]["type"]["fields"][0]["description"] = "inner"
    return View.from_json(
        {
            **data,
            "query": "SELECT * FROM db.t WHERE name <> 'é'",
            "dialects": {"spark": "SELECT * FROM db.t", "flink": "SELECT * FROM `db`.`t`"},
            "comment": "every type — ü",
            "options": {"k": "v", "a.b": "x y"},
        }
    )


FULL = _full()
BARE = View(fields_from_columns(Schema.parse_columns("x INT")), "SELECT 1 AS x")
ALTER = [
    ViewChange.set_option("k2", "v2"),
    ViewChange.remove_option("k"),
    ViewChange.update_comment(None),
    ViewChange.add_dialect("trino", "SELECT 2"),
    ViewChange.update_dialect("spark", "SELECT 3"),
    ViewChange.drop_dialect("flink"),
]
# a view Java creates from its own type strings (the driver's parser): its JSON is Java's alone
JAVA_FIELDS = [
    {"name": "k", "type": "INT NOT NULL", "description": "key"},
    {"name": "r", "type": "ROW<x INT, y ARRAY<MAP<STRING, TIMESTAMP(3)>>>"},
    {"name": "m", "type": "MULTISET<DECIMAL(5, 1)>"},
]


@pytest.fixture(params=["2.0.0", "1.4.2"], ids=["java20", "java14"])
def java_jdbc(request):
    java = request.getfixturevalue("java20" if request.param == "2.0.0" else "java14")
    return java.with_classpath(*ensure_jdbc_jars(java.cache_dir))


@pytest.fixture
def backends(request, tmp_path) -> list[JdbcBackend]:
    """A fresh catalog database on SQLite and one on the session's PostgreSQL."""
    (tmp_path / "sqlite").mkdir()
    return [
        JdbcBackend("sqlite", tmp_path / "sqlite"),
        JdbcBackend("postgresql", tmp_path, request.getfixturevalue("pg_server")),
    ]


def c(call: str, **kw) -> dict:
    return {"call": call, **kw}


def cli_views(args: list[str], db: str) -> tuple[list[str], dict[str, dict]]:
    """``paimon view list DB`` and ``paimon view show`` of each view listed, as JSON, with the
    catalog flags ``args``."""
    runner = CliRunner()

    def run(*argv: str) -> list[dict]:
        r = runner.invoke(app, [*args, "-o", "json", *argv])
        assert r.exit_code == 0, r.output
        return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]

    names = [row["view"] for row in run("view", "list", db)]
    return names, {n: run("view", "show", f"{db}.{n}")[0] for n in names}


def _ours(backend: JdbcBackend, wh: str):
    """Our catalog on ``backend``, with views (one altered by us) beside a table."""
    cat = create_catalog("jdbc", wh, dict(backend.options))
    cat.create_table("ours.t", Schema(Schema.parse_columns("id BIGINT")))
    cat.create_view("ours.full", FULL)
    cat.create_view("ours.bare", BARE)
    cat.create_view("ours.altered", FULL)
    cat.alter_view("ours.altered", ALTER)
    cat.create_database("java")
    return cat


def _java_script(backend: JdbcBackend, wh: str) -> dict:
    """Java reads our views, then creates, alters, renames and drops views of its own."""
    return {
        "op": "catalog_calls",
        "warehouse": wh,
        "catalog": {"metastore": "jdbc", **backend.options},
        "calls": [
            c("listViews", database="ours"),
            c("listViewsPaged", database="ours", max=2),
            c("listViewDetailsPaged", database="ours"),
            c("getView", view="ours.full"),
            c("getView", view="ours.bare"),
            c("getView", view="ours.altered"),
            c("listTablesPaged", database="ours"),
            c("createView", view="java.made", fields=JAVA_FIELDS, query="SELECT k, r, m FROM java.src",
              dialects={"spark": "SELECT k, r, m FROM java.src"}, comment="java's", options={"o": "1"}),
            c("createView", view="java.copy", schema=FULL.to_json()),
            c("createView", view="java.altered", schema=FULL.to_json()),
            c("alterView", view="java.altered", changes=[ch.to_json() for ch in ALTER]),
            c("createView", view="java.old", schema=BARE.to_json()),
            c("renameView", **{"from": "java.old", "to": "java.renamed"}),
            c("createView", view="java.gone", schema=BARE.to_json()),
            c("dropView", view="java.gone"),
            c("createView", view="java.made", schema=BARE.to_json()),
            c("createView", view="ours.full", schema=BARE.to_json()),
            c("createView", view="ours.t", schema=BARE.to_json()),
            c("getView", view="java.made"),
            c("getView", view="java.copy"),
            c("getView", view="java.altered"),
            c("getView", view="java.renamed"),
            c("getView", view="java.gone"),
            c("listViews", database="java"),
        ],
    }  # fmt: skip


def test_java_reads_our_views_and_we_read_javas(java_jdbc, backends, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # no user config reaches the CLI
    monkeypatch.chdir(tmp_path)
    whs = [str(tmp_path / f"wh-{b.kind}") for b in backends]
    ours = [_ours(b, wh) for b, wh in zip(backends, whs)]
    answers = java_jdbc.run([_java_script(b, wh) for b, wh in zip(backends, whs)])
    for backend, wh, cat, answer in zip(backends, whs, ours, answers):
        r = answer["results"]
        if java_jdbc.version == "1.4.2":
            _check_java14(r)
            assert cat.list_views("java") == []
            continue
        # Java reads our views as we stored them
        want = {"full": FULL, "bare": BARE, "altered": cat.get_view("ours.altered")}
        assert r[0]["items"] == ["altered", "bare", "full"], backend.kind
        assert (r[1]["items"], r[1]["next"]) == (["altered", "bare"], "bare")
        assert {v["name"]: v["schema"] for v in r[2]["views"]} == {n: v.to_json() for n, v in want.items()}
        for got, name in zip(r[3:6], ("full", "bare", "altered")):
            assert got["schema"] == want[name].to_json(), (backend.kind, name)
        # and as Java's own types print: its ROW quotes field names and shows a nested field's
        # description, which our type strings leave out (the JSON above has it)
        java_types = [(f["name"], f["type"].replace("`", "")) for f in r[3]["fields"]]
        assert java_types[-1][1] == "ROW<a INT NOT NULL COMMENT 'inner', q ROW<r STRING>> NOT NULL"
        assert java_types[:-1] == [(f.name, str(f.type)) for f in FULL.fields[:-1]]
        assert (r[3]["query"], r[3]["dialects"], r[3]["comment"], r[3]["options"]) == (
            FULL.query,
            FULL.dialects,
            FULL.comment,
            FULL.options,
        )
        altered = want["altered"]
        assert (altered.comment, altered.options, altered.dialects) == (
            None,
            {"a.b": "x y", "k2": "v2"},
            {"spark": "SELECT 3", "trino": "SELECT 2"},
        )
        assert r[6]["items"] == ["t"]  # views are not tables
        # Java's own writes all went through but those to names taken (a view's, our table's)
        assert [x.get("error") for x in r[7:18]] == [None] * 8 + ["ViewAlreadyExistException"] * 3, r[7:18]
        assert r[22]["error"] == "ViewNotExistException"
        assert r[23]["items"] == ["altered", "copy", "made", "renamed"]
        javas = {name: got["schema"] for name, got in zip(("made", "copy", "altered", "renamed"), r[18:22])}
        assert javas["copy"] == FULL.to_json() and javas["renamed"] == BARE.to_json()
        assert javas["altered"] == altered.to_json()  # Java's alterView did what ours did
        # we read exactly what Java stored, through the catalog and through the CLI
        assert cat.list_views("java") == sorted(javas)
        assert {n: cat.get_view(f"java.{n}").to_json() for n in javas} == javas
        made = cat.get_view("java.made")
        assert [(f.name, str(f.type), f.description) for f in made.fields] == [
            ("k", "INT NOT NULL", "key"),
            ("r", "ROW<x INT, y ARRAY<MAP<STRING, TIMESTAMP(3)>>>", None),
            ("m", "MULTISET<DECIMAL(5, 1)>", None),
        ]
        assert (made.query, made.dialects, made.comment, made.options) == (
            "SELECT k, r, m FROM java.src",
            {"spark": "SELECT k, r, m FROM java.src"},
            "java's",
            {"o": "1"},
        )
        flags = ["--catalog", "jdbc", "-w", wh]
        for k, v in backend.options.items():
            flags += ["--catalog-option", f"{k}={v}"]
        names, shown = cli_views(flags, "java")
        assert names == sorted(javas)
        assert shown == {n: {"view": f"java.{n}", **schema} for n, schema in javas.items()}
        cat.close()


def _check_java14(r: list[dict]) -> None:
    """Java 1.4.2's JdbcCatalog keeps no views: ours are invisible to it, its own refused."""
    assert r[0]["items"] == [] and r[1]["items"] == [] and r[2]["views"] == []
    assert [x["error"] for x in r[3:6]] == ["ViewNotExistException"] * 3
    assert r[6]["items"] == ["t"]
    creates = [x for x in r[7:18] if x["call"] == "createView"]
    assert {x.get("error") for x in creates} == {"UnsupportedOperationException"}, creates
    assert {x.get("error") for x in r[18:23]} == {"ViewNotExistException"}
    assert r[23]["items"] == []
