"""The Paimon REST catalog OpenAPI spec (apache/paimon ``docs/static/rest-catalog-open-api.yaml``),
downloaded once into the interop cache from a pinned commit and checked by SHA-256; never
committed to this repository. A cached copy whose digest differs is refused, not used."""

from __future__ import annotations

import hashlib
import urllib.request
from pathlib import Path

from tests.interop.harness._common import InteropError, cache_root, file_lock

COMMIT = "5dacde516bf6e29b583aff8b32bab321bfc6e64f"
URL = f"https://raw.githubusercontent.com/apache/paimon/{COMMIT}/docs/static/rest-catalog-open-api.yaml"
SHA256 = "f389216f390b30ec9cf48a8fc8f3a84485d4a92ff19483bd860e5514a52b4082"


def spec_path(cache_dir: str | None = None) -> Path:
    """The verified spec file in the cache (downloaded on first use; InteropError when that fails)."""
    target = cache_root(cache_dir) / "rest-spec" / f"rest-catalog-open-api-{COMMIT[:12]}.yaml"
    with file_lock(target.with_name("lock")):
        if not target.exists():
            try:
                with urllib.request.urlopen(URL, timeout=60) as resp:
                    data = resp.read()
            except OSError as e:
                raise InteropError(
                    f"cannot download the REST spec {URL}: {e}; put that file at {target}"
                ) from None
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        if digest != SHA256:
            raise InteropError(f"{target}: SHA-256 {digest} is not the pinned {SHA256}")
    return target
