"""S3 for FileIO: storage options as users write them, the s3fs and pyarrow filesystems built
from them, and the probe that tells whether the store honours conditional writes.

Options come from the caller (a ``[storage]`` table in paimon.toml, a dict from the library
user); whatever is not given falls back to the standard AWS environment (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION``/``AWS_DEFAULT_REGION``,
``AWS_ENDPOINT_URL_S3``/``AWS_ENDPOINT_URL``, profiles), which s3fs and pyarrow both read.

Accepted keys (case-insensitive, ``-`` and ``_`` alike; ``s3.`` prefixed forms as in Java Paimon):

============================  ===============================================================
``endpoint``                  ``endpoint_url``, ``s3.endpoint``: the S3 endpoint URL
``key``                       ``access_key_id``, ``aws_access_key_id``, ``access_key``, ``s3.access-key``
``secret``                    ``secret_access_key``, ``aws_secret_access_key``, ``secret_key``, ``s3.secret-key``
``token``                     ``session_token``, ``aws_session_token``
``region``                    ``region_name``, ``s3.region``
``path_style``                ``s3.path.style.access``: true for path-style addressing (most non-AWS stores)
``anon``                      true for unsigned (anonymous) access
``unsafe-commits``            true to commit on a store that ignores ``If-None-Match: *``
                              (check-then-write: safe only with a single writer)
============================  ===============================================================

Any other key (``client_kwargs``, ``config_kwargs``, ``requester_pays``, ...) goes to s3fs as is.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from paimon_core.errors import InvalidInput, PaimonError

if TYPE_CHECKING:
    from collections.abc import Callable

_ALIASES = {
    "endpoint": "endpoint",
    "endpoint_url": "endpoint",
    "s3.endpoint": "endpoint",
    "key": "key",
    "access_key_id": "key",
    "aws_access_key_id": "key",
    "access_key": "key",
    "s3.access_key": "key",
    "secret": "secret",
    "secret_access_key": "secret",
    "aws_secret_access_key": "secret",
    "secret_key": "secret",
    "s3.secret_key": "secret",
    "token": "token",
    "session_token": "token",
    "aws_session_token": "token",
    "region": "region",
    "region_name": "region",
    "s3.region": "region",
    "path_style": "path_style",
    "s3.path.style.access": "path_style",
    "s3.path_style_access": "path_style",
    "anon": "anon",
    "unsafe_commits": "unsafe_commits",
}
# storage option names this module interprets (others go to s3fs as given)
S3_STORAGE_OPTIONS = tuple(_ALIASES)


def canonical_option(raw: str) -> str | None:
    """The option ``raw`` names (``access_key_id`` -> ``key``), None for one passed to s3fs as is."""
    return _ALIASES.get(str(raw).strip().lower().replace("-", "_"))


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off", ""}


class ConditionalWriteUnsupported(PaimonError):
    """The object store ignores (or rejects) ``If-None-Match: *``: a commit there could
    silently replace another writer's snapshot, so commits are refused."""


