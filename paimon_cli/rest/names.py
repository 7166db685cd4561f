"""Names that arrive in URL path segments and request bodies. A segment is percent-decoded on
its own (so ``a%2Fb`` is the name ``a/b``, never two segments); a name with ``/``, ``\\``, ``..``
or a control character is refused before it reaches the catalog, whatever the catalog would do."""

from __future__ import annotations

from urllib.parse import unquote

from paimon_cli.rest.errors import RestError, bad_request


def segments(raw_path: bytes) -> list[str]:
    """The decoded segments of a request's raw path (``/v1/p/databases`` -> v1, p, databases)."""
    text = raw_path.decode("latin-1").split("?", 1)[0]
    return [unquote(s) for s in text.strip("/").split("/")] if text.strip("/") else []


MAX_NAME_BYTES = 250  # a name is a folder (a database's with ".db"): file systems allow 255 bytes


def checked(name: object, what: str) -> str:
    """``name`` if it is a usable database or table name, else a 400 naming it."""
    if not isinstance(name, str) or not name.strip():
        raise bad_request(f"missing {what} name")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise bad_request(
            f"{what} name of {len(name.encode('utf-8', 'surrogatepass'))} bytes: at most {MAX_NAME_BYTES} "
            "bytes (UTF-8), as it names a folder"
        )
    if "/" in name or "\\" in name or ".." in name or any(ord(c) < 32 for c in name):
        raise RestError(
            400, f"bad {what} name {name!r}: '/', '\\', '..' and control characters are not allowed"
        )
    return name
