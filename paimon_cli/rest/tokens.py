"""The table tokens the server vends (``GET .../tables/T/token``): the storage credentials of the
table's warehouse, valid for ``lifetime_ms``.

What is vended: for an S3 warehouse served with credentials (``--storage`` key and secret), those
credentials, the endpoint, region and path style under Paimon's token keys (pypaimon's
``fs.s3.*`` and Java's ``fs.s3a.*``), so a client with ``data-token.enabled`` needs no storage
settings of its own; for a local warehouse, or one reached through the environment's
credentials, an empty token. Invariants: ``expiresAt`` is always ``now + lifetime_ms``; the
server mints nothing (no STS), so a token is as powerful as the server's own storage access:
serve tokens to trusted clients only (a bearer token or DLF signatures in front).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paimon_core.storage.file_io import FileIO

DEFAULT_LIFETIME_MS = 3_600_000


def storage_token(io: FileIO) -> dict[str, str]:
    """The token keys for the credentials ``io`` reaches its storage with (empty: none to give)."""
    if not io.is_s3:
        return {}
    o = io.s3_options
    if not (o.key and o.secret):
        return {}
    token = {
        "fs.s3.accessKeyId": o.key,
        "fs.s3.accessKeySecret": o.secret,
        "fs.s3a.access-key": o.key,
        "fs.s3a.secret-key": o.secret,
    }
    if o.token:
        token.update({"fs.s3.securityToken": o.token, "fs.s3a.session-token": o.token})
    endpoint, region = o.effective_endpoint(), o.effective_region()
    if endpoint:
        token.update({"fs.s3.endpoint": endpoint, "fs.s3a.endpoint": endpoint})
    if region:
        token.update({"fs.s3.region": region, "fs.s3a.endpoint.region": region})
    if o.path_style is not None:
        token["fs.s3a.path.style.access"] = str(o.path_style).lower()
    return token


def table_token(io: FileIO, lifetime_ms: int = DEFAULT_LIFETIME_MS) -> dict:
    """The spec's ``GetTableTokenResponse`` for a table stored through ``io``: the expiry under the
    spec's ``expiresAt`` and under ``expiresAtMillis``, the key Java Paimon and pypaimon read."""
    expires = int(time.time() * 1000) + lifetime_ms
    return {"token": storage_token(io), "expiresAt": expires, "expiresAtMillis": expires}
