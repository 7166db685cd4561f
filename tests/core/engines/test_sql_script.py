"""Statements of a SQL script and the writes `paimon sql` maps to our operations."""

from __future__ import annotations

import pytest

from paimon_core.engines.sql.script import Delete, Insert, Truncate, is_complete, parse_write, split


def test_split_keeps_semicolons_in_strings_identifiers_and_comments():
    script = "SELECT ';' AS a; -- c;\nSELECT \"x;y\" FROM t /* ; */; ;\n-- only a comment\n"
    assert split(script) == ["SELECT ';' AS a", '-- c;\nSELECT "x;y" FROM t /* ; */']


@pytest.mark.parametrize(
    "text, complete",
    [
        ("SELECT 1;", True),
        ("SELECT 1", False),
        ("SELECT ';'", False),
        ("SELECT 1; -- done", True),
        ("SELECT 'a;\n", False),
        ("", False),
    ],
)
def test_is_complete(text, complete):
    assert is_complete(text) is complete


def test_inserts_and_deletes():
    assert parse_write("INSERT INTO db.t SELECT * FROM db.u") == Insert("db.t", False, "SELECT * FROM db.u")
    assert parse_write('insert into "db"."t" (a, "b c") values (1, 2)') == Insert(
        "db.t", False, "values (1, 2)", ["a", "b c"]
    )
    assert parse_write(
        "INSERT OVERWRITE TABLE `db.t$branch_b` PARTITION (dt = '2024-01-01', h = 3) SELECT 1"
    ) == (Insert("db.t$branch_b", True, "SELECT 1", None, {"dt": "2024-01-01", "h": "3"}))
    assert parse_write("/* x */ DELETE FROM db.t WHERE id = 1 AND s = 'a'") == Delete(
        "db.t", "id = 1 AND s = 'a'"
    )
    assert parse_write("DELETE FROM db.t") == Delete("db.t", None)
    assert parse_write("SELECT 1") is None


def test_truncates():
    assert parse_write("TRUNCATE TABLE db.t") == Truncate("db.t")
    assert parse_write("truncate `db`.`t` ") == Truncate("db.t")
    assert parse_write("TRUNCATE TABLE db.t PARTITION (dt = '2024-01-01', h = 3)") == Truncate(
        "db.t", {"dt": "2024-01-01", "h": "3"}
    )


@pytest.mark.parametrize(
    "bad",
    [
        "INSERT db.t VALUES (1)",
        "INSERT INTO db.t PARTITION (p = 1) SELECT 1",
        "DELETE db.t WHERE x = 1",
        "DELETE FROM db.t WHERE ",  # a WHERE without a filter is not a truncation
        "TRUNCATE TABLE db.t PARTITION ()",
        "TRUNCATE TABLE db.t WHERE x = 1",
    ],
)
def test_shapes_we_do_not_take_say_why(bad):
    with pytest.raises(ValueError):
        parse_write(bad)
