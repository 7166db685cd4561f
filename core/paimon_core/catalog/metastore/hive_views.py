"""Views in the Hive Metastore, as Java Paimon's ``HiveCatalog`` keeps them: a table of type
``VIRTUAL_VIEW`` whose ``viewOriginalText`` and ``viewExpandedText`` both hold the query, whose
parameters are the options plus ``comment``, and whose ``sd.cols`` are the fields with Hive type
names (Hive's empty-table storage defaults, no location, no partition keys). Read back, a view
has what Hive keeps: nullable columns, and the metastore's own parameters among its options.

Java reads a view back from ``viewExpandedText``, the columns and the ``comment`` parameter; it
keeps no dialects. So a view with dialects is refused here by name rather than stored without
them, and altering a view (Java's HiveCatalog has no alterView) rewrites the metastore table in
the same form, so Java reads the altered view as it reads any other. Read back, the fields are
numbered as Java's ``HiveTypeUtils`` numbers them: the columns 0..n-1 and the fields of each
``struct`` 0..k-1 of their own (a ``RowType.builder()`` per struct), so both read the same ids.
"""

from __future__ import annotations

import getpass
import time
from dataclasses import replace
from typing import Any

from paimon_core.catalog.metastore.hive_tables import hive_type
from paimon_core.catalog.views import View
from paimon_core.data.types import ArrayType, DataField, DataType, MapType, MultisetType, RowType, parse_type
from paimon_core.errors import CatalogUnavailable, InvalidInput, UnsupportedByCatalog, ViewAlreadyExists

VIRTUAL_VIEW = "VIRTUAL_VIEW"
COMMENT = "comment"
# Hive's Table.getEmptyTable storage descriptor (what Java's createView leaves in place)
VIEW_SERDE = "org.apache.hadoop.hive.serde2.MetadataTypedColumnsetSerDe"
VIEW_INPUT_FORMAT = "org.apache.hadoop.mapred.SequenceFileInputFormat"
VIEW_OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.HiveSequenceFileOutputFormat"

_HIVE_NAMES = {"binary": "BYTES", "string": "STRING", "int": "INT", "integer": "INT"}


def paimon_type(hive: str) -> DataType:
    """The Paimon type of a Hive type name (``HiveTypeUtils.toPaimonType``): ``struct<a:int>``
    is ``ROW<a INT>`` (its fields numbered 0..k-1, as Java numbers them), ``binary`` is
    ``BYTES``; the others are spelt alike."""
    return _struct_ids(parse_type(_paimon_spelling(hive.strip())))


def _struct_ids(t: DataType) -> DataType:
    """``t`` with the fields of every ROW in it numbered from 0, each ROW on its own."""
    if isinstance(t, RowType):
        fields = (DataField(i, f.name, _struct_ids(f.type), f.description) for i, f in enumerate(t.fields))
        return replace(t, fields=tuple(fields))
    if isinstance(t, (ArrayType, MultisetType)):
        return replace(t, element=_struct_ids(t.element))
    if isinstance(t, MapType):
        return replace(t, key=_struct_ids(t.key), value=_struct_ids(t.value))
    return t


def _paimon_spelling(text: str) -> str:
    low = text.lower()
    if low.startswith("struct<") and low.endswith(">"):
        parts = [p for p in _split_top(text[len("struct<") : -1]) if p.strip()]
        inner = []
        for p in parts:
            name, sep, t = p.partition(":")
            if not sep:
                raise InvalidInput(f"Hive type {text!r}: a struct field needs name:type")
            inner.append(f"`{name.strip()}` {_paimon_spelling(t.strip())}")
        return "ROW<" + ", ".join(inner) + ">"
    for head in ("array<", "map<"):
        if low.startswith(head) and low.endswith(">"):
            args = [_paimon_spelling(a.strip()) for a in _split_top(text[len(head) : -1])]
            return f"{head[:-1].upper()}<{', '.join(args)}>"
    return _HIVE_NAMES.get(low, text.upper())


