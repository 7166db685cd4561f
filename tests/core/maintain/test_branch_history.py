"""Model-based random histories of a table's branches (``tests/reference/branch_history.py``):
after every step each branch's rows, and each tag's, equal the model."""

import pytest

from tests.reference.branch_history import History


@pytest.mark.parametrize("seed", [1, 2])
def test_short_history(catalog, seed):
    History(catalog, "db.h", seed).run(15)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10, 16))
def test_long_history(catalog, seed):
    History(catalog, "db.h", seed).run(40)
