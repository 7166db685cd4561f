"""``delete`` refuses a primary-key table where a -D record would not remove the row: under
every key Paimon reads ``ignore-delete`` by (its aliases included), before anything is written."""

import pyarrow as pa
import pytest

from paimon_core.catalog import FileSystemCatalog
from paimon_core.errors import InvalidInput
from paimon_core.metadata.schema import Schema
from paimon_core.ops.delete import delete_where


@pytest.mark.parametrize(
    "key,value",
    [("ignore-delete", "true"), ("deduplicate.ignore-delete", "TRUE"), ("first-row.ignore-delete", "true")],
)
def test_delete_is_refused_when_deletes_are_ignored(tmp_path, key, value):
    cat = FileSystemCatalog(str(tmp_path / "wh"))
    engine = "first-row" if key.startswith("first-row") else "deduplicate"
    schema = Schema(
        Schema.parse_columns("id INT NOT NULL, v STRING"),
        (),
        ("id",),
        {"bucket": "1", key: value, "merge-engine": engine},
    )
    table = cat.create_table("db.t", schema)
    table.write_arrow(pa.table({"id": pa.array([1, 2], pa.int32()), "v": ["a", "b"]}))
    before = table.snapshots.latest_id()
    with pytest.raises(InvalidInput, match="ignore-delete|merge-engine"):
        delete_where(table, "id = 1")
    assert table.snapshots.latest_id() == before and table.read().num_rows == 2
