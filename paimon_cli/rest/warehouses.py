"""Which catalog answers a request: the server's one catalog, or one filesystem catalog per
warehouse folder under a root (``paimon rest-server --warehouse-root DIR``).

The spec's ``GET /v1/config?warehouse=W`` is how a client names its warehouse; the answer's
``prefix`` is then the first segment of every other request. Invariants: with one catalog,
every ``warehouse`` gets that catalog and the one configured prefix; with a root, ``W`` (a path
relative to the root, or an absolute path inside it) is served only when it resolves inside the
root (never ``..`` out of it), each warehouse gets a prefix of its own (``<prefix>-<hash of the
folder>``, the same on every start), and a prefix no config request has handed out is a 404.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from paimon_cli.rest.errors import RestError, bad_request
from paimon_cli.rest.service import CatalogService


class OneWarehouse:
    """Every client gets ``service`` (the server's configured catalog)."""

    def __init__(self, service: CatalogService):
        self._service = service

    def config(self, warehouse: str | None) -> dict:
        return self._service.config()

    def service(self, prefix: str) -> CatalogService:
        if prefix != self._service.prefix:
            raise RestError(404, f"unknown prefix {prefix!r}", "UNKNOWN", prefix)
        return self._service


class WarehouseRoot:
    """A filesystem catalog for each warehouse folder under ``root`` (created on first use)."""

    def __init__(
        self,
        root: Path,
        prefix: str,
        storage_options: dict | None = None,
        token_lifetime_ms: int | None = None,
    ):
        self.root = root.resolve()
        self.token_lifetime_ms = token_lifetime_ms
        self.prefix = prefix
        self.storage_options = storage_options
        self._services: dict[str, CatalogService] = {}
        self._lock = threading.Lock()

    def _folder(self, warehouse: str | None) -> Path:
        if not warehouse:
            raise bad_request("this server serves several warehouses: name one (?warehouse=PATH)")
        given = Path(warehouse)
        folder = (given if given.is_absolute() else self.root / given).resolve()
        if folder != self.root and self.root not in folder.parents:
            raise bad_request(f"warehouse {warehouse!r} is not inside this server's warehouse root")
        return folder

    def config(self, warehouse: str | None) -> dict:
        from paimon_core.catalog import FileSystemCatalog

        folder = self._folder(warehouse)
        rel = folder.relative_to(self.root).as_posix()
        prefix = f"{self.prefix}-{hashlib.sha256(rel.encode()).hexdigest()[:16]}"
        with self._lock:
            if prefix not in self._services:
                catalog = FileSystemCatalog(str(folder), self.storage_options)
                lifetime = {"token_lifetime_ms": self.token_lifetime_ms} if self.token_lifetime_ms else {}
                self._services[prefix] = CatalogService(catalog, prefix, **lifetime)
        return self._services[prefix].config()

    def service(self, prefix: str) -> CatalogService:
        with self._lock:
            found = self._services.get(prefix)
        if found is None:
            raise RestError(404, f"unknown prefix {prefix!r}: ask /v1/config first", "UNKNOWN", prefix)
        return found
