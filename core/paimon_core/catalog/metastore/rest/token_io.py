"""A table's storage reached with the credentials its REST server vends (``data-token.enabled``):
``GET .../tables/T/token`` answers ``{token: {key: value}, expiresAt: millis}``.

Invariants: every filesystem use goes through credentials that are not about to expire: the
token is fetched on first use and again once less than ``refresh_margin`` of its lifetime is
left (half of it, at most ``MAX_MARGIN_MS``), so a new token is in hand before the old one
expires; the options the catalog was given for storage stay, and the token's credentials
replace any given under another name. Token keys are Paimon's (``fs.s3.accessKeyId``,
``fs.s3.accessKeySecret``, ``fs.s3.securityToken``, ``fs.s3.endpoint``, ``fs.s3.region``, and
Java's ``fs.s3a.access-key``/``secret-key``/``session-token``/``endpoint``/
``path.style.access``); keys this module does not know are ignored.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from paimon_core.storage.file_io import FileIO
from paimon_core.storage.s3 import canonical_option

MAX_MARGIN_MS = 300_000
TOKEN_KEYS = {
    "fs.s3.accessKeyId": "key",
    "fs.s3a.access-key": "key",
    "fs.s3.accessKeySecret": "secret",
    "fs.s3a.secret-key": "secret",
    "fs.s3.securityToken": "token",
    "fs.s3a.session-token": "token",
    "fs.s3.endpoint": "endpoint",
    "fs.s3a.endpoint": "endpoint",
    "fs.s3.region": "region",
    "fs.s3a.endpoint.region": "region",
    "fs.s3a.path.style.access": "path_style",
}


def storage_options(base: dict, token: dict) -> dict:
    """``base`` with the token's credentials in our storage option names (they win)."""
    vended = {TOKEN_KEYS[k]: v for k, v in token.items() if k in TOKEN_KEYS}
    kept = {k: v for k, v in base.items() if canonical_option(k) not in vended}
    return {**kept, **vended}


class TokenFileIO(FileIO):
    """FileIO whose filesystems are rebuilt from a fresh token before the current one expires."""

    def __init__(self, root_uri: str, base_options: dict | None, fetch: Callable[[], tuple[dict, int]]):
        super().__init__(root_uri, base_options)
        self._uri = root_uri
        self._base = dict(base_options or {})
        self._fetch = fetch
        self._lock = threading.Lock()
        self._current: FileIO | None = None
        self.expires_at = 0  # millis of the token in use
        self.refresh_at = 0
        self.fetches = 0

    def _io(self) -> FileIO:
        with self._lock:
            now = int(time.time() * 1000)
            if self._current is None or now >= self.refresh_at:
                token, expires = self._fetch()
                self.fetches += 1
                self.storage_options = storage_options(self._base, token)
                self._current = FileIO(self._uri, self.storage_options)
                self.expires_at = expires
                self.refresh_at = expires - min(max(expires - now, 0) // 2, MAX_MARGIN_MS)
            return self._current

    def __reduce__(self):  # a copy for another process: a plain FileIO with the credentials in use now
        self._io()
        return (FileIO, (self._uri, self.storage_options))

    @property
    def s3_options(self):  # type: ignore[override]
        return self._io().s3_options

    @property
    def fs(self):  # type: ignore[override]
        return self._io().fs

    @property
    def arrow_fs(self):  # type: ignore[override]
        return self._io().arrow_fs
