"""Jars fetched once from Maven Central into the interop cache, each checked against a pinned digest.

A jar is downloaded to ``<name>.part``, hashed while it streams, and moved into place only when
its digest equals the pinned one, so a partial or altered download is never used. Callers hold
the cache's file lock around ``fetch_jars``.
"""

from __future__ import annotations

import hashlib
import urllib.request
from pathlib import Path
from typing import NamedTuple

from ._common import InteropError

MAVEN = "https://repo1.maven.org/maven2"

__all__ = ["MavenJar", "fetch_jars"]


class MavenJar(NamedTuple):
    """One artifact's jar: ``digest`` is its SHA-1 (40 hex digits) or SHA-256 (64 hex digits)."""

    group: str  # dotted, e.g. "org.apache.paimon"
    artifact: str
    version: str
    digest: str

    @property
    def file_name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"

    @property
    def url(self) -> str:
        return f"{MAVEN}/{self.group.replace('.', '/')}/{self.artifact}/{self.version}/{self.file_name}"


def _download(jar: MavenJar, target: Path) -> None:
    algo = {40: "sha1", 64: "sha256"}.get(len(jar.digest))
    if algo is None:
        raise InteropError(f"{jar.file_name}: pinned digest must be a SHA-1 or SHA-256, not {jar.digest!r}")
    part = target.with_name(target.name + ".part")
    h = hashlib.new(algo)
    try:
        with urllib.request.urlopen(jar.url, timeout=300) as resp, open(part, "wb") as out:
            while chunk := resp.read(1 << 16):
                h.update(chunk)
                out.write(chunk)
    except OSError as e:
        part.unlink(missing_ok=True)
        raise InteropError(f"cannot download {jar.url}: {e}") from None
    if h.hexdigest() != jar.digest:
        part.unlink(missing_ok=True)
        raise InteropError(f"{jar.url}: {algo.upper()} {h.hexdigest()} is not the pinned {jar.digest}")
    part.replace(target)


def fetch_jars(root: Path, jars: tuple[MavenJar, ...]) -> list[Path]:
    """Paths of ``jars`` in ``root`` (each downloaded and verified on first use)."""
    root.mkdir(parents=True, exist_ok=True)
    out = []
    for jar in jars:
        target = root / jar.file_name
        if not target.exists():
            _download(jar, target)
        out.append(target)
    return out
