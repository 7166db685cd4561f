"""What a ``paimon rest-server`` serves and how it checks requests, as plain data.

One ``ServerConfig`` builds the application (``build_app``) in the server's own process, or in
each of its ``--workers`` processes: uvicorn starts those itself and they learn their config from
the environment variable ``CONFIG_ENV`` (JSON), which the parent sets before they start. Every
worker opens its own catalog over the same warehouse; a commit is atomic across workers because
the catalog's commit is (the snapshot file is created only if it does not exist, under the
catalog's lock where it has one), not because of anything held in one process.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette

if TYPE_CHECKING:
    from paimon_cli.rest.service import CatalogService
    from paimon_cli.rest.warehouses import WarehouseRoot

CONFIG_ENV = "PAIMON_REST_SERVER_CONFIG"


@dataclass(frozen=True)
class ServerConfig:
    prefix: str
    token_lifetime_ms: int
    auth: str = "bearer"  # bearer | dlf
    token: str | None = None
    dlf_keys: dict[str, str] = field(default_factory=dict)
    dlf_token_file: str | None = None  # a key read again when the file changes
    # one catalog (catalog type, warehouse URI and options), or every folder under warehouse_root
    catalog: str = "filesystem"
    warehouse: str | None = None
    catalog_options: dict[str, str] = field(default_factory=dict)
    storage: dict[str, str] = field(default_factory=dict)
    warehouse_root: str | None = None
    access_log: bool = False

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_env() -> ServerConfig:
        return ServerConfig(**json.loads(os.environ[CONFIG_ENV]))


def checker(config: ServerConfig):
    """The check every request must pass, or None (bearer auth without a token)."""
    from paimon_cli.rest.auth import bearer, dlf, with_key_file

    if config.auth == "dlf":
        keys = (
            with_key_file(config.dlf_keys, config.dlf_token_file)
            if config.dlf_token_file
            else config.dlf_keys
        )
        return dlf(keys)
    return bearer(config.token) if config.token else None


def served(config: ServerConfig) -> CatalogService | WarehouseRoot:
    """The warehouses registry of ``config``: one catalog service, or a warehouse root."""
    from paimon_cli.rest.service import CatalogService
    from paimon_cli.rest.warehouses import WarehouseRoot
    from paimon_core.catalog.factory import create_catalog

    if config.warehouse_root:
        return WarehouseRoot(
            Path(config.warehouse_root), config.prefix, config.storage or None, config.token_lifetime_ms
        )
    catalog = create_catalog(
        config.catalog, config.warehouse or "", config.catalog_options, config.storage or None
    )
    return CatalogService(catalog, config.prefix, config.token_lifetime_ms)


def build_app(config: ServerConfig, warehouses=None) -> Starlette:
    """The application of ``config``, over ``warehouses`` when its caller has built them."""
    from paimon_cli.rest.app import create_app

    registry = warehouses if warehouses is not None else served(config)
    return create_app(registry, checker(config), access_log=config.access_log)


def worker_app() -> Starlette:
    """The application of one ``--workers`` process (uvicorn's factory: ``--factory``)."""
    return build_app(ServerConfig.from_env())
