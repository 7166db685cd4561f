"""The vectorised CSV / JSON-lines text (``text_lines``) equals, byte for byte, the row-at-a-time
sinks ``-o csv`` / ``-o json`` print (``paimon_cli.output`` over ``paimon_cli.convert``), on random
tables of every column type: NULLs, empty strings and bytes, unicode, quotes, commas, CR/LF and
control characters, floats over the whole exponent range with NaN/Infinity/-0.0, every timestamp
precision, nested ARRAY / MAP / MULTISET / ROW values."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import math
import random
import struct

import pyarrow as pa
import pytest

from paimon_cli.convert import arrow_rows
from paimon_cli.output import CsvSink, JsonSink
from paimon_core.data.text_forms import text_column
from paimon_core.data.text_lines import csv_header, csv_lines, json_lines
from paimon_core.data.types import parse_type, to_arrow_type

TYPES = {
    "b": "BOOLEAN",
    "ti": "TINYINT",
    "si": "SMALLINT",
    "i": "INT",
    "bi": "BIGINT",
    "f": "FLOAT",
    "db": "DOUBLE",
    "dc": "DECIMAL(10, 2)",
    "dcl": "DECIMAL(38, 9)",
    "dc0": "DECIMAL(5, 0)",
    "s": "STRING",
    "c": "CHAR(3)",
    "by": "BYTES",
    "bn": "BINARY(2)",
    "d": "DATE",
    "tm": "TIME",
    "ts0": "TIMESTAMP(0)",
    "ts3": "TIMESTAMP(3)",
    "ts6": "TIMESTAMP(6)",
    "ts9": "TIMESTAMP(9)",
    "ltz0": "TIMESTAMP(0) WITH LOCAL TIME ZONE",
    "ltz3": "TIMESTAMP(3) WITH LOCAL TIME ZONE",
    "ltz6": "TIMESTAMP(6) WITH LOCAL TIME ZONE",
    "arr": "ARRAY<INT>",
    "arrs": "ARRAY<STRING>",
    "arrf": "ARRAY<DOUBLE>",
    "m": "MAP<STRING, INT>",
    "mi": "MAP<INT, DATE>",
    "mb": "MAP<BOOLEAN, BYTES>",
    "r": "ROW<x INT, `y z` STRING, w DATE, v TIMESTAMP(3)>",
    "ms": "MULTISET<STRING>",
    "deep": "ARRAY<ROW<k MAP<STRING, DECIMAL(5, 1)>, l ARRAY<ARRAY<FLOAT>>>>",
}
TEXTS = [
    "",
    "a",
    "NULL",
    "NA",
    'q"uo"te',
    "a,b",
    "line\nbreak",
    "cr\rlf\r\n",
    "tab\t",
    "ünïcødé ✓",
    "back\\slash",
    "ctl\x01\x08\x0c\x1f",
    "\u2028sep",
    " lead",
    "emoji 🎉",
]


def _float(rng: random.Random) -> float:
    pick = rng.random()
    if pick < 0.05:  # any bit pattern: every exponent, subnormals, NaN payloads
        return struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
    if pick < 0.1:
        return rng.choice([0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, 1e16, 1e15, 1e-5, 1e-4, 5e-324])
    if pick < 0.3:
        return float(rng.randint(-(10**18), 10**18)) / 10 ** rng.randint(0, 6)
    return rng.uniform(-1, 1) * 10.0 ** rng.randint(-30, 30)


def _value(rng: random.Random, t: pa.DataType, depth: int = 0):
    if rng.random() < 0.15:
        return None
    if pa.types.is_boolean(t):
        return rng.random() < 0.5
    if pa.types.is_integer(t):
        bits = t.bit_width - 1
        return rng.randint(-(2**bits), 2**bits - 1)
    if pa.types.is_floating(t):
        return _float(rng)
    if pa.types.is_decimal(t):
        digits = rng.randint(0, t.precision)
        unscaled = rng.randint(-(10**digits) + 1, 10**digits - 1)
        return decimal.Decimal(unscaled).scaleb(-t.scale)
    if pa.types.is_string(t):
        return rng.choice(TEXTS) + (str(rng.randint(0, 9)) if rng.random() < 0.3 else "")
    if pa.types.is_fixed_size_binary(t):
        return bytes(rng.randrange(256) for _ in range(t.byte_width))
    if pa.types.is_binary(t):
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 5)))
    if pa.types.is_date(t):
        return dt.date(1, 1, 1) + dt.timedelta(days=rng.randint(0, 3_652_058))
    if pa.types.is_time(t):
        return dt.time(
            rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.choice([0, 1000, 999_000])
        )
    if pa.types.is_timestamp(t):
        if t.unit == "ns":
            return pa.scalar(rng.randint(-(2**62), 2**62), t).value
        micros = rng.choice([0, rng.randrange(1_000_000)])
        if t.unit in ("s",):
            micros = 0
        elif t.unit == "ms":
            micros -= micros % 1000
        base = dt.datetime(1, 1, 1) + dt.timedelta(
            seconds=rng.randint(0, 315_537_897_599), microseconds=micros
        )
        return base.replace(tzinfo=dt.timezone.utc) if t.tz else base
    if pa.types.is_map(t):
        keys = {_value(rng, t.key_type, depth + 1) for _ in range(rng.randint(0, 3))} - {None}
        return [(k, _value(rng, t.item_type, depth + 1)) for k in keys]
    if pa.types.is_list(t):
        return [_value(rng, t.value_type, depth + 1) for _ in range(rng.randint(0, 3))]
    if pa.types.is_struct(t):
        return {t.field(i).name: _value(rng, t.field(i).type, depth + 1) for i in range(t.num_fields)}
    raise AssertionError(t)


def _table(seed: int, rows: int) -> pa.Table:
    rng = random.Random(seed)
    schema = pa.schema([(n, to_arrow_type(parse_type(s))) for n, s in TYPES.items()])
    data = {f.name: pa.array([_value(rng, f.type) for _ in range(rows)], f.type) for f in schema}
    return pa.table(data, schema=schema)


def _old(table: pa.Table, sink) -> bytes:
    buf = io.StringIO()
    s = sink(table.column_names, buf)
    s.write(arrow_rows(table))
    s.close()
    return buf.getvalue().encode()


@pytest.mark.parametrize("seed", range(6))
def test_csv_equals_the_row_sink(seed):
    t = _table(seed, 300)
    new = csv_header(t.column_names) + b"".join(b.to_pybytes() for b in csv_lines(t))
    assert new.decode().splitlines() == _old(t, CsvSink).decode().splitlines()
    assert new == _old(t, CsvSink)


@pytest.mark.parametrize("seed", range(6))
def test_json_lines_equal_the_row_sink(seed):
    t = _table(seed, 300)
    new = b"".join(b.to_pybytes() for b in json_lines(t))
    assert new.decode().splitlines() == _old(t, JsonSink).decode().splitlines()


def test_sliced_batches_render_their_own_rows():
    t = _table(7, 200)
    part = t.slice(37, 91)
    new = b"".join(b.to_pybytes() for b in csv_lines(part))
    assert new == _old(part, CsvSink).split(b"\n", 1)[1]
    assert b"".join(b.to_pybytes() for b in json_lines(part)) == _old(part, JsonSink)


def test_floats_read_as_python_repr():
    rng = random.Random(3)
    values = [_float(rng) for _ in range(20_000)] + [float(f"1e{e}") for e in range(-330, 310)]
    values += [-v for v in values]
    text = text_column(pa.array(values)).to_pylist()
    named = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
    assert text == [named.get(repr(v), repr(v)) for v in values]


def test_no_columns_and_no_rows():
    empty = pa.table({"a": pa.array([], pa.int32())})
    assert b"".join(b.to_pybytes() for b in csv_lines(empty)) == b""
    assert b"".join(b.to_pybytes() for b in json_lines(empty)) == b""


def test_fields_holding_every_control_byte_still_join():
    """Fields holding every control byte, commas and quotes join into the same text as the
    row sink writes (the join never reinterprets the bytes of a field)."""
    every = "".join(map(chr, range(1, 32))) + "\x7f,"
    t = pa.table({"s": [every, "a,b", None, ""], "n": pa.array([1, 2, 3, 4], pa.int32())})
    assert b"".join(b.to_pybytes() for b in csv_lines(t)) == _old(t, CsvSink).split(b"\n", 1)[1]
    t2 = pa.table({"s": ["x\x01,y", "plain"], "n": pa.array([1, 2], pa.int32())})
    assert b"".join(b.to_pybytes() for b in csv_lines(t2)) == b'"x\x01,y",1\nplain,2\n'
