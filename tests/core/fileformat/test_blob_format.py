"""The ``.blob`` file format (``fileformat/blob.py``): our writer gives back, byte for byte, every
``.blob`` file Java wrote in the ``multi-blob-orc-1.4`` fixture from the values it holds; a
damaged record or index is refused by name, never read as a wrong value."""

from __future__ import annotations

import pytest

from paimon_core.errors import CorruptMetadata
from paimon_core.fileformat.blob import BlobFileWriter, read_values
from tests.java1x import table_dir


def _write(values) -> bytes:
    w = BlobFileWriter()
    for v in values:
        w.add(v)
    return w.finish()


def test_java_blob_files_rewrite_byte_for_byte():
    _, _, table = table_dir("multi-blob-orc-1.4")
    files = sorted(table.glob("bucket-0/*.blob"))
    assert len(files) == 6
    for f in files:
        data = f.read_bytes()
        values = read_values(data, str(f))
        assert values and all(v is None or len(v) in (1024, 2048) for v in values)
        assert _write(values) == data, f.name


def test_round_trip_with_nulls_and_empty_values():
    values = [None, b"", b"\x00\xff" * 3000, None, b"x"]
    assert read_values(_write(values), "t.blob") == values
    assert read_values(_write([]), "t.blob") == []


@pytest.mark.parametrize("where", [0, 6, -14, -1])
def test_damage_is_refused(where):
    data = bytearray(_write([b"abc", None, b"defg"]))
    data[where] ^= 0x01
    with pytest.raises(CorruptMetadata, match="blob file t.blob"):
        read_values(bytes(data), "t.blob")
