"""Branch names and the ``db.t$branch_NAME`` spelling (``metadata/branches.py``)."""

import pytest

from paimon_core.errors import InvalidInput
from paimon_core.metadata.branches import (
    branch_path,
    split_branch,
    split_system,
    validate_branch_name,
    with_branch,
)


@pytest.mark.parametrize("name", ["b", "fix-1", "dev_2", "v1.2"])
def test_good_names(name):
    assert validate_branch_name(name) == name


@pytest.mark.parametrize(
    "name, why",
    [
        ("", "needs a name"),
        ("main", "main branch"),
        ("a/b", "no '/'"),
        ("..", "no '/' or '..'"),
        ("a..b", "'..'"),
        ("../x", "'..'"),
        (".hidden", "letters"),
        ("a b", "letters"),
        ("123", "only digits"),
    ],
)
def test_bad_names(name, why):
    with pytest.raises(InvalidInput, match="bad branch name") as e:
        validate_branch_name(name)
    assert why in str(e.value)


def test_split_branch():
    assert split_branch("db.t") == ("db.t", None)
    assert split_branch("db.t$branch_b1") == ("db.t", "b1")
    assert split_branch(" db.t$branch_main ") == ("db.t", None)
    with pytest.raises(InvalidInput, match="is a system table"):
        split_branch("db.t$snapshots")
    with pytest.raises(InvalidInput, match="is a system table"):
        split_branch("db.t$branch_b$files")
    with pytest.raises(InvalidInput, match="bad branch name"):
        split_branch("db.t$branch_../x")
    assert with_branch("db.t", "b") == "db.t$branch_b" and with_branch("db.t", "main") == "db.t"


def test_split_system():
    """The one parse of '$' suffixes: a system table after the table or after its branch."""
    assert split_system("db.t") == ("db.t", None)
    assert split_system("db.t$branch_b") == ("db.t$branch_b", None)
    assert split_system("db.t$snapshots") == ("db.t", "snapshots")
    assert split_system("db.t$branch_b$files") == ("db.t$branch_b", "files")
    assert split_system("sys.all_table_options") == ("sys.all_table_options", None)
    for bad in ("db.t$", "db.t$files$x", "db.t$branch_b$"):
        with pytest.raises(InvalidInput, match="bad table name"):
            split_system(bad)


def test_branch_path():
    assert branch_path("/w/db.db/t", None) == "/w/db.db/t"
    assert branch_path("/w/db.db/t", "main") == "/w/db.db/t"
    assert branch_path("/w/db.db/t", "b") == "/w/db.db/t/branch/branch-b"
