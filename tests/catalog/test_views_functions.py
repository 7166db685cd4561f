"""Views and functions kept by the catalogs: the JDBC catalog on real SQLite and PostgreSQL
databases (``paimon_views`` as Java 2.0 writes it, read back directly from the database), the
filesystem catalog with and without a ``catalog-objects.jdbc-uri`` store (the Hive catalog:
test_hive_views.py, on the Hive Metastore's worker)."""

from __future__ import annotations

import json

import pytest

from paimon_core.catalog import (
    Function,
    FunctionChange,
    FunctionDefinition,
    View,
    ViewChange,
    fields_from_columns,
)
from paimon_core.catalog.factory import create_catalog
from paimon_core.errors import (
    DatabaseNotFound,
    DefinitionAlreadyExists,
    DefinitionNotFound,
    DialectAlreadyExists,
    DialectNotFound,
    FunctionAlreadyExists,
    FunctionNotFound,
    InvalidInput,
    UnsupportedByCatalog,
    ViewAlreadyExists,
    ViewNotFound,
)
from paimon_core.metadata.schema import Schema

COLUMNS = fields_from_columns(
    Schema.parse_columns("id BIGINT NOT NULL, tags ARRAY<STRING>, p ROW<a INT, b STRING>")
)
VIEW = View(
    COLUMNS, "SELECT id, tags, p FROM db.t", {"spark": "SELECT id, tags, p FROM db.t"}, "a view", {"k": "v"}
)
TABLE = Schema(columns=Schema.parse_columns("id BIGINT"))
FUNCTION = Function(
    name="ignored",
    input_params=fields_from_columns(Schema.parse_columns("x INT")),
    return_params=fields_from_columns(Schema.parse_columns("r INT")),
    deterministic=True,
    definitions={
        "spark": FunctionDefinition.sql("x + 1"),
        "py": FunctionDefinition.lambda_("lambda x: x + 1", "python"),
        "flink": FunctionDefinition.file([("JAR", "file:///udf.jar")], "java", "com.example.PlusOne"),
    },
    comment="adds one",
    options={"o": "1"},
)


# ---------------------------------------------------------------- the model, as JSON


def test_view_json_is_javas_view_schema_and_round_trips():
    data = VIEW.to_json()
    assert list(data) == ["fields", "query", "dialects", "comment", "options"]
    assert data["fields"][2] == {
        "id": 2,
        "name": "p",
        "type": {
            "type": "ROW",
            "fields": [{"id": 3, "name": "a", "type": "INT"}, {"id": 4, "name": "b", "type": "STRING"}],
        },
    }
    assert View.from_json(json.loads(json.dumps(data))) == VIEW
    assert "comment" not in View(COLUMNS, "SELECT 1").to_json()  # Java: NON_NULL
    with pytest.raises(InvalidInput, match="query"):
        View.from_json({"fields": [], "query": ""})


def test_function_json_round_trips_and_names_follow_java():
    data = FUNCTION.to_json()
    assert data["definitions"]["flink"] == {
        "type": "file",
        "fileResources": [{"resourceType": "JAR", "uri": "file:///udf.jar"}],
        "language": "java",
        "className": "com.example.PlusOne",
    }
    assert Function.from_json(json.loads(json.dumps(data))) == FUNCTION
    for bad in ("123", "a b", "", "f/x"):
        with pytest.raises(InvalidInput, match="bad function name"):
            Function.from_json({**data, "name": bad})


