"""The wheel must contain every package: pyproject.toml lists packages by hand (the import name
paimon_core maps to the folder core/), so a new subpackage missing from the list would be left out."""

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _package_folders(folder: Path, name: str) -> set[str]:
    found = {name}
    for init in folder.rglob("__init__.py"):
        rel = init.parent.relative_to(folder)
        if rel.parts:
            found.add(".".join((name, *rel.parts)))
    return found


def test_every_package_folder_is_listed():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    on_disk = _package_folders(ROOT / "core", "paimon_core") | _package_folders(
        ROOT / "paimon_cli", "paimon_cli"
    )
    assert on_disk == listed


def test_every_module_folder_is_a_package():
    for top in ("core", "paimon_cli"):
        for py in (ROOT / top).rglob("*.py"):
            assert (py.parent / "__init__.py").exists(), f"{py.parent} has modules but no __init__.py"
