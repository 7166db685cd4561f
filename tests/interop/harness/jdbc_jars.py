"""The JDBC driver jars Java Paimon's JdbcCatalog needs in the catalog interop tests
(PostgreSQL and SQLite), fetched once from Maven Central into the interop cache (SHA-1 pinned,
see maven.py); the download runs under the cache's file lock.
"""

from __future__ import annotations

import os

from ._common import cache_root, file_lock
from .maven import MavenJar, fetch_jars

# drivers without runtime dependencies of their own
JARS = (
    MavenJar("org.postgresql", "postgresql", "42.7.4", "264310fd7b2cd76738787dc0b9f7ea2e3b11adc1"),
    MavenJar("org.xerial", "sqlite-jdbc", "3.42.0.0", "a4c84376df810062d20c84777b84ec077b5ecdab"),
)

__all__ = ["ensure_jdbc_jars"]


def ensure_jdbc_jars(cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """Paths of the PostgreSQL and SQLite JDBC driver jars in ``<cache>/java/jdbc`` (downloaded
    on first use)."""
    root = cache_root(cache_dir) / "java" / "jdbc"
    root.mkdir(parents=True, exist_ok=True)
    with file_lock(root / ".lock"):
        return [str(p) for p in fetch_jars(root, JARS)]
