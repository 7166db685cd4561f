"""The stored-data check of a narrowing ``alter-column`` (``read/retype_check.py``, through
``ops/alter.py``): every live file counts, not only the merged rows, because readers cast each
file's values before merging."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_core.compaction.compaction import full_compact
from paimon_core.data.types import parse_type as T
from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import Schema
from paimon_core.metadata.schema_evolution import UpdateColumnType
from paimon_core.ops.alter import alter_table, preview_changes
from paimon_core.read.retype_check import first_misfit


def test_a_superseded_value_in_a_lower_file_still_counts_until_compaction(catalog):
    t = catalog.create_table(
        "db.pk",
        Schema(
            Schema.parse_columns("id BIGINT NOT NULL, s STRING"),
            primary_keys=("id",),
            options={"bucket": "1", "write-only": "true"},
        ),
    )
    t.write_arrow(pa.table({"id": pa.array([1, 2], pa.int64()), "s": ["abc", "3"]}))
    t.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "s": ["5"]}))  # supersedes 'abc'
    assert sorted(r["s"] for r in t.read().to_pylist()) == ["3", "5"]
    change = [UpdateColumnType("s", T("INT"))]
    for attempt in (preview_changes, alter_table):  # the merged rows fit, a stored file does not
        with pytest.raises(InvalidInput, match="stored value 'abc'"):
            attempt(t, change)
    assert t.schema.id == catalog.get_table("db.pk").schema.id
    full_compact(t)  # 'abc' is gone from the live files
    t = alter_table(catalog.get_table("db.pk"), change)
    assert sorted((r["id"], r["s"]) for r in t.read().to_pylist()) == [(1, 5), (2, 3)]


@pytest.mark.parametrize(
    "values, src, dst, first",
    [
        (["1", None, "x", "y"], "STRING", "INT", 2),
        ([1, 2**31, -(2**31) - 1], "BIGINT", "INT", 1),
        ([1, 2, 3], "BIGINT", "TINYINT", None),
        ([1.5, 1e12], "DOUBLE", "INT", 1),  # a fraction is truncated as Java does; 1e12 is out of range
        (["2024-01-02", "02/01/2024"], "STRING", "DATE", 1),
    ],
)
def test_first_misfit(values, src, dst, first):
    from paimon_core.data.types import to_arrow_type

    arr = pa.array(values, to_arrow_type(T(src)))
    assert first_misfit(arr, "c", T(src), T(dst)) == first