def test_changes_apply_in_order_or_not_at_all():
    from paimon_core.catalog.functions import apply_function_changes
    from paimon_core.catalog.views import apply_view_changes

    changes = [
        ViewChange.set_option("a", "1"),
        ViewChange.remove_option("k"),
        ViewChange.update_comment(None),
        ViewChange.add_dialect("flink", "SELECT 2"),
        ViewChange.update_dialect("spark", "SELECT 3"),
        ViewChange.drop_dialect("flink"),
    ]
    assert [ViewChange.from_json(c.to_json()) for c in changes] == changes
    new = apply_view_changes("db.v", VIEW, changes)
    assert (new.options, new.comment, new.dialects) == ({"a": "1"}, None, {"spark": "SELECT 3"})
    with pytest.raises(DialectAlreadyExists):
        apply_view_changes("db.v", VIEW, [ViewChange.add_dialect("spark", "x")])
    with pytest.raises(DialectNotFound):
        apply_view_changes("db.v", VIEW, [ViewChange.drop_dialect("hive")])
    fchanges = [
        FunctionChange.add_definition("hive", FunctionDefinition.sql("x+1")),
        FunctionChange.update_definition("spark", FunctionDefinition.sql("x+2")),
        FunctionChange.drop_definition("py"),
        FunctionChange.set_option("o", "2"),
    ]
    assert [FunctionChange.from_json(c.to_json()) for c in fchanges] == fchanges
    got = apply_function_changes("db.f", FUNCTION, fchanges)
    assert sorted(got.definitions) == ["flink", "hive", "spark"] and got.options == {"o": "2"}
    with pytest.raises(DefinitionAlreadyExists):
        apply_function_changes("db.f", FUNCTION, [fchanges[0], fchanges[0]])
    with pytest.raises(DefinitionNotFound):
        apply_function_changes("db.f", FUNCTION, [FunctionChange.drop_definition("nope")])


# ---------------------------------------------------------------- every store


def same(got: View, want: View, exact: bool) -> bool:
    """``got`` is ``want``; or, not ``exact`` (Hive), as Hive keeps it: nullable columns of the
    same names, the metastore's own parameters among the options."""
    if exact:
        return got == want
    return (
        [f.name for f in got.fields] == [f.name for f in want.fields]
        and (got.query, got.comment, got.dialects) == (want.query, want.comment, want.dialects)
        and want.options.items() <= got.options.items()
    )


def _round_trip(
    cat, dialects: bool = True, functions: bool = True, db: str = "db", exact: bool = True
) -> None:
    """Every view and function operation through ``cat`` in database ``db``, with its errors."""
    view = VIEW if dialects else View(VIEW.fields, VIEW.query, {}, VIEW.comment, VIEW.options)
    cat.create_database(db)
    cat.create_table(f"{db}.t", TABLE)
    assert cat.create_view(f"{db}.v", view) is True
    assert same(cat.get_view(f"{db}.v"), view, exact)
    assert cat.list_views(db) == ["v"]
    with pytest.raises(ViewAlreadyExists, match=f"view '{db}.v' already exists"):
        cat.create_view(f"{db}.v", view)
    assert cat.create_view(f"{db}.v", view, ignore_if_exists=True) is False
    with pytest.raises(ViewAlreadyExists, match=f"table '{db}.t' already exists"):
        cat.create_view(f"{db}.t", view)  # a table's name: refused as Java refuses it
    with pytest.raises(ViewAlreadyExists, match=f"view '{db}.v'"):
        cat.create_table(f"{db}.v", TABLE)  # and a view's name for a table
    with pytest.raises(DatabaseNotFound):
        cat.create_view("nodb.v", view)
    with pytest.raises(ViewNotFound, match=f"view '{db}.nope' does not exist"):
        cat.get_view(f"{db}.nope")
    changed = cat.alter_view(f"{db}.v", [ViewChange.set_option("x", "y"), ViewChange.update_comment("new")])
    assert same(cat.get_view(f"{db}.v"), changed, exact) and changed.comment == "new"
    assert {k: changed.options[k] for k in ("k", "x")} == {"k": "v", "x": "y"}
    cat.rename_view(f"{db}.v", f"{db}.w")
    assert cat.list_views(db) == ["w"]
    with pytest.raises(ViewAlreadyExists):
        cat.rename_view(f"{db}.w", f"{db}.t")
    with pytest.raises(ViewNotFound):
        cat.rename_view(f"{db}.v", f"{db}.x")
    if functions:
        assert cat.create_function(f"{db}.my.plus", FUNCTION) is True
        got = cat.get_function(f"{db}.my.plus")
        assert got.name == "my.plus" and got.definitions == FUNCTION.definitions
        assert cat.list_functions(db) == ["my.plus"]
        with pytest.raises(FunctionAlreadyExists):
            cat.create_function(f"{db}.my.plus", FUNCTION)
        cat.alter_function(f"{db}.my.plus", [FunctionChange.drop_definition("py")])
        assert sorted(cat.get_function(f"{db}.my.plus").definitions) == ["flink", "spark"]
        with pytest.raises(InvalidInput, match="bad function name"):
            cat.create_function(f"{db}.1", FUNCTION)
    with pytest.raises(InvalidInput, match="not empty"):
        cat.drop_database(db)
    assert cat.drop_view(f"{db}.w") is True
    assert cat.drop_view(f"{db}.w", ignore_if_missing=True) is False
    with pytest.raises(ViewNotFound):
        cat.drop_view(f"{db}.w")
    if functions:
        assert cat.drop_function(f"{db}.my.plus") is True
        with pytest.raises(FunctionNotFound):
            cat.get_function(f"{db}.my.plus")
    cat.create_view(f"{db}.v2", view)
    cat.drop_database(db, cascade=True)  # its views go with it
    cat.create_database(db)
    assert cat.list_views(db) == []


