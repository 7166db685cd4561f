"""DLF credentials (an access key id, its secret, an optional STS security token and expiry) and
where a client gets them: the catalog options, a local token file, or an ECS-style metadata
service. ``DlfCredentials`` answers the current token of one source and loads it again when due.

The facts (Paimon 1.4.2's and 2.0.0's ``DLFToken``, ``DLFLocalFileTokenLoader``,
``DLFECSTokenLoader`` and ``DLFAuthProvider``): a token is JSON with ``AccessKeyId``,
``AccessKeySecret``, ``SecurityToken`` and an optional ``Expiration`` (``yyyy-MM-ddTHH:mm:ssZ``,
UTC); other fields are ignored. A token is loaded on first use and again whenever it expires
within an hour (``TOKEN_EXPIRATION_SAFE_TIME_MILLIS``); a token without ``Expiration`` is never
reloaded. The file loader reads ``dlf.token-path``, trying 5 times with a pause of 1, 2, 3... s
after each failure (a file caught mid-write parses on a later try); an error never shows the
file's text. The ECS loader asks ``dlf.token-ecs-metadata-url`` (default
``http://100.100.100.200/latest/meta-data/Ram/security-credentials/``) for the role name unless
``dlf.token-ecs-role-name`` gives it (once; it is kept), then GETs the URL with the role name
appended for the token.

Ours beyond Java: a token file is also read again as soon as it changes (its size, mtime or inode),
so a rotated key is used from the next request even when the old one has no expiry.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from paimon_core.errors import CatalogUnavailable, InvalidInput

SAFE_MARGIN_MS = 3_600_000
FILE_TRIES = 5
_EXPIRATION = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class DlfToken:
    access_key_id: str
    access_key_secret: str
    security_token: str | None = None
    expiration_ms: int | None = None  # epoch millis, None: never expires

    def __repr__(self) -> str:  # never the secret
        return f"DlfToken(access_key_id={self.access_key_id!r}, expiration_ms={self.expiration_ms})"

    @staticmethod
    def from_json(text: str | bytes) -> DlfToken:
        """The token of a JSON document with Java's field names; ValueError (without the text,
        which holds the secret) when it is not one."""
        try:
            doc = json.loads(text)
        except ValueError:
            raise ValueError("not a JSON DLF token") from None
        if not isinstance(doc, dict) or not doc.get("AccessKeyId") or not doc.get("AccessKeySecret"):
            raise ValueError("a DLF token needs AccessKeyId and AccessKeySecret")
        expiration = doc.get("Expiration")
        when = None
        if expiration:
            try:
                at = datetime.strptime(expiration, _EXPIRATION).replace(tzinfo=timezone.utc)
            except (TypeError, ValueError):
                raise ValueError(f"DLF token Expiration {expiration!r} is not yyyy-MM-ddTHH:mm:ssZ") from None
            when = int(at.timestamp() * 1000)
        return DlfToken(
            str(doc["AccessKeyId"]), str(doc["AccessKeySecret"]), doc.get("SecurityToken") or None, when
        )


def due(token: DlfToken | None, now_ms: int) -> bool:
    """Whether a token must be loaded (again): none yet, or it expires within the safe margin."""
    if token is None:
        return True
    return token.expiration_ms is not None and token.expiration_ms - now_ms < SAFE_MARGIN_MS


class TokenFile:
    """A token file (``dlf.token-path``), read as Java reads it, and whether it changed since."""

    def __init__(self, path: str, tries: int = FILE_TRIES, sleep: Callable[[float], None] = time.sleep):
        self.path = path
        self.tries = tries
        self.sleep = sleep
        self._read_stamp: tuple | None = None

    def _stamp(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def changed(self) -> bool:
        return self._stamp() != self._read_stamp

    def load(self) -> DlfToken:
        why = ""
        for attempt in range(1, self.tries + 1):
            stamp = self._stamp()
            try:
                token = DlfToken.from_json(Path(self.path).read_bytes())
            except OSError as e:
                why = f"cannot read the DLF token file {self.path}: {e.strerror or e}"
            except ValueError as e:
                why = f"the DLF token file {self.path} is not a token ({e})"
            else:
                self._read_stamp = stamp
                return token
            if attempt < self.tries:
                self.sleep(attempt)
        raise CatalogUnavailable(why)


class EcsMetadata:
    """An ECS-style metadata service: the role name at ``url``, the token at ``url + role``."""

    def __init__(self, url: str, role: str | None = None, timeout: float = 10.0):
        self.url = url
        self.role = role
        self.timeout = timeout

    def changed(self) -> bool:
        return False

    def _get(self, url: str) -> bytes:
        try:
            with urllib.request.urlopen(url, timeout=self.timeout) as resp:
                return resp.read()
        except (OSError, urllib.error.URLError) as e:
            raise CatalogUnavailable(f"cannot get DLF credentials from {url}: {e}") from None

    def load(self) -> DlfToken:
        if not self.role:
            self.role = self._get(self.url).decode().strip()
            if not self.role:
                raise CatalogUnavailable(f"the metadata service at {self.url} names no role")
        try:
            return DlfToken.from_json(self._get(self.url + self.role))
        except ValueError as e:
            raise CatalogUnavailable(
                f"the metadata service at {self.url} answered no DLF token ({e})"
            ) from None


class Fixed:
    """A token given in the catalog options: loaded once, never again."""

    def __init__(self, token: DlfToken):
        self.token = token

    def changed(self) -> bool:
        return False

    def load(self) -> DlfToken:
        return self.token


Source = TokenFile | EcsMetadata | Fixed


class DlfCredentials:
    """The current token of ``source``: loaded on first use, when due (``due``) and when the
    source changed; thread-safe (one load at a time, readers see a whole token)."""

    def __init__(self, source: Source, clock: Callable[[], float] = time.time):
        self.source = source
        self.clock = clock
        self._token: DlfToken | None = None
        self._lock = threading.Lock()

    def _stale(self) -> bool:
        return due(self._token, int(self.clock() * 1000)) or self.source.changed()

    def token(self) -> DlfToken:
        if self._stale():
            with self._lock:
                if self._stale():
                    self._token = self.source.load()
        token = self._token
        if token is None:
            raise InvalidInput("no DLF token")
        return token
