"""BLOB descriptor columns (Paimon 1.4, ``blob-descriptor-field``): the data file stores, per
row, a serialized ``BlobDescriptor`` (a URI, an offset and a length) in place of the bytes, and a
reader fetches the bytes it points to through the table's file system, as Java's
``ColumnarRow.getBlob`` does (``UriReader.fromFile(table FileIO)``).

Serialized descriptor (little-endian): version byte (1 or 2); version 2: magic
``0x424C4F4244455343`` ("BLOBDESC", int64); URI length (int32) and its UTF-8 bytes; offset (int64);
length (int64, -1: to the end of the file).

Invariants: a value is the bytes ``[offset, offset + length)`` of the file the URI names, or the
read fails by name: a URI on another file system than the table's (``http://``, another bucket
scheme) is storage this reader cannot reach, and a range past the file's end is refused (never a
shorter value).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import pyarrow as pa

from paimon_core.errors import CorruptMetadata, UnsupportedFeature

if TYPE_CHECKING:
    from paimon_core.metadata.table_context import TableContext

MAGIC = 0x424C4F4244455343
VERSION = 2


def serialize(uri: str, offset: int, length: int) -> bytes:
    """A descriptor as Java's ``BlobDescriptor.serialize`` (version 2) writes it."""
    raw = uri.encode("utf-8")
    return struct.pack("<bqi", VERSION, MAGIC, len(raw)) + raw + struct.pack("<qq", offset, length)


def deserialize(data: bytes, where: str) -> tuple[str, int, int]:
    """(uri, offset, length) of a serialized descriptor; ``where`` names it in errors."""
    try:
        version = data[0]
        pos = 1
        if version > VERSION:
            raise CorruptMetadata(f"{where}: BLOB descriptor version {version} is newer than {VERSION}")
        if version > 1:
            (magic,) = struct.unpack_from("<q", data, pos)
            if magic != MAGIC:
                raise CorruptMetadata(f"{where}: value is not a BLOB descriptor (no BLOBDESC magic)")
            pos += 8
        (n,) = struct.unpack_from("<i", data, pos)
        uri = data[pos + 4 : pos + 4 + n].decode("utf-8")
        offset, length = struct.unpack_from("<qq", data, pos + 4 + n)
    except (IndexError, struct.error, UnicodeDecodeError):
        raise CorruptMetadata(f"{where}: truncated BLOB descriptor") from None
    return uri, offset, length


def _local_path(table: TableContext, uri: str, column: str) -> str:
    from paimon_core.storage.file_io import split_scheme

    path = table.io.path_of(uri)
    if path is not None:
        return path
    scheme = split_scheme(uri)[0]
    raise UnsupportedFeature(
        f"table {table.identifier}: BLOB column {column} holds a descriptor pointing to {uri}, in "
        f"other storage ({scheme}://) than the table's ({table.io.scheme}://), which this tool "
        "cannot reach"
    )


def resolve(table: TableContext, column: str, values: pa.ChunkedArray | pa.Array) -> pa.Array:
    """The bytes the descriptors of one column point to (NULL stays NULL)."""
    files: dict[str, bytes] = {}
    out: list[bytes | None] = []
    for v in values.to_pylist():
        if v is None:
            out.append(None)
            continue
        uri, offset, length = deserialize(v, f"table {table.identifier}, BLOB column {column}")
        path = _local_path(table, uri, column)
        if path not in files:
            try:
                files[path] = table.io.read_bytes(path)
            except FileNotFoundError:
                raise CorruptMetadata(
                    f"table {table.identifier}: BLOB column {column} points to {uri}, which is missing"
                ) from None
        data = files[path]
        end = len(data) if length < 0 else offset + length
        if offset < 0 or end > len(data):
            raise CorruptMetadata(
                f"table {table.identifier}: BLOB column {column} points past the end of {uri} "
                f"(bytes {offset}..{end}, the file has {len(data)})"
            )
        out.append(data[offset:end])
    return pa.array(out, pa.binary())