def test_jdbc_catalog_keeps_views_as_java_2_0(jdbc, tmp_path):
    cat = create_catalog("jdbc", str(tmp_path / "wh"), jdbc.options)
    _round_trip(cat)
    cat.create_view("db.v", VIEW)
    cat.create_function("db.f", FUNCTION)
    rows = jdbc.rows("SELECT catalog_key, database_name, view_name, view_schema FROM paimon_views")
    assert [r[:3] for r in rows] == [("jdbc", "db", "v")]
    assert json.loads(rows[0][3]) == VIEW.to_json()
    rows = jdbc.rows("SELECT catalog_key, database_name, function_name, function_json FROM paimon_functions")
    assert [r[:3] for r in rows] == [("jdbc", "db", "f")]
    assert json.loads(rows[0][3])["definitions"]["spark"] == {"type": "sql", "definition": "x + 1"}
    cat.close()
    other = create_catalog("jdbc", str(tmp_path / "wh"), {**jdbc.options, "catalog-key": "other"})
    other.create_database("db")
    assert other.list_views("db") == []  # catalog_key separates catalogs sharing the database
    other.close()


def test_jdbc_reads_a_view_java_wrote(tmp_path):
    """A row as Java 2.0's JdbcCatalog inserts it (Jackson's DataField JSON, description null)."""
    import sqlite3

    path = tmp_path / "c.db"
    cat = create_catalog("jdbc", str(tmp_path / "wh"), {"uri": f"sqlite:///{path}"})
    cat.create_database("db")
    schema = {
        "fields": [{"id": 0, "name": "a", "type": "INT NOT NULL", "description": None}],
        "query": "SELECT 1 AS a",
        "dialects": {"flink": "SELECT 1 AS a"},
        "options": {},
    }
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO paimon_views VALUES ('jdbc', 'db', 'jv', ?)", (json.dumps(schema),))
    conn.commit()
    conn.close()
    view = cat.get_view("db.jv")
    assert (view.query, view.dialects, view.comment, str(view.fields[0].type)) == (
        "SELECT 1 AS a",
        {"flink": "SELECT 1 AS a"},
        None,
        "INT NOT NULL",
    )


def test_filesystem_catalog_refuses_writes_without_a_store(tmp_path):
    cat = create_catalog("filesystem", str(tmp_path / "wh"))
    cat.create_database("db")
    assert cat.list_views("db") == [] and cat.list_functions("db") == []  # as Java's
    with pytest.raises(ViewNotFound, match="stores no views"):
        cat.get_view("db.v")
    for call in (
        lambda: cat.create_view("db.v", VIEW),
        lambda: cat.drop_view("db.v"),
        lambda: cat.rename_view("db.v", "db.w"),
        lambda: cat.alter_view("db.v", []),
        lambda: cat.create_function("db.f", FUNCTION),
        lambda: cat.drop_function("db.f"),
    ):
        with pytest.raises(UnsupportedByCatalog, match="catalog-objects.jdbc-uri"):
            call()
    with pytest.raises(InvalidInput, match="catalog-objects"):
        create_catalog("filesystem", str(tmp_path / "wh"), {"uri": "x"})


def test_filesystem_catalog_with_a_jdbc_store(tmp_path):
    options = {"catalog-objects.jdbc-uri": f"sqlite:///{tmp_path / 'objects.db'}"}
    _round_trip(create_catalog("filesystem", str(tmp_path / "wh"), options))
    # the store is a JDBC catalog database: a JDBC catalog on it sees the same views
    cat = create_catalog("filesystem", str(tmp_path / "wh"), options)
    cat.create_view("db.v", VIEW)
    jdbc = create_catalog("jdbc", str(tmp_path / "wh2"), {"uri": options["catalog-objects.jdbc-uri"]})
    assert jdbc.get_view("db.v") == VIEW
