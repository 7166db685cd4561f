"""pypaimon 2.1.0 driver: runs inside the harness's own venv (see pypaimon_env.py).

stdin: JSON array of requests; stdout: JSON array of results (one per request, in order). A failing
request gives {"error": "Class: message", "trace": [...]} and the batch goes on.
Ops: ping, read, create_table, write ("postpone_fixed_bucket": into real buckets of a bucket = -2
table), snapshots, schema, list_databases, list_tables, rename_table, drop_table, catalog (a
version method of the catalog: tags, branches, partitions). A request with
``rest`` ({uri, token?, warehouse?}) goes through pypaimon's REST catalog client instead of the
filesystem catalog of ``warehouse``. Values use canonical.py's encoding.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
import re
import sys
import traceback
from typing import Any

import canonical  # sibling file; the script's folder is on sys.path
import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import (
    ArrayType,
    AtomicType,
    DataField,
    MapType,
    MultisetType,
    PyarrowFieldParser,
    RowType,
)

ROW_KIND = canonical.ROW_KIND


# ------------------------------------------------------------------ Paimon type strings


class _TypeParser:
    """ "INT NOT NULL", "DECIMAL(10, 2)", "TIMESTAMP_LTZ(6)", "ARRAY<INT>", "MAP<STRING, INT>",
    "ROW<a INT, b STRING>" -> pypaimon DataType. Field ids are assigned like Java's Schema.Builder:
    a column gets the next id and its nested ROW fields the ids after it."""

    def __init__(self, text: str, next_id: list[int]):
        self.s, self.pos, self.next_id = text, 0, next_id

    def ws(self) -> None:
        while self.pos < len(self.s) and self.s[self.pos].isspace():
            self.pos += 1

    def expect(self, ch: str) -> None:
        self.ws()
        if not self.s.startswith(ch, self.pos):
            raise ValueError(f"expected {ch!r} at {self.pos} in type {self.s!r}")
        self.pos += 1

    def word(self) -> str:
        self.ws()
        if self.s.startswith("`", self.pos):
            end = self.s.index("`", self.pos + 1)
            w, self.pos = self.s[self.pos + 1 : end], end + 1
            return w
        m = re.compile(r"[A-Za-z0-9_]+").match(self.s, self.pos)
        if not m:
            raise ValueError(f"expected a name at {self.pos} in type {self.s!r}")
        self.pos = m.end()
        return m.group(0)

    def nullable(self) -> bool:
        m = re.compile(r"\s*(NOT\s+NULL|NULL)\b", re.IGNORECASE).match(self.s, self.pos)
        if not m:
            return True
        self.pos = m.end()
        return not m.group(1).upper().startswith("NOT")

    def parse(self):
        self.ws()
        start = self.pos
        w = self.word().upper()
        if w in ("ARRAY", "MULTISET"):
            self.expect("<")
            elem = self.parse()
            self.expect(">")
            return (ArrayType if w == "ARRAY" else MultisetType)(self.nullable(), elem)
        if w == "MAP":
            self.expect("<")
            k = self.parse()
            self.expect(",")
            v = self.parse()
            self.expect(">")
            return MapType(self.nullable(), k, v)
        if w == "ROW":
            self.expect("<")
            fields = []
            while True:
                name = self.word()
                fid = self.next_id[0]
                self.next_id[0] += 1
                ftype = self.parse()
                fields.append(DataField(fid, name, ftype))
                self.ws()
                if self.s.startswith(",", self.pos):
                    self.pos += 1
                    continue
                self.expect(">")
                break
            return RowType(self.nullable(), fields)
        depth = 0
        while self.pos < len(self.s):
            c = self.s[self.pos]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif depth == 0 and c in ",>":
                break
            self.pos += 1
        atomic = self.s[start : self.pos].strip()
        m = re.match(r"(?i)^(.*?)\s+(NOT\s+NULL|NULL)$", atomic)
        nullable = True
        if m:
            atomic, nullable = m.group(1), not m.group(2).upper().startswith("NOT")
        atomic = re.sub(r"\s+", " ", atomic.upper())
        # stored like Java does it: TIMESTAMP(p) WITH LOCAL TIME ZONE (Java 0.9 cannot parse TIMESTAMP_LTZ)
        atomic = re.sub(
            r"^TIMESTAMP_LTZ\s*(\(\s*\d+\s*\))",
            lambda x: "TIMESTAMP" + x.group(1).replace(" ", "") + " WITH LOCAL TIME ZONE",
            atomic,
        )
        atomic = re.sub(r"^TIMESTAMP_LTZ$", "TIMESTAMP(6) WITH LOCAL TIME ZONE", atomic)
        return AtomicType(atomic, nullable)


def parse_fields(schema: list[dict]) -> list[DataField]:
    next_id = [0]
    fields = []
    for col in schema:
        fid = next_id[0]
        next_id[0] += 1
        fields.append(DataField(fid, col["name"], _TypeParser(col["type"], next_id).parse()))
    return fields


# ------------------------------------------------------------------ canonical JSON -> Arrow

_UNIT_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def _ts_count(text: str, unit: str) -> int:
    text = text.replace(" ", "T").rstrip("Z")
    base, _, frac = text.partition(".")
    secs = int((dt.datetime.fromisoformat(base) - dt.datetime(1970, 1, 1)).total_seconds())
    nanos = int((frac + "000000000")[:9]) if frac else 0
    per = _UNIT_PER_SECOND[unit]
    return secs * per + nanos // (1_000_000_000 // per)


def _float(v: Any) -> float:
    return (
        float(v)
        if not isinstance(v, str)
        else float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(v, v))
    )


def from_canonical(v: Any, t: pa.DataType) -> Any:
    """Canonical JSON value -> Python value pyarrow accepts for type t (timestamps/times as ints)."""
    if v is None:
        return None
    if pa.types.is_boolean(t):
        return bool(v)
    if pa.types.is_integer(t):
        return int(v)
    if pa.types.is_floating(t):
        return _float(v)
    if pa.types.is_decimal(t):
        return decimal.Decimal(str(v))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return str(v)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return bytes.fromhex(v)
    if pa.types.is_date(t):
        return dt.date.fromisoformat(v)
    if pa.types.is_time(t):
        hh, mm, rest = v.split(":")
        s, _, frac = rest.partition(".")
        nanos = ((int(hh) * 60 + int(mm)) * 60 + int(s)) * 1_000_000_000 + int((frac + "000000000")[:9] or 0)
        return nanos // (1_000_000_000 // _UNIT_PER_SECOND[t.unit])
    if pa.types.is_timestamp(t):
        return _ts_count(v, t.unit)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [from_canonical(x, t.value_type) for x in v]
    if pa.types.is_map(t):
        kt = t.key_type
        keys = [k if (pa.types.is_string(kt) or pa.types.is_large_string(kt)) else json.loads(k) for k in v]
        return [
            (from_canonical(k, kt), from_canonical(x, t.item_type))
            for k, x in zip(keys, v.values(), strict=True)
        ]
    if pa.types.is_struct(t):
        return {f.name: from_canonical(v.get(f.name), f.type) for f in t}
    raise TypeError(f"cannot build a value of Arrow type {t}")


def arrow_from_rows(rows: list[dict], schema: pa.Schema) -> pa.Table:
    cols = []
    for f in schema:
        raw_t = canonical._intified(f.type)
        values = [from_canonical(r.get(f.name), f.type) for r in rows]
        arr = pa.array(values, type=raw_t)
        cols.append(arr.cast(f.type) if raw_t != f.type else arr)
    return pa.Table.from_arrays(cols, schema=schema)


# ------------------------------------------------------------------ ops

_JAVA09_COMPAT = [False]


def _install_java09_compat() -> None:
    """pypaimon 2.1.0 fails on manifests written by Java 0.9 (16-field _FILE records without
    _VALUE_STATS_COLS/_WRITE_COLS: KeyError). Requests with "java09_compat": true read those
    fields as absent (None), the fix docs/format.md section 0 describes."""
    from pypaimon.manifest.manifest_file_manager import ManifestFileManager

    original = ManifestFileManager._get_value_stats_fields
    if getattr(original, "_interop_patched", False):
        return

    def patched(self, file_dict, file_schema):
        if _JAVA09_COMPAT[0] and "_VALUE_STATS_COLS" not in file_dict:
            file_dict = {**file_dict, "_VALUE_STATS_COLS": None, "_WRITE_COLS": None}
        return original(self, file_dict, file_schema)

    patched._interop_patched = True
    ManifestFileManager._get_value_stats_fields = patched


def _catalog(req: dict):
    """The filesystem catalog of ``warehouse``, or with ``rest`` ({uri, token?, warehouse?,
    options?}) the REST catalog at ``uri`` (bearer token when given; ``options``: more catalog
    options, e.g. ``token.provider=dlf`` and its keys, or ``data-token.enabled``)."""
    rest = req.get("rest")
    if rest:
        opts = {"metastore": "rest", "uri": rest["uri"], "warehouse": rest.get("warehouse") or "paimon"}
        if rest.get("token"):
            opts.update({"token.provider": "bear", "token": rest["token"]})
        opts.update({str(k): str(v) for k, v in (rest.get("options") or {}).items()})
        return CatalogFactory.create(opts)
    return CatalogFactory.create({"warehouse": req["warehouse"]})


def _table(req: dict):
    table = _catalog(req).get_table(req["table"])
    opts = {k: str(v) for k, v in (req.get("options") or {}).items()}
    if req.get("snapshot") is not None:
        opts["scan.snapshot-id"] = str(req["snapshot"])
    return table.copy(opts) if opts else table


def op_read(req: dict) -> dict:
    """``projection`` (optional): the columns to read, system ones (``_ROW_ID``) included.
    ``filter`` (optional, ``{"field", "op": "="|"<"|"<="|">"|">="|"is_null", "value"}``): a
    predicate pypaimon plans with (global and primary-key indexes, stats) and reads with."""
    table = _table(req)
    rb = table.new_read_builder()
    if req.get("projection"):
        rb = rb.with_projection(list(req["projection"]))
    predicate = None
    if req.get("filter"):
        f = req["filter"]
        pb = rb.new_predicate_builder()
        make = {
            "=": pb.equal,
            "<": pb.less_than,
            "<=": pb.less_or_equal,
            ">": pb.greater_than,
            ">=": pb.greater_or_equal,
        }
        predicate = pb.is_null(f["field"]) if f["op"] == "is_null" else make[f["op"]](f["field"], f["value"])
        rb = rb.with_filter(predicate)
    splits = rb.new_scan().plan().splits()
    try:  # ask for row kinds (a TableRead argument that the public ReadBuilder does not expose)
        from pypaimon.read.table_read import TableRead

        read = TableRead(table=table, predicate=predicate, read_type=rb.read_type(), include_row_kind=True)
    except Exception:  # noqa: BLE001
        read = rb.new_read()
    data = read.to_arrow(splits)
    types = {f.name: str(f.type) for f in table.fields}
    types.update({"_ROW_ID": "BIGINT", "_SEQUENCE_NUMBER": "BIGINT"})
    rows = canonical.rows_from_arrow(data, types) if data is not None else []
    return {"rows": rows, "row_count": len(rows), "splits": len(splits)}


def op_create_table(req: dict) -> dict:
    catalog = _catalog(req)
    db = req["table"].split(".", 1)[0]
    catalog.create_database(db, True)
    if req.get("drop_if_exists"):
        catalog.drop_table(req["table"], True)
    schema = Schema(
        parse_fields(req["schema"]),
        req.get("partition_keys") or [],
        req.get("primary_keys") or [],
        {k: str(v) for k, v in (req.get("options") or {}).items()},
    )
    catalog.create_table(req["table"], schema, bool(req.get("ignore_if_exists", False)))
    return {"schema_id": catalog.get_table(req["table"]).table_schema.id}


def op_write(req: dict) -> dict:
    table = _table(req)
    rows = req["rows"]
    kinds = {r.get(ROW_KIND, "+I") for r in rows}
    if kinds - {"+I", None}:
        raise ValueError(
            f"pypaimon 2.1.0 batch writes take no row kinds (got {sorted(kinds - {None})}); "
            "use a 'rowkind.field' column instead"
        )
    data = arrow_from_rows(rows, PyarrowFieldParser.from_paimon_schema(table.fields))
    # "postpone_fixed_bucket": true writes a postpone-bucket table (bucket = -2) straight into real
    # buckets (pypaimon's fixed-bucket batch write); the plain builder writes to bucket-postpone
    if req.get("postpone_fixed_bucket"):
        wb = table.new_postpone_fixed_bucket_write_builder()
    else:
        wb = table.new_batch_write_builder()
    if req.get("overwrite"):
        wb = wb.overwrite()
    tw = wb.new_write()
    tc = wb.new_commit()
    try:
        tw.write_arrow(data)
        tc.commit(tw.prepare_commit())
    finally:
        tw.close()
        tc.close()
    latest = table.snapshot_manager().get_latest_snapshot()
    return {"written": len(rows), "snapshot": latest.id if latest else None}


def op_snapshots(req: dict) -> dict:
    table = _table(req)
    out = []
    for s in table.snapshot_manager().list_snapshots():
        out.append(
            {
                "id": s.id,
                "commitKind": s.commit_kind,
                "totalRecordCount": s.total_record_count,
                "deltaRecordCount": s.delta_record_count,
                "changelogRecordCount": s.changelog_record_count,
                "schemaId": s.schema_id,
                "version": s.version,
                "commitUser": s.commit_user,
                "commitIdentifier": s.commit_identifier,
                "timeMillis": s.time_millis,
                "baseManifestList": s.base_manifest_list,
                "deltaManifestList": s.delta_manifest_list,
                "changelogManifestList": s.changelog_manifest_list,
                "indexManifest": s.index_manifest,
                "watermark": s.watermark,
            }
        )
    return {"snapshots": out}


def op_schema(req: dict) -> dict:
    table = _table(req)
    return {
        "fields": [{"id": f.id, "name": f.name, "type": str(f.type)} for f in table.fields],
        "partition_keys": list(table.partition_keys),
        "primary_keys": list(table.primary_keys),
        "options": dict(table.table_schema.options),
    }


def op_list_databases(req: dict) -> dict:
    return {"databases": sorted(_catalog(req).list_databases())}


def op_list_tables(req: dict) -> dict:
    return {"tables": sorted(_catalog(req).list_tables(req["database"]))}


def op_rename_table(req: dict) -> dict:
    _catalog(req).rename_table(req["table"], req["new_table"])
    return {"renamed": req["new_table"]}


def op_drop_table(req: dict) -> dict:
    _catalog(req).drop_table(req["table"], bool(req.get("ignore_if_missing", False)))
    return {"dropped": req["table"]}


_CATALOG_METHODS = (
    "create_tag",
    "get_tag",
    "list_tags_paged",
    "delete_tag",
    "create_branch",
    "drop_branch",
    "rename_branch",
    "fast_forward",
    "list_branches",
    "list_partitions_paged",
)


def _plain(value: Any) -> Any:
    """A catalog answer as JSON: dataclasses (PagedList, GetTagResponse, Partition...) as
    dicts of their fields, recursively."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def op_catalog(req: dict) -> dict:
    """``method`` (one of _CATALOG_METHODS) of pypaimon's catalog with ``args``/``kwargs``: the
    version operations of its REST client (tags, branches, partitions)."""
    method = req["method"]
    if method not in _CATALOG_METHODS:
        raise ValueError(f"catalog method {method!r} is not one of {_CATALOG_METHODS}")
    out = getattr(_catalog(req), method)(*(req.get("args") or []), **(req.get("kwargs") or {}))
    return {"result": _plain(out)}


