"""Paimon types as Hive Metastore column types (``paimon_core.catalog.metastore.hive_tables.hive_type``)."""

from __future__ import annotations

import pytest

from paimon_core.catalog.metastore.hive_tables import hive_type
from paimon_core.data.types import parse_type
from paimon_core.errors import InvalidInput


def test_nested_types_become_hive_types():
    assert hive_type(parse_type("ARRAY<MAP<STRING, DECIMAL(10, 2)>>")) == "array<map<string,decimal(10,2)>>"
    assert hive_type(parse_type("ROW<a INT, b VARCHAR(5)>")) == "struct<a:int,b:varchar(5)>"


def test_a_type_without_a_hive_equivalent_is_invalid_input():
    """MULTISET has no mapping here: a clear InvalidInput (it was an AttributeError)."""
    with pytest.raises(InvalidInput, match=r"type MULTISET<INT> has no Hive Metastore equivalent"):
        hive_type(parse_type("MULTISET<INT>"))


def test_blob_is_hive_binary():
    """Java 1.4's HiveTypeUtils maps BLOB to binary (it was refused here)."""
    assert hive_type(parse_type("BLOB")) == "binary"
