"""Catalog selection in the CLI's settings: flag > env > paimon.toml, option by option; the
config's [catalog] options apply to the config's catalog only."""

from __future__ import annotations

from pathlib import Path

import pytest

from paimon_cli.config import Flags, resolve
from paimon_core.catalog import FileSystemCatalog
from paimon_core.catalog.factory import create_catalog
from paimon_core.errors import InvalidInput


def _resolve(tmp_path: Path, toml: str | None, env: dict | None = None, **flags):
    if toml is not None:
        (tmp_path / "paimon.toml").write_text(toml)
    return resolve(Flags(**flags), env or {}, tmp_path, tmp_path / "home")


def test_default_is_the_filesystem_catalog(tmp_path):
    s = _resolve(tmp_path, None)
    assert (s.catalog, s.catalog_options) == ("filesystem", {})
    assert isinstance(create_catalog(s.catalog, str(tmp_path), s.catalog_options), FileSystemCatalog)


def test_precedence(tmp_path):
    toml = '[catalog]\ntype = "jdbc"\nuri = "sqlite:///a.db"\n"lock.enabled" = true\n"catalog-key" = "k1"\n'
    s = _resolve(tmp_path, toml)
    assert s.catalog == "jdbc"
    assert s.catalog_options == {"uri": "sqlite:///a.db", "lock.enabled": "true", "catalog-key": "k1"}
    s = _resolve(tmp_path, toml, {"PAIMON_CATALOG_URI": "sqlite:///b.db"}, catalog_option=("catalog-key=k2",))
    assert s.catalog_options == {"uri": "sqlite:///b.db", "lock.enabled": "true", "catalog-key": "k2"}
    s = _resolve(tmp_path, toml, {"PAIMON_CATALOG": "filesystem"})
    assert (s.catalog, s.catalog_options) == ("filesystem", {})  # jdbc's options stay with jdbc
    s = _resolve(tmp_path, 'catalog = "hive"\n', catalog_option=("uri=thrift://h:9083",))
    assert (s.catalog, s.catalog_options) == ("hive", {"uri": "thrift://h:9083"})


def test_unknown_catalogs_and_options_are_refused(tmp_path):
    with pytest.raises(InvalidInput, match="unknown catalog 'glue'"):
        create_catalog("glue", str(tmp_path))
    with pytest.raises(InvalidInput, match="unknown jdbc catalog option.*client-pool"):
        create_catalog("jdbc", str(tmp_path), {"uri": f"sqlite://{tmp_path}/c.db", "client-pool": "2"})
    with pytest.raises(InvalidInput, match="needs a uri"):
        create_catalog("jdbc", str(tmp_path), {})
    with pytest.raises(InvalidInput, match="takes no catalog options"):
        create_catalog("filesystem", str(tmp_path), {"uri": "x"})
