"""Parquet field ids (core/paimon_core/fileformat/field_ids.py): the ids Java Paimon 1.4.2 writes, checked on
files our writers make (append, primary-key, nested columns), against the numbers Java's
``SpecialFields`` gives (seen in a 1.4.2 file: ``_KEY_a`` 1073741823, ``_SEQUENCE_NUMBER``
2147483646, ``_VALUE_KIND`` 2147483645, ``a`` 0)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from paimon_core.metadata.schema import Schema

COLS = (
    "a INT NOT NULL, b STRING, arr ARRAY<ARRAY<INT>>, mp MAP<STRING, BIGINT>, rw ROW<x INT, y ARRAY<STRING>>"
)


def _ids(path: Path) -> dict[str, int]:
    """Each field's dotted path (list elements ``element``, map ``key``/``value``) with its
    Parquet field id as pyarrow reads it (-1: none)."""
    out: dict[str, int] = {}
    arrow = pq.read_schema(path)

    def walk(prefix: str, f: pa.Field) -> None:
        meta = f.metadata or {}
        out[prefix + f.name] = int(meta.get(b"PARQUET:field_id", -1))
        t = f.type
        if pa.types.is_list(t):
            walk(prefix + f.name + ".", t.value_field)
        elif pa.types.is_map(t):
            walk(prefix + f.name + ".", t.key_field)
            walk(prefix + f.name + ".", t.item_field)
        elif pa.types.is_struct(t):
            for j in range(t.num_fields):
                walk(prefix + f.name + ".", t.field(j))

    for f in arrow:
        walk("", f)
    return out


def _write(catalog, name: str, pk: tuple) -> Path:
    t = catalog.create_table(
        name,
        Schema(
            Schema.parse_columns(COLS),
            primary_keys=pk,
            options={"bucket": "1", "file.format": "parquet", **({} if pk else {"bucket-key": "a"})},
        ),
    )
    t.write_arrow(
        pa.table(
            {
                "a": pa.array([1], pa.int32()),
                "b": ["x"],
                "arr": pa.array([[[1, 2]]], pa.list_(pa.list_(pa.int32()))),
                "mp": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())),
                "rw": [{"x": 1, "y": ["s"]}],
            }
        )
    )
    return next(Path(t.path).rglob("bucket-0/*.parquet"))


BASE = 2**31 // 4 - 1  # Java's SpecialFields.STRUCTURED_TYPE_FIELD_ID_BASE
VALUE_IDS = {
    "a": 0,
    "b": 1,
    "arr": 2,
    "arr.element": BASE + 2 * 1024 + 1,
    "arr.element.element": BASE + 2 * 1024 + 2,
    "mp": 3,
    "mp.key": BASE - 3 * 1024 - 1,
    "mp.value": BASE + 3 * 1024 + 1,
    "rw": 4,
    "rw.x": 5,
    "rw.y": 6,
    "rw.y.element": BASE + 6 * 1024 + 1,
}


def test_append_file_carries_javas_field_ids(catalog):
    ids = _ids(_write(catalog, "db.app", ()))
    assert {k: ids[k] for k in VALUE_IDS} == VALUE_IDS


def test_primary_key_file_carries_javas_field_ids(catalog):
    ids = _ids(_write(catalog, "db.pk", ("a",)))
    assert ids["_KEY_a"] == 1073741823
    assert ids["_SEQUENCE_NUMBER"] == 2147483646
    assert ids["_VALUE_KIND"] == 2147483645
    assert {k: ids[k] for k in VALUE_IDS} == VALUE_IDS
