"""The compact-protocol codec: byte-exact round trips of real Parquet footers and hand-made messages."""

from __future__ import annotations

import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_core.fileformat import thrift_compact as tc


def _footer(table: pa.Table, **opts) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **opts)
    data = buf.getvalue()
    (n,) = struct.unpack("<i", data[-8:-4])
    return data[-8 - n : -8]


def _nested_table() -> pa.Table:
    point = pa.struct([("x", pa.float64()), ("y", pa.list_(pa.int16()))])
    return pa.table(
        {
            "i": pa.array([1, -2, None], pa.int64()),
            "s": ["a", None, "ccc" * 40],
            "b": [True, False, None],
            "d": pa.array([1.5, None, -0.0], pa.float64()),
            "dec": pa.array([None, 1, 2], pa.int64()).cast(pa.decimal128(30, 4)),
            "t": pa.array([0, None, 2**40], pa.timestamp("us", tz="UTC")),
            "l": [[1, 2], None, list(range(20))],
            "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int32())),
            "p": pa.array([{"x": 1.0, "y": [1]}, None, {"x": None, "y": None}], point),
            "bin": pa.array([b"\x00\xff", None, b""], pa.binary()),
        }
    )


SCHEMAS = {
    "flat": lambda: pa.table({"a": [1, 2, 3]}),
    "nested": _nested_table,
    "wide": lambda: pa.table({f"c{i}": [i, None] for i in range(40)}),
    "int96": lambda: pa.table({"n": pa.array([1, None], pa.timestamp("ns")), "k": [1, 2]}),
    "empty": lambda: pa.table({"a": pa.array([], pa.string())}),
}


@pytest.mark.parametrize("name", sorted(SCHEMAS))
@pytest.mark.parametrize("opts", [{}, {"use_deprecated_int96_timestamps": True, "compression": "zstd"}])
def test_pyarrow_footers_round_trip_byte_for_byte(name, opts):
    footer = _footer(SCHEMAS[name](), row_group_size=2, **opts)
    assert tc.encode(tc.decode(footer)) == footer


def test_decoded_footer_holds_the_parquet_fields():
    fmd = tc.decode(_footer(_nested_table()))
    assert fmd.get(3) == 3  # num_rows
    names = [e.get(4) for e in fmd.get(2).items]
    assert names[:3] == [b"schema", b"i", b"s"]
    assert fmd.get(6).startswith(b"parquet-cpp")  # created_by


def test_every_wire_type_round_trips():
    inner = tc.Struct([(1, tc.TRUE, True), (2, tc.FALSE, False)])
    msg = tc.Struct(
        [
            (1, tc.BYTE, -3),
            (2, tc.I16, -32768),
            (3, tc.I32, 2**31 - 1),
            (20, tc.I64, -(2**63)),  # a long jump: the field id is written in full
            (21, tc.DOUBLE, -1.25),
            (22, tc.BINARY, b"x" * 300),
            (23, tc.LIST, tc.ThriftList(tc.I32, list(range(-20, 20)))),
            (24, tc.SET, tc.ThriftList(tc.BINARY, [b"a"], is_set=True)),
            (25, tc.MAP, tc.ThriftMap(tc.BINARY, tc.STRUCT, [(b"k", inner)])),
            (26, tc.MAP, tc.ThriftMap(0, 0, [])),
            (27, tc.LIST, tc.ThriftList(tc.TRUE, [True, False, True])),
            (28, tc.STRUCT, inner),
            (29, tc.TRUE, True),
        ]
    )
    data = tc.encode(msg)
    assert tc.decode(data) == msg
    assert tc.encode(tc.decode(data)) == data


def test_set_replaces_or_inserts_in_id_order():
    s = tc.Struct([(1, tc.I32, 1), (4, tc.BINARY, b"n"), (9, tc.I32, 0)])
    s.set(6, tc.I32, 9)
    s.set(4, tc.BINARY, b"m")
    assert [f for f, _, _ in s.fields] == [1, 4, 6, 9]
    assert s.get(4) == b"m" and s.get(6) == 9 and s.get(7, "none") == "none"
    assert tc.decode(tc.encode(s)) == s


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\x15", "ends early"),  # an i32 field without its value
        (b"\x18\x05ab", "ends early"),  # a binary shorter than its length
        (b"\x1d\x00", "unknown compact type 13"),
        (b"\x00\x00", "bytes after the struct"),
    ],
)
def test_malformed_messages_are_refused(data, message):
    with pytest.raises(tc.ThriftError, match=message):
        tc.decode(data)
