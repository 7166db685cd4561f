"""Serialized BLOB descriptors (``read/blob_descriptors.py``): Java's version 2 layout (and
version 1, without the magic) decoded; damage refused by name."""

from __future__ import annotations

import struct

import pytest

from paimon_core.errors import CorruptMetadata
from paimon_core.read.blob_descriptors import MAGIC, deserialize, serialize


def test_version_2_layout():
    data = serialize("/tmp/ä.bin", 7, -1)
    uri = "/tmp/ä.bin".encode()
    assert data == bytes([2]) + struct.pack("<q", MAGIC) + struct.pack("<i", len(uri)) + uri + struct.pack(
        "<qq", 7, -1
    )
    assert deserialize(data, "x") == ("/tmp/ä.bin", 7, -1)


def test_version_1_has_no_magic():
    data = bytes([1]) + struct.pack("<i", 3) + b"a/b" + struct.pack("<qq", 1, 2)
    assert deserialize(data, "x") == ("a/b", 1, 2)


@pytest.mark.parametrize(
    "data,message",
    [
        (serialize("/a", 0, 1)[:-3], "truncated"),
        (bytes([3]) + serialize("/a", 0, 1)[1:], "version 3"),
        (bytes([2]) + b"\0" * 8 + serialize("/a", 0, 1)[9:], "magic"),
    ],
)
def test_damaged_descriptors_are_refused(data, message):
    with pytest.raises(CorruptMetadata, match=message):
        deserialize(data, "table t, BLOB column b")