def _split_top(text: str) -> list[str]:
    """``text`` split at commas outside <> and ()."""
    out, depth, cur = [], 0, []
    for ch in text:
        depth += ch in "<("
        depth -= ch in ">)"
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out


class HiveViews:
    """The ``ViewStore`` of a Hive catalog: its metastore's ``VIRTUAL_VIEW`` tables."""

    def __init__(self, catalog: Any):
        self.catalog = catalog  # the HiveCatalog (its client, thrift types and calls)

    def _hms(self, db: str, name: str):
        t = self.catalog._table_or_none(db, name)
        return t if t is not None and t.tableType == VIRTUAL_VIEW else None

    def view(self, db: str, name: str) -> View | None:
        t = self._hms(db, name)
        if t is None:
            return None
        cols = [*(t.sd.cols or []), *(t.partitionKeys or [])] if t.sd is not None else []
        fields = tuple(DataField(i, c.name, paimon_type(c.type), c.comment) for i, c in enumerate(cols))
        options = dict(t.parameters or {})
        comment = options.pop(COMMENT, None)
        return View(fields, t.viewExpandedText or "", {}, comment, options)

    def view_names(self, db: str) -> list[str]:
        return list(self.catalog._call("get_tables_by_type", db, "*", VIRTUAL_VIEW, missing=lambda: []))

    def _table(self, db: str, name: str, view: View, owner: str | None = None, created: int | None = None):
        if view.dialects:
            raise UnsupportedByCatalog(
                f"view '{db}.{name}': the hive catalog keeps no view dialects (Java's HiveCatalog "
                f"drops them), so dialect(s) {', '.join(sorted(view.dialects))} cannot be stored"
            )
        T = self.catalog.T
        params = dict(view.options)
        if view.comment is not None:
            params[COMMENT] = view.comment
        now = int(time.time())
        sd = T.StorageDescriptor(
            cols=[T.FieldSchema(f.name, hive_type(f.type), f.description) for f in view.fields],
            inputFormat=VIEW_INPUT_FORMAT,
            outputFormat=VIEW_OUTPUT_FORMAT,
            numBuckets=-1,
            compressed=False,
            serdeInfo=T.SerDeInfo(serializationLib=VIEW_SERDE, parameters={"serialization.format": "1"}),
            bucketCols=[],
            sortCols=[],
            parameters={},
        )
        return T.Table(
            tableName=name,
            dbName=db,
            owner=owner or getpass.getuser(),
            createTime=created if created is not None else now,
            lastAccessTime=0,
            retention=0,
            sd=sd,
            partitionKeys=[],
            parameters=params,
            viewOriginalText=view.query,
            viewExpandedText=view.query,
            tableType=VIRTUAL_VIEW,
        )

    def insert_view(self, db: str, name: str, view: View) -> None:
        table = self._table(db, name, view)
        try:
            self.catalog.client.create_table(table)
        except self.catalog.T.AlreadyExistsException:
            raise ViewAlreadyExists(f"{db}.{name}") from None
        except self.catalog.TException as e:
            reason = (getattr(e, "message", None) or str(e) or type(e).__name__).strip().splitlines()[0]
            raise CatalogUnavailable(
                f"hive metastore {self.catalog.uri} refused create_table: {reason}"
            ) from None

    def update_view(self, db: str, name: str, view: View) -> None:
        old = self._hms(db, name)
        table = self._table(db, name, view, old.owner if old else None, old.createTime if old else None)
        self.catalog._call("alter_table", db, name, table)

    def delete_view(self, db: str, name: str) -> None:
        self.catalog._call("drop_table", db, name, False, missing=lambda: None)

    def rename_view(self, db: str, name: str, db2: str, name2: str) -> None:
        t = self._hms(db, name)
        if t is None:
            return
        t.dbName, t.tableName = db2, name2
        self.catalog._call("alter_table", db, name, t)
