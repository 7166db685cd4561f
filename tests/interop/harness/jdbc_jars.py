"""The JDBC driver jars Java Paimon 0.9's JdbcCatalog needs in the catalog interop tests
(PostgreSQL and SQLite), fetched once from Maven Central into the interop cache.

Each jar is checked against its pinned SHA-1 before it is moved into place, so a partial or
altered download is never used; the download runs under the cache's file lock.
"""

from __future__ import annotations

import hashlib
import os
import urllib.request
from pathlib import Path

from ._common import InteropError, cache_root, file_lock

MAVEN = "https://repo1.maven.org/maven2"
# (group path, artifact, version, sha1): drivers without runtime dependencies of their own
JARS = (
    ("org/postgresql", "postgresql", "42.7.4", "264310fd7b2cd76738787dc0b9f7ea2e3b11adc1"),
    ("org/xerial", "sqlite-jdbc", "3.42.0.0", "a4c84376df810062d20c84777b84ec077b5ecdab"),
)

__all__ = ["ensure_jdbc_jars"]


def _download(url: str, target: Path, sha1: str) -> None:
    part = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=120) as resp, open(part, "wb") as out:
            h = hashlib.sha1()
            while chunk := resp.read(1 << 16):
                h.update(chunk)
                out.write(chunk)
    except OSError as e:
        part.unlink(missing_ok=True)
        raise InteropError(f"cannot download {url}: {e}") from None
    if h.hexdigest() != sha1:
        part.unlink(missing_ok=True)
        raise InteropError(f"{url}: SHA-1 {h.hexdigest()} is not the pinned {sha1}")
    part.replace(target)


def ensure_jdbc_jars(cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Paths of the PostgreSQL and SQLite JDBC driver jars in ``<cache>/java/jdbc`` (downloaded
    on first use)."""
    root = cache_root(cache_dir) / "java" / "jdbc"
    root.mkdir(parents=True, exist_ok=True)
    out = []
    with file_lock(root / ".lock"):
        for group, artifact, version, sha1 in JARS:
            name = f"{artifact}-{version}.jar"
            target = root / name
            if not target.exists():
                _download(f"{MAVEN}/{group}/{artifact}/{version}/{name}", target, sha1)
            out.append(str(target))
    return out
