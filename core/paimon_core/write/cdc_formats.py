"""Change events as capture tools emit them, turned into rows with row kinds: ``debezium-json``
(with or without the ``schema``/``payload`` envelope), ``canal-json``, ``maxwell-json`` and
``ogg-json``, one event per line.

Per event: an insert (or a snapshot read) is ``+I`` of the new row; an update ``-U`` of the old
row and ``+U`` of the new one (Canal and Maxwell send only the changed fields' old values: the
old row is the new one with those replaced); a delete ``-D`` of the old row. Events that carry no
row change (DDL, transaction markers, Maxwell's bootstrap start/end, Debezium tombstones) are
skipped; a truncate is refused by name (it is no row change Paimon can store).

Values are JSON values or text (Canal sends every value as text) and are decoded to the table's
types as any JSON input (``text_values``). With Debezium's envelope, the field types it names
turn its encodings into plain values first: ``Decimal`` (base64 of the unscaled bytes), ``Date``
(days), ``Timestamp`` / ``MicroTimestamp`` / ``NanoTimestamp`` (epoch units), ``Time`` /
``MicroTime`` / ``NanoTime``, ``ZonedTimestamp`` (text).
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Iterable
from dataclasses import dataclass, field

from paimon_core.errors import InvalidInput
from paimon_core.write.input_errors import InputLineError, json_line

CDC_FORMATS = ("debezium-json", "canal-json", "maxwell-json", "ogg-json")
ROW_KIND = "_row_kind"  # the column the decoded rows carry their kind in


@dataclass
class Changes:
    """Rows decoded from events, in event order; ``lines[i]`` is the input line of row i."""

    rows: list[dict] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    primary_keys: list[str] | None = None  # as the events name them (not Debezium's)
    types: dict = field(default_factory=dict)  # column -> the source's type text, where events say

    def add(self, kind: str, row: dict, line: int) -> None:
        self.rows.append(row)
        self.kinds.append(kind)
        self.lines.append(line)


def decode_events(lines: Iterable[tuple[int, bytes]], fmt: str, where: str) -> Changes:
    """The row changes of the events on ``lines`` ((line number, text) pairs)."""
    decode = _DECODERS.get(fmt)
    if decode is None:
        raise InvalidInput(f"unknown change-event format '{fmt}' (one of {', '.join(CDC_FORMATS)})")
    out = Changes()
    for line, text in lines:
        event = json_line(text, where, line)
        if event is None:
            continue  # a tombstone
        if not isinstance(event, dict):
            raise InputLineError(where, line, f"not a {fmt} event (a JSON object)")
        try:
            decode(event, out, line)
        except _BadEvent as e:
            raise InputLineError(where, line, f"not a {fmt} event: {e}") from None
    return out


class _BadEvent(ValueError):
    pass


def _maybe_obj(event: dict, key: str) -> dict | None:
    v = event.get(key)
    return None if v is None else _obj(event, key)


def _obj(event: dict, key: str) -> dict:
    v = event.get(key)
    if not isinstance(v, dict):
        raise _BadEvent(f"'{key}' is {'missing' if v is None else 'not an object'}")
    return v


def _keys(out: Changes, names) -> None:
    if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
        if out.primary_keys is None:
            out.primary_keys = list(names)
        elif out.primary_keys != list(names):
            raise _BadEvent(
                f"its primary key ({', '.join(names)}) differs from earlier events' ({', '.join(out.primary_keys)})"
            )


# ---- Debezium


def _debezium(event: dict, out: Changes, line: int) -> None:
    types = None
    if "payload" in event and "schema" in event:
        types = _debezium_types(event.get("schema"))
        event = event["payload"]
        if event is None:
            return  # a tombstone in an envelope
        if not isinstance(event, dict):
            raise _BadEvent("'payload' is not an object")
    op = event.get("op")
    if op is None:
        if "ddl" in event or "historyRecord" in event or "tableChanges" in event:
            return  # a schema-change event
        raise _BadEvent("no 'op'")
    before, after = _maybe_obj(event, "before"), _maybe_obj(event, "after")
    if types:
        before = _debezium_values(before, types, out)
        after = _debezium_values(after, types, out)
    if op in ("c", "r"):
        out.add("+I", _required(after, "after", op), line)
    elif op == "u":
        out.add("-U", _required(before, "before", op), line)
        out.add("+U", _required(after, "after", op), line)
    elif op == "d":
        out.add("-D", _required(before, "before", op), line)
    elif op == "t":
        raise _BadEvent(
            "a truncate ('op': 't') is not a row change: replace the table's rows with an overwrite instead"
        )
    elif op == "m":
        return  # a logical decoding message
    else:
        raise _BadEvent(f"unknown 'op' {op!r} (c, r, u or d)")


def _required(row: dict | None, key: str, op) -> dict:
    if row is None:
        raise _BadEvent(f"'op' {op!r} without '{key}'")
    return row


def _debezium_types(schema) -> dict | None:
    """Field name -> (type, semantic name, parameters) of the row in an envelope's schema."""
    if not isinstance(schema, dict):
        return None
    for part in schema.get("fields") or []:
        if isinstance(part, dict) and part.get("field") in ("after", "before") and part.get("fields"):
            return {
                f["field"]: (f.get("type"), f.get("name"), f.get("parameters") or {})
                for f in part["fields"]
                if isinstance(f, dict) and "field" in f
            }
    return None


