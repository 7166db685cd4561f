"""The ``.blob`` file format (Paimon 1.4): the values of one BLOB column, one record per row.

Layout, as Java's ``BlobFormatWriter`` writes it (all integers little-endian):

* per non-NULL row a record: magic ``0x584E11CF`` (4 bytes), the value's bytes, the record's
  length (8 bytes: 4 + value + 12), then the CRC-32 of the magic, value and length (4 bytes);
  a NULL row writes no record;
* then the index: each row's record length (-1 for NULL), delta-encoded, zig-zag and varint
  coded (Java's ``DeltaVarintCompressor``); then the index's length (4 bytes) and the version
  byte 1.

Invariants: a file's rows are ``first_row_id .. first_row_id + row_count - 1`` of the column its
``_WRITE_COLS`` names; the reader checks magic, length and CRC of every record it returns and
refuses a file whose index does not describe its records (never a wrong value).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from typing import BinaryIO

from paimon_core.errors import CorruptMetadata

MAGIC = 1481511375
VERSION = 1
EXTENSION = ".blob"
_MAGIC_BYTES = struct.pack("<i", MAGIC)
_OVERHEAD = 16  # magic + length + CRC around each value


def is_blob_file(file_name: str) -> bool:
    """Java's ``BlobFileFormat.isBlobFile``: the name ends with ``.blob``."""
    return file_name.endswith(EXTENSION)


def _varints(values: Sequence[int]) -> bytes:
    out = bytearray()
    prev = 0
    for i, v in enumerate(values):
        delta = v if i == 0 else v - prev
        prev = v
        z = ((delta << 1) ^ (delta >> 63)) & 0xFFFFFFFFFFFFFFFF
        while z & ~0x7F:
            out.append((z & 0x7F) | 0x80)
            z >>= 7
        out.append(z)
    return bytes(out)


def _unvarints(data: bytes, path: str) -> list[int]:
    out: list[int] = []
    acc = shift = 0
    for b in data:
        acc |= (b & 0x7F) << shift
        if b & 0x80:
            shift += 7
            if shift > 63:
                raise CorruptMetadata(f"blob file {path} has a bad index (varint overflow)")
            continue
        delta = (acc >> 1) ^ -(acc & 1)
        out.append(delta if not out else out[-1] + delta)
        acc = shift = 0
    if shift:
        raise CorruptMetadata(f"blob file {path} has a truncated index")
    return out


def record(value: bytes) -> bytes:
    """One value's record (magic, bytes, length, CRC)."""
    head = _MAGIC_BYTES + value + struct.pack("<q", len(value) + _OVERHEAD)
    return head + struct.pack("<I", zlib.crc32(head) & 0xFFFFFFFF)


def footer(lengths: Sequence[int]) -> bytes:
    """The index of a file whose rows have these record lengths (-1: NULL), its size, version."""
    index = _varints(lengths)
    return index + struct.pack("<i", len(index)) + bytes([VERSION])


def read_values(data: bytes, path: str) -> list[bytes | None]:
    """Every row's value of a ``.blob`` file's bytes (None for NULL)."""
    if len(data) < 5 or data[-1] != VERSION:
        version = data[-1] if data else None
        raise CorruptMetadata(f"blob file {path} is unreadable: unsupported version {version}")
    (index_len,) = struct.unpack_from("<i", data, len(data) - 5)
    start = len(data) - 5 - index_len
    if index_len < 0 or start < 0:
        raise CorruptMetadata(f"blob file {path} is unreadable: bad index length {index_len}")
    lengths = _unvarints(data[start : len(data) - 5], path)
    out: list[bytes | None] = []
    pos = 0
    for n in lengths:
        if n == -1:
            out.append(None)
            continue
        end = pos + n
        if n < _OVERHEAD or end > start or data[pos : pos + 4] != _MAGIC_BYTES:
            raise CorruptMetadata(f"blob file {path} is unreadable: bad record at byte {pos}")
        (stored_len,) = struct.unpack_from("<q", data, end - 12)
        (crc,) = struct.unpack_from("<I", data, end - 4)
        if stored_len != n or zlib.crc32(data[pos : end - 4]) & 0xFFFFFFFF != crc:
            raise CorruptMetadata(f"blob file {path} is unreadable: record at byte {pos} fails its check")
        out.append(data[pos + 4 : end - 12])
        pos = end
    if pos != start:
        raise CorruptMetadata(f"blob file {path} is unreadable: its index does not cover its records")
    return out


class BlobFileWriter:
    """Streams one ``.blob`` file to ``sink`` (a binary stream; None: kept in memory, for tests);
    ``size`` is the bytes of its records so far (Java rolls a blob file once that reaches
    ``blob.target-file-size``, checked after each row)."""

    def __init__(self, sink: BinaryIO | None = None) -> None:
        self._sink = sink
        self._parts: list[bytes] = []
        self._lengths: list[int] = []
        self.size = 0

    @property
    def row_count(self) -> int:
        return len(self._lengths)

    def add(self, value: bytes | None) -> None:
        if value is None:
            self._lengths.append(-1)
            return
        rec = record(value)
        if self._sink is None:
            self._parts.append(rec)
        else:
            self._sink.write(rec)
        self._lengths.append(len(rec))
        self.size += len(rec)

    def finish(self) -> bytes:
        """Writes the index; the whole file when kept in memory, else its footer (the caller
        closes the sink)."""
        tail = footer(self._lengths)
        if self._sink is None:
            return b"".join(self._parts) + tail
        self._sink.write(tail)
        return tail

    @property
    def file_size(self) -> int:
        return self.size + len(footer(self._lengths))