def _bool(name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InvalidInput(f"storage option '{name}' must be true or false, not '{value}'")


@dataclass(frozen=True)
class S3Options:
    endpoint: str | None = None
    key: str | None = None
    secret: str | None = None
    token: str | None = None
    region: str | None = None
    path_style: bool | None = None
    anon: bool = False
    unsafe_commits: bool = False
    extra: dict = field(default_factory=dict)  # passed to s3fs unchanged

    @classmethod
    def parse(cls, options: dict | None) -> S3Options:
        known: dict = {}
        extra: dict = {}
        for raw, value in (options or {}).items():
            name = canonical_option(raw)
            if name is None:
                extra[raw] = value
            elif name in known:
                raise InvalidInput(f"storage option '{raw}' repeats '{name}' given under another name")
            else:
                known[name] = value
        for name in ("path_style", "anon", "unsafe_commits"):
            if name in known:
                known[name] = _bool(name, known[name])
        for name in ("endpoint", "key", "secret", "token", "region"):
            if name in known:
                known[name] = str(known[name]) if known[name] not in (None, "") else None
        client = extra.get("client_kwargs") or {}
        known.setdefault("endpoint", client.get("endpoint_url"))
        known.setdefault("region", client.get("region_name"))
        return cls(extra=extra, **known)

    def effective_endpoint(self) -> str | None:
        return self.endpoint or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")

    def effective_region(self) -> str | None:
        region = self.region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if region is None and self.effective_endpoint():
            region = "us-east-1"  # a non-AWS store: any region signs, and asking it to resolve one fails
        return region

    def s3fs_kwargs(self) -> dict:
        """Arguments for ``s3fs.S3FileSystem``. Listings are never cached: a snapshot written by
        another process must be visible to the next list/exists."""
        kw = {k: v for k, v in self.extra.items() if k not in ("client_kwargs", "config_kwargs")}
        client = dict(self.extra.get("client_kwargs") or {})
        config = {
            k: (dict(v) if isinstance(v, dict) else v)
            for k, v in (self.extra.get("config_kwargs") or {}).items()
        }
        if self.endpoint:
            client["endpoint_url"] = self.endpoint
        if self.region:
            client["region_name"] = self.region
        elif self.endpoint and not os.environ.get("AWS_REGION") and not os.environ.get("AWS_DEFAULT_REGION"):
            client.setdefault("region_name", "us-east-1")
        path_style = self.path_style
        if path_style is None and self.effective_endpoint():
            path_style = True  # a non-AWS store; pyarrow also defaults to path style there
        if path_style is not None:
            config.setdefault("s3", {})["addressing_style"] = "path" if path_style else "virtual"
        if self.key:
            kw["key"] = self.key
        if self.secret:
            kw["secret"] = self.secret
        if self.token:
            kw["token"] = self.token
        if self.anon:
            kw["anon"] = True
        if client:
            kw["client_kwargs"] = client
        if config:
            kw["config_kwargs"] = config
        kw["use_listings_cache"] = False
        return kw

    def arrow_filesystem(self, bucket: str | None = None):
        """pyarrow's native S3 filesystem with the same endpoint, credentials and addressing."""
        import pyarrow.fs as pafs

        kw: dict = {}
        endpoint = self.effective_endpoint()
        if endpoint:
            parts = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
            kw["endpoint_override"] = parts.netloc + parts.path.rstrip("/")
            kw["scheme"] = parts.scheme or "https"
            if self.path_style is False:
                kw["force_virtual_addressing"] = True
        region = self.effective_region()
        if region is None and bucket:
            try:  # AWS without a configured region: ask where the bucket lives, as s3fs does
                region = pafs.resolve_s3_region(bucket)
            except OSError:
                pass
        if region:
            kw["region"] = region
        if self.anon:
            kw["anonymous"] = True
        elif self.key and self.secret:
            kw["access_key"], kw["secret_key"] = self.key, self.secret
            if self.token:
                kw["session_token"] = self.token
        return pafs.S3FileSystem(**kw)

    def identity(self) -> str:
        """Which store these options reach (for per-store caches)."""
        return self.effective_endpoint() or f"aws:{self.effective_region() or ''}"


# ---- conditional-write probe: once per (store, bucket) and process
_probe_results: dict[tuple[str, str], str | None] = {}
_probe_lock = threading.Lock()


def probe_result(store: str, bucket: str, run: Callable[[], str | None]) -> str | None:
    """None if the store honours ``If-None-Match: *`` on ``bucket``, else the reason it does not.
    ``run`` performs the probe; its result is cached for the process."""
    key = (store, bucket)
    with _probe_lock:
        if key in _probe_results:
            return _probe_results[key]
    result = run()
    with _probe_lock:
        _probe_results.setdefault(key, result)
        return _probe_results[key]