_EPOCH = datetime.datetime(1970, 1, 1)
_DATE0 = datetime.date(1970, 1, 1)
_TICKS = {
    "io.debezium.time.Timestamp": 3,
    "io.debezium.time.MicroTimestamp": 6,
    "io.debezium.time.NanoTimestamp": 9,
    "io.debezium.time.Time": 3,
    "io.debezium.time.MicroTime": 6,
    "io.debezium.time.NanoTime": 9,
}


def _debezium_values(row: dict | None, types: dict, out: Changes) -> dict | None:
    if row is None:
        return None
    decoded = {}
    for name, v in row.items():
        kind, semantic, params = types.get(name, (None, None, {}))
        if kind is not None:
            out.types.setdefault(name, _debezium_type_text(kind, semantic, params))
        decoded[name] = v if v is None else _debezium_value(v, semantic, params)
    return decoded


def _debezium_value(v, semantic: str | None, params: dict):
    if semantic == "org.apache.kafka.connect.data.Decimal" and isinstance(v, str):
        scale = int(params.get("scale", 0))
        unscaled = int.from_bytes(base64.b64decode(v), "big", signed=True)
        return str(decimal.Decimal(unscaled).scaleb(-scale))
    if semantic in ("io.debezium.time.Date", "org.apache.kafka.connect.data.Date") and isinstance(v, int):
        return (_DATE0 + datetime.timedelta(days=v)).isoformat()
    if semantic in _TICKS and isinstance(v, int):
        digits = _TICKS[semantic]
        seconds, frac = divmod(v, 10**digits)
        text = f"{frac:0{digits}d}"
        if semantic.endswith("Time"):
            clock = datetime.timedelta(seconds=seconds)
            h, rest = divmod(int(clock.total_seconds()), 3600)
            return f"{h:02d}:{rest // 60:02d}:{rest % 60:02d}.{text}"
        return (_EPOCH + datetime.timedelta(seconds=seconds)).isoformat(timespec="seconds") + "." + text
    return v


def _debezium_type_text(kind: str, semantic: str | None, params: dict) -> str:
    if semantic == "org.apache.kafka.connect.data.Decimal":
        precision = params.get("connect.decimal.precision", "38")
        return f"DECIMAL({precision}, {params.get('scale', 0)})"
    named = {
        "io.debezium.time.Date": "DATE",
        "org.apache.kafka.connect.data.Date": "DATE",
        "io.debezium.time.Timestamp": "TIMESTAMP(3)",
        "io.debezium.time.MicroTimestamp": "TIMESTAMP(6)",
        "io.debezium.time.NanoTimestamp": "TIMESTAMP(9)",
        "io.debezium.time.ZonedTimestamp": "TIMESTAMP(6) WITH LOCAL TIME ZONE",
        "io.debezium.time.Time": "TIME",
        "io.debezium.time.MicroTime": "TIME",
        "io.debezium.time.NanoTime": "TIME",
    }
    if semantic in named:
        return named[semantic]
    plain = {
        "int8": "TINYINT",
        "int16": "SMALLINT",
        "int32": "INT",
        "int64": "BIGINT",
        "float32": "FLOAT",
        "float64": "DOUBLE",
        "boolean": "BOOLEAN",
        "string": "STRING",
        "bytes": "BYTES",
    }
    return plain.get(kind, "STRING")


# ---- Canal


def _canal(event: dict, out: Changes, line: int) -> None:
    kind = str(event.get("type", "")).upper()
    if kind == "TRUNCATE":  # Canal marks it isDdl: it must not be skipped with the DDL
        raise _BadEvent("a TRUNCATE is not a row change: replace the table's rows with an overwrite instead")
    if event.get("isDdl"):
        return
    data = event.get("data")
    if kind in ("INSERT", "UPDATE", "DELETE"):
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise _BadEvent("'data' is not a list of rows")
    _keys(out, event.get("pkNames"))
    for name, mysql_type in (event.get("mysqlType") or {}).items():
        out.types.setdefault(name, _mysql_type_text(str(mysql_type)))
    if kind == "INSERT":
        for r in data or ():
            out.add("+I", r, line)
    elif kind == "UPDATE":
        old = event.get("old") or [{}] * len(data or ())
        if not isinstance(old, list) or len(old) != len(data or ()):
            raise _BadEvent("'old' does not match 'data'")
        for new, changed in zip(data or (), old, strict=True):
            out.add("-U", {**new, **(changed or {})}, line)
            out.add("+U", new, line)
    elif kind == "DELETE":
        for r in data or ():
            out.add("-D", r, line)
    elif kind == "TRUNCATE":
        raise _BadEvent("a TRUNCATE is not a row change: replace the table's rows with an overwrite instead")
    elif kind in ("CREATE", "ALTER", "ERASE", "QUERY", "CINDEX", "DINDEX", "RENAME"):
        return
    else:
        raise _BadEvent(f"unknown 'type' {event.get('type')!r} (INSERT, UPDATE or DELETE)")