def op_ping(req: dict) -> dict:
    import pypaimon

    return {
        "pypaimon": getattr(pypaimon, "__version__", None) or _dist_version("pypaimon"),
        "pyarrow": pa.__version__,
        "python": sys.version.split()[0],
    }


def _dist_version(name: str) -> str | None:
    from importlib.metadata import version

    try:
        return version(name)
    except Exception:  # noqa: BLE001
        return None


OPS = {
    "ping": op_ping,
    "read": op_read,
    "create_table": op_create_table,
    "write": op_write,
    "snapshots": op_snapshots,
    "schema": op_schema,
    "list_databases": op_list_databases,
    "list_tables": op_list_tables,
    "rename_table": op_rename_table,
    "drop_table": op_drop_table,
    "catalog": op_catalog,
}


def run_batch(requests: list[dict]) -> list[dict]:
    results = []
    for req in requests:
        try:
            _JAVA09_COMPAT[0] = bool(req.get("java09_compat", False))
            if _JAVA09_COMPAT[0]:
                _install_java09_compat()
            fn = OPS.get(req.get("op"))
            if fn is None:
                raise ValueError(f"unknown op: {req.get('op')!r} (pypaimon driver has {sorted(OPS)})")
            results.append(fn(req))
        except Exception as e:  # noqa: BLE001
            results.append(
                {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc().splitlines()[-30:]}
            )
    return results


def main() -> None:
    """stdin: one JSON array of requests; stdout: the array of results. With ``--serve``: one
    array per line in, one per line out, until stdin closes (the harness keeps it warm)."""
    out = sys.stdout
    sys.stdout = sys.stderr  # library prints must not corrupt the JSON answer
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8")
    if sys.argv[1:] == ["--serve"]:
        for line in stdin:
            if line.strip():
                out.write(json.dumps(run_batch(json.loads(line)), ensure_ascii=False, allow_nan=False) + "\n")
                out.flush()
        return
    out.write(json.dumps(run_batch(json.load(stdin)), ensure_ascii=False, allow_nan=False))
    out.flush()


if __name__ == "__main__":
    main()
