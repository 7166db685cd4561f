import pytest

from paimon_core.catalog import FileSystemCatalog


@pytest.fixture
def catalog(tmp_path):
    return FileSystemCatalog(str(tmp_path / "wh"))
