"""A schema-free reader and writer of Thrift's compact protocol (the encoding of a Parquet footer).

A struct decodes to a :class:`Struct`: its fields in wire order as ``(field id, wire type, value)``,
whatever their ids, so a caller changes the fields it knows and every other field (including ones
newer than this module) is written back untouched. Values: ``bool`` (wire types 1/2), ``int``
(byte, i16, i32, i64), ``float`` (double), ``bytes`` (binary and string), :class:`ThriftList`
(list and set), :class:`ThriftMap` and :class:`Struct`.

Invariant: ``encode(decode(b)) == b`` for every message a standard compact writer produced (field
headers use the short delta form when the id grows by 1..15, list headers the short size form
below 15 elements, integers minimal zigzag varints); decoding then encoding a message of any
other writer gives a message that decodes equal.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)
_INTS = (I16, I32, I64)


class ThriftError(ValueError):
    """The bytes are not a well-formed compact-protocol message."""


@dataclass
class ThriftList:
    elem_type: int
    items: list
    is_set: bool = False


@dataclass
class ThriftMap:
    key_type: int
    value_type: int
    items: list[tuple]


@dataclass
class Struct:
    fields: list[tuple[int, int, object]] = field(default_factory=list)

    def get(self, fid: int, default=None):
        """The value of field ``fid``, or ``default`` when absent."""
        for f, _, v in self.fields:
            if f == fid:
                return v
        return default

    def set(self, fid: int, ttype: int, value) -> None:
        """Sets field ``fid`` (replacing it where present, else inserted in id order)."""
        for i, (f, _, _) in enumerate(self.fields):
            if f == fid:
                self.fields[i] = (fid, ttype, value)
                return
        at = next((i for i, (f, _, _) in enumerate(self.fields) if f > fid), len(self.fields))
        self.fields.insert(at, (fid, ttype, value))


def bool_type(value: bool) -> int:
    """The wire type of a boolean field holding ``value``."""
    return TRUE if value else FALSE


class _Reader:
    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise ThriftError("compact message ends early")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ThriftError("compact message ends early")
        out = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return out

    def varint(self) -> int:
        out, shift = 0, 0
        while True:
            b = self.byte()
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
            if shift > 70:
                raise ThriftError("varint longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, ttype: int):
        if ttype in (TRUE, FALSE):  # a bool in a list or map: one byte, 1 = true
            return self.byte() == TRUE
        if ttype == BYTE:
            b = self.byte()
            return b - 256 if b > 127 else b
        if ttype in _INTS:
            return self.zigzag()
        if ttype == DOUBLE:
            return struct.unpack("<d", self.take(8))[0]
        if ttype == BINARY:
            return self.take(self.varint())
        if ttype in (LIST, SET):
            head = self.byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return ThriftList(elem, [self.value(elem) for _ in range(size)], ttype == SET)
        if ttype == MAP:
            size = self.varint()
            if size == 0:
                return ThriftMap(0, 0, [])
            kinds = self.byte()
            k, v = kinds >> 4, kinds & 0x0F
            return ThriftMap(k, v, [(self.value(k), self.value(v)) for _ in range(size)])
        if ttype == STRUCT:
            return self.struct()
        raise ThriftError(f"unknown compact type {ttype}")

    def struct(self) -> Struct:
        out, last = Struct(), 0
        while True:
            head = self.byte()
            ttype = head & 0x0F
            if ttype == STOP:
                return out
            delta = head >> 4
            fid = last + delta if delta else self.zigzag()
            value = ttype == TRUE if ttype in (TRUE, FALSE) else self.value(ttype)
            out.fields.append((fid, ttype, value))
            last = fid


def decode(data: bytes) -> Struct:
    """The struct encoded in all of ``data``."""
    r = _Reader(data)
    out = r.struct()
    if r.pos != len(data):
        raise ThriftError(f"{len(data) - r.pos} bytes after the struct")
    return out


def _varint(out: bytearray, n: int) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _zigzag(out: bytearray, n: int) -> None:
    _varint(out, (n << 1) ^ (n >> 63) if n < 0 else n << 1)


def _value(out: bytearray, ttype: int, v) -> None:
    if ttype in (TRUE, FALSE):
        out.append(TRUE if v else FALSE)
    elif ttype == BYTE:
        out.append(v & 0xFF)
    elif ttype in _INTS:
        _zigzag(out, v)
    elif ttype == DOUBLE:
        out += struct.pack("<d", v)
    elif ttype == BINARY:
        _varint(out, len(v))
        out += v
    elif ttype in (LIST, SET):
        n = len(v.items)
        if n < 15:
            out.append(n << 4 | v.elem_type)
        else:
            out.append(0xF0 | v.elem_type)
            _varint(out, n)
        for item in v.items:
            _value(out, v.elem_type, item)
    elif ttype == MAP:
        _varint(out, len(v.items))
        if v.items:
            out.append(v.key_type << 4 | v.value_type)
            for k, val in v.items:
                _value(out, v.key_type, k)
                _value(out, v.value_type, val)
    elif ttype == STRUCT:
        _struct(out, v)
    else:
        raise ThriftError(f"unknown compact type {ttype}")


def _struct(out: bytearray, s: Struct) -> None:
    last = 0
    for fid, ttype, v in s.fields:
        if ttype in (TRUE, FALSE):
            ttype = bool_type(bool(v))
        if 0 < fid - last <= 15:
            out.append((fid - last) << 4 | ttype)
        else:
            out.append(ttype)
            _zigzag(out, fid)
        if ttype not in (TRUE, FALSE):
            _value(out, ttype, v)
        last = fid
    out.append(STOP)


def encode(s: Struct) -> bytes:
    """The compact encoding of ``s``."""
    out = bytearray()
    _struct(out, s)
    return bytes(out)