def _mysql_type_text(t: str) -> str:
    """A MySQL column type as Canal names it (``int(11)``, ``decimal(10,2)``, ``varchar(255)``)."""
    base, _, args = t.lower().partition("(")
    base = base.replace(" unsigned", "").strip()
    args = args.rstrip(")").replace(" unsigned", "")
    simple = {
        "tinyint": "TINYINT",
        "smallint": "SMALLINT",
        "mediumint": "INT",
        "int": "INT",
        "integer": "INT",
        "bigint": "BIGINT",
        "float": "FLOAT",
        "double": "DOUBLE",
        "real": "DOUBLE",
        "date": "DATE",
        "time": "TIME",
        "boolean": "BOOLEAN",
        "bool": "BOOLEAN",
        "binary": "BYTES",
        "varbinary": "BYTES",
        "blob": "BYTES",
        "tinyblob": "BYTES",
        "mediumblob": "BYTES",
        "longblob": "BYTES",
    }
    if "unsigned" in t.lower() and base in ("tinyint", "smallint", "mediumint", "int", "integer"):
        return {"tinyint": "SMALLINT", "smallint": "INT"}.get(base, "BIGINT")
    if "unsigned" in t.lower() and base == "bigint":
        return "DECIMAL(20, 0)"
    if base in ("decimal", "numeric"):
        parts = [p.strip() for p in args.split(",") if p.strip()]
        precision = parts[0] if parts else "10"
        return f"DECIMAL({precision}, {parts[1] if len(parts) > 1 else 0})"
    if base in ("datetime", "timestamp"):
        digits = args.strip() or "0"
        return f"TIMESTAMP({digits})"
    return simple.get(base, "STRING")


# ---- Maxwell


def _maxwell(event: dict, out: Changes, line: int) -> None:
    kind = str(event.get("type", ""))
    if kind in ("insert", "update", "delete", "bootstrap-insert"):
        _keys(out, event.get("primary_key_columns"))
    if kind in ("insert", "bootstrap-insert"):
        out.add("+I", _obj(event, "data"), line)
    elif kind == "update":
        new = _obj(event, "data")
        out.add("-U", {**new, **(_maybe_obj(event, "old") or {})}, line)
        out.add("+U", new, line)
    elif kind == "delete":
        out.add("-D", _obj(event, "data"), line)
    elif kind.startswith(("table-", "database-", "bootstrap-")) or kind == "heartbeat":
        return
    else:
        raise _BadEvent(f"unknown 'type' {kind!r} (insert, update or delete)")


# ---- Oracle GoldenGate


def _ogg(event: dict, out: Changes, line: int) -> None:
    op = str(event.get("op_type", ""))
    _keys(out, event.get("primary_keys"))
    if op == "I":
        out.add("+I", _obj(event, "after"), line)
    elif op == "U":
        out.add("-U", _obj(event, "before"), line)
        out.add("+U", _obj(event, "after"), line)
    elif op == "D":
        out.add("-D", _obj(event, "before"), line)
    elif op == "T":
        raise _BadEvent(
            "a truncate ('op_type': 'T') is not a row change: replace the table's rows with an overwrite instead"
        )
    else:
        raise _BadEvent(f"unknown 'op_type' {op!r} (I, U or D)")


def _json_type(v) -> str | None:
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, int):
        return "BIGINT"
    if isinstance(v, float):
        return "DOUBLE"
    if isinstance(v, str):
        return "STRING"
    return None if v is None else "STRING"  # nested values keep their JSON text


def table_columns(changes: Changes) -> str:
    """Columns for a table that holds ``changes`` (``"id INT NOT NULL, name STRING"``), in the
    order the events first name them: the source's types where the events carry them (Debezium's
    envelope, Canal's ``mysqlType``), else from the JSON values (whole numbers BIGINT, others
    DOUBLE, text STRING); the primary key columns NOT NULL."""
    names: dict = {}
    for row in changes.rows:
        for k, v in row.items():
            if names.get(k) is None:
                names[k] = changes.types.get(k) or _json_type(v)
    keys = set(changes.primary_keys or ())
    return ", ".join(f"`{n}` {t or 'STRING'}{' NOT NULL' if n in keys else ''}" for n, t in names.items())


_DECODERS = {"debezium-json": _debezium, "canal-json": _canal, "maxwell-json": _maxwell, "ogg-json": _ogg}

__all__ = ["CDC_FORMATS", "ROW_KIND", "Changes", "decode_events", "table_columns"]
