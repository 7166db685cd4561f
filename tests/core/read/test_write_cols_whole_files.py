"""A data file whose ``_WRITE_COLS`` lists every column of its schema holds whole rows (Java
writes such lists when it compacts a row-tracking table without data evolution): it is read as
any file; a list that leaves out a column still refuses (data evolution's partial files)."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.errors import UnsupportedFeature
from paimon_core.metadata.schema import Schema
from paimon_core.write.table_write import write_tables


def _table_with_write_cols(tmp_path, cols):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table(
        "db.t", Schema(Schema.parse_columns("id INT, v STRING"), (), (), {"row-tracking.enabled": "true"})
    )
    messages = write_tables(t, [pa.table({"id": pa.array([1, 2], pa.int32()), "v": ["a", "b"]})])
    marked = [
        replace(m, new_files=tuple(f._replace(write_cols=tuple(cols)) for f in m.new_files)) for m in messages
    ]
    t.commit(marked)
    return cat.get_table("db.t")


def test_a_full_column_list_is_a_whole_file(tmp_path):
    t = _table_with_write_cols(tmp_path, ["id", "v"])
    assert sorted(t.read().to_pylist(), key=lambda r: r["id"]) == [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]
    t.write_arrow(pa.table({"id": pa.array([3], pa.int32()), "v": ["c"]}))  # and we write beside it
    assert sorted(r["id"] for r in t.read().to_pylist()) == [1, 2, 3]


def test_a_partial_column_list_is_still_refused(tmp_path):
    t = _table_with_write_cols(tmp_path, ["v"])
    with pytest.raises(UnsupportedFeature, match="holds only some columns"):
        t.read()
