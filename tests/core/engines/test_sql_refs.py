"""Finding and rewriting table references of `paimon sql` (the same for DuckDB and Spark)."""

from __future__ import annotations

import pytest

from paimon_core.engines.sql.refs import TableRef, find_refs, in_user_terms, rewrite
from paimon_core.errors import InvalidInput

TABLES = {"db.t", "db.u", "shop.orders"}


def refs(q):
    return [(q[s:e], r) for s, e, r in find_refs(q, TABLES.__contains__)]


def test_plain_and_backquoted_names():
    q = "SELECT t.id, `db`.`u`.v FROM db.t AS t JOIN `db`.`u` ON t.id = u.id WHERE x.y = 1"
    found = refs(q)
    assert [r for _, r in found] == [TableRef("db", "u"), TableRef("db", "t"), TableRef("db", "u")]
    out = rewrite(q, find_refs(q, TABLES.__contains__))
    assert out == (
        "SELECT t.id, `paimon_db_u`.v FROM `paimon_db_t` AS t JOIN `paimon_db_u` ON t.id = u.id WHERE x.y = 1"
    )


def test_strings_comments_and_unknown_names_are_left_alone():
    q = "SELECT 'db.t' AS s, \"db.u\" -- db.t\nFROM shop.orders /* db.u */ JOIN other.tbl"
    assert [r for _, r in refs(q)] == [TableRef("shop", "orders")]


def test_time_travel_clauses():
    q = (
        "SELECT * FROM db.t VERSION AS OF 42 a JOIN db.t FOR SYSTEM_VERSION AS OF 'nightly' b "
        "JOIN db.u TIMESTAMP AS OF '2024-05-01 12:00:00' c JOIN `db.t$snapshot=3` d JOIN `db.u$tag=x` e "
        "JOIN `db.t$diff=1..3,mode=delta,per_snapshot` f"
    )
    got = [r for _, r in refs(q)]
    assert got == [
        TableRef("db", "t", "snapshot", "42"),
        TableRef("db", "t", "tag", "nightly"),
        TableRef("db", "u", "as_of", "2024-05-01 12:00:00"),
        TableRef("db", "t", "snapshot", "3"),
        TableRef("db", "u", "tag", "x"),
        TableRef("db", "t", "diff", "1..3,mode=delta,per_snapshot"),
    ]
    out = rewrite(q, find_refs(q, TABLES.__contains__))
    assert "AS OF" not in out and "$" not in out
    assert len({r.view for r in got}) == len(got)


def test_bad_suffix_and_missing_table():
    with pytest.raises(InvalidInput, match="unknown table suffix"):
        find_refs("SELECT * FROM `db.t$snap=1`", TABLES.__contains__)
    with pytest.raises(InvalidInput, match="does not exist"):
        find_refs("SELECT * FROM `db.nope$snapshot=1`", TABLES.__contains__)


def position_of(text: str, needle: str) -> tuple[int, int]:
    """Spark's (line, pos) of ``needle``: line from 1, pos from 0 within the line."""
    i = text.index(needle)
    return text[:i].count("\n") + 1, i - (text[:i].rfind("\n") + 1)


def test_errors_about_the_rewritten_query_are_told_in_the_users_terms():
    q = "SELECT *\n  FROM db.t JOIN `db`.`u` VERSION AS OF 3 u2 WHERE nope ON x"
    found = find_refs(q, TABLES.__contains__)
    out = rewrite(q, found)
    line, pos = position_of(out, "WHERE")
    view_u = found[1][2].view
    message = (
        f"[X] near '`paimon_db_t`', suggestions [`{view_u}`.`id`] (line {line}, pos {pos}); "
        f"line {line} pos {pos}"
    )
    want_line, want_pos = position_of(q, "WHERE")
    assert in_user_terms(message, q, found) == (
        f"[X] near 'db.t', suggestions [`db`.`u` VERSION AS OF 3.`id`] (line {want_line}, pos {want_pos}); "
        f"line {want_line} pos {want_pos}"
    )
    inside = position_of(out, "paimon_db_t")
    at_t = position_of(q, "db.t")
    assert (
        in_user_terms(f"(line {inside[0]}, pos {inside[1] - 1})", q, found)
        == f"(line {at_t[0]}, pos {at_t[1]})"
    )


def test_branch_references():
    q = (
        "SELECT * FROM `db.t$branch_b` a JOIN db.`t$branch_b` VERSION AS OF 3 b "
        "JOIN `db.t$branch_b$tag=x` c JOIN db.t d"
    )
    got = [r for _, r in refs(q)]
    assert got == [
        TableRef("db", "t", branch="b"),
        TableRef("db", "t", "snapshot", "3", "b"),
        TableRef("db", "t", "tag", "x", "b"),
        TableRef("db", "t"),
    ]
    assert [r.identifier for r in got] == ["db.t$branch_b"] * 3 + ["db.t"]
    assert len({r.view for r in got}) == len(got)
    with pytest.raises(InvalidInput, match="bad branch name"):
        refs("SELECT * FROM `db.t$branch_../x`")
    with pytest.raises(InvalidInput, match="table db.x does not exist"):
        refs("SELECT * FROM `db.x$branch_b`")


def test_system_table_refs():
    """`db.t$snapshots` and `db.t$branch_b$files` name system tables (parsed where every name is)."""
    refs = find_refs("SELECT * FROM `db.t$snapshots` JOIN `db.t$branch_b$files`", TABLES.__contains__)
    assert [(r.kind, r.arg, r.branch) for _, _, r in refs] == [
        ("system", "snapshots", None),
        ("system", "files", "b"),
    ]
