"""``rest-server --warehouse-root``: one filesystem catalog per warehouse folder under the root,
each with its own prefix; nothing outside the root is served."""

from __future__ import annotations

import pytest

from paimon_cli.rest.errors import RestError
from paimon_cli.rest.warehouses import WarehouseRoot


def test_each_warehouse_gets_its_own_catalog_and_prefix(tmp_path):
    root = WarehouseRoot(tmp_path, "p")
    a = root.config(str(tmp_path / "a"))["defaults"]["prefix"]
    b = root.config("b/c")["defaults"]["prefix"]
    assert a != b and a.startswith("p-") and "/" not in a
    assert root.config("a")["defaults"]["prefix"] == a  # relative or absolute: the same folder
    assert root.service(a).catalog.warehouse.endswith("/a")
    assert root.service(b).catalog.warehouse.endswith("/b/c")
    assert WarehouseRoot(tmp_path, "p").config("a")["defaults"]["prefix"] == a  # stable over restarts


@pytest.mark.parametrize("name", ["../x", "/etc", "a/../../x", ""])
def test_nothing_outside_the_root_is_served(tmp_path, name):
    with pytest.raises(RestError) as e:
        WarehouseRoot(tmp_path / "root", "p").config(name)
    assert e.value.status == 400


def test_a_prefix_never_handed_out_is_a_404(tmp_path):
    with pytest.raises(RestError) as e:
        WarehouseRoot(tmp_path, "p").service("p-0123456789abcdef")
    assert e.value.status == 404
