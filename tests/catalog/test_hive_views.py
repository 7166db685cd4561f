"""Views on a real Hive Metastore: ``VIRTUAL_VIEW`` tables as Java's HiveCatalog writes them
(query in viewOriginalText and viewExpandedText, options and ``comment`` as parameters, Hive
types in the columns); dialects refused rather than dropped; functions only with a
``catalog-objects.jdbc-uri`` store."""

from __future__ import annotations

import pytest

from paimon_core.catalog import View, ViewChange
from paimon_core.catalog.factory import create_catalog
from paimon_core.errors import UnsupportedByCatalog
from tests.catalog.test_views_functions import FUNCTION, VIEW, _round_trip


def test_hive_catalog_keeps_views_as_javas_hive_catalog(hive_ms, tmp_path):
    from tests.catalog.test_hive_catalog import fresh_db

    db = fresh_db()
    cat = create_catalog("hive", str(tmp_path / "wh"), {"uri": hive_ms.uri})
    _round_trip(cat, dialects=False, functions=False, db=db, exact=False)
    with pytest.raises(UnsupportedByCatalog, match="dialect"):  # Java would drop them: refused
        cat.create_view(f"{db}.d", VIEW)
    with pytest.raises(UnsupportedByCatalog, match="catalog-objects.jdbc-uri"):
        cat.create_function(f"{db}.f", FUNCTION)
    view = View(VIEW.fields, VIEW.query, {}, "c", {"k": "v"})
    cat.create_view(f"{db}.v", view)
    hms = cat.client.get_table(db, "v")
    assert (hms.tableType, hms.viewOriginalText, hms.viewExpandedText) == (
        "VIRTUAL_VIEW",
        VIEW.query,
        VIEW.query,
    )
    assert [(c.name, c.type) for c in hms.sd.cols] == [
        ("id", "bigint"),
        ("tags", "array<string>"),
        ("p", "struct<a:int,b:string>"),
    ]
    assert {k: hms.parameters[k] for k in ("k", "comment")} == {"k": "v", "comment": "c"}
    got = cat.get_view(f"{db}.v")
    assert [str(f.type) for f in got.fields] == ["BIGINT", "ARRAY<STRING>", "ROW<a INT, b STRING>"]
    assert (got.query, got.comment, got.options["k"]) == (VIEW.query, "c", "v")
    with pytest.raises(UnsupportedByCatalog, match="dialect"):
        cat.alter_view(f"{db}.v", [ViewChange.add_dialect("spark", "SELECT 1")])
    cat.alter_view(f"{db}.v", [ViewChange.update_comment("c2")])  # rewritten in the same form
    assert cat.client.get_table(db, "v").parameters["comment"] == "c2"
    with_store = create_catalog(
        "hive",
        str(tmp_path / "wh"),
        {"uri": hive_ms.uri, "catalog-objects.jdbc-uri": f"sqlite:///{tmp_path / 'f.db'}"},
    )
    with_store.create_function(f"{db}.f", FUNCTION)
    assert with_store.list_functions(db) == ["f"]
    with_store.drop_database(db, cascade=True)
