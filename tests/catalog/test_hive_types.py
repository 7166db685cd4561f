"""Paimon types as Hive Metastore column types (``paimon_core.catalog.metastore.hive_tables.hive_type``)."""

from __future__ import annotations

import pytest

from paimon_core.catalog.metastore.hive_tables import hive_type
from paimon_core.data.types import AtomicType, parse_type
from paimon_core.errors import InvalidInput


def test_nested_types_become_hive_types():
    assert hive_type(parse_type("ARRAY<MAP<STRING, DECIMAL(10, 2)>>")) == "array<map<string,decimal(10,2)>>"
    assert hive_type(parse_type("ROW<a INT, b VARCHAR(5)>")) == "struct<a:int,b:varchar(5)>"


def test_multiset_is_a_map_of_counts():
    """Java's HiveTypeUtils (0.9 to 2.0) maps MULTISET<T> to map<T,int> (it was refused here):
    tests/catalog/test_hive_views_java20_interop.py has Java write and read such a view."""
    assert hive_type(parse_type("MULTISET<ROW<a INT>>")) == "map<struct<a:int>,int>"


def test_a_type_without_a_hive_equivalent_is_invalid_input():
    """A type this mapping does not know: a clear InvalidInput (it was an AttributeError)."""
    with pytest.raises(InvalidInput, match=r"type VARIANT has no Hive Metastore equivalent"):
        hive_type(AtomicType(root="VARIANT"))


def test_blob_is_hive_binary():
    """Java 1.4's HiveTypeUtils maps BLOB to binary (it was refused here)."""
    assert hive_type(parse_type("BLOB")) == "binary"
